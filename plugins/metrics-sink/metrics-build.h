/* SPDX-License-Identifier: MIT */
/*
 * The tables of sink.deepspan.metrics, accumulated as spans and requests are
 * handed out by the request stream: per operation, per request
 * (critical-path states, shared with the diff sink), per syscall, per
 * thread, and per culprit (the threads chains end on, in groups B and A).  Rows keep integer ids; names are looked up when writing.  All
 * durations in nanoseconds.
 */
#ifndef DEEPSPAN_DIFF_METRICS_BUILD_H
#define DEEPSPAN_DIFF_METRICS_BUILD_H

#include <glib.h>

#include "span-consumer/groups.h"
#include "span-consumer/host-context.h"
#include "span-consumer/request-spill.h"
#include "span-consumer/request-tree.h"
#include "span-consumer/span-store.h"
#include "culprit-table.h"
#include "disk-table.h"
#include "table.h"

enum ds_metrics_by {
	DS_METRICS_BY_OPERATION = 0,
	DS_METRICS_BY_REQUEST,
	DS_METRICS_BY_SYSCALL,
	DS_METRICS_BY_THREAD,
	DS_METRICS_BY_CULPRIT,
	DS_METRICS_BY_DISK,	/* written by disk-table.c from the deepspan:disk events */
	DS_METRICS_BY_HOST,
};

extern const char *const ds_metrics_by_names[];

struct ds_metrics_acc {
	enum ds_metrics_by by;
	const struct ds_strings *strings;	/* borrowed: names of the ids */
	GHashTable *buckets;	/* owned: set of owned rows keyed by their ids */
	GArray *rows;		/* owned (by request): one row per request */
	struct ds_spill spill;	/* owned (by operation): the span durations (duration-list.h) */
	/* Table by culprit (doc/metrics.md, "By culprit"). */
	struct ds_group_spec groups[2];	/* `group-a`, `group-b` (`root` borrowed from the parameters) */
	GArray *records;	/* owned: struct ds_request_record, one per complete request */
	struct ds_culprit_table *culprit;	/* owned (by culprit): its requests parallel to `records` */
	struct ds_selection selection;	/* owned: groups A and B, set by ds_metrics_write() */
	bool selected;			/* `selection` is set */
	struct ds_host_acc host;	/* table by host (doc/metrics.md, "By host"): runs parallel to `records` */
	uint64_t truncated_requests;	/* in no group */
	uint64_t invalid_spans;		/* left out: bounds out of range (span-store.h) */
	uint64_t invalid_requests;	/* left out of the request table: an invalid span */
	struct ds_disk_table *disk;	/* borrowed (by disk): gets the requests' chain disk entries */
	bool has_cache;			/* a span had the page-cache members (by operation: their columns) */
	bool overflow;			/* a total left int64: the table would be wrong */
	char *overflow_row;		/* owned: "service: operation" of the first such row */
};

/* False with errno set when the spill file cannot be created in `spill_dir`. */
bool ds_metrics_acc_init(struct ds_metrics_acc *acc, enum ds_metrics_by by,
		const struct ds_strings *strings, const char *spill_dir);
void ds_metrics_acc_fini(struct ds_metrics_acc *acc);

/* ds_span_done_fn (tables by operation, syscall, thread): `data` is the accumulator. */
void ds_metrics_add_span(void *data, const struct ds_span_store *store,
		const struct ds_span *span);

/* ds_request_done_fn (table by request): `data` is the accumulator. */
void ds_metrics_add_request(void *data, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index);

/*
 * Fills `table` (initialized here; the caller finalizes it); false when the
 * spill file failed (acc->spill.error) or a total overflowed (acc->overflow).
 */
bool ds_metrics_write(struct ds_metrics_acc *acc, struct ds_table *table);

/* metrics-host.c: the rows of the table by host (selects the groups). */
bool ds_metrics_write_host_rows(struct ds_metrics_acc *acc, struct ds_table *table);

/* Selects groups A and B among the records (once; by=disk before writing its table). */
void ds_metrics_select_groups(struct ds_metrics_acc *acc);

/* The group selection of the table by culprit, after ds_metrics_write() (NULL otherwise). */
const struct ds_selection *ds_metrics_selection(const struct ds_metrics_acc *acc);

/* Nearest-rank percentile `p` (0..100) of sorted `values[0..n)`. */
int64_t ds_percentile(const int64_t *values, uint32_t n, double p);

#endif /* DEEPSPAN_DIFF_METRICS_BUILD_H */
