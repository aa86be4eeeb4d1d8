/* SPDX-License-Identifier: MIT */
/*
 * A list of durations kept mostly on disk, with exact order statistics in
 * bounded memory: sink.deepspan.metrics' per-operation percentiles.
 *
 * Values are appended to an in-memory chunk; full chunks go to a spill file
 * (request-spill.h) shared by every list.  A percentile is the exact
 * nearest-rank value, found by a radix selection over the chunks (16 bits
 * per pass, at most 4 passes) when the list does not fit in one chunk.
 */
#ifndef DEEPSPAN_DIFF_DURATION_LIST_H
#define DEEPSPAN_DIFF_DURATION_LIST_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "span-consumer/request-spill.h"

#define DS_DURATION_CHUNK 4096u

struct ds_duration_list {
	struct ds_spill *spill;	/* borrowed: where full chunks go */
	GArray *chunks;		/* owned: uint64_t spill offsets of full chunks */
	int64_t *current;	/* owned: the chunk being filled */
	uint32_t current_count;
	uint64_t count;		/* values appended */
	int64_t max;
	bool current_sorted;	/* `current` is in order (set by the first in-memory percentile) */
};

void ds_duration_list_init(struct ds_duration_list *list, struct ds_spill *spill);
void ds_duration_list_fini(struct ds_duration_list *list);
void ds_duration_list_add(struct ds_duration_list *list, int64_t value);

/* 0-based index of the nearest-rank percentile `p` (0..100) of `n` sorted values (n > 0). */
uint64_t ds_nearest_rank(uint64_t n, double p);

/*
 * Nearest-rank percentile `p` (0..100), as ds_percentile() on the sorted
 * values; 0 for an empty list.  False when the spill file cannot be read.
 */
bool ds_duration_list_percentile(struct ds_duration_list *list, double p, int64_t *out);

#endif /* DEEPSPAN_DIFF_DURATION_LIST_H */
