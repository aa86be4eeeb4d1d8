/* SPDX-License-Identifier: MIT */
/*
 * A request's attribution (attribution.h) recorded as a flat list of visitor
 * calls, so that a complete request can be reduced to it when it leaves
 * memory and be replayed later: the replay makes the same calls in the same
 * order, so an aggregate built from recordings is identical to one built
 * from the trees.
 *
 * Handles in a recording are local: 0 is the top, `enter` number i (from 1)
 * returns handle i (an inner chain call counts as an `enter`).
 */
#ifndef DEEPSPAN_DIFF_ATTRIBUTION_RECORD_H
#define DEEPSPAN_DIFF_ATTRIBUTION_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "attribution.h"

enum ds_attribution_call {
	DS_CALL_CHAIN = 0, DS_CALL_ENTER = 1, DS_CALL_VALUE = 2, DS_CALL_LEAF = 3,
};

#define DS_CALL_SHIFT 30
#define DS_CALL_HANDLE_MASK ((UINT32_C(1) << DS_CALL_SHIFT) - 1)
#define DS_LEAF_STATE_SHIFT 29
/* In a chain call's handle field: the frame is a chain leaf. */
#define DS_CALL_CHAIN_LEAF (UINT32_C(1) << 29)
/* A chain call's note: the entry right after it, its label is the note id. */
#define DS_CALL_CHAIN_NOTE (UINT32_C(1) << 28)
/* A chain call's page cache (visitor->cache): label the read id, width its ns, MISS a miss. */
#define DS_CALL_CHAIN_CACHE (UINT32_C(1) << 27)
#define DS_CALL_CHAIN_MISS (UINT32_C(1) << 26)
#define DS_CALL_CHAIN_HANDLE_MASK (DS_CALL_CHAIN_MISS - 1)

/* One call in 16 bytes. */
struct ds_attribution_entry {
	uint32_t call_handle;	/* call << 30 | handle (enter: the parent's) */
	uint32_t label;		/* enter: service id; leaf: state << 29 | detail id; chain: state << 29 | label id */
	int64_t width;		/* enter: operation id; value, leaf, chain: ns */
};

/* Appends the calls of request `request_index` in `mode` to `out` (GArray of entries). */
void ds_attribution_record(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_mode mode, GArray *out);

/* Makes the recorded calls on `visitor`; `frames` is scratch (GArray of uint32_t). */
void ds_attribution_replay(const struct ds_attribution_entry *entries, size_t count,
		const struct ds_visitor *visitor, GArray *frames);

#endif /* DEEPSPAN_DIFF_ATTRIBUTION_RECORD_H */
