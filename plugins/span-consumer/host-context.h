/* SPDX-License-Identifier: MIT */
/*
 * The host context table (doc/host-context.md, "Definition"): per host, what ran during group B's requests
 * versus group A's.  Both sinks keep one run of sums per complete request (in the order of their request
 * records), then rank the rows of the two groups once the groups are selected.
 *
 * For host H and group G, window_G(H) = the summed `host_window` of the G requests' spans on H, and
 * value_G(H, row) = the summed `host_context` values of those spans; rate_G = value_G / window_G per second
 * (ns/s for the time kinds, bytes/s for disk).  Sums are exact integers; rates are their quotients.
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_HOST_CONTEXT_H
#define DEEPSPAN_SPAN_CONSUMER_HOST_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

#include "groups.h"
#include "request-tree.h"
#include "span-store.h"

/* Kinds of a host context entry, in the producer's label order. */
enum ds_host_kind {
	DS_HOST_CPU = 0, DS_HOST_IRQ, DS_HOST_SOFTIRQ, DS_HOST_VECTOR, DS_HOST_RUN_QUEUE, DS_HOST_DISK,
	DS_HOST_KIND_COUNT,
};

const char *ds_host_kind_tag(unsigned int kind);
/* The kind of a payload label ("run-queue", "run_queue"); DS_HOST_KIND_COUNT when unknown. */
unsigned int ds_host_kind_of_label(const char *label);

struct ds_host_acc {
	GArray *runs;		/* owned: struct ds_host_run, one per request handed in */
	GArray *items;		/* owned: struct ds_host_sum, the runs' sums */
	bool any;		/* some span carried host context */
};

/* One row of the table. */
struct ds_host_row {
	uint32_t host;		/* interned */
	uint32_t name;		/* interned */
	uint32_t device;	/* interned */
	int64_t pid;
	uint8_t kind;		/* enum ds_host_kind */
	uint64_t total[2];	/* exact sums, A = 0, B = 1 */
	uint64_t window[2];	/* the host's summed windows, A = 0, B = 1 */
	double rate[2];		/* per second of window */
	double diff;		/* rate B - rate A */
};

void ds_host_acc_init(struct ds_host_acc *acc);
void ds_host_acc_fini(struct ds_host_acc *acc);

/* Adds the run of request `index` (call once per request record, in the same order). */
void ds_host_acc_add_request(struct ds_host_acc *acc, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index);

/*
 * The rows of the two groups of `selection` (record indices = run indices), time kinds first then disk,
 * each ranked by rate B - rate A (largest first; ties by names).  Returns an owned array of struct
 * ds_host_row; `*overflow` is set when a sum left uint64.
 */
GArray *ds_host_rows(const struct ds_host_acc *acc, const struct ds_strings *strings,
		const struct ds_selection *selection, bool *overflow);

/* "cpu", "irq:NAME", "softirq:NAME", ... with the process or device: the row's label for text outputs. */
char *ds_host_row_label(const struct ds_host_row *row, const struct ds_strings *strings);

/* explain.txt's "What changed on the machine" section (at most `top` rows). */
void ds_host_write_text(FILE *file, const GArray *rows, const struct ds_strings *strings, unsigned int top);

#endif /* DEEPSPAN_SPAN_CONSUMER_HOST_CONTEXT_H */
