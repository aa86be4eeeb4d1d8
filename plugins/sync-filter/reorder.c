/* SPDX-License-Identifier: MIT */
/*
 * Reorder buffer: sorted FIFO lanes merged by their heads (see reorder.h).
 */
#include "reorder.h"

static bool item_less(const struct ds_reorder_item *a, const struct ds_reorder_item *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static struct ds_reorder_item *lane_at(const struct ds_reorder_lane *lane, guint i)
{
	return &lane->ring[(lane->head + i) & (lane->cap - 1)];
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
		g_free(g_array_index(r->lanes, struct ds_reorder_lane, i).ring);
	}
	g_array_free(r->lanes, TRUE);
	r->lanes = NULL;
	r->len = 0;
}

/* The lane ending with the largest key <= key, else an empty lane, else a new one. */
static struct ds_reorder_lane *lane_for(struct ds_reorder *r, int64_t key)
{
	struct ds_reorder_lane *best = NULL, *empty = NULL;
	int64_t best_tail = INT64_MIN;
	guint i;

	for (i = 0; i < r->lanes->len; i++) {
		struct ds_reorder_lane *lane = &g_array_index(r->lanes, struct ds_reorder_lane, i);
		int64_t tail;

		if (lane->len == 0) {
			empty = empty ? empty : lane;
			continue;
		}
		tail = lane_at(lane, lane->len - 1)->key;
		if (tail <= key && (!best || tail >= best_tail)) {
			best = lane;
			best_tail = tail;
		}
	}
	if (best) {
		return best;
	}
	if (empty) {
		return empty;
	}
	g_array_set_size(r->lanes, r->lanes->len + 1);
	return &g_array_index(r->lanes, struct ds_reorder_lane, r->lanes->len - 1);
}

void ds_reorder_push(struct ds_reorder *r, int64_t key, void *data)
{
	struct ds_reorder_lane *lane = lane_for(r, key);
	struct ds_reorder_item *slot;

	if (lane->len == lane->cap) {
		lane_grow(lane);
	}
	slot = lane_at(lane, lane->len);
	slot->key = key;
	slot->seq = r->next_seq++;
	slot->data = data;
	lane->len++;
	r->len++;
}

static struct ds_reorder_lane *min_lane(const struct ds_reorder *r)
{
	struct ds_reorder_lane *best = NULL;
	guint i;

	for (i = 0; i < r->lanes->len; i++) {
		struct ds_reorder_lane *lane = &g_array_index(r->lanes, struct ds_reorder_lane, i);

		if (lane->len && (!best || item_less(lane_at(lane, 0), lane_at(best, 0)))) {
			best = lane;
		}
	}
	return best;
}

const struct ds_reorder_item *ds_reorder_peek(const struct ds_reorder *r)
{
	struct ds_reorder_lane *lane = min_lane(r);

	return lane ? lane_at(lane, 0) : NULL;
}

struct ds_reorder_item ds_reorder_pop(struct ds_reorder *r)
{
	struct ds_reorder_lane *lane = min_lane(r);
	struct ds_reorder_item top = *lane_at(lane, 0);

	lane->head = (lane->head + 1) & (lane->cap - 1);
	lane->len--;
	r->len--;
	return top;
}

guint ds_reorder_lane_count(const struct ds_reorder *r)
{
	return r->lanes->len;
}
