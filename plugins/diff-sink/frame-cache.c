/* SPDX-License-Identifier: MIT */
#include "frame-cache.h"

#include <inttypes.h>

#include "colour.h"

void ds_frame_cache_text(const struct ds_aggregate *agg, const struct ds_frame_cache *cache,
		enum ds_group group, GString *out)
{
	uint64_t n = agg->requests[group];
	char hit[32], miss[32];

	ds_format_duration(n ? (double) cache->hit_time[group] / (double) n : 0.0, false, hit, sizeof(hit));
	ds_format_duration(n ? (double) cache->miss_time[group] / (double) n : 0.0, false, miss, sizeof(miss));
	g_string_append_printf(out, "%" PRIu64 " hit%s, %" PRIu64 " miss%s; per request %.2f hits (%s), "
		"%.2f misses (%s)", cache->hits[group], cache->hits[group] == 1 ? "" : "s",
		cache->misses[group], cache->misses[group] == 1 ? "" : "es",
		n ? (double) cache->hits[group] / (double) n : 0.0, hit,
		n ? (double) cache->misses[group] / (double) n : 0.0, miss);
}

bool ds_frame_cache_explain(const struct ds_aggregate *agg, uint32_t frame, GString *out)
{
	const struct ds_frame *f = ds_frame_at(agg, frame);
	const struct ds_frame_cache *cache = ds_frame_cache_of(agg, f);

	/* a chain leaf's reads are on the depth-0 frame of its chain, the nearest one with reads above it */
	while (!cache && f->in_chain && f->parent != frame) {
		frame = f->parent;
		f = ds_frame_at(agg, frame);
		cache = ds_frame_cache_of(agg, f);
	}
	if (!cache) {
		return false;
	}
	g_string_append(out, "page cache of `");
	g_string_append(out, ds_frame_label(agg, f));
	g_string_append(out, "`: B: ");
	ds_frame_cache_text(agg, cache, DS_GROUP_B, out);
	g_string_append(out, "; A: ");
	ds_frame_cache_text(agg, cache, DS_GROUP_A, out);
	return true;
}
