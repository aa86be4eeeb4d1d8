/*
 * The tables of sink.deepspan.metrics, built from a span store: per
 * operation, per request (critical-path states, shared with the diff sink),
 * per syscall and per thread.  All durations in nanoseconds.
 */
#ifndef DEEPSPAN_DIFF_METRICS_BUILD_H
#define DEEPSPAN_DIFF_METRICS_BUILD_H

#include "span-store.h"
#include "table.h"

enum ds_metrics_by {
	DS_METRICS_BY_OPERATION = 0,
	DS_METRICS_BY_REQUEST,
	DS_METRICS_BY_SYSCALL,
	DS_METRICS_BY_THREAD,
};

extern const char *const ds_metrics_by_names[];

/* Fills `table` (initialized here; the caller finalizes it). */
void ds_metrics_build(struct ds_span_store *store, enum ds_metrics_by by,
		struct ds_table *table);

/* Nearest-rank percentile `p` (0..100) of sorted `values[0..n)`. */
int64_t ds_percentile(const int64_t *values, uint32_t n, double p);

#endif /* DEEPSPAN_DIFF_METRICS_BUILD_H */
