/* SPDX-License-Identifier: MIT */
/*
 * The thread model's internal structures, shared by thread-state.c (the model), chain-history.c (the history
 * it keeps for chains) and chain-walk.c (the walk over it).  Not for the rest of the filter: use
 * thread-state.h and chain.h.
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_MODEL_PRIV_H
#define DEEPSPAN_SPAN_ATTRIB_MODEL_PRIV_H

#include "thread-state.h"
#include "chain.h"
#include "host-context.h"

#define IRQ_STACK_DEPTH 8
#define DS_THREAD_CACHE_SIZE 256

struct irq_context {
	enum ds_irq_kind kind;
	const char *name;	/* borrowed: interned or static */
};

/* One run of a CPU's current thread (chains: who ran instead). */
struct ds_cpu_run {
	int64_t begin;
	int64_t tid;		/* 0: idle, -1: unknown */
	char comm[16];
};

struct cpu_state {
	struct ds_thread *current;	/* borrowed; NULL when idle or unknown */
	bool idle;			/* swapper (tid 0) runs */
	unsigned int irq_depth;
	struct irq_context irqs[IRQ_STACK_DEPTH];
	unsigned int timer_depth;
	/* chains only */
	GArray *runs;			/* owned; struct ds_cpu_run in time order, live from `runs_head` */
	guint runs_head;
	bool runs_pruned;		/* runs older than the window were dropped */
	bool rx_valid;			/* a TCP segment was received in the NET_RX softirq running now */
	struct ds_tcp_key rx_key;
	int64_t rx_ts;
	bool blk_valid;			/* a block request completed in the hard irq running now */
	uint64_t blk_dev;
	uint64_t blk_seq;		/* layers: 1 + seq of its completion record (block.h), 0 unknown */
	struct ds_hc_counter *hc_irq;	/* borrowed; host context: the handler counter charged now, NULL none */
	struct ds_hc_counter *hc_irq_last;	/* borrowed; host context: the handler counter last found, NULL none */
};

struct ds_model {
	enum ds_state_rule rule;
	bool record_segments;
	int64_t last_ts;
	GHashTable *threads;		/* owned; tid -> struct ds_thread * (owned) */
	GHashTable *vtid_map;		/* owned; (vpid << 32 | vtid) -> kernel tid */
	GHashTable *names;		/* owned; interned irq names (owned keys) */
	struct cpu_state *cpus;		/* owned */
	unsigned int cpu_count;
	/* chains (NULL: off) */
	struct ds_chain_ctx *chain;	/* borrowed; shared by the models of every host */
	char *host;			/* owned; host name for the chain entries ("-" when not set) */
	const char *net_rx_name;	/* borrowed; the NET_RX softirq name pointer once seen */
	/* layers (NULL: off; doc/storage-network.md) */
	struct ds_block *block;		/* owned; the host's block requests */
	bool net_seen;			/* a net_dev_queue or net_if_receive_skb was seen on this host */
	struct ds_host_context *hc;	/* owned; host context (host-context.h), NULL: off */
	/* direct-mapped cache of `threads` by tid (no hashing per event); slots cleared when a thread is freed */
	struct ds_thread *thread_cache[DS_THREAD_CACHE_SIZE];	/* borrowed */
	/* spans freed, kept with their arrays emptied for sa_span_new() (no allocation per span) */
	struct sa_span *span_pool;	/* owned; linked by next_on_thread */
	unsigned int span_pool_count;
};

/* How a blocked piece ended. */
enum ds_wake_kind {
	DS_WAKE_NONE = 0,	/* no waker seen (or still blocked) */
	DS_WAKE_THREAD,
	DS_WAKE_IDLE,		/* the idle task, outside interrupt context */
	DS_WAKE_TIMER,
	DS_WAKE_IRQ,
	DS_WAKE_SOFTIRQ,
	DS_WAKE_NET,		/* NET_RX softirq that received a TCP segment */
	DS_WAKE_DISK,		/* hard irq that completed a block request */
};

/*
 * The waker of a blocked piece: the members of its kind only (a union), so that the pieces of the history
 * stay small (doc/performance.md, "Chains in run mode"); zeroed whole before it is filled.
 */
struct ds_wake {
	enum ds_wake_kind kind;
	bool no_net_events;		/* NET: NET_RX wakeup on a host with no network events (key unused) */
	bool received_twice;		/* NET: the receive was the second (or later) one of its send */
	const char *name;		/* IRQ, SOFTIRQ, NET, DISK, TIMER: the interrupt's, borrowed (interned or static) */
	union {
		int64_t tid;		/* THREAD */
		struct {		/* NET */
			struct ds_tcp_key key;
			int64_t rx_ts;		/* receive time */
			uint64_t send_seq;	/* seq + 1 of the send matched at the wakeup, 0 none (chain-net.c) */
		};
		struct {		/* DISK */
			uint64_t dev;
			uint64_t blk_seq;	/* layers: 1 + seq of the completion record, 0 unknown */
		};
	};
};

/* One piece of a thread's effective-state timeline (members ordered for no padding: 128 bytes). */
struct ds_piece {
	int64_t begin, end;
	struct ds_detail detail;
	const char *syscall;		/* borrowed; syscall open at the end of the piece, NULL none */
	const char *reason;		/* borrowed static; Unknown pieces: why */
	enum ds_state state;
	int32_t cpu;			/* CPU run on / waited for; -1 unknown */
	struct ds_wake wake;		/* blocked pieces */
};

/* Who last woke a thread blocked in a syscall (the end-of-trace deadlock rule, doc/critical-path.md). */
struct ds_last_waker {
	const char *syscall;		/* borrowed; NULL: free slot */
	struct ds_model *model;		/* borrowed */
	int64_t tid;
};

#define DS_LAST_WAKERS 4

/* Per-thread chain history (struct ds_thread::chain, owned by the thread). */
struct ds_thread_history {
	/*
	 * Closed pieces in time order, live from `head`: piece i is blocks[i / DS_PIECE_BLOCK][i % DS_PIECE_BLOCK]
	 * (ds_chain_piece_at()); appended in place, never moved (no growth copies), and a block whose pieces
	 * all left the window is freed whole.
	 */
	struct ds_piece **blocks;	/* owned array (`block_alloc` slots) of `block_count` owned blocks */
	guint block_count, block_alloc;
	guint len;			/* pieces from blocks[0][0] */
	guint head;
	bool pruned;			/* pieces older than the window were dropped */
	int64_t open_since;		/* the open piece: [open_since, now) in the thread's current state */
	int32_t open_cpu;
	const char *open_reason;
	struct ds_wake wake;		/* the waker of the blocked piece being closed (set at the wakeup) */
	struct ds_last_waker last_wakers[DS_LAST_WAKERS];
	unsigned int last_waker_next;
	char process[16];		/* process name cache ("" none) for `process_pid` */
	int64_t process_pid;
};

/* Compaction of the arrays kept for the window: drop the dead front when it is large and most of the array. */
#define DS_CHAIN_COMPACT_MIN 32

/* Pieces per block of a thread's history (a power of 2). */
#define DS_PIECE_BLOCK 64u

static inline struct ds_piece *ds_chain_piece_at(const struct ds_thread_history *h, guint i)
{
	return &h->blocks[i / DS_PIECE_BLOCK][i % DS_PIECE_BLOCK];
}

/* span-charge.c, called by the model */
void sa_span_pool_free(struct ds_model *model);
/* The span's thread was in `state` (with `detail`, thread `tid`) from the span's cursor to `ts`. */
void sa_span_charge(struct sa_span *span, int64_t ts, enum ds_state state, const struct ds_detail *detail,
		int64_t tid);
/* The syscall of `thread` ends at `ts`: its time since the span attached, counted once per syscall. */
void sa_span_syscall_done(struct sa_span *span, const struct ds_thread *thread, int64_t ts);
/* Layers: a read-family syscall of `thread` ends at `ts` (doc/storage-network.md, "Page cache"). */
void sa_span_read_done(struct sa_span *span, const struct ds_thread *thread, int64_t ts);

/* chain-history.c, called by the model */
void ds_chain_thread_init(struct ds_model *model, struct ds_thread *thread);
void ds_chain_thread_fini(struct ds_thread *thread);
/* The thread's effective state (thread->state, detail) ends at `ts`: close its open piece. */
void ds_chain_piece_close(struct ds_model *model, struct ds_thread *thread, int64_t ts);
void ds_chain_cpu_run(struct ds_model *model, struct cpu_state *cpu, int64_t ts, int64_t tid, const char *comm);
void ds_chain_cpu_fini(struct cpu_state *cpu);
/* A blocked thread is woken now from `cpu` (NULL: unknown CPU): fill its pending wake. */
void ds_chain_wake(struct ds_model *model, struct ds_thread *thread, const struct cpu_state *cpu);
/* chain-net.c: a NET_RX wakeup's segment, matched to its send now (doc/storage-network.md "Network"). */
void ds_chain_net_wake(struct ds_model *model, struct ds_wake *w);
/* chain-walk.c: a waited segment of `span` closed: append its entries to span->chain. */
void ds_chain_explain_segment(struct ds_model *model, struct sa_span *span, guint index);
/* true around the charge of one thread's spans (nothing changes the model meanwhile): walks are shared. */
void ds_chain_share_walks(struct ds_model *model, bool on);

#endif /* DEEPSPAN_SPAN_ATTRIB_MODEL_PRIV_H */
