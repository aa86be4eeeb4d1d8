/* SPDX-License-Identifier: MIT */
/*
 * Per-host kernel thread state model (doc/span-attrib.md, "The six states").  Pure C + glib, no babeltrace2:
 * unit tests drive it with hand-written event sequences.
 *
 * The model keeps, per CPU, the current thread, the stack of interrupt contexts (irq, softirq,
 * x86 vector) and the timer-callback depth; per thread, its scheduling state (running, blocked,
 * waiting for a CPU, unknown), its open syscall and the time its effective state began.
 * A thread's effective state (enum ds_state) is derived: running + interrupt active on its CPU
 * = Interrupted, running + open syscall = System call, running = User.
 *
 * Spans (struct sa_span, below) attached to a thread are charged on every change of its
 * effective state, so each span's six totals sum exactly to its duration.
 *
 * All timestamps are int64 ns; callers must feed events in non-decreasing time (the model
 * clamps a timestamp lower than the last one to the last one).
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_THREAD_STATE_H
#define DEEPSPAN_SPAN_ATTRIB_THREAD_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "states.h"
#include "block.h"

enum ds_state_rule {
	DS_STATE_RULE_DEFAULT = 0,	/* reads raw task->state and the report encoding (doc/span-attrib.md) */
	DS_STATE_RULE_TRACECOMPASS,	/* Trace Compass's decoding, bit for bit */
};

/* What a sched_switch prev_state says about the thread switched out. */
enum ds_prev_state {
	DS_PREV_WAIT_CPU = 0,	/* runnable or preempted */
	DS_PREV_BLOCKED,	/* sleeping, uninterruptible, idle, parked (and, default rule, dead) */
	DS_PREV_EXITED,		/* dead or zombie: the thread's state becomes Unknown */
	DS_PREV_UNKNOWN,	/* stopped, traced, or an unknown value */
};

enum ds_prev_state ds_prev_state_classify(enum ds_state_rule rule, int64_t prev_state);

/*
 * Why a thread is in its state: a name (syscall, irq, softirq, vector: `prefix` + `name`) or a
 * waking thread (`comm/tid`).  `prefix`/`name` point to static strings or strings interned for
 * the model's lifetime; `comm` is copied.
 */
struct ds_detail {
	const char *prefix;	/* borrowed; "" or "irq:", "softirq:" */
	const char *name;	/* borrowed; NULL when there is no name */
	int32_t tid;		/* waker tid, -1 when not a thread */
	char comm[16];		/* waker comm, NUL-terminated */
};

/* Writes the detail text ("futex", "softirq:NET_RX", "mysqld/4242", "") into buf. */
void ds_detail_format(const struct ds_detail *detail, char *buf, size_t size);

/* The detail text: `detail->name` itself when it needs no formatting, else formatted into buf. */
const char *ds_detail_text(const struct ds_detail *detail, char *buf, size_t size);

/* Scheduling state of a thread (the effective state adds the syscall and interrupt contexts). */
enum ds_sched_state {
	DS_SCHED_UNKNOWN = 0,
	DS_SCHED_RUNNING,
	DS_SCHED_BLOCKED,
	DS_SCHED_WAIT_CPU,
};

struct sa_span;
struct ds_thread_history;
struct ds_tcp_key;
struct ds_chain_ctx;
struct ds_hc_counter;
struct ds_hc_window;
struct ds_host_context;

struct ds_thread {
	int64_t tid;
	int64_t pid;			/* -1 when unknown */
	int64_t ns_vpid, ns_vtid;	/* innermost-namespace ids, -1 when unknown */
	char comm[16];
	enum ds_sched_state sched;
	int32_t cpu;			/* CPU it runs on, or last known; -1 unknown */
	const char *syscall;		/* borrowed; open syscall name, NULL when none */
	int64_t syscall_entry;		/* entry time of the open syscall */
	uint32_t syscall_seq;		/* incremented on every syscall entry */
	enum ds_state state;		/* effective state since `since` */
	struct ds_detail detail;	/* detail of the effective state */
	int64_t since;
	struct sa_span *spans;		/* borrowed; spans charged to this thread (intrusive list) */
	const char *unknown_reason;	/* borrowed static; why the state is Unknown ("no event yet", ...) */
	int64_t forked_by;		/* tid of the thread whose sched_process_fork created it, -1 unknown */
	struct ds_thread_history *chain;	/* owned; NULL when chains are off (chain.h) */
	bool read_open;			/* layers: the open syscall is of the read family */
	bool read_missed;		/* layers: it issued block I/O or waited on a block completion */
	struct ds_hc_counter *hc_cpu;	/* borrowed; host context: the process CPU counter charged now, NULL none */
	struct ds_hc_counter *hc_runq;	/* borrowed; host context: the run-queue counter charged now, NULL none */
	/* borrowed; host context: the CPU and run-queue counters last charged (found again without a lookup
	 * while the thread's process is the same; counters live as long as the host context), NULL none */
	struct ds_hc_counter *hc_cpu_last, *hc_runq_last;
};

/* An interrupt context kind on a CPU. */
enum ds_irq_kind {
	DS_IRQ_HARD = 0,	/* irq_handler_entry */
	DS_IRQ_SOFT,		/* irq_softirq_entry */
	DS_IRQ_VECTOR,		/* x86_irq_vectors_*_entry */
};

struct ds_model;

struct ds_model *ds_model_create(enum ds_state_rule rule, bool record_segments);
void ds_model_destroy(struct ds_model *model);

/*
 * Turns chains on (chain.h): call right after ds_model_create(), before any event, with a model that records
 * segments.  `ctx` (borrowed) is shared by the models of every host; `host` is copied.
 */
void ds_model_set_chain(struct ds_model *model, struct ds_chain_ctx *ctx, const char *host);

/*
 * Turns host context on (host-context.h, doc/host-context.md): call right after ds_model_create(), before any
 * event.  The model then keeps the host's counters; spans get windows with sa_span_open_host_window().
 */
void ds_model_set_host_context(struct ds_model *model);
/* The host's counters, NULL when host context is off. */
struct ds_host_context *ds_model_host_context(struct ds_model *model);
/* Host context: block_rq_issue of `nr_sector` sectors on `dev` submitted by thread `tid` (-1 unknown). */
void ds_model_block_issue(struct ds_model *model, int64_t ts, int64_t tid, uint64_t dev, uint64_t nr_sector);
/* Name of process `pid`: the comm of its thread-group leader when known, else `fallback`. */
const char *ds_model_process_name(struct ds_model *model, int64_t pid, const char *fallback);

/* The thread `tid` (> 0), created Unknown when absent and `create`; NULL otherwise (or tid <= 0). */
struct ds_thread *ds_model_thread(struct ds_model *model, int64_t tid, bool create);

/* Current thread of `cpu` (NULL when idle or unknown). */
struct ds_thread *ds_model_cpu_current(struct ds_model *model, int64_t cpu);

/* Number of threads the model holds (memory bound checks). */
unsigned int ds_model_thread_count(const struct ds_model *model);

/* The kernel tid for a span's (vpid, vtid) context: the namespace mapping when known, else vtid. */
int64_t ds_model_tid_for_vtid(struct ds_model *model, int64_t vpid, int64_t vtid);

/* Events.  `cpu` is the CPU the event was recorded on (packet context cpu_id). */
void ds_model_sched_switch(struct ds_model *model, int64_t ts, int64_t cpu,
		int64_t prev_tid, const char *prev_comm, int64_t prev_state,
		int64_t next_tid, const char *next_comm);
/* sched_waking, sched_wakeup, sched_wakeup_new. */
void ds_model_wakeup(struct ds_model *model, int64_t ts, int64_t cpu, int64_t tid,
		const char *comm);
/* The same, with the event's target_cpu (the CPU the thread will wait for; -1 unknown). */
void ds_model_wakeup_target(struct ds_model *model, int64_t ts, int64_t cpu, int64_t tid,
		const char *comm, int64_t target_cpu);
/* Chains: net_dev_queue (a TCP segment sent from `cpu`), net_if_receive_skb (received on `cpu`),
 * block_rq_complete (device `dev`, kernel encoding major << 20 | minor).  No effect when chains are off. */
void ds_model_net_send(struct ds_model *model, int64_t ts, int64_t cpu, const struct ds_tcp_key *key);
void ds_model_net_receive(struct ds_model *model, int64_t ts, int64_t cpu, const struct ds_tcp_key *key);
void ds_model_block_complete(struct ds_model *model, int64_t ts, int64_t cpu, uint64_t dev);

/*
 * Layers (doc/storage-network.md): block requests (block.h) and page-cache hits/misses of the read-family
 * syscalls.  ds_model_set_layers() right after ds_model_create() (and ds_model_set_chain()), before any event;
 * `window` (ns) is how long completions are kept for the chains.
 */
void ds_model_set_layers(struct ds_model *model, int64_t window);
/* The host's block requests, NULL when layers are off. */
struct ds_block *ds_model_block(struct ds_model *model);
/* A block_* event recorded on `cpu` (a submitter tid < 0 is the CPU's current thread outside interrupts).
 * Without layers, a completion does what ds_model_block_complete() does. */
void ds_model_block_event(struct ds_model *model, int64_t ts, int64_t cpu, enum ds_block_op op,
		const struct ds_block_io *io);
/* The syscall just entered on `cpu` (ds_model_syscall_entry) is of the read family. */
void ds_model_syscall_read(struct ds_model *model, int64_t cpu);
void ds_model_migrate(struct ds_model *model, int64_t ts, int64_t tid, int64_t dest_cpu);
/* `vtids`: the child's tid per pid namespace level (last = innermost), may be NULL. */
void ds_model_fork(struct ds_model *model, int64_t ts, int64_t parent_tid,
		int64_t child_tid, int64_t child_pid, const char *child_comm,
		const int64_t *vtids, unsigned int vtid_count);
/* sched_process_free: spans on the thread continue as Unknown; the tid may be reused. */
void ds_model_process_free(struct ds_model *model, int64_t ts, int64_t tid);
/* `name` must stay valid for the model's lifetime (kernel-events owns it). */
void ds_model_syscall_entry(struct ds_model *model, int64_t ts, int64_t cpu, const char *name);
void ds_model_syscall_exit(struct ds_model *model, int64_t ts, int64_t cpu);
/* `name`: irq name (copied/interned), softirq vector name or vector name (static or long-lived). */
void ds_model_irq_entry(struct ds_model *model, int64_t ts, int64_t cpu,
		enum ds_irq_kind kind, const char *name);
void ds_model_irq_exit(struct ds_model *model, int64_t ts, int64_t cpu, enum ds_irq_kind kind);
/* timer_hrtimer_expire_entry / timer_expire_entry: wakeups inside are attributed to "timer". */
void ds_model_timer_entry(struct ds_model *model, int64_t cpu);
void ds_model_timer_exit(struct ds_model *model, int64_t cpu);
/* lttng_statedump_process_state: sets the state only of threads still Unknown. */
void ds_model_statedump_process(struct ds_model *model, int64_t ts, int64_t tid,
		int64_t pid, int64_t status, const char *comm);
/* lttng_statedump_process_pid_ns. */
void ds_model_statedump_pid_ns(struct ds_model *model, int64_t tid, int64_t vpid,
		int64_t vtid, int64_t ns_level);
/* Discarded events: every thread of the host is Unknown until its next defining event. */
void ds_model_discarded(struct ds_model *model, int64_t ts);

/*
 * Span accounting.  A span is charged, over [begin, end), the effective state of the thread it is
 * attached to; while it is attached to no thread (deactivated, or its thread was freed) it is
 * charged its `idle_state`.  Each charge advances `cursor`, so the six totals always sum exactly
 * to cursor − begin, and to end − begin once finished.  Syscalls are counted and timed
 * entry→exit, clipped to the time the span was attached.
 *
 *   struct sa_span *span = sa_span_new(model, begin);    fill identity fields
 *   sa_span_attach(model, span, thread, ts);               start / activate
 *   sa_span_detach(model, span, ts, DS_STATE_BLOCKED, "inactive");   deactivate
 *   sa_span_finish(model, span, end);                      then read totals, syscalls, segments
 *   sa_span_free(span);
 */
struct sa_segment {
	int64_t begin, end;
	enum ds_state state;
	struct ds_detail detail;
	int64_t tid;			/* thread charged, -1 while the span was detached */
};

struct sa_syscall_total {
	const char *name;	/* borrowed (kernel-events) */
	uint64_t count;
	uint64_t duration;
};

/* Layers: one read-family syscall of a span (the member `cache_reads`, doc/storage-network.md). */
struct sa_read {
	int64_t begin, end;		/* entry to exit, clipped to the time the span was attached */
	bool miss;
};

struct sa_span {
	/* identity (filled by the caller) */
	uint64_t trace_id_high, trace_id_low, span_id, parent_span_id;
	char *service;			/* owned, may be NULL */
	char *operation;		/* owned, may be NULL */
	int64_t pid, tid;		/* kernel ids of the start thread, -1 unknown */
	int64_t begin, end;
	bool truncated;			/* finished by the end of the stream, not by an end event */
	/* accounting */
	uint64_t states[DS_STATE_COUNT];
	GArray *segments;		/* owned; struct sa_segment; NULL when not recorded */
	GArray *syscalls;		/* owned; struct sa_syscall_total */
	int64_t cursor;			/* charged up to here */
	struct ds_thread *thread;	/* borrowed; thread charged now, NULL when detached */
	struct sa_span *next_on_thread;	/* borrowed; list of thread->spans */
	struct sa_span *prev_on_thread;	/* borrowed */
	int64_t attached_since;
	uint32_t syscall_seq_counted;	/* thread syscall_seq already counted */
	bool syscall_counted;
	enum ds_state idle_state;	/* charged while detached */
	const char *idle_detail;	/* borrowed static text; NULL for none */
	struct ds_model *model;		/* borrowed; the model it was created on */
	GArray *chain;			/* owned; struct ds_chain_entry (chain.h); NULL when chains are off */
	guint chain_done;		/* segments explained so far */
	/* layers: read-family syscalls ended while attached (doc/storage-network.md, "Page cache") */
	uint64_t cache_hits, cache_misses;
	uint64_t cache_hit_time, cache_miss_time;	/* ns, clipped to the time attached */
	GArray *reads;			/* owned; struct sa_read, each of them in time order; NULL: none */
	struct ds_hc_window *hc;	/* owned; host context window, NULL when the span carries none */
};

/* A new span beginning at `begin`, detached (idle state Unknown). */
struct sa_span *sa_span_new(struct ds_model *model, int64_t begin);
/*
 * Frees the span (unlinking it from its thread when attached); NULL is accepted.  Call it before
 * ds_model_destroy() of the span's model: the model keeps a few freed spans for sa_span_new().
 */
void sa_span_free(struct sa_span *span);

/* Charges the idle state up to `ts`, then charges `thread` from `ts` on. */
void sa_span_attach(struct ds_model *model, struct sa_span *span, struct ds_thread *thread, int64_t ts);

/* Charges the thread up to `ts`; then the span is charged `idle_state` (`idle_detail`: static text or NULL). */
void sa_span_detach(struct ds_model *model, struct sa_span *span, int64_t ts,
		enum ds_state idle_state, const char *idle_detail);

/* Ends the span at `end` (detaching it; closing its host context window). */
void sa_span_finish(struct ds_model *model, struct sa_span *span, int64_t end);

/* Host context on: the span carries the host's context over [begin, end) (window opened at `ts`). */
void sa_span_open_host_window(struct ds_model *model, struct sa_span *span, int64_t ts);

#endif /* DEEPSPAN_SPAN_ATTRIB_THREAD_STATE_H */
