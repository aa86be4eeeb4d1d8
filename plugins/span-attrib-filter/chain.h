/* SPDX-License-Identifier: MIT */
/*
 * Chains: why a span's thread waited (doc/critical-path.md).  Pure C + glib, no babeltrace2 objects: unit
 * tests drive it through the thread model (thread-state.h) with hand-written event sequences.
 *
 * When chains are on (ds_model_set_chain()), every model keeps per thread a history of its effective state
 * pieces (with the waker of each blocked piece) and per CPU the timeline of its current thread, both for
 * `window` ns behind the model's time, in arrays whose blocks are reused (no allocation per event in steady
 * state).  One `struct ds_chain_ctx` is shared by the models of every host the filter sees: it holds the
 * parameters, the index of TCP segments sent (net_dev_queue) on every host, and the counters the filter
 * reports.
 *
 * When a waited segment (blocked or wait_cpu) of a span closes, the walk explains it into entries
 * (struct ds_chain_entry) appended to the span's `chain`; the entries of a segment partition it exactly
 * (doc/critical-path.md, "Encoding" and "Semantics").
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_CHAIN_H
#define DEEPSPAN_SPAN_ATTRIB_CHAIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "chain-kinds.h"
#include "kernel-net.h"
#include "states.h"

struct ds_model;

#define DS_CHAIN_DETAIL_SIZE 160

/* One entry of a span's chain (the `chain` member of deepspan:span, doc/critical-path.md). */
struct ds_chain_entry {
	uint64_t segment;		/* index in the span's segments */
	int64_t parent;			/* index in the chain, -1: explains the segment directly */
	uint64_t depth;
	int64_t begin, end;
	const char *host;		/* borrowed: the model's host name (lives as long as the model) */
	int64_t pid, tid;
	char comm[16];			/* "-" when unknown */
	char process[16];		/* "-" when unknown */
	int64_t cpu;
	enum ds_state state;
	enum ds_chain_kind kind;
	char detail[DS_CHAIN_DETAIL_SIZE];	/* never empty */
	/*
	 * Layers, exact bytes (doc/critical-path.md "Encoding"): the disk entry and its device time: the
	 * request's; a queue time behind a submitter: the top submitter's served ahead; 0 otherwise.
	 */
	uint64_t bytes;
	/* strlen() of host, comm, process and detail (UINT8_MAX: 255 or more), for output.c: no strlen there */
	uint8_t host_len, comm_len, process_len, detail_len;
};

/* Counters the filter reports (warnings). */
struct ds_chain_counters {
	uint64_t deadlocks;
	uint64_t in_flight_clipped;	/* a receive before its send (clocks not synchronized): clipped to 0 */
	uint64_t history_expired;	/* entries `unknown: history expired` */
	uint64_t received_twice;	/* TCP segments received again after a receive of the same send (chain-net.c) */
	uint64_t no_net_events;		/* NET_RX wakeups `unknown` on a host without network events (chain-net.c) */
	char first_no_net_host[64];	/* the first such host ("" none) */
	uint64_t no_matching_send;	/* NET_RX wakeups by a segment whose send was not seen (chain-net.c) */
	uint64_t received_before_sent;	/* segments sent after their receive (clocks not synchronized) */
	char first_deadlock[DS_CHAIN_DETAIL_SIZE];	/* "" when none */
};

/* A TCP segment sent, as the index keeps it. */
struct ds_tcp_send {
	struct ds_tcp_key key;
	int64_t ts;
	struct ds_model *model;		/* borrowed: the sending host's model */
	int64_t tid;			/* thread current on the sending CPU outside interrupt context, -1 none */
	const char *irq;		/* borrowed (static or interned): sent in this irq / softirq, NULL none */
	bool irq_soft;			/* `irq` is a softirq */
	uint32_t count;			/* times this key was sent up to this send (2+: a retransmission) */
	uint32_t receives;		/* first send of a key: net_if_receive_skb of the key (2+: received twice) */
	uint64_t prev;			/* seq + 1 of the previous send of the same key, 0 none */
	uint64_t seq;			/* position in the index's ring */
	uint64_t hash;			/* ds_tcp_key_hash(&key) */
};

/*
 * One host's pass (chain-continuation.c, doc/scale.md "Per-host analysis"): the first walk that needed
 * another host's events, which that pass does not see.
 */
struct ds_chain_cross_host {
	bool needed;
	char host[64];			/* the host of the thread walked */
	int64_t tid;
	int64_t ts;			/* ns: the start of the interval the walk could not explain on this host */
	char what[DS_CHAIN_DETAIL_SIZE];
};

struct ds_chain_ctx {
	unsigned int depth;		/* chain-depth, 1..64 */
	int64_t window;			/* chain-window, ns (> 0) */
	struct ds_chain_counters counters;
	/* TCP segments sent on every host within the window: ring in send order + hash of the key */
	GArray *sends;			/* owned; struct ds_tcp_send, live ones from `sends_head` */
	guint sends_head;
	uint64_t sends_base;		/* seq of sends[0] */
	GHashTable *send_index;		/* owned; key hash (direct) -> seq + 1 (direct) */
	/*
	 * The latest event time read, of every host (ds_chain_advance()): a send older than `now` - window is
	 * gone, whenever the ring drops it, so what a walk finds depends on the time of the message being
	 * processed, not on when other hosts last sent (one host's pass finds what the whole graph finds).
	 */
	int64_t now;
	/*
	 * The last walk, while the model charges the spans of one thread (ds_chain_share_walks()): nested
	 * spans close the same segment at once and copy its entries instead of walking it again.
	 */
	struct {
		bool open;		/* inside one charge of a thread's spans: the model does not change */
		bool valid;
		const struct ds_model *model;	/* borrowed */
		int64_t tid, begin, end;
		int state;
		bool at_end;
		const GArray *entries;	/* borrowed; the chain of the span walked (alive while `open`) */
		guint base, count;	/* its entries of that walk */
		uint64_t history_expired, in_flight_clipped, deadlocks;	/* what the walk counted */
	} memo;
	/* receives without a send yet (chain-net.c): a later send means the clocks are not synchronized */
	GArray *early_rx;		/* owned (NULL until needed); struct ds_early_rx in time order, from head */
	guint early_rx_head;
	GHashTable *early_rx_index;	/* owned (NULL until needed); key hash (direct) -> 1 */
	/* one host's pass (ds_chain_set_local_only()): walks needing another host are recorded, not guessed */
	bool local_only;
	struct ds_chain_cross_host cross_host;
	/* the spans' chain arrays given back, for reuse (chain-arrays.c) */
	GPtrArray *free_chains;		/* owned (NULL until needed); owned GArray of struct ds_chain_entry */
};

struct ds_chain_ctx *ds_chain_ctx_create(unsigned int depth, int64_t window);
void ds_chain_ctx_destroy(struct ds_chain_ctx *ctx);

/* An event at `ts` was read (of any host). */
static inline void ds_chain_advance(struct ds_chain_ctx *ctx, int64_t ts)
{
	if (ts > ctx->now) {
		ctx->now = ts;
	}
}

/* `now` - window, without overflow: what is older is out of the window. */
static inline int64_t ds_chain_window_limit(const struct ds_chain_ctx *ctx, int64_t now)
{
	return now < INT64_MIN + ctx->window ? INT64_MIN : now - ctx->window;
}

uint64_t ds_tcp_key_hash(const struct ds_tcp_key *key);

static inline bool ds_tcp_key_equal(const struct ds_tcp_key *a, const struct ds_tcp_key *b)
{
	return a->seq == b->seq && a->ack_seq == b->ack_seq && a->flags == b->flags &&
		a->source_port == b->source_port && a->dest_port == b->dest_port;
}

/* The latest send of `key` within the window behind `now`, NULL when none. */
const struct ds_tcp_send *ds_chain_find_send(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key);

/* net_dev_queue on the host of `model` at `ts` by thread `tid` (-1 none): keeps it for the window. */
void ds_chain_add_send(struct ds_chain_ctx *ctx, struct ds_model *model, int64_t ts, int64_t tid,
		const struct ds_tcp_key *key);

/*
 * Network terminal (chain-net.c, doc/storage-network.md "Network").
 */
/* The send kept at `seq` (struct ds_tcp_send::seq), NULL when it left the window behind `now`. */
const struct ds_tcp_send *ds_chain_send_at(const struct ds_chain_ctx *ctx, uint64_t seq);
/*
 * The send of `key` a receive at `ts` matches: the last one at or before `ts`; when every send kept is after
 * `ts` (clocks not synchronized), the earliest one.  NULL when the key was not sent within the window.
 */
const struct ds_tcp_send *ds_chain_send_before(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key, int64_t ts);
/* The first send of `send`'s key still kept (`send` itself when it is the only one). */
const struct ds_tcp_send *ds_chain_send_first(const struct ds_chain_ctx *ctx, const struct ds_tcp_send *send);
/*
 * net_if_receive_skb of `key` at `ts`: counts the receive on the key's first send (2+: received twice); a
 * receive without a send is remembered for the window (a later send: received before sent).
 */
void ds_chain_net_receive(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key, int64_t ts);
/* A send of `hash` at `ts` (ds_chain_add_send): counts it when the key was received before. */
void ds_chain_net_sent(struct ds_chain_ctx *ctx, uint64_t hash, int64_t ts);
/* The send just added (ds_chain_add_send) ran in interrupt context: hard irq or softirq `name`. */
void ds_chain_net_sent_in_irq(struct ds_chain_ctx *ctx, const char *name, bool soft);
/* Frees what chain-net.c keeps in `ctx`. */
void ds_chain_net_fini(struct ds_chain_ctx *ctx);

/*
 * One host's pass (chain-continuation.c): the filter sees one host's traces, so a wait ended by a TCP segment
 * that was not sent on this host (its sender may be on another host), or an end-of-trace deadlock check
 * through such a wait, cannot be explained as the whole graph would.  The first one is recorded in
 * `ctx->cross_host`; the filter then stops (doc/scale.md, "Per-host analysis").
 */
void ds_chain_set_local_only(struct ds_chain_ctx *ctx);
void ds_chain_cross_host_need(struct ds_chain_ctx *ctx, const struct ds_model *model, int64_t tid, int64_t ts,
		const char *what);

/*
 * chain-arrays.c: a span's `chain` array, empty (reused when one was given back), and giving it back when
 * the span is freed; ds_chain_arrays_fini() frees those kept (ds_chain_ctx_destroy()).
 */
GArray *ds_chain_array_take(struct ds_chain_ctx *ctx);
void ds_chain_array_give(struct ds_chain_ctx *ctx, GArray *chain);
void ds_chain_arrays_fini(struct ds_chain_ctx *ctx);

/*
 * chain-text.c: vsnprintf(buf, size, fmt, args)'s bytes, written without printf when the conversions of
 * `fmt` are only %s, %u, %ld and %lu (the chain details); vsnprintf itself otherwise.
 */
size_t ds_chain_text_vformat(char *buf, size_t size, const char *fmt, va_list args);
void ds_chain_text_format(char *buf, size_t size, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/*
 * g_strlcpy(dst, src, size)'s bytes (size > 0) without its byte loop: at most size - 1 bytes, NUL-terminated;
 * returns the length written (ds_chain_text_vformat() too).
 */
static inline size_t ds_chain_text_copy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}
#endif /* DEEPSPAN_SPAN_ATTRIB_CHAIN_H */
