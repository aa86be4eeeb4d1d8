/* SPDX-License-Identifier: MIT */
/*
 * Reorder buffer: sorted FIFO lanes merged by their heads (see reorder.h).
 */
#include "reorder.h"

#include "index-heap.h"

static bool item_less(const struct ds_reorder_item *a, const struct ds_reorder_item *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static struct ds_reorder_lane *lane_of(const struct ds_reorder *r, guint index)
{
	return &g_array_index(r->lanes, struct ds_reorder_lane, index);
}

static struct ds_reorder_item *lane_at(const struct ds_reorder_lane *lane, guint i)
{
	return &lane->ring[(lane->head + i) & (lane->cap - 1)];
}

/* Whether the head of lane `a` comes before the head of lane `b` (both not empty). */
static bool lane_head_before(const void *ctx, guint a, guint b)
{
	const struct ds_reorder *r = ctx;

	return item_less(lane_at(lane_of(r, a), 0), lane_at(lane_of(r, b), 0));
}

static void lane_grow(struct ds_reorder_lane *lane)
{
	guint cap = lane->cap ? 2 * lane->cap : 64, i;
	struct ds_reorder_item *ring = g_new(struct ds_reorder_item, cap);

	for (i = 0; i < lane->len; i++) {
		ring[i] = *lane_at(lane, i);
	}
	g_free(lane->ring);
	lane->ring = ring;
	lane->cap = cap;
	lane->head = 0;
}

void ds_reorder_init(struct ds_reorder *r)
{
	r->lanes = g_array_new(FALSE, TRUE, sizeof(struct ds_reorder_lane));
	r->heads = g_array_new(FALSE, FALSE, sizeof(guint));
	r->len = 0;
	r->next_seq = 0;
}

void ds_reorder_fini(struct ds_reorder *r)
{
	guint i;

	if (!r->lanes) {
		return;
	}
	for (i = 0; i < r->lanes->len; i++) {
		g_free(lane_of(r, i)->ring);
	}
	g_array_free(r->lanes, TRUE);
	r->lanes = NULL;
	g_array_free(r->heads, TRUE);
	r->heads = NULL;
	r->len = 0;
}

static void heads_sift_up(struct ds_reorder *r, guint at)
{
	ds_index_heap_sift_up((guint *) (void *) r->heads->data, at, lane_head_before, r);
}

static void heads_sift_down(struct ds_reorder *r, guint at)
{
	ds_index_heap_sift_down((guint *) (void *) r->heads->data, r->heads->len, at, lane_head_before, r);
}

/* The lane ending with the largest key <= key, else an empty lane, else a new one (its index). */
static guint lane_for(struct ds_reorder *r, int64_t key)
{
	guint best = G_MAXUINT, empty = G_MAXUINT, i;
	int64_t best_tail = INT64_MIN;

	for (i = 0; i < r->lanes->len; i++) {
		struct ds_reorder_lane *lane = lane_of(r, i);
		int64_t tail;

		if (lane->len == 0) {
			empty = empty != G_MAXUINT ? empty : i;
			continue;
		}
		tail = lane_at(lane, lane->len - 1)->key;
		if (tail <= key && (best == G_MAXUINT || tail >= best_tail)) {
			best = i;
			best_tail = tail;
		}
	}
	if (best != G_MAXUINT) {
		return best;
	}
	if (empty != G_MAXUINT) {
		return empty;
	}
	g_array_set_size(r->lanes, r->lanes->len + 1);
	return r->lanes->len - 1;
}

/* Whether lane `index` can take `key` at its end (it stays sorted). */
static bool lane_takes(const struct ds_reorder *r, guint index, int64_t key)
{
	const struct ds_reorder_lane *lane;

	if (index >= r->lanes->len) {
		return false;
	}
	lane = lane_of(r, index);
	return lane->len == 0 || lane_at(lane, lane->len - 1)->key <= key;
}

void ds_reorder_push_hinted(struct ds_reorder *r, int64_t key, void *data, guint *lane_hint)
{
	guint index = lane_hint && lane_takes(r, *lane_hint, key) ? *lane_hint : lane_for(r, key);
	struct ds_reorder_lane *lane = lane_of(r, index);
	struct ds_reorder_item *slot;

	if (lane->len == lane->cap) {
		lane_grow(lane);
	}
	slot = lane_at(lane, lane->len);
	slot->key = key;
	slot->seq = r->next_seq++;
	slot->data = data;
	if (lane->len++ == 0) {
		/* a lane's head changes only when it was empty: then it joins the heap */
		g_array_append_val(r->heads, index);
		heads_sift_up(r, r->heads->len - 1);
	}
	r->len++;
	if (lane_hint) {
		*lane_hint = index;
	}
}

void ds_reorder_push(struct ds_reorder *r, int64_t key, void *data)
{
	ds_reorder_push_hinted(r, key, data, NULL);
}

const struct ds_reorder_item *ds_reorder_peek(const struct ds_reorder *r)
{
	return r->heads->len ? lane_at(lane_of(r, g_array_index(r->heads, guint, 0)), 0) : NULL;
}

struct ds_reorder_item ds_reorder_pop(struct ds_reorder *r)
{
	guint *heads = (guint *) (void *) r->heads->data;
	struct ds_reorder_lane *lane = lane_of(r, heads[0]);
	struct ds_reorder_item top = *lane_at(lane, 0);

	lane->head = (lane->head + 1) & (lane->cap - 1);
	if (--lane->len == 0) {
		heads[0] = heads[r->heads->len - 1];
		g_array_set_size(r->heads, r->heads->len - 1);
	}
	if (r->heads->len > 1) {
		heads_sift_down(r, 0);
	}
	r->len--;
	return top;
}

guint ds_reorder_lane_count(const struct ds_reorder *r)
{
	return r->lanes->len;
}
