/* SPDX-License-Identifier: MIT */
#include "request-record.h"

#include <string.h>

void ds_request_record_make(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index,
		struct ds_request_record *record)
{
	const struct ds_request *request = ds_request_at(requests, index);
	const struct ds_span *root = ds_store_span(store, request->root);

	memset(record, 0, sizeof(*record));
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
