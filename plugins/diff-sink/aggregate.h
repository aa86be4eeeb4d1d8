/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of two groups of requests into one frame tree.
 *
 * A frame is a call path: `service: operation` frames from the root span
 * down, ending in state leaves (`[Waited blocked] futex ← mysqld/4242`), or,
 * for a waited segment with a chain, in its chain frames
 * (`[Waited blocked] futex ← mysqld > mysqld [Waited CPU] > ran instead: compactor`).
 * Per group G it keeps the exact integer sum of its widths over the group's
 * requests and the number of contributions; the mean per request is
 * W_G(p) = sum_G(p) / N_G, and the difference of two means is kept as the
 * exact fraction (sum_B·N_A − sum_A·N_B) / (N_A·N_B).
 */
#ifndef DEEPSPAN_DIFF_AGGREGATE_H
#define DEEPSPAN_DIFF_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "span-consumer/attribution.h"
#include "span-consumer/attribution-record.h"
#include "span-consumer/request-tree.h"
#include "span-consumer/span-store.h"

enum ds_group { DS_GROUP_A = 0, DS_GROUP_B = 1 };

/* DS_FRAME_CHAIN: an inner frame of a chain (doc/critical-path.md); chain leaves are DS_FRAME_LEAF. */
enum ds_frame_kind { DS_FRAME_TOP = 0, DS_FRAME_SPAN, DS_FRAME_LEAF, DS_FRAME_CHAIN };

struct ds_frame {
	uint32_t parent;	/* frame index; the top frame's parent is itself */
	uint32_t label;		/* id in ds_aggregate.labels */
	uint32_t first_child;	/* index into ds_aggregate.children (after finish) */
	uint32_t child_count;
	uint8_t kind;		/* enum ds_frame_kind */
	uint8_t state;		/* enum ds_state, leaves and chain frames (the span thread's own state) */
	uint16_t depth;		/* top = 0 */
	bool in_chain;		/* a chain frame (inner or leaf) */
	uint32_t note;		/* chain frames: store string id of the clause of the heaviest contributor (B, then A), 0 = none */
	int64_t sum[2];		/* exact total width per group (ns) */
	uint64_t count[2];	/* contributions per group */
	int64_t state_sum[2][DS_STATE_COUNT];	/* leaves below, per state (after finish) */
};

/*
 * Page cache of one frame of read syscalls (doc/diff.md, "Page cache"), per group: the reads with time in
 * the frame (each once per request) and that time, hits and misses apart.
 */
struct ds_frame_cache {
	uint64_t hits[2], misses[2];
	int64_t hit_time[2], miss_time[2];	/* ns */
};

struct ds_aggregate {
	const struct ds_strings *strings;	/* borrowed: ids of services, operations, details */
	enum ds_mode mode;
	GArray *frames;		/* owned: struct ds_frame; 0 = top */
	GArray *children;	/* owned: uint32_t frame indices (after finish) */
	GHashTable *child_of;	/* owned: (parent << 32 | label) -> frame + 1 */
	GHashTable *span_labels;	/* owned: (service << 32 | operation) -> label + 1 */
	GHashTable *leaf_labels;	/* owned: (state << 32 | detail) -> label + 1 */
	GHashTable *chain_labels;	/* owned: store string id -> label + 1 (chain frames) */
	GHashTable *note_sums;	/* owned: (frame << 32 | note) -> owned int64_t[2] (width per group) */
	struct ds_strings labels;
	GArray *replay_frames;	/* owned: uint32_t scratch, recorded handle -> frame */
	uint64_t requests[2];	/* N_G */
	int64_t latency_sum[2];	/* Σ latencies per group (ns) */
	/* Page cache of the groups' requests (doc/diff.md, "Page cache"): sums set by the caller. */
	bool has_cache;		/* a request's spans carried the page-cache members */
	uint64_t cache_hits[2];
	uint64_t cache_misses[2];
	uint64_t cache_miss_time[2];	/* ns */
	GHashTable *frame_caches;	/* owned: frame index -> owned struct ds_frame_cache; frames with reads */
	GHashTable *cache_seen;	/* owned: (frame << 32 | read id) counted in the request being added */
	uint32_t last_frame;	/* the leaf or chain frame reported last (visitor->cache applies to it) */
	unsigned int group;	/* group being added */
	bool overflow;		/* a sum left int64 (absurd span lengths): results not usable */
	bool finished;
};

void ds_aggregate_init(struct ds_aggregate *agg,
		const struct ds_strings *strings, enum ds_mode mode);
void ds_aggregate_fini(struct ds_aggregate *agg);

/* Adds one request to `group` (its spans in `store`, sharing agg's strings). */
void ds_aggregate_add(struct ds_aggregate *agg, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_group group);

/*
 * Adds one request to `group` from its recorded attribution (recorded in
 * agg's mode): the same frames, in the same order, as ds_aggregate_add().
 */
void ds_aggregate_add_recorded(struct ds_aggregate *agg,
		const struct ds_attribution_entry *entries, size_t count,
		int64_t latency, enum ds_group group);

/* Computes per-state sums and sorted children; call once after the last add. */
void ds_aggregate_finish(struct ds_aggregate *agg);

static inline const struct ds_frame *ds_frame_at(const struct ds_aggregate *agg,
		uint32_t index)
{
	return &g_array_index(agg->frames, struct ds_frame, index);
}

static inline const uint32_t *ds_frame_children(const struct ds_aggregate *agg,
		const struct ds_frame *frame)
{
	return &g_array_index(agg->children, uint32_t, frame->first_child);
}

static inline const char *ds_frame_label(const struct ds_aggregate *agg,
		const struct ds_frame *frame)
{
	return ds_strings_get(&agg->labels, frame->label);
}

/* The page cache of the reads of `frame`, NULL when no read has time in it. */
const struct ds_frame_cache *ds_frame_cache_of(const struct ds_aggregate *agg, const struct ds_frame *frame);

/* Mean width per request of `frame` in `group` (0 when the group is empty). */
double ds_frame_mean(const struct ds_aggregate *agg, const struct ds_frame *frame,
		enum ds_group group);

/* Exact numerator of W_B − W_A over the denominator N_A·N_B. */
__int128 ds_frame_delta_numerator(const struct ds_aggregate *agg,
		const struct ds_frame *frame);

/* W_B − W_A in ns (double). */
double ds_frame_delta(const struct ds_aggregate *agg, const struct ds_frame *frame);

/* d = (W_B − W_A) / W_A; `*is_new` when W_A = 0 and W_B > 0. */
double ds_frame_relative(const struct ds_aggregate *agg,
		const struct ds_frame *frame, bool *is_new);

/* Appends the frame's path (labels from the root span down) joined by `separator`. */
void ds_frame_path(const struct ds_aggregate *agg, uint32_t frame,
		const char *separator, GString *out);

/*
 * Critical-path check: Σ over leaves of the exact differences equals the
 * difference of mean latencies.  `*leaf_total` and `*latency_total` receive
 * both numerators (over N_A·N_B).
 */
bool ds_aggregate_check_exact(const struct ds_aggregate *agg,
		__int128 *leaf_total, __int128 *latency_total);

/* Mean latency of `group` (ns). */
double ds_aggregate_mean_latency(const struct ds_aggregate *agg, enum ds_group group);

#endif /* DEEPSPAN_DIFF_AGGREGATE_H */
