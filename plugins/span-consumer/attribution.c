/* SPDX-License-Identifier: MIT */
#include "attribution.h"

/*
 * Deeper trees are folded (counted by request-tree.c): a span at depth
 * MAX_DEPTH stands for its whole subtree, its time stays with that frame.
 */
#define MAX_DEPTH DS_REQUEST_MAX_DEPTH

struct attribution_walk {
	const struct ds_span_store *store;
	const struct ds_requests *requests;
	const struct ds_visitor *visitor;
	GArray *intervals;	/* owned: scratch struct ds_interval */
};

/* Splits `width` over the span's state totals (largest remainder). */
static void attribute_by_totals(const struct ds_span *span, int64_t width,
		uint32_t handle, const struct ds_visitor *visitor)
{
	unsigned __int128 total = 0;
	int64_t share[DS_STATE_COUNT];
	unsigned __int128 remainder[DS_STATE_COUNT];
	int64_t given = 0;
	unsigned int s;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		total += span->states[s];
	}
	if (total == 0) {
		visitor->leaf(visitor->data, handle, DS_STATE_UNKNOWN, 0, width);
		return;
	}
	for (s = 0; s < DS_STATE_COUNT; s++) {
		unsigned __int128 scaled = (unsigned __int128) span->states[s] *
			(uint64_t) width;

		share[s] = (int64_t) (scaled / total);
		remainder[s] = scaled % total;
		given += share[s];
	}
	while (given < width) {
		unsigned int best = 0;

		for (s = 1; s < DS_STATE_COUNT; s++) {
			if (remainder[s] > remainder[best]) {
				best = s;
			}
		}
		share[best]++;
		remainder[best] = 0;
		given++;
	}
	for (s = 0; s < DS_STATE_COUNT; s++) {
		if (share[s] > 0) {
			visitor->leaf(visitor->data, handle, s, 0, share[s]);
		}
	}
}

/* The reads of `span` overlapping [from, to), reported for the frame just reported (visitor->cache). */
static void attribute_reads(const struct ds_span *span, int64_t from, int64_t to,
		const struct ds_visitor *v)
{
	uint32_t lo = 0, hi = span->read_count, i;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (span->reads[mid].end <= from) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (i = lo; i < span->read_count && span->reads[i].begin < to; i++) {
		int64_t width = MIN(span->reads[i].end, to) - MAX(span->reads[i].begin, from);

		if (width > 0) {
			v->cache(v->data, span->read_base + i, span->reads[i].miss, width);
		}
	}
}

/*
 * The chain frames of segment `segment` of `span` within [from, to):
 * depth-first, each entry clipped to it; an inner entry at depth d leaves in
 * `under[d]` the handle its children nest under.
 */
static void attribute_chain(const struct ds_span *span, uint32_t segment,
		int64_t from, int64_t to, uint32_t handle, const struct ds_visitor *v)
{
	uint32_t under[DS_CHAIN_MAX_READ_DEPTH];
	uint32_t i = ds_chain_first_of_segment(span, segment);
	unsigned int state = DS_STATE_UNKNOWN;

	for (; i < span->chain_count && span->chain[i].segment == segment; i++) {
		const struct ds_stored_chain_entry *e = &span->chain[i];
		int64_t width = MIN(e->end, to) - MAX(e->begin, from);
		uint32_t parent, h;

		if (e->depth == 0) {
			state = e->state;
		}
		if (width <= 0) {
			continue;
		}
		parent = e->depth == 0 ? handle : under[e->depth - 1];
		if (e->step == 0) {
			h = v->chain(v->data, parent, state, e->frame, e->note, width, e->leaf, e);
		} else {
			h = v->chain(v->data, parent, state, e->frame, 0, width, false, NULL);
			h = v->chain(v->data, h, state, e->step, e->note, width, e->leaf, e);
		}
		if (!e->leaf) {
			under[e->depth] = h;
		}
		if (e->depth == 0 && span->read_count && v->cache) {
			attribute_reads(span, MAX(e->begin, from), MIN(e->end, to), v);
		}
	}
}

void ds_attribute_states(const struct ds_span_store *store,
		const struct ds_span *span, int64_t begin, int64_t end,
		uint32_t handle, const struct ds_visitor *visitor)
{
	const struct ds_segment *segments = ds_store_segments(store, span);
	uint32_t lo = 0, hi = span->segment_count, i;
	int64_t cursor = begin;

	if (end <= begin) {
		return;
	}
	if (span->segment_count == 0) {
		attribute_by_totals(span, end - begin, handle, visitor);
		return;
	}
	/* First segment ending after `begin`. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ds_segment_end(span, &segments[mid]) <= begin) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (i = lo; i < span->segment_count; i++) {
		int64_t seg_begin = ds_segment_begin(span, &segments[i]);
		int64_t from = MAX(seg_begin, cursor);
		int64_t to = MIN(ds_segment_end(span, &segments[i]), end);

		if (seg_begin >= end) {
			break;
		}
		if (seg_begin > cursor) {
			visitor->leaf(visitor->data, handle, DS_STATE_UNKNOWN, 0,
				MIN(seg_begin, end) - cursor);
			cursor = MIN(seg_begin, end);
		}
		if (to > from) {
			if (span->chain_count && visitor->chain &&
					ds_chain_first_of_segment(span, i) < span->chain_count &&
					span->chain[ds_chain_first_of_segment(span, i)].segment == i) {
				attribute_chain(span, i, from, to, handle, visitor);
			} else {
				visitor->leaf(visitor->data, handle,
					ds_segment_state(&segments[i]),
					ds_segment_detail(&segments[i]), to - from);
				if (span->read_count && visitor->cache) {
					attribute_reads(span, from, to, visitor);
				}
			}
			cursor = to;
		}
	}
	if (cursor < end) {
		visitor->leaf(visitor->data, handle, DS_STATE_UNKNOWN, 0, end - cursor);
	}
}

static void critical_path(struct attribution_walk *walk, uint32_t index,
		uint32_t parent_handle, int64_t lo, int64_t hi, unsigned int depth)
{
	const struct ds_span *span = ds_store_span(walk->store, index);
	const uint32_t *children = ds_span_children(walk->requests, span);
	const struct ds_visitor *v = walk->visitor;
	uint32_t handle = v->enter(v->data, parent_handle, span);
	int64_t cursor = hi;
	uint32_t i;

	v->value(v->data, handle, hi - lo);
	for (i = 0; i < span->child_count && depth < MAX_DEPTH; i++) {
		const struct ds_span *child = ds_store_span(walk->store, children[i]);
		int64_t child_begin;

		if (child->end > cursor) {
			continue;	/* ends after the cursor: off the path */
		}
		if (child->end <= lo) {
			break;		/* this and every later child end too early */
		}
		ds_attribute_states(walk->store, span, child->end, cursor, handle, v);
		child_begin = MAX(child->begin, lo);
		critical_path(walk, children[i], handle, child_begin, child->end,
			depth + 1);
		cursor = child_begin;
	}
	ds_attribute_states(walk->store, span, lo, cursor, handle, v);
}

static void inclusive(struct attribution_walk *walk, uint32_t index, uint32_t parent_handle,
		unsigned int depth)
{
	const struct ds_span *span = ds_store_span(walk->store, index);
	const uint32_t *children = ds_span_children(walk->requests, span);
	const struct ds_visitor *v = walk->visitor;
	uint32_t handle = v->enter(v->data, parent_handle, span);
	uint32_t i;

	v->value(v->data, handle, span->end - span->begin);
	ds_attribute_states(walk->store, span, span->begin, span->end, handle, v);
	for (i = 0; i < span->child_count && depth < MAX_DEPTH; i++) {
		inclusive(walk, children[i], handle, depth + 1);
	}
}

/* Returns the frame's width: its self time plus its children's widths. */
static int64_t self_time(struct attribution_walk *walk, uint32_t index,
		uint32_t parent_handle, unsigned int depth)
{
	const struct ds_span *span = ds_store_span(walk->store, index);
	const uint32_t *children = ds_span_children(walk->requests, span);
	const struct ds_visitor *v = walk->visitor;
	uint32_t handle = v->enter(v->data, parent_handle, span);
	int64_t width;
	uint32_t i;

	if (depth >= MAX_DEPTH) {
		/* Folded: the frame keeps its whole span, its subtree is not walked. */
		ds_attribute_states(walk->store, span, span->begin, span->end, handle, v);
		width = span->end - span->begin;
		v->value(v->data, handle, width);
		return width;
	}
	width = ds_span_self_intervals(walk->store, walk->requests, span, walk->intervals);
	for (i = 0; i < walk->intervals->len; i++) {
		const struct ds_interval *gap =
			&g_array_index(walk->intervals, struct ds_interval, i);

		ds_attribute_states(walk->store, span, gap->begin, gap->end, handle, v);
	}
	for (i = 0; i < span->child_count; i++) {
		/* Saturated: the aggregate then reports the overflow (no wrap-around). */
		if (__builtin_add_overflow(width, self_time(walk, children[i], handle, depth + 1),
				&width)) {
			width = INT64_MAX;
		}
	}
	v->value(v->data, handle, width);
	return width;
}

void ds_attribute_request(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_mode mode, const struct ds_visitor *visitor)
{
	const struct ds_request *request = ds_request_at(requests, request_index);
	const struct ds_span *root = ds_store_span(store, request->root);
	struct attribution_walk walk = {
		.store = store,
		.requests = requests,
		.visitor = visitor,
		.intervals = g_array_new(FALSE, FALSE, sizeof(struct ds_interval)),
	};
	uint32_t i;

	if (mode == DS_MODE_CRITICAL_PATH) {
		critical_path(&walk, request->root, 0, root->begin, root->end, 0);
		goto end;
	}
	for (i = 0; i < request->span_count; i++) {
		uint32_t index = g_array_index(requests->spans, uint32_t,
			request->first_span + i);

		if (ds_store_span(store, index)->parent != DS_NO_SPAN) {
			continue;
		}
		if (mode == DS_MODE_INCLUSIVE) {
			inclusive(&walk, index, 0, 0);
		} else {
			self_time(&walk, index, 0, 0);
		}
	}
end:
	g_array_free(walk.intervals, TRUE);
}
