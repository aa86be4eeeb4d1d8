/* SPDX-License-Identifier: MIT */
#include "request-stream.h"

#include <inttypes.h>
#include <string.h>
#include <xxhash.h>

#include "sanitize.h"

/* Spans handed out per batch at least (one batch costs a copy of the open spans). */
#define BATCH_SPANS 32768u
/*
 * Or chain entries (96 bytes each): once this many were stored since the last batch, a batch starts when the
 * complete requests hold at least this many and twice those of the open ones (it is worth its copy of the
 * open ones: on a short trace an early batch would cost more memory than it frees); else the store is looked
 * at again a quarter of that later.  With chains the store then stays near its size without them
 * (doc/diff.md, *Memory*).
 */
#define BATCH_CHAIN_ENTRIES 131072u

struct ds_open_trace {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint32_t input;
	uint32_t slot;		/* index in stream->slots */
	int64_t last_end;	/* latest span end */
	bool complete;		/* decided at the current batch */
	uint64_t chain_entries;	/* of its spans in the store */
};

static uint64_t fingerprint(uint64_t high, uint64_t low, uint32_t input)
{
	uint64_t key[3] = { high, low, input };

	return XXH3_64bits(key, sizeof(key));
}

static guint hash_trace(gconstpointer p)
{
	const struct ds_open_trace *t = p;

	return (guint) fingerprint(t->trace_id_high, t->trace_id_low, t->input);
}

static gboolean equal_trace(gconstpointer a, gconstpointer b)
{
	const struct ds_open_trace *x = a, *y = b;

	return x->trace_id_high == y->trace_id_high && x->trace_id_low == y->trace_id_low &&
		x->input == y->input;
}

static guint hash_fingerprint(gconstpointer p)
{
	return (guint) (uintptr_t) p;
}

void ds_request_stream_init(struct ds_request_stream *stream,
		const struct ds_request_stream_config *config)
{
	unsigned int i;

	memset(stream, 0, sizeof(*stream));
	stream->config = *config;
	ds_strings_init(&stream->strings);
	ds_span_store_init(&stream->store, &stream->strings);
	ds_span_store_init(&stream->aside, &stream->strings);
	stream->open = g_hash_table_new_full(hash_trace, equal_trace, g_free, NULL);
	stream->slots = g_ptr_array_new();
	stream->done = g_hash_table_new(hash_fingerprint, g_direct_equal);
	for (i = 0; i < DS_STREAM_INPUTS; i++) {
		stream->clock[i] = INT64_MIN;
	}
	stream->flush_at = BATCH_SPANS;
	stream->chain_flush_at = BATCH_CHAIN_ENTRIES;
}

void ds_request_stream_fini(struct ds_request_stream *stream)
{
	if (stream->slots) {
		g_ptr_array_free(stream->slots, TRUE);
	}
	if (stream->open) {
		g_hash_table_destroy(stream->open);
	}
	if (stream->done) {
		g_hash_table_destroy(stream->done);
	}
	if (stream->store.span_chunks) {
		ds_span_store_fini(&stream->store);
		ds_span_store_fini(&stream->aside);
	}
	if (stream->strings.texts) {
		ds_strings_fini(&stream->strings);
	}
	g_free(stream->worst_skew_where);
	memset(stream, 0, sizeof(*stream));
}

/* The input's clock has passed `last_end` by more than the grace. */
static bool past_grace(const struct ds_request_stream *stream, int64_t clock, int64_t last_end)
{
	return clock > last_end &&
		(uint64_t) clock - (uint64_t) last_end > (uint64_t) stream->config.grace;
}

/* The span just appended is late: counted and forgotten. */
static void drop_late(struct ds_request_stream *stream)
{
	stream->late_spans++;
	ds_store_drop_last_span(&stream->store);
}

void ds_request_stream_note(struct ds_request_stream *stream, uint32_t input)
{
	struct ds_span *span = ds_store_span(&stream->store, stream->store.span_count - 1);
	struct ds_open_trace key = {
		.trace_id_high = span->trace_id_high,
		.trace_id_low = span->trace_id_low,
		.input = input,
	};
	struct ds_open_trace *trace;
	int64_t clock;

	input = MIN(input, DS_STREAM_INPUTS - 1);
	clock = stream->clock[input];
	stream->clock[input] = MAX(clock, span->end);
	if (!stream->config.build_requests) {
		return;
	}
	/*
	 * Late = its request was complete before this span came: the decision
	 * depends on the stream only, never on when batches happen.
	 */
	trace = g_hash_table_lookup(stream->open, &key);
	if (trace && past_grace(stream, clock, trace->last_end)) {
		drop_late(stream);
		return;
	}
	if (!trace) {
		if (g_hash_table_contains(stream->done, (gpointer) (uintptr_t) fingerprint(
				key.trace_id_high, key.trace_id_low, key.input))) {
			drop_late(stream);
			return;
		}
		trace = g_new(struct ds_open_trace, 1);
		*trace = key;
		trace->slot = stream->slots->len;
		trace->last_end = span->end;
		g_ptr_array_add(stream->slots, trace);
		g_hash_table_add(stream->open, trace);
	}
	trace->last_end = MAX(trace->last_end, span->end);
	trace->chain_entries += span->chain_count;
	span->request = trace->slot;
}

/* Accumulates the facts of one batch's trees. */
static void add_facts(struct ds_request_stream *stream, const struct ds_span_store *store,
		const struct ds_requests *requests)
{
	stream->requests += requests->requests->len;
	stream->truncated_requests += requests->truncated_requests;
	stream->invalid_requests += requests->invalid_requests;
	stream->cycle_spans += requests->cycle_spans;
	stream->cycle_requests += requests->cycle_requests;
	stream->deep_requests += requests->deep_requests;
	stream->folded_spans += requests->folded_spans;
	stream->duplicate_spans += requests->duplicate_spans;
	stream->skewed_children += requests->skewed_children;
	if (requests->worst_skew_span != DS_NO_SPAN &&
			requests->worst_skew > stream->worst_skew) {
		const struct ds_span *span = ds_store_span(store, requests->worst_skew_span);

		GString *where = g_string_new(NULL);

		stream->worst_skew = requests->worst_skew;
		g_free(stream->worst_skew_where);
		/* Printed on the terminal and in every output: names made safe (sanitize.h). */
		ds_sanitize_text(where, ds_store_string(store, span->service));
		g_string_append(where, ": ");
		ds_sanitize_text(where, ds_store_string(store, span->operation));
		g_string_append(where, " on host ");
		ds_sanitize_text(where, ds_store_string(store, span->host));
		g_string_append_printf(where, ", trace 0x%016" PRIx64 "%016" PRIx64,
			span->trace_id_high, span->trace_id_low);
		stream->worst_skew_where = g_string_free(where, FALSE);
	}
}

static void hand_out_spans(struct ds_request_stream *stream)
{
	uint32_t i;

	for (i = 0; i < stream->store.span_count; i++) {
		stream->config.on_span(stream->config.data, &stream->store,
			ds_store_span(&stream->store, i));
	}
}

/* Decides which open requests are complete; fills `complete` and `carry` with span indices. */
static void partition(struct ds_request_stream *stream, bool at_end,
		GArray *complete, GArray *carry)
{
	uint32_t i;

	for (i = 0; i < stream->slots->len; i++) {
		struct ds_open_trace *trace = g_ptr_array_index(stream->slots, i);
		int64_t clock = stream->clock[MIN(trace->input, DS_STREAM_INPUTS - 1)];

		trace->complete = at_end || past_grace(stream, clock, trace->last_end);
	}
	for (i = 0; i < stream->store.span_count; i++) {
		const struct ds_open_trace *trace = g_ptr_array_index(stream->slots,
			ds_store_span(&stream->store, i)->request);

		g_array_append_val(trace->complete ? complete : carry, i);
	}
}

/* Forgets complete requests, renumbers open ones, keeps only their spans in the store. */
static void retire(struct ds_request_stream *stream, const GArray *carry)
{
	GPtrArray *slots = g_ptr_array_new();
	uint32_t i;

	for (i = 0; i < stream->slots->len; i++) {
		struct ds_open_trace *trace = g_ptr_array_index(stream->slots, i);

		if (trace->complete) {
			g_hash_table_add(stream->done, (gpointer) (uintptr_t) fingerprint(
				trace->trace_id_high, trace->trace_id_low, trace->input));
			g_hash_table_remove(stream->open, trace);
			g_ptr_array_index(stream->slots, i) = NULL;
			continue;
		}
		trace->slot = slots->len;
		g_ptr_array_add(slots, trace);
	}
	/* Open spans go aside, then back into the store's reused memory. */
	ds_span_store_reset(&stream->aside);
	for (i = 0; i < carry->len; i++) {
		const struct ds_span *span = ds_store_span(&stream->store,
			g_array_index(carry, uint32_t, i));
		/* The old slot still points at the trace (only complete ones were cleared). */
		const struct ds_open_trace *trace = g_ptr_array_index(stream->slots, span->request);
		uint32_t index = ds_store_copy_span(&stream->aside, span);

		ds_store_span(&stream->aside, index)->request = trace->slot;
	}
	ds_span_store_reset(&stream->store);
	for (i = 0; i < stream->aside.span_count; i++) {
		ds_store_copy_span(&stream->store, ds_store_span(&stream->aside, i));
	}
	g_ptr_array_free(stream->slots, TRUE);
	stream->slots = slots;
}

static void flush(struct ds_request_stream *stream, bool at_end)
{
	GArray *complete, *carry;
	struct ds_requests requests;
	uint32_t i;

	stream->batches++;
	stream->peak_spans = MAX(stream->peak_spans, stream->store.span_count);
	if (!stream->config.build_requests) {
		hand_out_spans(stream);
		stream->spans += stream->store.span_count;
		ds_span_store_reset(&stream->store);
		stream->chain_flush_at = BATCH_CHAIN_ENTRIES;
		return;
	}
	complete = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	carry = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	partition(stream, at_end, complete, carry);
	stream->spans += complete->len;
	ds_requests_build_from(&requests, &stream->store, (const uint32_t *) complete->data,
		complete->len, stream->config.skew_tolerance);
	add_facts(stream, &stream->store, &requests);
	for (i = 0; i < requests.requests->len; i++) {
		stream->config.on_request(stream->config.data, &stream->store, &requests, i);
	}
	ds_requests_fini(&requests);
	retire(stream, carry);
	stream->flush_at = carry->len + BATCH_SPANS;
	stream->chain_flush_at = stream->store.chains.used + BATCH_CHAIN_ENTRIES;
	g_array_free(complete, TRUE);
	g_array_free(carry, TRUE);
}

/* Chain entries of the requests a batch now would hand out. */
static uint64_t complete_chain_entries(const struct ds_request_stream *stream)
{
	uint64_t entries = 0;
	uint32_t i;

	for (i = 0; i < stream->slots->len; i++) {
		const struct ds_open_trace *trace = g_ptr_array_index(stream->slots, i);

		if (past_grace(stream, stream->clock[MIN(trace->input, DS_STREAM_INPUTS - 1)], trace->last_end)) {
			entries += trace->chain_entries;
		}
	}
	return entries;
}

void ds_request_stream_maybe_flush(struct ds_request_stream *stream)
{
	bool chains_due = stream->store.chains.used >= stream->chain_flush_at;

	if (chains_due && stream->config.build_requests) {
		uint64_t complete = complete_chain_entries(stream);

		if (complete < BATCH_CHAIN_ENTRIES || complete < 2 * (stream->store.chains.used - complete)) {
			stream->chain_flush_at = stream->store.chains.used + BATCH_CHAIN_ENTRIES / 4;
			chains_due = false;
		}
	}
	if (stream->store.span_count >= stream->flush_at || chains_due) {
		flush(stream, false);
	}
}

void ds_request_stream_finish(struct ds_request_stream *stream)
{
	flush(stream, true);
}
