/*
 * Ground-truth bookkeeping: the six thread states of doc/span-attrib.md ("The six states"),
 * kept by the simulator itself as it makes threads run, block, wait and get
 * interrupted, and charged to every span open on the thread.  Durations are
 * in host-local timestamps exactly as written in the trace, so a span's six
 * states sum to end - begin by construction.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_STATE_H
#define DEEPSPAN_SCENARIO_SIM_STATE_H

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
	struct sim_span *next_free;	/* free-list link */
};

struct sim_thread_book {
	enum sim_tstate state;
	int64_t since;			/* local ts the state began */
	enum sim_syscall syscall;	/* open syscall or SIM_SYS_NONE */
	int64_t syscall_entry;		/* local ts of its entry */
	struct sim_span *spans;		/* borrowed: innermost open span (list via `outer`) */
};

void sim_book_init(struct sim_thread_book *book);

/* The thread enters `state` at local time `ts` (charging the previous state to its open spans). */
void sim_book_set(struct sim_thread_book *book, enum sim_tstate state, int64_t ts);

/* The running state: System call when a syscall is open, else User. */
enum sim_tstate sim_book_running_state(const struct sim_thread_book *book);

void sim_book_syscall_entry(struct sim_thread_book *book, enum sim_syscall sys, int64_t ts);
void sim_book_syscall_exit(struct sim_thread_book *book, int64_t ts);

/* Opens `span` on the thread at `ts` (span->begin = ts). */
void sim_book_span_start(struct sim_thread_book *book, struct sim_span *span, int64_t ts);
/* Closes the innermost span at `ts` and returns it (NULL when none is open). */
struct sim_span *sim_book_span_end(struct sim_thread_book *book, int64_t ts);

#endif /* DEEPSPAN_SCENARIO_SIM_STATE_H */
