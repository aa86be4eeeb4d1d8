#include "sim-hotrod.h"

#include <stdlib.h>
#include <string.h>

#include "sim-truth.h"
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

static const struct hr_service_desc services[HR_SERVICES] = {
	[HR_FRONTEND] = { "frontend", "frontend", 8080, 4 },
	[HR_CUSTOMER] = { "customer", "customer", 8081, 3 },
	[HR_DRIVER] = { "driver", "driver", 8082, 3 },
	[HR_ROUTE] = { "route", "route", 8083, 4 },
	[HR_MYSQL] = { "mysql", "mysqld", 3306, 4 },
	[HR_REDIS] = { "redis", "redis-server", 6379, 1 },
};

enum hr_op_kind {
	HR_OP_COMPUTE,		/* user CPU for `ns` */
	HR_OP_CALL,		/* client call to `service`/`operation` */
	HR_OP_PAR_CALLS,	/* `count` parallel client calls on helper threads */
	HR_OP_CACHED_READ,	/* pread64 served from the page cache */
	HR_OP_DISK_READ,	/* pread64 waiting for the disk for about `ns` */
	HR_OP_LOCK,		/* futex wait until the lock holder releases */
	HR_OP_STORM,		/* an irq storm on the thread's CPU */
	HR_OP_HOG,		/* wake the noisy neighbour on the route hosts for `ns` */
};

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
	uint32_t resp_bytes;
	struct hr_op ops[HR_MAX_OPS];
	unsigned int nops;
	/* client side of a call */
	struct sim_thread *caller;	/* borrowed */
	bool replied;
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
	struct hr_request *next_free;
};

struct hr_job_queue {
	struct hr_job *head, *tail;	/* borrowed */
};

struct hr_thread_role {
	enum { HR_ROLE_WORKER, HR_ROLE_HELPER, HR_ROLE_HOLDER, HR_ROLE_HOG, HR_ROLE_DAEMON } kind;
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
};

struct sim_hotrod {
	struct hr_instance inst[HR_SERVICES][HR_MAX_INSTANCES];
	unsigned int ninst[HR_SERVICES];
	struct sim_process *hog_proc[SIM_MAX_HOSTS];	/* owned */
	struct sim_thread *hogs[SIM_MAX_HOSTS][HR_HOGS_PER_CPU * SIM_MAX_CPUS];	/* borrowed */
	int64_t hog_until[SIM_MAX_HOSTS];
	struct sim_process *daemons[SIM_MAX_HOSTS][2];	/* owned */
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
};

enum hr_action {
	HR_ACT_ARRIVAL = SIM_ACT_WORKLOAD,
};

static const enum hr_service placement_order[HR_SERVICES] = {
	HR_FRONTEND, HR_CUSTOMER, HR_DRIVER, HR_ROUTE, HR_MYSQL, HR_REDIS,
};

const char *sim_hotrod_host_name(unsigned int index, unsigned int hosts)
{
	static const char *const names[2 * SIM_MAX_HOSTS] = {
		"frontend", "customer", "driver", "route", "mysql", "redis",
		"frontend-2", "customer-2", "driver-2", "route-2", "mysql-2", "redis-2",
	};

	(void) hosts;
	return names[index % (2 * SIM_MAX_HOSTS)];
}

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

/* ---- pools ---- */

static struct hr_job *job_new(struct sim *sim)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct hr_job *job = hr->free_jobs;

	if (job) {
		hr->free_jobs = job->next;
	} else {
		job = sim_pool_alloc(sim, sizeof(*job));
		if (!job) {
			return NULL;
		}
	}
	memset(job, 0, sizeof(*job));
	return job;
}

static void job_free(struct sim *sim, struct hr_job *job)
{
	job->next = sim->hotrod->free_jobs;
	sim->hotrod->free_jobs = job;
}

static struct sim_span *span_new(struct sim *sim)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct sim_span *span = hr->free_spans;

	if (span) {
		hr->free_spans = span->next_free;
	} else {
		span = sim_pool_alloc(sim, sizeof(*span));
		if (!span) {
			return NULL;
		}
	}
	memset(span, 0, sizeof(*span));
	return span;
}

static void span_free(struct sim *sim, struct sim_span *span)
{
	span->next_free = sim->hotrod->free_spans;
	sim->hotrod->free_spans = span;
}

static void queue_push(struct hr_job_queue *queue, struct hr_job *job)
{
	job->next = NULL;
	if (queue->tail) {
		queue->tail->next = job;
	} else {
		queue->head = job;
	}
	queue->tail = job;
}

static struct hr_job *queue_pop(struct hr_job_queue *queue)
{
	struct hr_job *job = queue->head;

	if (job) {
		queue->head = job->next;
		if (!queue->head) {
			queue->tail = NULL;
		}
		job->next = NULL;
	}
	return job;
}

/* ---- spans ---- */

static uint64_t new_span_id(struct sim *sim)
{
	uint64_t id;

	do {
		id = sim_rng_next(&sim->hotrod->rng);
	} while (id == 0);
	return id;
}

static struct sim_span *span_start(struct sim *sim, struct sim_thread *t, struct hr_request *req,
		uint64_t parent, enum hr_service service, const char *operation, uint8_t kind)
{
	struct sim_span *span = span_new(sim);
	struct sim_record *rec;

	if (!span) {
		return NULL;
	}
	span->trace_id_high = req->trace_id_high;
	span->trace_id_low = req->trace_id_low;
	span->span_id = new_span_id(sim);
	span->parent_span_id = parent;
	span->host = t->host;
	span->service = sim_intern(sim, services[service].name);
	span->operation = operation;
	span->pid = t->proc->pid;
	span->tid = t->tid;
	span->kind = kind;
	span->request = req;
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec = sim_emit_thread(sim, t, SIM_EV_JAEGER_START_SPAN);
		rec->v[0] = (int64_t) span->trace_id_high;
		rec->v[1] = (int64_t) span->trace_id_low;
		rec->v[2] = (int64_t) span->span_id;
		rec->v[3] = (int64_t) parent;
		rec->s[0] = operation;
		rec->v[4] = rec->ts / 1000;	/* start_time: microseconds since the epoch */
	} else {
		rec = sim_emit_thread(sim, t, SIM_EV_DS_SPAN_START);
		rec->v[0] = (int64_t) span->trace_id_high;
		rec->v[1] = (int64_t) span->trace_id_low;
		rec->v[2] = (int64_t) span->span_id;
		rec->v[3] = (int64_t) parent;
		rec->s[0] = span->service;
		rec->s[1] = operation;
		rec->v[4] = kind;
	}
	sim_book_span_start(&t->book, span, rec->ts);
	return span;
}

static void request_done(struct sim *sim, struct hr_request *req, const struct sim_span *root);

static void span_end(struct sim *sim, struct sim_thread *t)
{
	struct sim_span *open = t->book.spans;
	struct sim_record *rec;
	struct sim_span *span;

	if (!open) {
		return;
	}
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec = sim_emit_thread(sim, t, SIM_EV_JAEGER_END_SPAN);
		rec->v[3] = 0;
	} else {
		rec = sim_emit_thread(sim, t, SIM_EV_DS_SPAN_END);
		rec->v[3] = 1;	/* status ok */
	}
	rec->v[0] = (int64_t) open->trace_id_high;
	rec->v[1] = (int64_t) open->trace_id_low;
	rec->v[2] = (int64_t) open->span_id;
	span = sim_book_span_end(&t->book, rec->ts);
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec->v[3] = span->end - span->begin;
	}
	if (sim->truth) {
		sim_truth_span(sim->truth, sim, span);
	}
	if (span->parent_span_id == 0) {
		request_done(sim, span->request, span);
	}
	span_free(sim, span);
}

/* ---- syscall helpers ---- */

static void sys_quick(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *entry, const char *string, const int64_t *exit)
{
	sim_syscall_entry(sim, t, sys, entry, string);
	sim_syscall_exit(sim, t, sys, exit);
}

static uint64_t user_buffer(const struct sim_thread *t)
{
	return UINT64_C(0xc000100000) + (uint64_t) t->tid * 0x10000;
}

/* ---- connections ---- */

static void deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu);

static struct sim_conn *conn_for(struct sim *sim, struct sim_thread *t, enum hr_service service,
		struct hr_instance **inst_out)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct hr_thread_role *role = t->role;
	unsigned int which = role->next_instance[service]++ % hr->ninst[service];
	struct hr_instance *inst = &hr->inst[service][which];
	struct sim_conn *conn = role->conns[service][which];
	struct sim_host *host = &sim->host[t->host];

	*inst_out = inst;
	if (conn) {
		return conn;
	}
	conn = calloc(1, sizeof(*conn));
	if (!conn) {
		sim_fail(sim, "out of memory creating a connection");
		return NULL;
	}
	conn->host[0] = (int) t->host;
	conn->host[1] = (int) inst->host;
	conn->ip[0] = host->ip;
	conn->ip[1] = sim->host[inst->host].ip;
	conn->port[0] = host->next_port++;
	conn->port[1] = services[service].port;
	conn->snd_nxt[0] = (uint32_t) sim_rng_next(&hr->rng);
	conn->snd_nxt[1] = (uint32_t) sim_rng_next(&hr->rng);
	conn->rcv_nxt[0] = conn->snd_nxt[1];
	conn->rcv_nxt[1] = conn->snd_nxt[0];
	conn->deliver = deliver;
	conn->owner = inst;
	role->conns[service][which] = conn;
	return conn;
}

/* ---- job programs ---- */

static void add_op(struct hr_job *job, struct hr_op op)
{
	if (job->nops < HR_MAX_OPS) {
		job->ops[job->nops++] = op;
	}
}

static int64_t jitter(struct sim *sim, int64_t mean)
{
	return sim_rng_jitter(&sim->hotrod->rng, mean, 0.35);
}

static struct hr_op op_compute(struct sim *sim, int64_t mean)
{
	return (struct hr_op) { .kind = HR_OP_COMPUTE, .ns = jitter(sim, mean) };
}

/* `index` tells calls of one program apart (0 = first). */
static struct hr_op op_call(struct sim *sim, enum hr_service service, const char *operation,
		uint32_t req_bytes, uint32_t resp_bytes, unsigned int index)
{
	return (struct hr_op) { .kind = HR_OP_CALL, .service = service,
		.operation = sim_intern(sim, operation), .req_bytes = req_bytes,
		.resp_bytes = resp_bytes, .count = index };
}

/* Fills the program of a server job for `service`/`operation` of `req`. */
static void build_program(struct sim *sim, struct hr_job *job, unsigned int call_index)
{
	struct hr_request *req = job->req;
	enum sim_cause cause = req->slow ? req->cause : SIM_CAUSE_NONE;
	unsigned int i;

	switch (job->service) {
	case HR_FRONTEND:
		add_op(job, op_compute(sim, 120000));
		add_op(job, op_call(sim, HR_CUSTOMER, "HTTP GET /customer", 220, 480, 0));
		add_op(job, op_compute(sim, 40000));
		add_op(job, op_call(sim, HR_DRIVER, "FindNearest", 300, 2900, 0));
		if (cause == SIM_CAUSE_CPU) {
			add_op(job, (struct hr_op) { .kind = HR_OP_HOG,
				.ns = sim_rng_range(&sim->hotrod->rng, 12000000, 18000000) });
		}
		add_op(job, (struct hr_op) { .kind = HR_OP_PAR_CALLS, .service = HR_ROUTE,
			.operation = sim_intern(sim, "HTTP GET /route"), .req_bytes = 250,
				.resp_bytes = 1200, .count = HR_ROUTE_FANOUT });
		add_op(job, op_compute(sim, 80000));
		job->resp_bytes = 1900;
		break;
	case HR_CUSTOMER:
		add_op(job, op_compute(sim, 60000));
		add_op(job, op_call(sim, HR_MYSQL, "SQL SELECT", 180, 600, 0));
		add_op(job, op_compute(sim, 30000));
		job->resp_bytes = 480;
		break;
	case HR_MYSQL:
		add_op(job, op_compute(sim, 40000));
		if (cause == SIM_CAUSE_LOCK) {
			add_op(job, (struct hr_op) { .kind = HR_OP_LOCK,
				.ns = sim_rng_range(&sim->hotrod->rng, 20000000, 40000000) });
		}
		if (cause == SIM_CAUSE_DISK) {
			add_op(job, (struct hr_op) { .kind = HR_OP_DISK_READ,
				.ns = sim_rng_range(&sim->hotrod->rng, 15000000, 30000000) });
		} else {
			add_op(job, (struct hr_op) { .kind = HR_OP_CACHED_READ });
		}
		add_op(job, op_compute(sim, 150000));
		job->resp_bytes = 600;
		break;
	case HR_DRIVER:
		add_op(job, op_compute(sim, 50000));
		add_op(job, op_call(sim, HR_REDIS, "FindDriverIDs", 120, 400, 0));
		add_op(job, op_compute(sim, 20000));
		for (i = 0; i < HR_GET_DRIVER_CALLS; i++) {
			add_op(job, op_call(sim, HR_REDIS, "GetDriver", 90, 250, i + 1));
		}
		add_op(job, op_compute(sim, 40000));
		job->resp_bytes = 2900;
		break;
	case HR_REDIS:
		if (cause == SIM_CAUSE_IRQ && call_index == 1) {
			add_op(job, (struct hr_op) { .kind = HR_OP_STORM, .count = 400 });
			add_op(job, op_compute(sim, 400000));
		} else {
			add_op(job, op_compute(sim, call_index == 0 ? 60000 : 120000));
		}
		job->resp_bytes = 250;
		break;
	case HR_ROUTE:
		add_op(job, op_compute(sim, 1500000));
		job->resp_bytes = 1200;
		break;
	default:
		break;
	}
}

/* ---- service side ---- */

static void assign_job(struct sim *sim, struct hr_instance *inst, struct hr_job *job, unsigned int cpu)
{
	struct hr_thread_role *worker = inst->idle;

	job->inst = inst;
	if (!worker) {
		queue_push(&inst->backlog, job);
		return;
	}
	inst->idle = worker->next_idle;
	worker->next_idle = NULL;
	worker->idle = false;
	worker->thread->job = job;
	sim_wake(sim, worker->thread, cpu);
}

static void deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu)
{
	struct hr_job *job = msg;

	if (dir == 0) {
		assign_job(sim, conn->owner, job, cpu);
		return;
	}
	job->replied = true;
	sim_wake(sim, job->caller, cpu);
}

static struct hr_job *take_job(struct hr_instance *inst, struct sim_thread *t)
{
	struct hr_job *job = t->job;

	if (job) {
		t->job = NULL;
		return job;
	}
	return queue_pop(&inst->backlog);
}

/* ---- the worker / helper behaviour ---- */

static struct sim_step worker_fn(struct sim *sim, struct sim_thread *t);

static void call_send(struct sim *sim, struct sim_thread *t, const struct hr_op *op,
		struct hr_request *req, uint64_t parent_span_id, unsigned int call_index)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst;
	struct sim_conn *conn = conn_for(sim, t, op->service, &inst);
	struct hr_job *job = job_new(sim);
	int64_t entry[6], exit_values[1];

	if (!conn || !job) {
		return;
	}
	role->call_span = span_start(sim, t, req, parent_span_id, role->inst->service,
		op->operation, 2);
	job->req = req;
	job->service = op->service;
	job->operation = op->operation;
	job->parent_span_id = role->call_span ? role->call_span->span_id : 0;
	job->conn = conn;
	job->caller = t;
	build_program(sim, job, call_index);
	role->call = job;
	entry[0] = 7 + op->service;
	entry[1] = (int64_t) user_buffer(t);
	entry[2] = op->req_bytes;
	entry[3] = 0;
	entry[4] = 0;
	entry[5] = 0;
	sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
	sim_tcp_send(sim, t, conn, 0, op->req_bytes, job);
	exit_values[0] = op->req_bytes;
	sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	entry[0] = 7 + op->service;
	entry[1] = 65536;
	entry[2] = 0;
	entry[3] = 0;
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, entry, NULL);
}

static void call_receive(struct sim *sim, struct sim_thread *t, uint32_t bytes)
{
	struct hr_thread_role *role = t->role;
	int64_t exit_values[4] = { bytes, (int64_t) user_buffer(t), 0, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_RECVFROM, exit_values);
	span_end(sim, t);
	role->call_span = NULL;
	job_free(sim, role->call);
	role->call = NULL;
}

static void dispatch_tasks(struct sim *sim, struct sim_thread *t, const struct hr_op *op,
		struct hr_job *parent)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst = role->inst;
	int64_t entry[6] = { (int64_t) HR_LOCK_ADDR + 64, 129, 1, 0, 0, 0 };
	int64_t exit_values[3] = { 0, (int64_t) HR_LOCK_ADDR + 64, 0 };
	unsigned int i;

	role->pending = op->count;
	for (i = 0; i < op->count; i++) {
		struct hr_job *task = job_new(sim);
		struct hr_thread_role *helper;

		if (!task) {
			return;
		}
		task->req = parent->req;
		task->ops[0] = *op;
		task->ops[0].kind = HR_OP_CALL;
		task->ops[0].count = i;
		task->nops = 1;
		task->parent_span_id = t->book.spans ? t->book.spans->span_id : 0;
		task->parent_thread = t;
		task->pending = &role->pending;
		helper = inst->idle_helpers;
		if (helper) {
			inst->idle_helpers = helper->next_idle;
			helper->next_idle = NULL;
			helper->idle = false;
			helper->thread->job = task;
			/* FUTEX_WAKE_PRIVATE on the helper's condition variable */
			sim_syscall_entry(sim, t, SIM_SYS_FUTEX, entry, NULL);
			sim_wake(sim, helper->thread, t->cpu);
			exit_values[0] = 1;
			sim_syscall_exit(sim, t, SIM_SYS_FUTEX, exit_values);
		} else {
			queue_push(&inst->tasks, task);
		}
	}
}

static void task_done(struct sim *sim, struct sim_thread *t, struct hr_job *task)
{
	int64_t entry[6] = { (int64_t) HR_LOCK_ADDR + 128, 129, 1, 0, 0, 0 };
	int64_t exit_values[3] = { 1, (int64_t) HR_LOCK_ADDR + 128, 0 };

	if (--*task->pending == 0) {
		sim_syscall_entry(sim, t, SIM_SYS_FUTEX, entry, NULL);
		sim_wake(sim, task->parent_thread, t->cpu);
		sim_syscall_exit(sim, t, SIM_SYS_FUTEX, exit_values);
	}
}

static void trigger_hog(struct sim *sim, int64_t duration)
{
	struct sim_hotrod *hr = sim->hotrod;
	unsigned int i, c;

	for (i = 0; i < hr->ninst[HR_ROUTE]; i++) {
		unsigned int h = hr->inst[HR_ROUTE][i].host;
		int64_t until = sim_host_now(sim, h) + duration;

		if (until > hr->hog_until[h]) {
			hr->hog_until[h] = until;
		}
		for (c = 0; c < HR_HOGS_PER_CPU * sim->host[h].ncpus && c < HR_HOGS_PER_CPU * SIM_MAX_CPUS; c++) {
			struct sim_thread *hog = hr->hogs[h][c];

			if (hog && hog->run == SIM_T_BLOCKED) {
				sim_timer_wake(sim, hog, 20000 + 3000 * c);
			}
		}
	}
}

static void lock_trigger(struct sim *sim, struct hr_instance *inst, int64_t hold)
{
	struct hr_thread_role *holder = inst->holder->role;

	inst->lock_rounds_wanted++;
	inst->hold_ns = hold;
	if (holder->idle && !holder->timer_armed) {
		holder->timer_armed = true;
		sim_timer_wake(sim, inst->holder, 2000);
	}
}

static void server_begin(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t exit_epoll[3] = { 1, 1, 7 + job->service };
	int64_t recv_entry[4] = { 7 + job->service, 65536, 0, 0 };
	int64_t recv_exit[4] = { 256, (int64_t) user_buffer(t), 0, 0 };
	struct hr_thread_role *role = t->role;

	sim_syscall_exit(sim, t, SIM_SYS_EPOLL_WAIT, exit_epoll);
	sys_quick(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL, recv_exit);
	(void) span_start(sim, t, job->req, job->parent_span_id, role->inst->service,
		job->operation, 1);
}

static void server_end(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t entry[6] = { 7 + job->service, (int64_t) user_buffer(t), job->resp_bytes, 0, 0, 0 };
	int64_t exit_values[1] = { job->resp_bytes };

	span_end(sim, t);
	sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
	sim_tcp_send(sim, t, job->conn, 1, job->resp_bytes, job);
	sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	if (job->conn->host[0] < 0) {
		job_free(sim, job);	/* nobody traced waits for this reply */
	}
}

static void idle_begin(struct sim *sim, struct sim_thread *t)
{
	int64_t entry[3] = { 3, 64, -1 };

	sim_syscall_entry(sim, t, SIM_SYS_EPOLL_WAIT, entry, NULL);
}

static void make_idle(struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;

	if (role->idle) {
		return;
	}
	role->idle = true;
	if (role->kind == HR_ROLE_HELPER) {
		role->next_idle = role->inst->idle_helpers;
		role->inst->idle_helpers = role;
	} else {
		role->next_idle = role->inst->idle;
		role->inst->idle = role;
	}
}

static struct hr_job *take_task(struct hr_instance *inst, struct sim_thread *t)
{
	struct hr_job *job = t->job;

	if (job) {
		t->job = NULL;
		return job;
	}
	return queue_pop(&inst->tasks);
}

static void op_start(struct sim *sim, struct sim_thread *t, struct hr_job *job, const struct hr_op *op)
{
	struct hr_instance *inst = ((struct hr_thread_role *) t->role)->inst;
	int64_t v[6] = { 0 };
	int64_t x[4] = { 0 };

	if (op->kind == HR_OP_CACHED_READ || op->kind == HR_OP_DISK_READ) {
		v[0] = 12;
		v[1] = 16384;
		v[2] = (int64_t) (sim_rng_next(&sim->hotrod->rng) % 4096) * 16384;
		sim_syscall_entry(sim, t, SIM_SYS_PREAD64, v, NULL);
		if (op->kind == HR_OP_DISK_READ) {
			sim_disk_read(sim, t, 16384, op->ns);
		}
	} else if (op->kind == HR_OP_LOCK) {
		lock_trigger(sim, inst, op->ns);
		t->arg = (int64_t) inst->lock_rounds_wanted;
	} else if (op->kind == HR_OP_STORM) {
		sim_irq_storm(sim, t->host, t->cpu, op->count, 41000, 40000);
	} else if (op->kind == HR_OP_HOG) {
		trigger_hog(sim, op->ns);
	}
	(void) job;
	(void) x;
}

static struct sim_step worker_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst = role->inst;
	struct hr_job *job = t->job;
	const struct hr_op *op;

	SIM_CO_BEGIN(t);
	for (;;) {
		if (role->kind == HR_ROLE_HELPER) {
			static const int64_t wait_entry[6] = { (int64_t) HR_LOCK_ADDR + 192, 128, 0, 0, 0, 0 };

			if (t->started) {
				sim_syscall_entry(sim, t, SIM_SYS_FUTEX, wait_entry, NULL);
			}
			t->started = true;
			while (!(t->job = take_task(inst, t))) {
				make_idle(t);
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
			{
				static const int64_t wait_exit[3] = { 0, (int64_t) HR_LOCK_ADDR + 192, 0 };

				sim_syscall_exit(sim, t, SIM_SYS_FUTEX, wait_exit);
			}
		} else {
			if (t->started) {
				idle_begin(sim, t);
			}
			t->started = true;
			while (!(t->job = take_job(inst, t))) {
				make_idle(t);
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
		}
		role->idle = false;
		job = t->job;
		if (role->kind == HR_ROLE_WORKER) {
			server_begin(sim, t, job);
		}
		for (t->i = 0; t->i < (int64_t) ((struct hr_job *) t->job)->nops; t->i++) {
			job = t->job;
			op = &job->ops[t->i];
			if (op->kind == HR_OP_COMPUTE) {
				SIM_CO_YIELD(t, step_run(((struct hr_job *) t->job)->ops[t->i].ns));
			} else if (op->kind == HR_OP_CALL) {
				call_send(sim, t, op, job->req,
					role->kind == HR_ROLE_HELPER ? job->parent_span_id :
					(t->book.spans ? t->book.spans->span_id : 0), op->count);
				SIM_CO_YIELD(t, step_run(3000));
				while (!role->call->replied) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
				call_receive(sim, t, ((struct hr_job *) t->job)->ops[t->i].resp_bytes);
			} else if (op->kind == HR_OP_PAR_CALLS) {
				dispatch_tasks(sim, t, op, job);
				{
					static const int64_t wait_entry[6] = { (int64_t) HR_LOCK_ADDR + 128, 128, 0, 0, 0, 0 };

					sim_syscall_entry(sim, t, SIM_SYS_FUTEX, wait_entry, NULL);
				}
				while (role->pending > 0) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
				{
					static const int64_t wait_exit[3] = { 0, (int64_t) HR_LOCK_ADDR + 128, 0 };

					sim_syscall_exit(sim, t, SIM_SYS_FUTEX, wait_exit);
				}
			} else if (op->kind == HR_OP_CACHED_READ) {
				op_start(sim, t, job, op);
				SIM_CO_YIELD(t, step_run(6000));
				{
					int64_t x[2] = { 16384, (int64_t) user_buffer(t) };

					sim_syscall_exit(sim, t, SIM_SYS_PREAD64, x);
				}
			} else if (op->kind == HR_OP_DISK_READ) {
				op_start(sim, t, job, op);
				while (!t->io_done) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_DISK));
				}
				SIM_CO_YIELD(t, step_run(8000));
				{
					int64_t x[2] = { 16384, (int64_t) user_buffer(t) };

					sim_syscall_exit(sim, t, SIM_SYS_PREAD64, x);
				}
			} else if (op->kind == HR_OP_LOCK) {
				op_start(sim, t, job, op);
				SIM_CO_YIELD(t, step_run(15000));
				if (inst->lock_rounds_done < (uint64_t) t->arg) {
					int64_t v[6] = { (int64_t) HR_LOCK_ADDR, 128, 2, 0, 0, 0 };

					sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
					if (inst->nlock_waiters < 16) {
						inst->lock_waiters[inst->nlock_waiters++] = t;
					}
					while (((struct hr_thread_role *) t->role)->inst->lock_rounds_done < (uint64_t) t->arg) {
						SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
					}
					{
						int64_t x[3] = { 0, (int64_t) HR_LOCK_ADDR, 0 };

						sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
					}
				}
			} else {
				op_start(sim, t, job, op);
			}
		}
		job = t->job;
		if (role->kind == HR_ROLE_WORKER) {
			server_end(sim, t, job);
		} else {
			task_done(sim, t, job);
			job_free(sim, job);
		}
		t->job = NULL;
	}
	SIM_CO_END(t);
}

/* ---- background threads ---- */

static void futex_wait_entry(struct sim *sim, struct sim_thread *t, uint64_t addr)
{
	int64_t v[6] = { (int64_t) addr, 128, 0, 0, 0, 0 };

	sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
}

static void futex_wait_exit(struct sim *sim, struct sim_thread *t, uint64_t addr)
{
	int64_t x[3] = { 0, (int64_t) addr, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
}

static void nanosleep_entry(struct sim *sim, struct sim_thread *t, int64_t ns)
{
	int64_t v[1] = { (int64_t) user_buffer(t) + 64 };

	sim_syscall_entry(sim, t, SIM_SYS_NANOSLEEP, v, NULL);
	sim_timer_wake(sim, t, ns);
}

static void nanosleep_exit(struct sim *sim, struct sim_thread *t)
{
	int64_t x[2] = { 0, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_NANOSLEEP, x);
}

static void release_lock(struct sim *sim, struct sim_thread *t, struct hr_instance *inst)
{
	int64_t v[6] = { (int64_t) HR_LOCK_ADDR, 129, 1, 0, 0, 0 };
	int64_t x[3] = { 0, (int64_t) HR_LOCK_ADDR, 0 };
	unsigned int i;

	inst->lock_rounds_done = inst->lock_rounds_wanted;
	if (inst->nlock_waiters == 0) {
		return;
	}
	sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
	for (i = 0; i < inst->nlock_waiters; i++) {
		sim_wake(sim, inst->lock_waiters[i], t->cpu);
	}
	x[0] = inst->nlock_waiters;
	inst->nlock_waiters = 0;
	sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
}

/* mysqld's background thread: holds the table lock for `hold_ns` when asked (cause `lock`). */
static struct sim_step holder_fn(struct sim *sim, struct sim_thread *t)
{

	SIM_CO_BEGIN(t);
	for (;;) {
		if (t->started) {
			futex_wait_entry(sim, t, HR_LOCK_ADDR + 256);
		}
		t->started = true;
		((struct hr_thread_role *) t->role)->idle = true;
		while (((struct hr_thread_role *) t->role)->inst->lock_rounds_done >=
				((struct hr_thread_role *) t->role)->inst->lock_rounds_wanted) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		((struct hr_thread_role *) t->role)->idle = false;
		((struct hr_thread_role *) t->role)->timer_armed = false;
		futex_wait_exit(sim, t, HR_LOCK_ADDR + 256);
		SIM_CO_YIELD(t, step_run(12000));
		nanosleep_entry(sim, t, ((struct hr_thread_role *) t->role)->inst->hold_ns);
		while (!t->io_done) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		nanosleep_exit(sim, t);
		release_lock(sim, t, ((struct hr_thread_role *) t->role)->inst);
	}
	SIM_CO_END(t);
}

/* A noisy neighbour's thread: CPU-bound until hog_until (cause `cpu`). */
static struct sim_step hog_fn(struct sim *sim, struct sim_thread *t)
{
	SIM_CO_BEGIN(t);
	for (;;) {
		while (sim_host_now(sim, t->host) >= sim->hotrod->hog_until[t->host]) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		while (sim_host_now(sim, t->host) < sim->hotrod->hog_until[t->host]) {
			SIM_CO_YIELD(t, step_run(1000000));
		}
	}
	SIM_CO_END(t);
}

/* A periodic daemon: sleeps, then runs briefly (and, in user space, writes a log line). */
static struct sim_step daemon_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;

	SIM_CO_BEGIN(t);
	for (;;) {
		if (!t->started) {
			t->started = true;	/* the first timer is armed by sim_hotrod_start */
		} else if (t->kernel_thread) {
			sim_timer_wake(sim, t, sim_rng_jitter(&sim->hotrod->rng, role->period, 0.5));
		} else {
			nanosleep_entry(sim, t, sim_rng_jitter(&sim->hotrod->rng, role->period, 0.5));
		}
		while (!t->io_done) {
			SIM_CO_YIELD(t, step_block(t->kernel_thread ? 128 : SIM_PREV_STATE_SLEEPING));
		}
		if (!t->kernel_thread) {
			nanosleep_exit(sim, t);
		}
		SIM_CO_YIELD(t, step_run(sim_rng_jitter(&sim->hotrod->rng, ((struct hr_thread_role *) t->role)->run_ns, 0.5)));
		if (!t->kernel_thread) {
			int64_t v[3] = { 5, (int64_t) user_buffer(t), 120 };
			int64_t x[1] = { 120 };

			sys_quick(sim, t, SIM_SYS_WRITE, v, NULL, x);
		}
	}
	SIM_CO_END(t);
}

/* ---- requests ---- */

static void request_done(struct sim *sim, struct hr_request *req, const struct sim_span *root)
{
	struct sim_hotrod *hr = sim->hotrod;

	if (sim->truth) {
		struct sim_truth_request tr = {
			.trace_id_high = req->trace_id_high,
			.trace_id_low = req->trace_id_low,
			.root_operation = root->operation,
			.root_service = root->service,
			.begin = root->begin,
			.end = root->end,
			.cause = sim_cause_name(req->slow ? req->cause : SIM_CAUSE_NONE),
			.slow = req->slow,
		};

		sim_truth_request(sim->truth, &tr);
	}
	hr->slot_busy[req->slot] = false;
	hr->completed++;
	hr->inflight--;
	req->next_free = hr->free_requests;
	hr->free_requests = req;
	if (hr->waiting_arrivals > 0) {
		hr->waiting_arrivals--;
		sim_schedule(sim, sim_host_now(sim, root->host) + 50000, HR_ACT_ARRIVAL, 1, 0, NULL);
	}
}

static enum sim_cause draw_cause(struct sim *sim)
{
	static const enum sim_cause mixed[4] = {
		SIM_CAUSE_LOCK, SIM_CAUSE_CPU, SIM_CAUSE_DISK, SIM_CAUSE_IRQ,
	};

	if (sim->cfg.cause == SIM_CAUSE_MIXED) {
		return mixed[sim_rng_next(&sim->hotrod->rng) % 4];
	}
	return sim->cfg.cause;
}

static void start_request(struct sim *sim)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct hr_request *req = hr->free_requests;
	struct sim_conn *conn;
	struct hr_job *job;
	unsigned int slot;

	for (slot = 0; slot < sim->cfg.max_inflight && hr->slot_busy[slot]; slot++) {
	}
	if (req) {
		hr->free_requests = req->next_free;
	} else {
		req = sim_pool_alloc(sim, sizeof(*req));
		if (!req) {
			return;
		}
	}
	memset(req, 0, sizeof(*req));
	req->index = hr->issued++;
	req->trace_id_high = sim_rng_next(&hr->rng);
	req->trace_id_low = sim_rng_next(&hr->rng) | 1;
	req->slow = sim->cfg.cause != SIM_CAUSE_NONE && sim_rng_unit(&hr->rng) < sim->cfg.slow_ratio;
	req->cause = req->slow ? draw_cause(sim) : SIM_CAUSE_NONE;
	req->slot = slot;
	hr->slot_busy[slot] = true;
	hr->inflight++;
	conn = &hr->ext_conns[slot];
	job = job_new(sim);
	if (!job) {
		return;
	}
	job->req = req;
	job->service = HR_FRONTEND;
	job->operation = sim_intern(sim, "HTTP GET /dispatch");
	job->conn = conn;
	build_program(sim, job, 0);
	sim_tcp_inject(sim, conn, 0, 350, job, sim->now);
}

static void on_arrival(struct sim *sim, bool scheduled)
{
	struct sim_hotrod *hr = sim->hotrod;

	if (scheduled) {
		/* a fresh arrival: schedule the next one */
		if (hr->issued + hr->waiting_arrivals + 1 < sim->cfg.requests) {
			sim_schedule(sim, sim->now + sim_rng_exp(&hr->rng, (double) sim->cfg.interarrival_ns),
				HR_ACT_ARRIVAL, 0, 0, NULL);
		}
		if (hr->inflight >= sim->cfg.max_inflight) {
			hr->waiting_arrivals++;
			return;
		}
	}
	start_request(sim);
}

void sim_hotrod_act(struct sim *sim, const struct sim_action *action)
{
	if (action->kind == HR_ACT_ARRIVAL) {
		on_arrival(sim, action->arg == 0);
	}
}

uint64_t sim_hotrod_completed(const struct sim *sim)
{
	return sim->hotrod->completed;
}

bool sim_hotrod_finished(const struct sim *sim)
{
	return sim->hotrod->completed >= sim->cfg.requests;
}

/* ---- set-up ---- */

static struct hr_thread_role *role_new(struct sim *sim, int kind, struct hr_instance *inst)
{
	struct hr_thread_role *role = calloc(1, sizeof(*role));

	if (!role) {
		sim_fail(sim, "out of memory creating a thread role");
		return NULL;
	}
	role->kind = kind;
	role->inst = inst;
	role->all_next = sim->hotrod->roles;
	sim->hotrod->roles = role;
	return role;
}

static struct sim_thread *spawn(struct sim *sim, struct sim_process *proc, const char *comm,
		sim_thread_fn fn, int kind, struct hr_instance *inst, unsigned int cpu)
{
	struct hr_thread_role *role = role_new(sim, kind, inst);
	struct sim_thread *t;

	if (!role) {
		return NULL;
	}
	t = sim_thread_new(sim, proc, comm, fn, role, cpu);
	if (t) {
		role->thread = t;
	}
	return t;
}

static bool create_instance(struct sim *sim, struct hr_instance *inst, enum hr_service service,
		unsigned int host)
{
	const struct hr_service_desc *desc = &services[service];
	unsigned int i;

	inst->service = service;
	inst->host = host;
	inst->proc = sim_process_new(sim, host, desc->comm, 1);
	if (!inst->proc) {
		return false;
	}
	for (i = 0; i < desc->workers; i++) {
		struct sim_thread *t = spawn(sim, inst->proc, desc->comm, worker_fn,
			HR_ROLE_WORKER, inst, i);

		if (!t) {
			return false;
		}
		make_idle(t);
	}
	if (service == HR_FRONTEND) {
		for (i = 0; i < HR_HELPERS; i++) {
			struct sim_thread *t = spawn(sim, inst->proc, desc->comm, worker_fn,
				HR_ROLE_HELPER, inst, i);

			if (!t) {
				return false;
			}
			make_idle(t);
		}
	}
	if (service == HR_MYSQL) {
		inst->holder = spawn(sim, inst->proc, desc->comm, holder_fn, HR_ROLE_HOLDER, inst, 0);
		if (!inst->holder) {
			return false;
		}
		((struct hr_thread_role *) inst->holder->role)->idle = true;
	}
	return true;
}

static bool create_daemons(struct sim *sim, unsigned int h)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct sim_thread *t;
	struct hr_thread_role *role;

	hr->daemons[h][0] = sim_process_new(sim, h, "rcu_sched", 2);
	if (!hr->daemons[h][0]) {
		return false;
	}
	t = spawn(sim, hr->daemons[h][0], "rcu_sched", daemon_fn, HR_ROLE_DAEMON, NULL, 0);
	if (!t) {
		return false;
	}
	t->kernel_thread = true;
	role = t->role;
	role->period = 4000000;
	role->run_ns = 6000;
	hr->daemons[h][1] = sim_process_new(sim, h, "systemd-journal", 1);
	if (!hr->daemons[h][1]) {
		return false;
	}
	t = spawn(sim, hr->daemons[h][1], "systemd-journal", daemon_fn, HR_ROLE_DAEMON, NULL, 1);
	if (!t) {
		return false;
	}
	role = t->role;
	role->period = 45000000;
	role->run_ns = 60000;
	return true;
}

bool sim_hotrod_create(struct sim *sim)
{
	struct sim_hotrod *hr = calloc(1, sizeof(*hr));
	unsigned int k, h, c, total;

	if (!hr) {
		sim_fail(sim, "out of memory creating the hotrod workload");
		return false;
	}
	sim->hotrod = hr;
	sim_rng_init(&hr->rng, sim->cfg.seed, 2);
	for (h = 0; h < sim->cfg.hosts; h++) {
		if (!create_daemons(sim, h)) {
			return false;
		}
	}
	total = sim->cfg.hosts > HR_SERVICES ? sim->cfg.hosts : HR_SERVICES;
	for (k = 0; k < total; k++) {
		enum hr_service service = placement_order[k % HR_SERVICES];

		if (hr->ninst[service] >= HR_MAX_INSTANCES) {
			continue;
		}
		if (!create_instance(sim, &hr->inst[service][hr->ninst[service]], service,
				k % sim->cfg.hosts)) {
			return false;
		}
		hr->ninst[service]++;
	}
	for (k = 0; k < hr->ninst[HR_ROUTE]; k++) {
		h = hr->inst[HR_ROUTE][k].host;
		if (hr->hog_proc[h]) {
			continue;
		}
		hr->hog_proc[h] = sim_process_new(sim, h, "stress-ng", 1);
		if (!hr->hog_proc[h]) {
			return false;
		}
		for (c = 0; c < HR_HOGS_PER_CPU * sim->host[h].ncpus && c < HR_HOGS_PER_CPU * SIM_MAX_CPUS; c++) {
			hr->hogs[h][c] = spawn(sim, hr->hog_proc[h], "stress-ng-cpu", hog_fn,
				HR_ROLE_HOG, NULL, c);
			if (!hr->hogs[h][c]) {
				return false;
			}
		}
	}
	hr->ext_conns = calloc(sim->cfg.max_inflight, sizeof(*hr->ext_conns));
	hr->slot_busy = calloc(sim->cfg.max_inflight, sizeof(*hr->slot_busy));
	if (!hr->ext_conns || !hr->slot_busy) {
		sim_fail(sim, "out of memory creating client connections");
		return false;
	}
	for (k = 0; k < sim->cfg.max_inflight; k++) {
		struct sim_conn *conn = &hr->ext_conns[k];
		struct hr_instance *inst = &hr->inst[HR_FRONTEND][k % hr->ninst[HR_FRONTEND]];

		conn->host[0] = -1;
		conn->host[1] = (int) inst->host;
		conn->ip[0] = (10u << 24) | (1u << 8) | 50u;
		conn->ip[1] = sim->host[inst->host].ip;
		conn->port[0] = (uint16_t) (50000 + k);
		conn->port[1] = services[HR_FRONTEND].port;
		conn->snd_nxt[0] = (uint32_t) sim_rng_next(&hr->rng);
		conn->snd_nxt[1] = (uint32_t) sim_rng_next(&hr->rng);
		conn->rcv_nxt[0] = conn->snd_nxt[1];
		conn->rcv_nxt[1] = conn->snd_nxt[0];
		conn->deliver = deliver;
		conn->owner = inst;
	}
	return true;
}

void sim_hotrod_start(struct sim *sim)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct hr_thread_role *role;

	for (role = hr->roles; role; role = role->all_next) {
		if (role->kind == HR_ROLE_DAEMON) {
			sim_timer_wake(sim, role->thread,
				(int64_t) (sim_rng_next(&hr->rng) % (uint64_t) role->period) + 1000);
		}
	}
	if (sim->cfg.requests > 0) {
		sim_schedule(sim, sim->now + 1000000, HR_ACT_ARRIVAL, 0, 0, NULL);
	}
}

void sim_hotrod_destroy(struct sim *sim)
{
	struct sim_hotrod *hr = sim->hotrod;
	struct hr_thread_role *role;

	if (!hr) {
		return;
	}
	role = hr->roles;
	while (role) {
		struct hr_thread_role *next = role->all_next;
		unsigned int s, i;

		for (s = 0; s < HR_SERVICES; s++) {
			for (i = 0; i < HR_MAX_INSTANCES; i++) {
				free(role->conns[s][i]);
			}
		}
		free(role);
		role = next;
	}
	free(hr->ext_conns);
	free(hr->slot_busy);
	free(hr);
	sim->hotrod = NULL;
}
