/* SPDX-License-Identifier: MIT */
/*
 * The fixed-size record a complete request is reduced to when its spans
 * leave memory: what the group selection, the histograms and the tables
 * need, and where its recorded attribution and its spans were spilled.
 */
#ifndef DEEPSPAN_DIFF_REQUEST_RECORD_H
#define DEEPSPAN_DIFF_REQUEST_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "request-tree.h"
#include "span-store.h"

struct ds_request_record {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	int64_t latency;	/* main root end - begin */
	int64_t self_time;	/* main root duration minus the union of its children */
	int64_t root_begin;	/* the root ends at root_begin + latency */
	uint64_t spill_offset;	/* its attribution entries, then its spans (request-spill.h) */
	uint32_t attribution_count;	/* recorded calls */
	uint32_t spans_size;	/* bytes of spans after the calls */
	uint32_t root_service;	/* interned ids */
	uint32_t root_operation;
	uint32_t input;		/* input port of the main root */
	uint32_t span_count;
	bool truncated;		/* a span was still open at the end of the trace */
	bool invalid;		/* a span had bounds out of range: in no group */
	bool has_cache;		/* a span carried the page-cache members (doc/storage-network.md, "Page cache") */
	uint32_t cache_hits;	/* sums over the spans: read-family syscalls that hit / missed the page cache */
	uint32_t cache_misses;
	uint64_t cache_miss_time;	/* ns in the missing reads */
};

/* Fills `record` from request `index` of `requests` (spill fields zeroed). */
void ds_request_record_make(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index,
		struct ds_request_record *record);

static inline const struct ds_request_record *ds_record_at(const GArray *records,
		uint32_t index)
{
	return &g_array_index(records, struct ds_request_record, index);
}

/* Orders records by (input, trace id). */
gint ds_record_compare_trace(gconstpointer a, gconstpointer b);

#endif /* DEEPSPAN_DIFF_REQUEST_RECORD_H */
