/* SPDX-License-Identifier: MIT */
/*
 * The reorder buffer of filter.deepspan.sync: items keyed by (key, arrival
 * sequence), released smallest first.
 *
 * Instead of one binary heap over the whole window, items are appended to
 * sorted runs ("lanes", FIFO rings): an item goes to the lane whose last key
 * is the largest one not above its own (sequences only grow, so the lane stays
 * sorted on (key, seq)); a new lane opens only when every lane ends above the
 * key.  The smallest item is the smallest lane head, kept in a binary heap of
 * the heads of the lanes that hold items (a head changes only when its lane
 * is popped or was empty).  A caller that pushes runs of non-decreasing keys
 * (one input) passes a lane hint: its last lane is taken without a scan while
 * it can take the key.  A muxed input whose hosts each arrive in raw-time
 * order needs about one lane per host; memory is touched sequentially
 * instead of along heap paths.  Which lane an item goes to never changes the
 * release order: each lane is sorted, and it is exactly that of a heap on
 * (key, seq).
 */
#ifndef DEEPSPAN_SYNC_REORDER_H
#define DEEPSPAN_SYNC_REORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct ds_reorder_item {
	int64_t key;
	uint64_t seq;				/* arrival order: ties keep it */
	void *data;				/* owned by the caller */
};

struct ds_reorder_lane {
	struct ds_reorder_item *ring;		/* owned; capacity cap (a power of two) */
	guint cap, head, len;
};

struct ds_reorder {
	GArray *lanes;				/* owned; struct ds_reorder_lane */
	GArray *heads;				/* owned; guint: the lanes holding items, a min-heap by head */
	uint64_t len;				/* items held */
	uint64_t next_seq;
};

void ds_reorder_init(struct ds_reorder *r);
/* Frees the lanes; items still held are dropped (pop them first to free their data). */
void ds_reorder_fini(struct ds_reorder *r);
void ds_reorder_push(struct ds_reorder *r, int64_t key, void *data);
/*
 * The same, trying lane *lane_hint first (any value: an index out of range is no hint), which is then
 * set to the lane the item went to.
 */
void ds_reorder_push_hinted(struct ds_reorder *r, int64_t key, void *data, guint *lane_hint);
/* The smallest item, or NULL when empty (borrowed until the next push/pop). */
const struct ds_reorder_item *ds_reorder_peek(const struct ds_reorder *r);
/* Removes and returns the smallest item; r must not be empty. */
struct ds_reorder_item ds_reorder_pop(struct ds_reorder *r);
/* Lanes open (diagnostic). */
guint ds_reorder_lane_count(const struct ds_reorder *r);

#endif /* DEEPSPAN_SYNC_REORDER_H */
