/* SPDX-License-Identifier: MIT */
/*
 * A binary min-heap of indices (into the caller's array of things) ordered by the caller's `before`: the
 * sync reorder buffer's lane heads (sync-filter/reorder.c) and span-attrib's inputs by head message
 * (span-attrib-filter/inputs.c).  Inlined with a constant `before`, so a comparison is no call.
 */
#ifndef DEEPSPAN_COMMON_INDEX_HEAP_H
#define DEEPSPAN_COMMON_INDEX_HEAP_H

#include <stdbool.h>
#include <glib.h>

/* Whether the thing at index `a` comes before the one at `b` (`ctx`: the caller's array). */
typedef bool (*ds_index_heap_before)(const void *ctx, guint a, guint b);

/* Moves heap[at] up while it comes before its parent. */
static inline __attribute__((always_inline)) void ds_index_heap_sift_up(guint *heap, guint at,
		ds_index_heap_before before, const void *ctx)
{
	while (at > 0) {
		guint parent = (at - 1) / 2, swap;

		if (!before(ctx, heap[at], heap[parent])) {
			break;
		}
		swap = heap[at];
		heap[at] = heap[parent];
		heap[parent] = swap;
		at = parent;
	}
}

/* Moves heap[at] (of `n`) down while a child comes before it. */
static inline __attribute__((always_inline)) void ds_index_heap_sift_down(guint *heap, guint n, guint at,
		ds_index_heap_before before, const void *ctx)
{
	for (;;) {
		guint first = at, left = 2 * at + 1, right = left + 1, swap;

		if (left < n && before(ctx, heap[left], heap[first])) {
			first = left;
		}
		if (right < n && before(ctx, heap[right], heap[first])) {
			first = right;
		}
		if (first == at) {
			break;
		}
		swap = heap[at];
		heap[at] = heap[first];
		heap[first] = swap;
		at = first;
	}
}

#endif /* DEEPSPAN_COMMON_INDEX_HEAP_H */
