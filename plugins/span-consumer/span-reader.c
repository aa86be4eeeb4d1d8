/* SPDX-License-Identifier: MIT */
#include "span-reader.h"
#include "chain-labels.h"
#include "chain-reader.h"
#include "host-context.h"
#include "span-layout.h"

#include <stdlib.h>
#include <string.h>

void ds_span_reader_init(struct ds_span_reader *reader,
		bt_self_component *self_comp, const char *class_name, bool keep_segments,
		bool keep_syscalls)
{
	memset(reader, 0, sizeof(*reader));
	reader->keep_chains = keep_segments;
	reader->keep_segments = keep_segments;
	reader->keep_syscalls = keep_syscalls;
	reader->self_comp = self_comp;
	reader->class_name = class_name;
	reader->layouts = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, ds_span_layout_free);
	reader->scratch = g_string_new(NULL);
	reader->wide = g_array_new(FALSE, FALSE, sizeof(struct ds_wide_segment));
	reader->chain_scratch = g_byte_array_new();
	reader->packed_strings = g_array_new(FALSE, FALSE, sizeof(struct ds_packed_string));
	reader->label_cache = ds_chain_label_cache_new();
	reader->deadlocks = g_hash_table_new(g_direct_hash, g_direct_equal);
	reader->stuck = g_hash_table_new(g_direct_hash, g_direct_equal);
}

void ds_span_reader_fini(struct ds_span_reader *reader)
{
	if (reader->layouts) {
		g_hash_table_destroy(reader->layouts);
		reader->layouts = NULL;
	}
	if (reader->wide) {
		g_array_free(reader->wide, TRUE);
		reader->wide = NULL;
	}
	if (reader->scratch) {
		g_string_free(reader->scratch, TRUE);
		reader->scratch = NULL;
	}
	if (reader->chain_scratch) {
		g_byte_array_free(reader->chain_scratch, TRUE);
		reader->chain_scratch = NULL;
	}
	if (reader->packed_strings) {
		g_array_free(reader->packed_strings, TRUE);
		reader->packed_strings = NULL;
	}
	if (reader->label_cache) {
		ds_chain_label_cache_destroy(reader->label_cache);
		reader->label_cache = NULL;
	}
	if (reader->deadlocks) {
		g_hash_table_destroy(reader->deadlocks);
		g_hash_table_destroy(reader->stuck);
		reader->deadlocks = reader->stuck = NULL;
	}
}

static void read_syscalls(const struct ds_span_layout *layout,
		const bt_field *array, struct ds_span *span,
		struct ds_span_store *store)
{
	uint64_t i, n = bt_field_array_get_length(array);
	const struct element_layout *el = &layout->syscall;
	struct ds_syscall_total *out;

	out = ds_arena_alloc(&store->syscalls, n);
	span->syscalls = out;
	span->syscall_count = (uint32_t) n;
	for (i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(array, i);

		out[i].name = ds_strings_intern(store->strings, bt_field_string_get_value(
			member_at(e, el->index[SC_NAME])));
		out[i].count = read_uint(member_at(e, el->index[SC_COUNT]),
			el->is_signed[SC_COUNT]);
		out[i].duration = read_uint(member_at(e, el->index[SC_DURATION]),
			el->is_signed[SC_DURATION]);
	}
}

static int compare_segments(const void *a, const void *b)
{
	const struct ds_wide_segment *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * A blocked stretch inside a system call is named after both: the call the
 * thread slept in and its waker (`futex ← mysqld/4242`), unless the producer
 * already wrote it that way.
 */
static uint32_t blocked_detail(struct ds_span_store *store, GString *scratch,
		const struct ds_wide_segment *previous, const char *detail)
{
	if (!previous || previous->state != DS_STATE_SYSCALL ||
			previous->detail == 0 || strstr(detail, "\xe2\x86\x90")) {
		return ds_strings_intern(store->strings, detail);
	}
	g_string_assign(scratch, ds_store_string(store, previous->detail));
	if (*detail) {
		g_string_append(scratch, " \xe2\x86\x90 ");
		g_string_append(scratch, detail);
	}
	return ds_strings_intern(store->strings, scratch->str);
}

/*
 * Details repeat (`recvfrom`, `softirq:NET_RX`): the last id interned per
 * state is checked with one strcmp before hashing.
 */
static uint32_t intern_recent(struct ds_span_store *store, uint32_t *recent,
		unsigned int state, const char *detail)
{
	if (detail[0] == '\0') {
		return 0;
	}
	if (recent[state] != 0 &&
			strcmp(detail, ds_store_string(store, recent[state])) == 0) {
		return recent[state];
	}
	recent[state] = ds_strings_intern(store->strings, detail);
	return recent[state];
}

/*
 * Reads the segments into `wide` (reused scratch), sorts them by begin if
 * needed, then packs them into one run of the store's arena.
 */
static void read_segments(const struct ds_span_layout *layout,
		const bt_field *array, struct ds_span *span,
		struct ds_span_store *store, struct ds_span_reader *reader)
{
	uint64_t i, n = bt_field_array_get_length(array);
	const struct element_layout *el = &layout->segment;
	bool sorted = true;
	struct ds_wide_segment *wide;
	struct ds_segment *out;

	g_array_set_size(reader->wide, n);
	wide = (struct ds_wide_segment *) (void *) reader->wide->data;
	for (i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(array, i);
		int64_t value = read_int(member_at(e, el->index[SEG_STATE]),
			el->is_signed[SEG_STATE]);
		const char *detail = bt_field_string_get_value(
			member_at(e, el->index[SEG_DETAIL]));
		const struct ds_wide_segment *previous = i > 0 ? &wide[i - 1] : NULL;
		struct ds_wide_segment segment = {
			.begin = read_int(member_at(e, el->index[SEG_BEGIN]),
				el->is_signed[SEG_BEGIN]),
			.end = read_int(member_at(e, el->index[SEG_END]),
				el->is_signed[SEG_END]),
			.state = value >= 0 && value < 256 ?
				layout->state_of_value[value] : DS_STATE_UNKNOWN,
			.index = (uint32_t) i,
		};

		if (detail[0] == DS_SPAN_NONE[0] && detail[1] == '\0') {
			detail = "";	/* "none" (states.h); older traces wrote "" */
		}
		segment.detail = segment.state == DS_STATE_BLOCKED ?
			blocked_detail(store, reader->scratch, previous, detail) :
			intern_recent(store, reader->recent_detail, segment.state, detail);
		if (previous && previous->begin > segment.begin) {
			sorted = false;
		}
		wide[i] = segment;
	}
	if (!sorted) {
		qsort(wide, n, sizeof(struct ds_wide_segment), compare_segments);
	}
	out = ds_arena_alloc(&store->segments, n);
	for (i = 0; i < n; i++) {
		ds_segment_pack(span->begin, span->end, &wide[i], &out[i]);
	}
	span->segments = out;
	span->segment_count = (uint32_t) n;
}

/* The span's reads (`cache_reads`, doc/storage-network.md "Page cache"): those in its bounds, in time order. */
static void read_cache_reads(const struct ds_span_layout *layout, const bt_field *array,
		struct ds_span *span, struct ds_span_store *store)
{
	uint64_t i, n = bt_field_array_get_length(array);
	const struct element_layout *el = &layout->read;
	struct ds_cache_read *out;
	uint32_t kept = 0;

	if (n == 0 || n > UINT32_MAX) {
		return;
	}
	span->read_base = (uint32_t) store->reads.used;
	out = ds_arena_alloc(&store->reads, n);
	for (i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(array, i);
		const bt_field *miss = member_at(e, el->index[2]);
		struct ds_cache_read r;

		r.begin = read_int(member_at(e, el->index[0]), el->is_signed[0]);
		r.end = read_int(member_at(e, el->index[1]), el->is_signed[1]);
		r.miss = bt_field_get_class_type(miss) == BT_FIELD_CLASS_TYPE_BOOL ?
			bt_field_bool_get_value(miss) : read_int(miss, el->is_signed[2]) != 0;
		/* out of order or out of the span: left out (a wrong producer), never a wrong frame */
		if (r.begin < span->begin || r.end > span->end || r.end < r.begin ||
				(kept && r.begin < out[kept - 1].end)) {
			continue;
		}
		out[kept++] = r;
	}
	span->reads = kept ? out : NULL;
	span->read_count = kept;
}

/* The span's host context (doc/host-context.md); entries of an unknown kind are left out. */
static void read_host_context(const struct ds_span_layout *layout, const bt_field *payload,
		struct ds_span *span, struct ds_span_store *store)
{
	const struct element_layout *el = &layout->host_item;
	const bt_field *array = member_at(payload, layout->index[M_HOST_CONTEXT]);
	uint64_t n = bt_field_array_get_length(array), i;
	struct ds_host_item *items;
	uint32_t kept = 0;

	span->host_window = layout->index[M_HOST_WINDOW] != NO_MEMBER ?
		read_uint(member_at(payload, layout->index[M_HOST_WINDOW]), layout->is_signed[M_HOST_WINDOW]) : 0;
	if (!span->host_window || !n || n > UINT32_MAX) {
		return;
	}
	items = ds_arena_alloc(&store->host_items, n);
	for (i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(array, i);
		uint64_t kind = read_uint(member_at(e, el->index[HC_KIND]), el->is_signed[HC_KIND]);
		struct ds_host_item *item = &items[kept];

		item->kind = kind < 256 ? layout->host_kind_of_value[kind] : DS_HOST_KIND_COUNT;
		if (item->kind >= DS_HOST_KIND_COUNT) {
			continue;
		}
		item->pid = read_int(member_at(e, el->index[HC_PID]), el->is_signed[HC_PID]);
		item->value = read_uint(member_at(e, el->index[HC_VALUE]), el->is_signed[HC_VALUE]);
		item->name = ds_strings_intern(store->strings,
			bt_field_string_get_value(member_at(e, el->index[HC_NAME])));
		item->device = ds_strings_intern(store->strings,
			bt_field_string_get_value(member_at(e, el->index[HC_DEVICE])));
		kept++;
	}
	span->host_items = items;
	span->host_item_count = kept;
}

/*
 * The range rule every consumer relies on (doc/diff.md, "Invalid spans"):
 * 0 <= begin <= end, and the state totals sum to at most end - begin.  Then
 * every difference of two span times fits in int64.  A span breaking it
 * (a flipped sign bit, a corrupt trace) is marked invalid and counted; its
 * bounds become an empty interval at a non-negative time so that no
 * arithmetic on them overflows, and its request is left out.
 */
static void check_bounds(struct ds_span_reader *reader, struct ds_span *span)
{
	uint64_t states = 0;
	bool overflow = false;
	unsigned int s;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		overflow |= __builtin_add_overflow(states, span->states[s], &states);
	}
	if (span->begin >= 0 && span->end >= span->begin && !overflow &&
			states <= (uint64_t) (span->end - span->begin)) {
		return;
	}
	if (span->begin >= 0 && span->end < span->begin) {
		reader->reversed_spans++;
	}
	span->begin = span->begin >= 0 ? span->begin : MAX(span->end, 0);
	span->end = span->begin;
	memset(span->states, 0, sizeof(span->states));
	span->invalid = true;
	reader->invalid_spans++;
}

/* A syscall total longer than its span (they are clipped to it) makes the span invalid. */
static void check_syscalls(struct ds_span_reader *reader, struct ds_span *span)
{
	uint64_t length = (uint64_t) (span->end - span->begin);
	uint32_t i;

	if (span->invalid) {
		return;
	}
	for (i = 0; i < span->syscall_count; i++) {
		if (span->syscalls[i].duration > length) {
			span->invalid = true;
			reader->invalid_spans++;
			return;
		}
	}
}

enum ds_span_read_status ds_span_reader_read(struct ds_span_reader *reader,
		const bt_event *event, uint32_t input,
		struct ds_span_store *store)
{
	bool error;
	const struct ds_span_layout *layout =
		ds_span_layout_of(reader, bt_event_borrow_class_const(event), &error);
	const bt_field *payload;
	struct ds_span span = { 0 };
	unsigned int s;

	if (error) {
		return DS_SPAN_READ_ERROR;
	}
	if (!layout) {
		return DS_SPAN_READ_NOT_SPAN;
	}
	payload = bt_event_borrow_payload_field_const(event);
#define UINT_OF(m) read_uint(member_at(payload, layout->index[m]), layout->is_signed[m])
#define INT_OF(m) read_int(member_at(payload, layout->index[m]), layout->is_signed[m])
#define STRING_OF(m) ds_strings_intern(store->strings, \
		bt_field_string_get_value(member_at(payload, layout->index[m])))
	span.trace_id_high = UINT_OF(M_TRACE_HIGH);
	span.trace_id_low = UINT_OF(M_TRACE_LOW);
	span.span_id = UINT_OF(M_SPAN_ID);
	span.parent_span_id = UINT_OF(M_PARENT_SPAN_ID);
	span.host = STRING_OF(M_HOST);
	span.service = STRING_OF(M_SERVICE);
	span.operation = STRING_OF(M_OPERATION);
	span.pid = INT_OF(M_PID);
	span.tid = INT_OF(M_TID);
	span.begin = INT_OF(M_BEGIN);
	span.end = INT_OF(M_END);
	for (s = 0; s < DS_STATE_COUNT; s++) {
		span.states[s] = UINT_OF(M_USER + s);
	}
	if (layout->index[M_TRUNCATED] != NO_MEMBER) {
		const bt_field *flag = member_at(payload, layout->index[M_TRUNCATED]);

		span.truncated = layout->truncated_is_bool ?
			bt_field_bool_get_value(flag) :
			read_uint(flag, layout->is_signed[M_TRUNCATED]) != 0;
	}
	if (layout->index[M_CACHE_HITS] != NO_MEMBER && layout->index[M_CACHE_MISSES] != NO_MEMBER &&
			layout->index[M_CACHE_HIT_TIME] != NO_MEMBER && layout->index[M_CACHE_MISS_TIME] != NO_MEMBER) {
		span.has_cache = true;
		for (s = 0; s < 4; s++) {
			span.cache[s] = UINT_OF(M_CACHE_HITS + s);
		}
	}
#undef UINT_OF
#undef INT_OF
#undef STRING_OF
	check_bounds(reader, &span);
	if (layout->index[M_SYSCALLS] != NO_MEMBER && reader->keep_syscalls) {
		read_syscalls(layout, member_at(payload, layout->index[M_SYSCALLS]),
			&span, store);
		check_syscalls(reader, &span);
	}
	if (layout->index[M_SEGMENTS] != NO_MEMBER && reader->keep_segments) {
		read_segments(layout, member_at(payload, layout->index[M_SEGMENTS]),
			&span, store, reader);
		if (layout->index[M_CHAIN_PACKED] != NO_MEMBER && reader->keep_chains) {
			ds_chain_read_packed(member_at(payload, layout->index[M_CHAIN_PACKED]), &span, store, reader);
		} else if (layout->index[M_CHAIN] != NO_MEMBER && reader->keep_chains) {
			ds_chain_read(layout, member_at(payload, layout->index[M_CHAIN]),
				&span, store, reader);
		}
	}
	if (layout->index[M_HOST_CONTEXT] != NO_MEMBER && !span.invalid) {
		read_host_context(layout, payload, &span, store);
	}
	if (layout->index[M_CACHE_READS] != NO_MEMBER && reader->keep_segments && !span.invalid) {
		read_cache_reads(layout, member_at(payload, layout->index[M_CACHE_READS]), &span, store);
	}
	span.input = input;
	span.parent = DS_NO_SPAN;
	span.request = DS_NO_SPAN;
	ds_store_append_span(store, &span);
	reader->spans_read++;
	return DS_SPAN_READ_OK;
}

bool ds_span_reader_read_batch(struct ds_span_reader *reader,
		bt_message_array_const messages, uint64_t count, uint32_t input,
		struct ds_request_stream *stream, struct ds_progress *progress)
{
	bool ok = true;
	uint64_t i;

	for (i = 0; i < count; i++) {
		const bt_message *message = messages[i];

		if (ok && bt_message_get_type(message) == BT_MESSAGE_TYPE_EVENT) {
			enum ds_span_read_status read = ds_span_reader_read(reader,
				bt_message_event_borrow_event_const(message), input,
				&stream->store);

			ok = read != DS_SPAN_READ_ERROR;
			if (read == DS_SPAN_READ_OK) {
				ds_request_stream_note(stream, input);
			}
			ds_progress_event(progress, read == DS_SPAN_READ_OK);
		}
		bt_message_put_ref(message);
	}
	return ok;
}
