/* SPDX-License-Identifier: MIT */
/*
 * Host context (doc/host-context.md): what else the host was doing during a span.  Pure C + glib (the
 * thread model drives it; unit tests drive the model).
 *
 * Per host, exact cumulative counters that can be evaluated at any time t, each `acc + active * (t - since)`:
 *   cpu        ns a process's threads ran on a CPU outside interrupt context (user + system call)
 *   irq, softirq, vector   ns a handler was the innermost interrupt context of a CPU
 *   run-queue  ns a process's threads were runnable and waited for a CPU
 *   disk       bytes a process submitted to a device (block_rq_issue: nr_sector * 512)
 * A window [begin, end) (a span that carries host context) gets, when it closes, the difference of every
 * counter that changed or ran during it.  Cost: O(1) per event (no allocation, no string compare: a
 * pre-change record is logged only the first time a counter changes after the latest window began);
 * per window, the records logged while it was open plus the counters active at its end.
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_HOST_CONTEXT_H
#define DEEPSPAN_SPAN_ATTRIB_HOST_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

enum ds_hc_kind {
	DS_HC_CPU = 0,
	DS_HC_IRQ,
	DS_HC_SOFTIRQ,
	DS_HC_VECTOR,
	DS_HC_RUN_QUEUE,
	DS_HC_DISK,
	DS_HC_KIND_COUNT,
};

/* Label of a kind in the payload's enumeration ("run-queue"). */
const char *ds_hc_kind_name(unsigned int kind);

/* One counter; lives as long as its host context. */
struct ds_hc_counter {
	/* key */
	enum ds_hc_kind kind;
	int64_t pid;			/* process kinds: pid (the tid when the pid is unknown), -1 otherwise */
	const char *name;		/* interrupt kinds: handler name (borrowed: interned or static), else NULL */
	uint64_t dev;			/* disk: kernel encoding major << 20 | minor, else 0 */
	/* value */
	uint64_t acc;			/* value at `since` */
	int64_t since;			/* last change */
	uint32_t active;		/* time kinds: contributors now (CPUs, runnable threads) */
	guint active_index;		/* in ds_host_context::active, G_MAXUINT when not active */
	uint64_t mark;			/* serial of the last window close that visited it */
	char comm[16];			/* process kinds: a thread name of the process when created */
};

/* The difference of one counter over a window. */
struct ds_hc_delta {
	const struct ds_hc_counter *counter;	/* borrowed; lives as long as the host context */
	uint64_t value;
};

struct ds_host_context;

/* A window: embedded in what carries host context (struct sa_span::hc). */
struct ds_hc_window {
	struct ds_host_context *hc;	/* borrowed; NULL when not open */
	int64_t begin;
	uint64_t log_pos;		/* absolute log index when it opened */
	GList link;			/* in ds_host_context::open (data = the window) */
	GArray *deltas;			/* owned; struct ds_hc_delta, set when it closes (NULL before) */
};

struct ds_host_context *ds_host_context_create(void);
/* Windows still open are unlinked (their deltas stay NULL). */
void ds_host_context_destroy(struct ds_host_context *hc);

/* The counter of a key, created (value 0 since `ts`) when absent; `comm` copied for process kinds. */
struct ds_hc_counter *ds_hc_counter_get(struct ds_host_context *hc, enum ds_hc_kind kind, int64_t pid,
		const char *name, uint64_t dev, const char *comm, int64_t ts);
/* At `ts` (non-decreasing): `active += delta_active` (time kinds) and `acc += add` (disk). */
void ds_hc_change(struct ds_host_context *hc, struct ds_hc_counter *counter, int64_t ts, int delta_active,
		uint64_t add);

void ds_hc_window_open(struct ds_host_context *hc, struct ds_hc_window *window, int64_t begin);
/* Fills window->deltas (non-zero differences over [begin, end), log order then active counters). */
void ds_hc_window_close(struct ds_hc_window *window, int64_t end);
/* Unlinks an open window and frees its deltas. */
void ds_hc_window_fini(struct ds_hc_window *window);

/* Records kept for the open windows (memory bound checks). */
guint ds_host_context_log_length(const struct ds_host_context *hc);

#endif /* DEEPSPAN_SPAN_ATTRIB_HOST_CONTEXT_H */
