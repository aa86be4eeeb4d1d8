/* SPDX-License-Identifier: MIT */
/*
 * Request trees: spans grouped by 128-bit trace id and linked by
 * `parent_span_id` across hosts.  A span whose parent is absent is a root of
 * its request; the request's main root is its longest root (earliest on a
 * tie), whose duration is the request latency.  Children that outlive their
 * parent (async) stay linked.  Each span's children are kept sorted by end
 * time, latest first (what the critical path walks).
 */
#ifndef DEEPSPAN_DIFF_REQUEST_TREE_H
#define DEEPSPAN_DIFF_REQUEST_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "span-store.h"

/*
 * Frames deeper than this are folded: a span at this depth (the root is at
 * depth 0) stands for its whole subtree in every mode (doc/diff.md).
 */
#define DS_REQUEST_MAX_DEPTH 512u

struct ds_request {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint32_t root;		/* span index of the main root */
	uint32_t first_span;	/* index into ds_requests.spans */
	uint32_t span_count;
	uint32_t input;		/* input port of the root */
	uint32_t root_count;
	bool truncated;		/* a span was still open at the end of the trace */
	bool invalid;		/* a span had bounds out of range (span-store.h) */
	int64_t latency;	/* root end - root begin */
	int64_t self_time;	/* root duration minus the union of its children */
};

struct ds_requests {
	GArray *requests;	/* owned: struct ds_request */
	GArray *spans;		/* owned: uint32_t span indices grouped by request, roots first */
	GArray *children;	/* owned: uint32_t span indices grouped by parent */
	uint64_t truncated_requests;
	uint64_t invalid_requests;	/* with an invalid span: in no group */
	uint64_t cycle_spans;	/* in a parent cycle, unreachable from any root: left out */
	uint64_t cycle_requests;	/* made only of parent cycles (no root): left out */
	uint64_t deep_requests;		/* deeper than DS_REQUEST_MAX_DEPTH */
	uint64_t folded_spans;		/* spans below DS_REQUEST_MAX_DEPTH */
	uint64_t duplicate_spans;	/* same trace and span id seen twice: later ones are roots of nothing */
	/* Cross-host skew: a child outside its parent on another host. */
	int64_t worst_skew;	/* ns, 0 when none beyond the tolerance */
	uint32_t worst_skew_span;	/* span index or DS_NO_SPAN */
	uint64_t skewed_children;
};

/* Builds the trees of every span in `store`; `skew_tolerance` in ns. */
void ds_requests_build(struct ds_requests *requests,
		struct ds_span_store *store, int64_t skew_tolerance);
/* Builds the trees of the `n` spans `indices` (NULL: spans 0 .. n-1). */
void ds_requests_build_from(struct ds_requests *requests,
		struct ds_span_store *store, const uint32_t *indices, uint32_t n,
		int64_t skew_tolerance);
void ds_requests_fini(struct ds_requests *requests);

static inline const struct ds_request *ds_request_at(
		const struct ds_requests *requests, uint32_t index)
{
	return &g_array_index(requests->requests, struct ds_request, index);
}

static inline const uint32_t *ds_span_children(
		const struct ds_requests *requests, const struct ds_span *span)
{
	return &g_array_index(requests->children, uint32_t, span->first_child);
}

struct ds_interval {
	int64_t begin;
	int64_t end;
};

/*
 * The self intervals of `span`: [begin, end) minus the exact union of its
 * children's intervals (clipped to the span), in time order, into `out`
 * (a GArray of struct ds_interval, cleared first).  Returns their total.
 */
int64_t ds_span_self_intervals(const struct ds_span_store *store,
		const struct ds_requests *requests, const struct ds_span *span,
		GArray *out);

#endif /* DEEPSPAN_DIFF_REQUEST_TREE_H */
