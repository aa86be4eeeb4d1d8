/*
 * Span accounting on top of the thread state model (thread-state.h).
 *
 * A span is charged, over [begin, end), the effective state of the thread it is attached to;
 * while it is attached to no thread (deactivated, or its thread was freed) it is charged its
 * `idle_state`.  Each charge advances `cursor`, so the six totals always sum exactly to
 * cursor − begin, and to end − begin once finished.  Syscalls are counted and timed entry→exit,
 * clipped to the time the span was attached.
 *
 *   struct sa_span *span = sa_span_new(model, begin);    fill identity fields
 *   sa_span_attach(model, span, thread, ts);               start / activate
 *   sa_span_detach(model, span, ts, DS_STATE_BLOCKED, "inactive");   deactivate
 *   sa_span_finish(model, span, end);                      then read totals, syscalls, segments
 *   sa_span_free(span);
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_SPAN_ACCOUNT_H
#define DEEPSPAN_SPAN_ATTRIB_SPAN_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "thread-state.h"

struct sa_segment {
	int64_t begin, end;
	enum ds_state state;
	struct ds_detail detail;
};

struct sa_syscall_total {
	const char *name;	/* borrowed (kernel-events) */
	uint64_t count;
	uint64_t duration;
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
};

/* A new span beginning at `begin`, detached (idle state Unknown). */
struct sa_span *sa_span_new(struct ds_model *model, int64_t begin);
void sa_span_free(struct sa_span *span);

/* Charges the idle state up to `ts`, then charges `thread` from `ts` on. */
void sa_span_attach(struct ds_model *model, struct sa_span *span, struct ds_thread *thread, int64_t ts);

/* Charges the thread up to `ts`; then the span is charged `idle_state` (`idle_detail`: static text or NULL). */
void sa_span_detach(struct ds_model *model, struct sa_span *span, int64_t ts,
		enum ds_state idle_state, const char *idle_detail);

/* Frees the span (unlinking it from its thread when attached). */
/* Ends the span at `end` (detaching it). */
void sa_span_finish(struct ds_model *model, struct sa_span *span, int64_t end);

/* Library-internal: called by the model. */
void sa_span_charge(struct sa_span *span, int64_t ts, enum ds_state state,
		const struct ds_detail *detail);
void sa_span_syscall_done(struct sa_span *span, const struct ds_thread *thread, int64_t ts);

#endif /* DEEPSPAN_SPAN_ATTRIB_SPAN_ACCOUNT_H */
