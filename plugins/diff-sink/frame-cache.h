/* SPDX-License-Identifier: MIT */
/*
 * The page cache of a frame of read syscalls in the flame graphs' tooltips and explain.txt
 * (doc/diff.md, "Page cache"): its reads' hits and misses, counts and time, per group.
 */
#ifndef DEEPSPAN_DIFF_FRAME_CACHE_H
#define DEEPSPAN_DIFF_FRAME_CACHE_H

#include <stdbool.h>
#include <glib.h>

#include "aggregate.h"

/*
 * Appends "N hits, M misses; per request x.xx hits (T), y.yy misses (T)" of `cache` in `group` to `out`
 * (the time per request of each kind).
 */
void ds_frame_cache_text(const struct ds_aggregate *agg, const struct ds_frame_cache *cache,
		enum ds_group group, GString *out);

/*
 * explain.txt: for a cause `frame`, the page cache of the nearest frame of reads among it and its chain
 * ancestors ("page cache of `[Waited blocked] pread64 ← disk 259:0 read`: B: …; A: …"); false (nothing
 * appended) when there is none.
 */
bool ds_frame_cache_explain(const struct ds_aggregate *agg, uint32_t frame, GString *out);

#endif /* DEEPSPAN_DIFF_FRAME_CACHE_H */
