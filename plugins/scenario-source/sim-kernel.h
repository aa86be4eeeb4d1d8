/* SPDX-License-Identifier: MIT */
/*
 * The kernel model of the scenario simulator: hosts with CPUs, run queues,
 * time slices and preemption, threads that run, block and are woken (from
 * threads or from irq/softirq context), hard irqs and softirqs that
 * interrupt the running thread, syscalls, TCP segments between hosts and
 * block I/O.  Every change it makes is written as lttng-modules events
 * through the output queues and, at the same local timestamp, into the
 * ground-truth bookkeeping of the affected thread.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_KERNEL_H
#define DEEPSPAN_SCENARIO_SIM_KERNEL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim-events.h"
#include "sim-output.h"
#include "sim-queue.h"
#include "sim-state.h"

struct sim;
struct sim_thread;
struct sim_cpu;

/* What a thread's behaviour asks of the kernel when it has nothing left to do. */
enum sim_step_kind {
	SIM_STEP_RUN,		/* consume `ns` of CPU (user or kernel time) */
	SIM_STEP_BLOCK,		/* sleep with prev_state `state` until woken */
	SIM_STEP_EXIT,		/* the thread exits */
};

struct sim_step {
	enum sim_step_kind kind;
	int64_t ns;
	int64_t state;
};

/* A thread's behaviour: a resumable function (see SIM_CO_* in sim-hotrod.c). */
typedef struct sim_step (*sim_thread_fn)(struct sim *sim, struct sim_thread *t);

enum sim_run_state {
	SIM_T_RUNNING,
	SIM_T_RUNNABLE,
	SIM_T_BLOCKED,
	SIM_T_DEAD,
};

/* lttng-modules 2.13 `prev_state` (report encoding). */
#define SIM_PREV_STATE_RUNNING 0
#define SIM_PREV_STATE_SLEEPING 1
#define SIM_PREV_STATE_DISK 2
#define SIM_PREV_STATE_DEAD 16
#define SIM_PREV_STATE_ZOMBIE 32
#define SIM_PREV_STATE_PREEMPTED 256

struct sim_process {
	int32_t pid;
	int32_t ppid;
	const char *comm;		/* borrowed (interned) */
	unsigned int host;
	unsigned int threads;		/* live threads */
	struct sim_process *all_next;	/* owned by the host: list link */
};

struct sim_thread {
	struct sim_process *proc;	/* borrowed */
	unsigned int host;
	int32_t tid;
	const char *comm;		/* borrowed (interned) */
	int32_t prio;			/* as sched_switch shows it (120 -> 20) */
	enum sim_run_state run;
	unsigned int cpu;		/* current or last CPU */
	sim_thread_fn fn;		/* behaviour */
	int pc;				/* behaviour resume point */
	int64_t remaining;		/* ns of CPU left in the current RUN step */
	bool woken;			/* a wake-up arrived while it was running */
	bool kernel_thread;
	bool pinned;			/* never migrated on wake-up (cause lock-hog's hogs) */
	struct sim_thread_book book;	/* ground-truth state of this thread */
	struct sim_thread *rq_next;	/* borrowed: run-queue link */
	struct sim_thread *all_next;	/* borrowed: host's thread list link */
	void *role;			/* borrowed: behaviour data */
	/* behaviour locals (kept across resume points) */
	int64_t i, n, arg;
	void *job;			/* borrowed */
	bool io_done;
	bool started;			/* its behaviour ran once */
	struct sim_thread *exit_notify;	/* borrowed: woken when this thread exits (wait4) */
	struct sim_thread *deadlock_peer;	/* borrowed: cause `deadlock`: the thread it waits for forever */
};

/* Interrupt-context work queued on a CPU. */
enum sim_irq_kind {
	SIM_IRQ_NET_RX,		/* NIC irq + NET_RX softirq delivering TCP segments */
	SIM_IRQ_DISK,		/* disk irq completing a block request */
	SIM_IRQ_TIMER,		/* TIMER softirq expiring a sleeping thread's timer */
	SIM_IRQ_STORM,		/* a spurious device irq (irq storm) */
	SIM_IRQ_RCU,		/* RCU softirq freeing a reaped task (sched_process_free) */
	SIM_IRQ_RETRANSMIT,	/* TIMER softirq on the sender: TCP retransmission of a lost last segment */
};

struct sim_conn;

/* Called in NET_RX softirq context when a message's last segment arrives. */
typedef void (*sim_deliver_fn)(struct sim *sim, struct sim_conn *conn, int dir,
		void *msg, unsigned int cpu);

/* A TCP connection: side 0 = client, side 1 = server. */
struct sim_conn {
	int host[2];			/* traced host index, or -1 (external peer) */
	uint32_t ip[2];
	uint16_t port[2];
	uint32_t snd_nxt[2];		/* next sequence number sent by each side */
	uint32_t rcv_nxt[2];		/* next sequence number expected by each side */
	sim_deliver_fn deliver;
	void *owner;			/* borrowed: the workload's object */
};

/* The requests issued on a device while one queued, per submitter (as span-attrib's layers sum them). */
#define SIM_DISK_AHEAD_SUBMITTERS 4
struct sim_disk_ahead {
	uint32_t count;			/* all requests issued ahead */
	unsigned int nsubs;
	struct {
		const struct sim_thread *thread;	/* borrowed */
		uint32_t count, writes;
		uint64_t bytes;
	} subs[SIM_DISK_AHEAD_SUBMITTERS];
};

struct sim_irq_work {
	enum sim_irq_kind kind;
	int step;
	int64_t duration;		/* hard-irq handler time */
	struct sim_thread *thread;	/* borrowed: thread to wake (disk, timer) */
	struct sim_conn *conn;		/* borrowed (net) */
	int dir;			/* sending side (net) */
	uint32_t seq;			/* first sequence number (net) */
	uint32_t ack_seq;
	uint32_t bytes;			/* payload bytes (net, disk) */
	uint32_t segments;
	uint32_t seg_done;
	bool loopback;			/* same-host connection: `lo`, no device irq */
	void *msg;			/* borrowed (net) */
	uint64_t sector;		/* disk */
	bool sent_known;		/* net: sent by a traced thread (chain truth) */
	uint16_t s_host;		/* net: sender's host */
	int32_t s_tid;			/* net: sender's tid */
	int64_t t_s;			/* net: local ts of the last segment's net_dev_queue; disk: of the issue */
	int64_t t_r;			/* net: local ts of the last segment's net_if_receive_skb; disk: completion */
	int64_t t_f;			/* net: local ts of the last segment's first net_dev_queue (= t_s unless
					 * retransmitted); retransmit: of the lost send */
	int64_t extra;			/* retransmit: in-flight delay of the retransmission */
	uint32_t last_len;		/* retransmit: payload bytes of the lost segment */
	unsigned int repeat;		/* storm: irqs still to raise after this one */
	int64_t period;			/* storm: time between two irqs */
	/* disk, device queue model (sim_disk_submit): */
	bool queued;			/* went through the host's FIFO device queue */
	bool write;
	struct sim_thread *submitter;	/* borrowed: the thread that inserted it */
	int64_t t_i;			/* local ts of the block_rq_insert (= t_s for a direct issue) */
	int64_t service;		/* device time (issue to completion) */
	struct sim_disk_ahead ahead;	/* chain truth: served ahead of it while it queued (waited reads) */
	struct sim_irq_work *next;	/* borrowed: queue / free-list link */
};

struct sim_cpu {
	unsigned int index;
	unsigned int host;
	struct sim_thread *cur;		/* borrowed: NULL = idle (swapper) */
	struct sim_thread *rq_head;	/* borrowed */
	struct sim_thread *rq_tail;	/* borrowed */
	unsigned int rq_len;
	uint64_t gen;			/* invalidates the pending work/slice action */
	int64_t run_start;		/* true time the current RUN segment began */
	int64_t slice_end;
	bool resched_pending;
	struct sim_irq_work *irq_cur;	/* borrowed: interrupt being served */
	struct sim_irq_work *irq_head;	/* borrowed: interrupts waiting */
	struct sim_irq_work *irq_tail;
	uint64_t irq_gen;
	GArray *runs;			/* owned: struct sim_cpu_run in time order (NULL: chain truth off) */
};

/* From `begin` to the next run's begin, `tid` (-1: idle) was the CPU's current thread. */
struct sim_cpu_run {
	int64_t begin;			/* local ts */
	int32_t tid;
	const char *comm;		/* borrowed (interned) */
};

struct sim_host {
	unsigned int index;
	const char *name;		/* borrowed (interned) */
	unsigned int ncpus;
	struct sim_cpu cpu[SIM_MAX_CPUS];
	struct sim_thread *threads;	/* owned list (via all_next) */
	struct sim_process *processes;	/* owned list (via all_next) */
	int32_t next_tid;
	uint16_t next_port;
	uint32_t ip;
	uint64_t skb_counter;
	uint64_t next_sector;
	/* the one block device's FIFO queue (sim_disk_submit): */
	struct sim_irq_work *disk_head, *disk_tail;	/* borrowed (irq works): inserted, not issued */
	bool disk_busy;			/* a queued-model request is on the device */
	struct sim_thread *dead;	/* borrowed: exited threads awaiting sched_process_free */
};

/* Action kinds the kernel handles (the workload uses SIM_ACT_WORKLOAD and up). */
enum sim_kernel_action {
	SIM_ACT_WORK_DONE = 1,
	SIM_ACT_RESCHED,
	SIM_ACT_IRQ_RAISE,
	SIM_ACT_IRQ_STEP,
	SIM_ACT_WORKLOAD = 100,
};

/* Kernel constants (ns). */
#define SIM_SCHED_LATENCY 6000000
#define SIM_MIN_GRANULARITY 750000
#define SIM_WAKEUP_GRANULARITY 750000
#define SIM_NET_LATENCY 60000
#define SIM_MSS 1448

void sim_kernel_init_host(struct sim *sim, unsigned int index, const char *name, unsigned int ncpus);
void sim_kernel_fini_host(struct sim_host *host);

struct sim_process *sim_process_new(struct sim *sim, unsigned int host, const char *comm, int32_t ppid);
struct sim_thread *sim_thread_new(struct sim *sim, struct sim_process *proc,
		const char *comm, sim_thread_fn fn, void *role, unsigned int cpu);

/* The current true time as seen on a host (after its last emitted event). */
int64_t sim_host_now(struct sim *sim, unsigned int host);

/* Handles one kernel action popped from the queue. */
void sim_kernel_act(struct sim *sim, const struct sim_action *action);

/* Makes a new (blocked) thread runnable for the first time: sched_wakeup_new from `waker_cpu`. */
void sim_thread_start(struct sim *sim, struct sim_thread *t, unsigned int waker_cpu);

/*
 * Wakes `t` from `cpu` of its host (sched_waking, maybe sched_migrate_task,
 * sched_wakeup): the waker is the CPU's current thread or its running
 * interrupt.  A running thread only gets its `woken` flag set.
 */
void sim_wake(struct sim *sim, struct sim_thread *t, unsigned int cpu);

/* Emits an event of the running thread `t` (kernel or UST) and returns the record to fill. */
struct sim_record *sim_emit_thread(struct sim *sim, struct sim_thread *t, enum sim_event_id ev);
/* Emits a kernel event on `cpu` of `host`. */
struct sim_record *sim_emit_cpu(struct sim *sim, unsigned int host, unsigned int cpu, enum sim_event_id ev);

/* Syscall entry/exit of the running thread `t` with the given values (field order). */
void sim_syscall_entry(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *values, const char *string);
void sim_syscall_exit(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *values);

/* Sends `bytes` from side `dir` of `conn` (net_dev_queue per segment) in `t`'s syscall. */
void sim_tcp_send(struct sim *sim, struct sim_thread *t, struct sim_conn *conn, int dir,
		uint32_t bytes, void *msg);
/*
 * sim_tcp_send with a network fault (doc/scenario.md, causes net-delay and net-retransmit): the segments
 * spend `delay` ns more in flight; when `rto` > 0 the last segment is lost and retransmitted from the TIMER
 * softirq of the sender's CPU `rto` ns after its send.
 */
void sim_tcp_send_faulty(struct sim *sim, struct sim_thread *t, struct sim_conn *conn, int dir,
		uint32_t bytes, void *msg, int64_t delay, int64_t rto);
/* A segment train from an untraced peer (side `dir`) reaching its traced side. */
void sim_tcp_inject(struct sim *sim, struct sim_conn *conn, int dir, uint32_t bytes,
		void *msg, int64_t at);

/* Issues a block read for `t` (block_rq_issue); the disk irq wakes it after `latency`. */
void sim_disk_read(struct sim *sim, struct sim_thread *t, uint32_t bytes, int64_t latency);
/*
 * Inserts a block request of `t` into its host's device queue (block_rq_insert); the device serves one
 * request at a time in FIFO order (block_rq_issue when it is free, block_rq_complete `service` ns later,
 * in the disk irq).  A read (`write` false) makes `t` wait: the irq wakes it (io_done).
 */
void sim_disk_submit(struct sim *sim, struct sim_thread *t, uint32_t bytes, bool write, int64_t service);
/* Arms a timer that wakes `t` after `ns` (TIMER softirq). */
void sim_timer_wake(struct sim *sim, struct sim_thread *t, int64_t ns);
/* Raises `count` spurious irqs on `cpu` of `host`, `period` apart, each lasting `duration`. */
void sim_irq_storm(struct sim *sim, unsigned int host, unsigned int cpu, unsigned int count,
		int64_t period, int64_t duration);

/*
 * fork(): a new process with one thread running `fn`, created by the running
 * thread `parent` (sched_process_fork); start it with sim_thread_start().
 */
struct sim_thread *sim_fork(struct sim *sim, struct sim_thread *parent, sim_thread_fn fn, void *role);
/* execve() succeeded in the running thread `t`: sched_process_exec, new comm. */
void sim_exec(struct sim *sim, struct sim_thread *t, const char *filename, const char *comm);
/* The exited thread `t` was reaped: RCU frees it (sched_process_free) a little later on `cpu`. */
void sim_release(struct sim *sim, struct sim_thread *t, unsigned int cpu);
/* Forgets a freed thread (and its process when it was the last one). */
void sim_thread_destroy(struct sim *sim, struct sim_thread *t);

/* Chain truth: the live thread `tid` of `host` (NULL when unknown or freed). */
struct sim_thread *sim_thread_find(const struct sim *sim, unsigned int host, int32_t tid);

/* Statedump (lttng_statedump_*) of every thread of `host` on CPU 0. */
void sim_statedump(struct sim *sim, unsigned int host);

#endif /* DEEPSPAN_SCENARIO_SIM_KERNEL_H */
