/* SPDX-License-Identifier: MIT */
/*
 * Group selection (doc/diff.md), shared by the diff sink and the metrics
 * sink's table by culprit (doc/metrics.md): the `group-a` / `group-b` parameter maps and
 * the choice of the requests of groups A and B.
 *
 * A group's pool is its input's complete requests (one input: all of them;
 * inputs `a` and `b`: the requests of that port), restricted to one root
 * operation (`root`, default the most frequent one) and a time window
 * (`begin`, `end`).  `percentiles` [lo, hi] keeps the requests whose latency
 * rank interval [i/n, (i+1)/n) overlaps [lo %, hi %] of the pool; the other
 * criteria filter each request.  With one input and no map, A = percentiles
 * [0, 50] (at or under the median) and B = [99, 100] (the slowest 1 %, at
 * least one request).
 */
#ifndef DEEPSPAN_DIFF_GROUPS_H
#define DEEPSPAN_DIFF_GROUPS_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "params.h"
#include "span-consumer/request-record.h"
#include "span-consumer/span-store.h"

#define DS_NO_LIMIT INT64_MIN

struct ds_group_spec {
	bool given;		/* the parameter map was given */
	int64_t min_duration, max_duration;	/* ns or DS_NO_LIMIT */
	int64_t min_self, max_self;		/* ns or DS_NO_LIMIT */
	bool has_percentiles;
	double percentile_lo, percentile_hi;	/* 0..100 */
	int64_t begin, end;			/* ns or DS_NO_LIMIT */
	const char *root;	/* borrowed from the parameters; NULL = default */
	bool has_trace_id;
	uint64_t trace_id_high, trace_id_low;
};

/* Reads map parameter `name` ("group-a") of `params` into `spec`. */
enum ds_param_status ds_group_spec_parse(const struct ds_params *params,
		const char *name, struct ds_group_spec *spec);

struct ds_selection {
	GArray *members[2];	/* owned: uint32_t record indices, by latency */
	char *root[2];		/* owned: root operation of each group ("service: operation") or NULL = any */
	char *description[2];	/* owned: human definition of each group */
	uint64_t pool[2];	/* requests in each group's pool */
	uint64_t truncated;	/* requests left out: a span was truncated */
	uint64_t invalid;	/* requests left out: a span had bounds out of range */
};

/*
 * Selects both groups among `records` (GArray of struct ds_request_record);
 * `truncated` = requests left out for truncated spans; `two_inputs` = ports
 * `a` and `b` are both connected.
 */
void ds_select_groups(const struct ds_strings *strings,
		const GArray *records, uint64_t truncated, const struct ds_group_spec *spec_a,
		const struct ds_group_spec *spec_b, bool two_inputs,
		struct ds_selection *selection);
void ds_selection_fini(struct ds_selection *selection);

/* "service: operation" of a request's root into a new string. */
char *ds_request_root_label(const struct ds_strings *strings,
		const struct ds_request_record *record);

#endif /* DEEPSPAN_DIFF_GROUPS_H */
