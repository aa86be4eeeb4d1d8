/* SPDX-License-Identifier: MIT */
#include "request-tree.h"

#include <stdlib.h>
#include <string.h>

/* Sorting helpers (glib's qsort passes user data). */
static gint compare_by_trace(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_span_store *store = data;
	const struct ds_span *x = ds_store_span(store, *(const uint32_t *) a);
	const struct ds_span *y = ds_store_span(store, *(const uint32_t *) b);

	if (x->input != y->input) {
		return x->input < y->input ? -1 : 1;
	}
	if (x->trace_id_high != y->trace_id_high) {
		return x->trace_id_high < y->trace_id_high ? -1 : 1;
	}
	if (x->trace_id_low != y->trace_id_low) {
		return x->trace_id_low < y->trace_id_low ? -1 : 1;
	}
	if (x->begin != y->begin) {
		return x->begin < y->begin ? -1 : 1;
	}
	return *(const uint32_t *) a < *(const uint32_t *) b ? -1 : 1;
}

static gint compare_by_end_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_span_store *store = data;
	const struct ds_span *x = ds_store_span(store, *(const uint32_t *) a);
	const struct ds_span *y = ds_store_span(store, *(const uint32_t *) b);

	if (x->end != y->end) {
		return x->end > y->end ? -1 : 1;
	}
	if (x->begin != y->begin) {
		return x->begin > y->begin ? -1 : 1;
	}
	return *(const uint32_t *) a < *(const uint32_t *) b ? -1 : 1;
}

static gint compare_intervals(gconstpointer a, gconstpointer b)
{
	const struct ds_interval *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int64_t ds_span_self_intervals(const struct ds_span_store *store,
		const struct ds_requests *requests, const struct ds_span *span,
		GArray *out)
{
	const uint32_t *children = ds_span_children(requests, span);
	GArray *busy = g_array_sized_new(FALSE, FALSE, sizeof(struct ds_interval),
		span->child_count);
	int64_t cursor = span->begin, total = 0;
	uint32_t i;

	g_array_set_size(out, 0);
	for (i = 0; i < span->child_count; i++) {
		const struct ds_span *child = ds_store_span(store, children[i]);
		struct ds_interval clipped = {
			.begin = MAX(child->begin, span->begin),
			.end = MIN(child->end, span->end),
		};

		if (clipped.end > clipped.begin) {
			g_array_append_val(busy, clipped);
		}
	}
	g_array_sort(busy, compare_intervals);
	for (i = 0; i < busy->len; i++) {
		const struct ds_interval *b = &g_array_index(busy, struct ds_interval, i);

		if (b->begin > cursor) {
			struct ds_interval gap = { cursor, b->begin };

			g_array_append_val(out, gap);
			total += gap.end - gap.begin;
		}
		cursor = MAX(cursor, b->end);
	}
	if (span->end > cursor) {
		struct ds_interval gap = { cursor, span->end };

		g_array_append_val(out, gap);
		total += gap.end - gap.begin;
	}
	g_array_free(busy, TRUE);
	return total;
}

static void note_skew(struct ds_requests *requests, const struct ds_span *parent,
		const struct ds_span *child, uint32_t child_index,
		int64_t tolerance)
{
	int64_t offset = 0;

	if (parent->host == child->host) {
		return;
	}
	if (child->begin < parent->begin) {
		offset = parent->begin - child->begin;
	}
	if (child->end > parent->end && child->end - parent->end > offset) {
		offset = child->end - parent->end;
	}
	if (offset <= tolerance) {
		return;
	}
	requests->skewed_children++;
	if (offset > requests->worst_skew) {
		requests->worst_skew = offset;
		requests->worst_skew_span = child_index;
	}
}

/* Links the spans order[first, first + count) of one trace id. */
static void link_trace(struct ds_requests *requests, struct ds_span_store *store,
		const uint32_t *order, uint32_t count, GHashTable *by_id,
		int64_t tolerance)
{
	uint32_t i;

	g_hash_table_remove_all(by_id);
	for (i = 0; i < count; i++) {
		const struct ds_span *span = ds_store_span(store, order[i]);
		gpointer key = (gpointer) (uintptr_t) span->span_id;

		if (g_hash_table_contains(by_id, key)) {
			requests->duplicate_spans++;
			continue;
		}
		g_hash_table_insert(by_id, key, GUINT_TO_POINTER(order[i] + 1));
	}
	for (i = 0; i < count; i++) {
		struct ds_span *span = ds_store_span(store, order[i]);
		gpointer found = span->parent_span_id == 0 ? NULL :
			g_hash_table_lookup(by_id,
				(gpointer) (uintptr_t) span->parent_span_id);
		uint32_t parent = found ? GPOINTER_TO_UINT(found) - 1 : DS_NO_SPAN;

		span->parent = parent == order[i] ? DS_NO_SPAN : parent;
		span->child_count = 0;
	}
	/* Counted once every parent is reset: a child may begin before its parent (skew). */
	for (i = 0; i < count; i++) {
		const struct ds_span *span = ds_store_span(store, order[i]);

		if (span->parent != DS_NO_SPAN) {
			ds_store_span(store, span->parent)->child_count++;
		}
	}
	/* Children ranges, then fill and sort them. */
	for (i = 0; i < count; i++) {
		struct ds_span *span = ds_store_span(store, order[i]);

		span->first_child = requests->children->len;
		g_array_set_size(requests->children,
			requests->children->len + span->child_count);
		span->child_count = 0;
	}
	for (i = 0; i < count; i++) {
		struct ds_span *span = ds_store_span(store, order[i]);
		struct ds_span *parent;

		if (span->parent == DS_NO_SPAN) {
			continue;
		}
		parent = ds_store_span(store, span->parent);
		g_array_index(requests->children, uint32_t,
			parent->first_child + parent->child_count++) = order[i];
		note_skew(requests, parent, span, order[i], tolerance);
	}
	for (i = 0; i < count; i++) {
		struct ds_span *span = ds_store_span(store, order[i]);

		if (span->child_count > 1) {
			g_qsort_with_data(&g_array_index(requests->children, uint32_t,
				span->first_child), span->child_count, sizeof(uint32_t),
				compare_by_end_desc, store);
		}
	}
}

/* A span waiting on the walk's stack, with its depth (root = 0). */
struct pending {
	uint32_t index;
	uint32_t depth;
};

/*
 * Appends the subtree of `root` to requests->spans (depth first, iterative);
 * returns the number of its spans deeper than DS_REQUEST_MAX_DEPTH.
 */
static uint64_t collect_subtree(struct ds_requests *requests,
		struct ds_span_store *store, uint32_t root, uint32_t request,
		GArray *stack)
{
	struct pending top = { root, 0 };
	uint64_t deep = 0;

	g_array_set_size(stack, 0);
	g_array_append_val(stack, top);
	while (stack->len > 0) {
		struct pending p = g_array_index(stack, struct pending, stack->len - 1);
		struct ds_span *span = ds_store_span(store, p.index);
		uint32_t c;

		g_array_set_size(stack, stack->len - 1);
		if (span->request != DS_NO_SPAN) {
			continue;
		}
		span->request = request;
		deep += p.depth > DS_REQUEST_MAX_DEPTH;
		g_array_append_val(requests->spans, p.index);
		for (c = span->child_count; c > 0; c--) {
			struct pending child = {
				ds_span_children(requests, span)[c - 1],
				p.depth < UINT32_MAX ? p.depth + 1 : p.depth,
			};

			g_array_append_val(stack, child);
		}
	}
	return deep;
}

static void make_request(struct ds_requests *requests, struct ds_span_store *store,
		const uint32_t *order, uint32_t count, GArray *stack)
{
	struct ds_request request = { 0 };
	uint32_t i, request_index = requests->requests->len;
	int64_t best = -1;
	uint64_t deep;
	GArray *self = g_array_new(FALSE, FALSE, sizeof(struct ds_interval));

	request.root = DS_NO_SPAN;
	for (i = 0; i < count; i++) {
		const struct ds_span *span = ds_store_span(store, order[i]);

		request.truncated |= span->truncated;
		request.invalid |= span->invalid;
		if (span->parent != DS_NO_SPAN) {
			continue;
		}
		request.root_count++;
		if (span->end - span->begin > best) {
			best = span->end - span->begin;
			request.root = order[i];
		}
	}
	if (request.root == DS_NO_SPAN) {
		/* Only parent cycles: no request to speak of; counted. */
		requests->cycle_requests++;
		requests->cycle_spans += count;
		goto end;
	}
	const struct ds_span *root = ds_store_span(store, request.root);

	request.trace_id_high = root->trace_id_high;
	request.trace_id_low = root->trace_id_low;
	request.input = root->input;
	request.latency = root->end - root->begin;
	request.self_time = ds_span_self_intervals(store, requests, root, self);
	request.first_span = requests->spans->len;
	deep = collect_subtree(requests, store, request.root, request_index, stack);
	for (i = 0; i < count; i++) {
		if (ds_store_span(store, order[i])->parent == DS_NO_SPAN) {
			deep += collect_subtree(requests, store, order[i], request_index, stack);
		}
	}
	if (deep) {
		requests->deep_requests++;
		requests->folded_spans += deep;
	}
	request.span_count = requests->spans->len - request.first_span;
	/* Spans of a parent cycle hang from no root: never reached. */
	requests->cycle_spans += count - request.span_count;
	if (request.truncated) {
		requests->truncated_requests++;
	}
	if (request.invalid) {
		requests->invalid_requests++;
	}
	g_array_append_val(requests->requests, request);
end:
	g_array_free(self, TRUE);
}

void ds_requests_build_from(struct ds_requests *requests,
		struct ds_span_store *store, const uint32_t *indices, uint32_t n,
		int64_t skew_tolerance)
{
	uint32_t i, first;
	uint32_t *order = g_new(uint32_t, n ? n : 1);
	GHashTable *by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct pending));

	memset(requests, 0, sizeof(*requests));
	requests->requests = g_array_new(FALSE, TRUE, sizeof(struct ds_request));
	requests->spans = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), n);
	requests->children = g_array_sized_new(FALSE, TRUE, sizeof(uint32_t), n);
	requests->worst_skew_span = DS_NO_SPAN;
	for (i = 0; i < n; i++) {
		order[i] = indices ? indices[i] : i;
		ds_store_span(store, order[i])->request = DS_NO_SPAN;
	}
	g_qsort_with_data(order, n, sizeof(uint32_t), compare_by_trace, store);
	for (first = 0; first < n; ) {
		const struct ds_span *head = ds_store_span(store, order[first]);
		uint32_t last = first + 1;

		while (last < n) {
			const struct ds_span *s = ds_store_span(store, order[last]);

			if (s->input != head->input ||
					s->trace_id_high != head->trace_id_high ||
					s->trace_id_low != head->trace_id_low) {
				break;
			}
			last++;
		}
		link_trace(requests, store, order + first, last - first, by_id,
			skew_tolerance);
		make_request(requests, store, order + first, last - first, stack);
		first = last;
	}
	g_array_free(stack, TRUE);
	g_hash_table_destroy(by_id);
	g_free(order);
}

void ds_requests_build(struct ds_requests *requests,
		struct ds_span_store *store, int64_t skew_tolerance)
{
	ds_requests_build_from(requests, store, NULL, store->span_count, skew_tolerance);
}

void ds_requests_fini(struct ds_requests *requests)
{
	if (requests->requests) {
		g_array_free(requests->requests, TRUE);
	}
	if (requests->spans) {
		g_array_free(requests->spans, TRUE);
	}
	if (requests->children) {
		g_array_free(requests->children, TRUE);
	}
	memset(requests, 0, sizeof(*requests));
}
