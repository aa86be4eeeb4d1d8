/* SPDX-License-Identifier: MIT */
/*
 * Ground-truth bookkeeping: the six thread states of doc/span-attrib.md ("The six states"),
 * kept by the simulator itself as it makes threads run, block, wait and get
 * interrupted, and charged to every span open on the thread.  Durations are
 * in host-local timestamps exactly as written in the trace, so a span's six
 * states sum to end - begin by construction.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_STATE_H
#define DEEPSPAN_SCENARIO_SIM_STATE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim-events.h"

enum sim_tstate {
	SIM_ST_USER,
	SIM_ST_SYSCALL,
	SIM_ST_BLOCKED,
	SIM_ST_WAIT_CPU,
	SIM_ST_INTERRUPTED,
	SIM_ST_UNKNOWN,
	SIM_ST_COUNT,
};

/* "user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown" */
const char *sim_tstate_name(enum sim_tstate state);

struct sim_span_syscall {
	uint64_t count;
	int64_t duration;
};

struct sim_span {
	uint64_t trace_id_high, trace_id_low, span_id, parent_span_id;
	unsigned int host;
	const char *service;		/* borrowed (interned) */
	const char *operation;		/* borrowed (interned) */
	int32_t pid, tid;
	uint8_t kind;			/* 0 internal, 1 server, 2 client */
	int64_t begin;			/* local ts of the start event */
	int64_t end;			/* local ts of the end event */
	int64_t states[SIM_ST_COUNT];
	struct sim_span_syscall syscalls[SIM_SYS_COUNT];
	struct sim_span *outer;		/* borrowed: enclosing open span of the same thread */
	void *request;			/* borrowed: the workload's request */
	bool chain_truth;		/* the truth writes its chain (doc/scenario.md "Chain truth") */
	/* read-family syscalls (read, pread64) entered in the span: page cache hits / misses and their ns */
	uint64_t cache_hits, cache_misses;
	int64_t cache_hit_time, cache_miss_time;
	struct sim_span *next_free;	/* free-list link */
};

/* Who ended a Waited blocked piece (the chain truth: doc/scenario.md "Chain truth"). */
enum sim_waker_kind {
	SIM_WAKER_NONE,		/* not woken (yet) */
	SIM_WAKER_THREAD,	/* the thread current on the waking CPU */
	SIM_WAKER_TIMER,	/* TIMER softirq (timer expiry) */
	SIM_WAKER_IRQ,		/* a hard irq (`name`) */
	SIM_WAKER_SOFTIRQ,	/* a softirq (`name`); NET_RX with `net_known` = a TCP segment of a traced sender */
	SIM_WAKER_DISK,		/* the disk irq completing the thread's block request */
};

struct sim_waker {
	uint8_t kind;			/* enum sim_waker_kind */
	bool net_known;			/* NET_RX: the segment's send is in the trace */
	uint16_t host;			/* thread waker / sender: host index */
	int32_t tid;			/* thread waker / sender tid */
	const char *name;		/* borrowed (interned): irq / softirq name */
	int64_t t_s;			/* NET_RX: local ts (sender host) of the last segment's net_dev_queue;
					 * DISK: local ts of the block_rq_issue */
	int64_t t_r;			/* NET_RX: local ts (receiver host) of its net_if_receive_skb;
					 * DISK: local ts of the block_rq_complete */
	int64_t t_f;			/* NET_RX: local ts (sender host) of its first send (< t_s: retransmitted) */
	int64_t t_i;			/* DISK: local ts of the block_rq_insert (= t_s: direct issue) */
	uint32_t ahead_count;		/* DISK: requests issued on the device while it queued */
	uint32_t ahead_top_count, ahead_top_writes;	/* DISK: of the top submitter (most bytes) */
	int32_t ahead_top_tid;
	uint64_t ahead_top_bytes;
	const char *ahead_top_comm;	/* borrowed */
	uint32_t bytes;			/* DISK: the request's bytes */
};

/* A maximal piece of constant state of a thread, from `begin` to the next piece's begin. */
struct sim_piece {
	int64_t begin;			/* local ts */
	uint8_t state;			/* enum sim_tstate */
	int8_t syscall;			/* enum sim_syscall open at its start (SIM_SYS_NONE: none) */
	int16_t cpu;			/* wait_cpu: the CPU waited for; -1 otherwise */
	int16_t migrate_cpu;		/* wait_cpu: the CPU it migrated to at `migrate_ts` (-1: none) */
	int64_t migrate_ts;		/* local ts of that sched_migrate_task */
	const char *irq_name;		/* borrowed: interrupted: "irq:NAME" / "softirq:NAME" */
	struct sim_waker waker;		/* blocked: what woke it at its end */
};

struct sim_thread_book {
	enum sim_tstate state;
	int64_t since;			/* local ts the state began */
	enum sim_syscall syscall;	/* open syscall or SIM_SYS_NONE */
	int64_t syscall_entry;		/* local ts of its entry */
	bool syscall_block_io;		/* the open syscall issued a block request (a page cache miss) */
	struct sim_span *spans;		/* borrowed: innermost open span (list via `outer`) */
	GArray *history;		/* owned: struct sim_piece in time order (NULL: chain truth off) */
	int64_t history_keep;		/* pieces ending this long before the newest are dropped */
};

void sim_book_init(struct sim_thread_book *book);
/* Keeps the thread's state history (pieces ending more than `keep` ns before the newest are dropped). */
void sim_book_keep_history(struct sim_thread_book *book, int64_t keep);
void sim_book_fini(struct sim_thread_book *book);
/* The newest piece of the history (NULL without history). */
struct sim_piece *sim_book_last_piece(struct sim_thread_book *book);

/* The thread enters `state` at local time `ts` (charging the previous state to its open spans). */
void sim_book_set(struct sim_thread_book *book, enum sim_tstate state, int64_t ts);

/* The running state: System call when a syscall is open, else User. */
enum sim_tstate sim_book_running_state(const struct sim_thread_book *book);

void sim_book_syscall_entry(struct sim_thread_book *book, enum sim_syscall sys, int64_t ts);
void sim_book_syscall_exit(struct sim_thread_book *book, int64_t ts);

/* Charges the current state up to `ts` to the open spans (a span still open at the end). */
void sim_book_flush(struct sim_thread_book *book, int64_t ts);

/* Opens `span` on the thread at `ts` (span->begin = ts). */
void sim_book_span_start(struct sim_thread_book *book, struct sim_span *span, int64_t ts);
/* Closes the innermost span at `ts` and returns it (NULL when none is open). */
struct sim_span *sim_book_span_end(struct sim_thread_book *book, int64_t ts);

#endif /* DEEPSPAN_SCENARIO_SIM_STATE_H */
