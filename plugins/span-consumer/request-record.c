/* SPDX-License-Identifier: MIT */
#include "request-record.h"

#include <string.h>

void ds_request_record_make(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index,
		struct ds_request_record *record)
{
	const struct ds_request *request = ds_request_at(requests, index);
	const struct ds_span *root = ds_store_span(store, request->root);
	uint32_t i;

	memset(record, 0, sizeof(*record));
	for (i = 0; i < request->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, g_array_index(requests->spans, uint32_t,
			request->first_span + i));

		if (span->has_cache) {
			/* reads of one request: saturate rather than wrap (absurd counts only) */
			record->has_cache = true;
			record->cache_hits = (uint32_t) MIN((uint64_t) record->cache_hits + span->cache[0], UINT32_MAX);
			record->cache_misses = (uint32_t) MIN((uint64_t) record->cache_misses + span->cache[1],
				UINT32_MAX);
			record->cache_miss_time += span->cache[3];
		}
	}
	record->trace_id_high = request->trace_id_high;
	record->trace_id_low = request->trace_id_low;
	record->latency = request->latency;
	record->self_time = request->self_time;
	record->root_begin = root->begin;
	record->root_service = root->service;
	record->root_operation = root->operation;
	record->input = request->input;
	record->span_count = request->span_count;
	record->truncated = request->truncated;
	record->invalid = request->invalid;
}

gint ds_record_compare_trace(gconstpointer a, gconstpointer b)
{
	const struct ds_request_record *x = a, *y = b;

	if (x->input != y->input) {
		return x->input < y->input ? -1 : 1;
	}
	if (x->trace_id_high != y->trace_id_high) {
		return x->trace_id_high < y->trace_id_high ? -1 : 1;
	}
	return x->trace_id_low < y->trace_id_low ? -1 : x->trace_id_low > y->trace_id_low;
}
