/* SPDX-License-Identifier: MIT */
/*
 * Attribution of a request's time to frames, in the three modes of
 * doc/diff.md, reported to a visitor:
 *
 * - critical-path: walking back from the root's end, the last-finishing child
 *   that ends at or before the cursor is on the path; the gap after it is the
 *   parent's own time (its segments' states in that gap); recurse into the
 *   child, continue from the child's start.  Children starting before the
 *   parent (skewed hosts) are clipped; children ending after the cursor
 *   (async, outliving) are off the path.  The root's width is exactly the
 *   latency and the leaves sum to it exactly.
 * - inclusive: every span with its full duration and its state totals.
 * - self: every span's duration minus the exact union of its children, with
 *   the states of its segments in those self intervals.
 *
 * A waited segment with a chain (doc/critical-path.md, "Reading chains") is
 * reported, in every mode, as its chain's frames instead of one leaf: the
 * chain leaves' widths partition the segment's width exactly.
 *
 * Time not covered by a span's segments is `[Unknown]`; a span without any
 * segment has its gap split over its state totals in proportion (largest
 * remainder, so integer sums stay exact).
 */
#ifndef DEEPSPAN_DIFF_ATTRIBUTION_H
#define DEEPSPAN_DIFF_ATTRIBUTION_H

#include <stdbool.h>
#include <stdint.h>

#include "request-tree.h"
#include "span-store.h"

enum ds_mode {
	DS_MODE_CRITICAL_PATH = 0,
	DS_MODE_INCLUSIVE,
	DS_MODE_SELF,
};

struct ds_visitor {
	/* A span frame under `parent_handle` (0 = the top); returns its handle. */
	uint32_t (*enter)(void *data, uint32_t parent_handle,
			const struct ds_span *span);
	/* The frame's value (its width) in this mode. */
	void (*value)(void *data, uint32_t handle, int64_t width);
	/* A state leaf of the frame. */
	void (*leaf)(void *data, uint32_t handle, unsigned int state,
			uint32_t detail, int64_t width);
	void *data;
	/*
	 * A chain frame under `handle` (a span frame or an inner chain frame):
	 * `label` is an interned string id of the store (the frame's text),
	 * `state` the span thread's own state (the waited segment's); a leaf
	 * (`leaf` true) ends there, an inner frame's handle is returned and its
	 * chain frames nest under it.  `note` (interned, 0 = none) is the
	 * entry's clause for explain.txt, with the tids, hosts and CPUs
	 * (chain-reader.c), on the last frame of each entry; `entry` is that
	 * entry (NULL on the other frames and when replayed from a recording).
	 * NULL: waited segments stay plain leaves.
	 */
	uint32_t (*chain)(void *data, uint32_t handle, unsigned int state,
			uint32_t label, uint32_t note, int64_t width, bool leaf,
			const struct ds_stored_chain_entry *entry);
	/*
	 * Page cache per frame (doc/diff.md, "Page cache"): `width` ns of the
	 * frame reported just before (a state leaf, or the depth-0 frame of a
	 * chain) were read `read` of the span (an id unique within the
	 * request), a hit or a `miss`.  Called after that frame's call, once
	 * per read overlapping it; NULL: not wanted.
	 */
	void (*cache)(void *data, uint32_t read, bool miss, int64_t width);
};

/* Attributes request `request_index` in `mode`. */
void ds_attribute_request(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_mode mode, const struct ds_visitor *visitor);

/* Reports the states of `span` within [begin, end) to the visitor. */
void ds_attribute_states(const struct ds_span_store *store,
		const struct ds_span *span, int64_t begin, int64_t end,
		uint32_t handle, const struct ds_visitor *visitor);

#endif /* DEEPSPAN_DIFF_ATTRIBUTION_H */
