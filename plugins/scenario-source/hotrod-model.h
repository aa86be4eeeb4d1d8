/* SPDX-License-Identifier: MIT */
/*
 * Internals of the `hotrod` preset shared by its files: the service graph,
 * requests, jobs (server invocations and their programs), thread roles and
 * service instances.  sim-hotrod.c: request stream and set-up;
 * hotrod-requests.c: spans, calls and the worker behaviour;
 * hotrod-daemons.c: background threads and the injected causes.
 */
#ifndef DEEPSPAN_SCENARIO_HOTROD_MODEL_H
#define DEEPSPAN_SCENARIO_HOTROD_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim-hotrod.h"
#include "sim.h"

/*
 * Thread behaviours are resumable functions (protothreads): SIM_CO_YIELD
 * returns a step to the kernel and resumes right after it the next time
 * the thread runs.  Locals that live across a yield are kept in the thread
 * (`i`, `n`, `arg`, `job`).  Do not put two yields on one line, nor a
 * yield inside a `switch`.
 */
#define SIM_CO_BEGIN(t) switch ((t)->pc) { case 0:
#define SIM_CO_YIELD(t, step) do { (t)->pc = __LINE__; return (step); case __LINE__:; } while (0)
#define SIM_CO_END(t) } (t)->pc = 0; return step_exit()

enum hr_service {
	HR_FRONTEND, HR_CUSTOMER, HR_DRIVER, HR_ROUTE, HR_MYSQL, HR_REDIS,
	HR_SERVICES,
};

#define HR_MAX_INSTANCES 2
#define HR_MAX_OPS 12
#define HR_HELPERS 6
#define HR_HOGS_PER_CPU 4
#define HR_ROUTE_FANOUT 3
#define HR_GET_DRIVER_CALLS 4
#define HR_LOCK_ADDR UINT64_C(0x7f3a5c0012a8)

struct hr_service_desc {
	const char *name;	/* service name (spans) */
	const char *comm;	/* process / thread name */
	uint16_t port;
	unsigned int workers;
};

extern const struct hr_service_desc hr_services[HR_SERVICES];

enum hr_op_kind {
	HR_OP_COMPUTE,		/* user CPU for `ns` */
	HR_OP_CALL,		/* client call to `service`/`operation` */
	HR_OP_PAR_CALLS,	/* `count` parallel client calls on helper threads */
	HR_OP_CACHED_READ,	/* pread64 served from the page cache */
	HR_OP_DISK_READ,	/* pread64 waiting for the disk for about `ns` (count 1: through the device queue) */
	HR_OP_LOCK,		/* futex wait until the lock holder releases */
	HR_OP_STORM,		/* an irq storm on the thread's CPU */
	HR_OP_HOG,		/* wake the noisy neighbour on the route hosts for `ns` */
	HR_OP_DEADLOCK,		/* cause deadlock: wait for the replica, which waits for this thread */
	HR_OP_BACKUP,		/* disk-contention: wake backup.sh on this host for one burst of writes */
};

#define HR_LOCK_HOGS 3
#define HR_REMOTE_CALL_INDEX 99	/* call_index of the lock holder's remote call (lock-remote) */

struct hr_op {
	enum hr_op_kind kind;
	int64_t ns;
	enum hr_service service;
	const char *operation;	/* borrowed (interned) */
	uint32_t req_bytes, resp_bytes;
	unsigned int count;
};

struct hr_request;
struct hr_instance;

/* A server invocation (or a helper's task): what to do, for which request, reply where. */
struct hr_job {
	struct hr_request *req;		/* borrowed */
	enum hr_service service;
	struct hr_instance *inst;	/* borrowed: serving instance */
	const char *operation;		/* borrowed (interned) */
	uint64_t parent_span_id;
	struct sim_conn *conn;		/* borrowed: connection the call came on */
	uint32_t req_bytes, resp_bytes;
	struct hr_op ops[HR_MAX_OPS];
	unsigned int nops;
	/* client side of a call */
	struct sim_thread *caller;	/* borrowed */
	bool replied;
	bool untraced;			/* no spans on either side (the lock holder's remote call) */
	/* parallel fan-out (helper tasks) */
	struct sim_thread *parent_thread;	/* borrowed */
	unsigned int *pending;		/* borrowed: parent's outstanding tasks */
	struct hr_job *next;		/* borrowed: queue / free list */
};

struct hr_request {
	uint64_t index;
	uint64_t trace_id_high, trace_id_low;
	enum sim_cause cause;
	bool slow;
	unsigned int slot;		/* external connection slot */
	int64_t root_begin;		/* local ts of the root span's start */
	const struct sim_thread *culprit;	/* borrowed: chain causes: the thread the cause injects */
	const struct sim_thread *cycle_peer;	/* borrowed: deadlock: the other thread of the cycle */
	struct hr_request *next_free;
};

struct hr_job_queue {
	struct hr_job *head, *tail;	/* borrowed */
};

struct hr_thread_role {
	enum { HR_ROLE_WORKER, HR_ROLE_HELPER, HR_ROLE_HOLDER, HR_ROLE_HOG, HR_ROLE_DAEMON, HR_ROLE_SHELL } kind;
	struct hr_instance *inst;	/* borrowed */
	struct sim_conn *conns[HR_SERVICES][HR_MAX_INSTANCES];	/* owned, lazily */
	unsigned int next_instance[HR_SERVICES];
	struct hr_thread_role *next_idle;	/* borrowed */
	bool idle;			/* in its instance's idle list (holder: waiting for work) */
	bool timer_armed;		/* holder: a wake-up timer is pending */
	int64_t period, run_ns;		/* daemon */
	unsigned int pending;		/* parallel tasks outstanding */
	struct sim_span *call_span;	/* borrowed: open client span */
	struct hr_job *call;		/* borrowed: job sent by the current call */
	struct sim_thread *thread;	/* borrowed */
	struct sim_thread *child;	/* borrowed: shell's running child */
	struct hr_thread_role *all_next;	/* owned list link */
};

struct hr_instance {
	enum hr_service service;
	unsigned int host;
	struct sim_process *proc;	/* owned */
	struct hr_thread_role *idle;	/* borrowed: idle workers */
	struct hr_job_queue backlog;
	struct hr_job_queue tasks;	/* helper tasks (frontend) */
	struct hr_thread_role *idle_helpers;	/* borrowed */
	struct sim_thread *holder;	/* borrowed: mysql lock holder thread */
	uint64_t lock_rounds_wanted, lock_rounds_done;
	struct sim_thread *lock_waiters[16];	/* borrowed */
	unsigned int nlock_waiters;
	int64_t hold_ns;
	enum sim_cause lock_mode;	/* the cause of the current lock round */
	struct hr_request *lock_req;	/* borrowed: the request whose worker waits for the round */
	uint64_t lock_parent_span;	/* the waiting span (parent of the holder's remote call) */
	struct hr_op remote_op;		/* lock-remote: the holder's call */
	bool hogging;			/* lock-hog: the hogs run */
	struct sim_thread *first_worker;	/* borrowed: its first worker (redis: its only one) */
};

struct sim_hotrod {
	struct hr_instance inst[HR_SERVICES][HR_MAX_INSTANCES];
	unsigned int ninst[HR_SERVICES];
	struct sim_process *hog_proc[SIM_MAX_HOSTS];	/* owned */
	struct sim_thread *hogs[SIM_MAX_HOSTS][HR_HOGS_PER_CPU * SIM_MAX_CPUS];	/* borrowed */
	int64_t hog_until[SIM_MAX_HOSTS];
	struct sim_process *daemons[SIM_MAX_HOSTS][3];	/* borrowed (hosts own processes) */
	struct hr_thread_role *roles;	/* owned list */
	struct sim_conn *ext_conns;	/* owned array [max_inflight] */
	struct hr_request *free_requests;	/* owned free list */
	struct hr_job *free_jobs;	/* owned free list */
	struct sim_span *free_spans;	/* owned free list */
	struct sim_rng rng;		/* workload randomness */
	uint64_t issued, completed, inflight;
	uint64_t waiting_arrivals;	/* arrived while every slot was busy */
	unsigned int next_frontend;
	bool *slot_busy;		/* owned [max_inflight] */
	/* chain causes (threads created only when the cause asks for them) */
	struct sim_thread *lock_hogs[HR_LOCK_HOGS];	/* borrowed: lock-hog, on the mysql host */
	struct sim_thread *replica;	/* borrowed: deadlock: the replica thread (redis host) */
	struct sim_conn *dl_conn;	/* owned: deadlock: mysql worker (side 0) <-> replica (side 1) */
	struct hr_request *dl_req;	/* borrowed: the deadlocked request (never completes) */
	struct sim_thread *dl_worker;	/* borrowed: its mysql worker */
	bool dl_drawn, dl_request, dl_reply;
	uint64_t stuck;			/* requests that never complete (deadlock) */
	struct sim_thread *backup[SIM_MAX_HOSTS];	/* borrowed: disk-contention: backup.sh on a mysql host */
	unsigned int backup_pending[SIM_MAX_HOSTS];	/* bursts asked for, not yet submitted */
};

/* The preset's state (sim->preset_state, created by sim-hotrod.c). */
static inline struct sim_hotrod *hr_state(const struct sim *sim)
{
	return sim->preset_state;
}

enum hr_action {
	HR_ACT_ARRIVAL = SIM_ACT_WORKLOAD,
};



static inline struct sim_step step_run(int64_t ns)
{
	return (struct sim_step) { .kind = SIM_STEP_RUN, .ns = ns };
}

static inline struct sim_step step_block(int64_t state)
{
	return (struct sim_step) { .kind = SIM_STEP_BLOCK, .state = state };
}

static inline struct sim_step step_exit(void)
{
	return (struct sim_step) { .kind = SIM_STEP_EXIT };
}

/* hotrod-requests.c */
struct hr_job *hr_job_new(struct sim *sim);
void hr_build_program(struct sim *sim, struct hr_job *job, unsigned int call_index);
void hr_deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu);
/*
 * Opens `conn` from `client_host` (-1: outside the traced hosts) at `client_ip`:`client_port` to
 * instance `inst` of `service`: random initial sequence numbers (the client's drawn first), delivered
 * by hr_deliver.
 */
void hr_conn_init(struct sim *sim, struct sim_conn *conn, int client_host, uint32_t client_ip,
		uint16_t client_port, struct hr_instance *inst, enum hr_service service);
void hr_make_idle(struct sim_thread *t);
struct sim_step hr_worker_fn(struct sim *sim, struct sim_thread *t);
void hr_sys_quick(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *entry, const char *string, const int64_t *exit);
uint64_t hr_user_buffer(const struct sim_thread *t);

/* hotrod-daemons.c */
struct sim_step hr_holder_fn(struct sim *sim, struct sim_thread *t);
struct sim_step hr_hog_fn(struct sim *sim, struct sim_thread *t);
struct sim_step hr_daemon_fn(struct sim *sim, struct sim_thread *t);
struct sim_step hr_shell_fn(struct sim *sim, struct sim_thread *t);
void hr_trigger_hog(struct sim *sim, int64_t duration);
void hr_lock_trigger(struct sim *sim, struct sim_thread *waiter, struct hr_instance *inst, int64_t hold);
struct sim_step hr_lock_hog_fn(struct sim *sim, struct sim_thread *t);
struct sim_step hr_replica_fn(struct sim *sim, struct sim_thread *t);
struct sim_step hr_backup_fn(struct sim *sim, struct sim_thread *t);
/* disk-contention: backup.sh on the host of `t` submits a burst of writes; it is the request's culprit. */
void hr_trigger_backup(struct sim *sim, struct sim_thread *t);
void hr_dl_deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu);

/* hotrod-requests.c: the lock holder's remote call (lock-remote) */
void hr_holder_call_begin(struct sim *sim, struct sim_thread *t);
void hr_holder_call_sent(struct sim *sim, struct sim_thread *t);
void hr_holder_call_receive(struct sim *sim, struct sim_thread *t);

/* sim-hotrod.c */
void hr_request_done(struct sim *sim, struct hr_request *req, const struct sim_span *root);

#endif /* DEEPSPAN_SCENARIO_HOTROD_MODEL_H */
