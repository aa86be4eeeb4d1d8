/* SPDX-License-Identifier: MIT */
#include "span-reader.h"
#include "chain-labels.h"
#include "host-context.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SPAN_EVENT_NAME "deepspan:span"

#define NO_MEMBER UINT64_MAX

enum member {
	M_TRACE_HIGH, M_TRACE_LOW, M_SPAN_ID, M_PARENT_SPAN_ID,
	M_HOST, M_SERVICE, M_OPERATION, M_PID, M_TID, M_BEGIN, M_END,
	M_USER, M_SYSCALL, M_BLOCKED, M_WAIT_CPU, M_INTERRUPTED, M_UNKNOWN,
	M_SYSCALLS, M_SEGMENTS, M_TRUNCATED, M_CHAIN,
	M_CACHE_HITS, M_CACHE_MISSES, M_CACHE_HIT_TIME, M_CACHE_MISS_TIME,	/* layers (doc/storage-network.md) */
	M_HOST_WINDOW, M_HOST_CONTEXT,	/* doc/host-context.md */
	M_CACHE_READS,	/* layers, per read (doc/storage-network.md, "Page cache") */
	M_COUNT,
};

enum member_kind { KIND_INT, KIND_STRING, KIND_ARRAY, KIND_FLAG };

struct member_spec {
	const char *name;
	enum member_kind kind;
	bool required;
};

static const struct member_spec member_specs[M_COUNT] = {
	[M_TRACE_HIGH] = { "trace_id_high", KIND_INT, true },
	[M_TRACE_LOW] = { "trace_id_low", KIND_INT, true },
	[M_SPAN_ID] = { "span_id", KIND_INT, true },
	[M_PARENT_SPAN_ID] = { "parent_span_id", KIND_INT, true },
	[M_HOST] = { "host", KIND_STRING, true },
	[M_SERVICE] = { "service", KIND_STRING, true },
	[M_OPERATION] = { "operation", KIND_STRING, true },
	[M_PID] = { "pid", KIND_INT, true },
	[M_TID] = { "tid", KIND_INT, true },
	[M_BEGIN] = { "begin", KIND_INT, true },
	[M_END] = { "end", KIND_INT, true },
	[M_USER] = { "user", KIND_INT, true },
	[M_SYSCALL] = { "syscall", KIND_INT, true },
	[M_BLOCKED] = { "blocked", KIND_INT, true },
	[M_WAIT_CPU] = { "wait_cpu", KIND_INT, true },
	[M_INTERRUPTED] = { "interrupted", KIND_INT, true },
	[M_UNKNOWN] = { "unknown", KIND_INT, true },
	[M_SYSCALLS] = { "syscalls", KIND_ARRAY, false },
	[M_SEGMENTS] = { "segments", KIND_ARRAY, false },
	[M_TRUNCATED] = { "truncated", KIND_FLAG, false },
	[M_CHAIN] = { "chain", KIND_ARRAY, false },
	[M_CACHE_HITS] = { "cache_hits", KIND_INT, false },
	[M_CACHE_MISSES] = { "cache_misses", KIND_INT, false },
	[M_CACHE_HIT_TIME] = { "cache_hit_time", KIND_INT, false },
	[M_CACHE_MISS_TIME] = { "cache_miss_time", KIND_INT, false },
	[M_HOST_WINDOW] = { "host_window", KIND_INT, false },
	[M_HOST_CONTEXT] = { "host_context", KIND_ARRAY, false },
	[M_CACHE_READS] = { "cache_reads", KIND_ARRAY, false },
};

/* Members of one array element structure. */
struct element_layout {
	uint64_t index[16];
	bool is_signed[16];
};

enum { SC_NAME, SC_COUNT, SC_DURATION };
enum { SEG_BEGIN, SEG_END, SEG_STATE, SEG_DETAIL };
enum {
	CH_SEGMENT, CH_PARENT, CH_DEPTH, CH_BEGIN, CH_END, CH_HOST, CH_TID,
	CH_COMM, CH_PROCESS, CH_CPU, CH_STATE, CH_KIND, CH_DETAIL, CH_COUNT,
	CH_BYTES = CH_COUNT,	/* optional (layers): NO_MEMBER in older traces */
};
enum { HC_KIND, HC_PID, HC_NAME, HC_DEVICE, HC_VALUE, HC_COUNT };

struct ds_span_layout {
	uint64_t index[M_COUNT];	/* member index or NO_MEMBER */
	bool is_signed[M_COUNT];
	bool truncated_is_bool;
	struct element_layout syscall;
	struct element_layout segment;
	struct element_layout chain;
	bool chain_standard;		/* every chain integer of span-attrib's signedness (read_entry) */
	uint8_t state_of_value[256];	/* segment `state` value -> enum ds_state */
	uint8_t chain_state_of_value[256];	/* chain `state` value -> enum ds_state */
	uint8_t kind_of_value[256];	/* chain `kind` value -> enum ds_chain_kind */
	struct element_layout host_item;
	uint8_t host_kind_of_value[256];	/* host_context `kind` value -> enum ds_host_kind */
	struct element_layout read;	/* cache_reads: begin, end, miss */
};

static void free_layout(gpointer data)
{
	g_free(data);
}

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
		NULL, free_layout);
	reader->scratch = g_string_new(NULL);
	reader->wide = g_array_new(FALSE, FALSE, sizeof(struct ds_wide_segment));
	reader->chain_scratch = g_byte_array_new();
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

static bool kind_matches(const bt_field_class *fc, enum member_kind kind)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	switch (kind) {
	case KIND_INT:
		return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER);
	case KIND_STRING:
		return type == BT_FIELD_CLASS_TYPE_STRING;
	case KIND_ARRAY:
		return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY) &&
			bt_field_class_get_type(
				bt_field_class_array_borrow_element_field_class_const(fc)) ==
			BT_FIELD_CLASS_TYPE_STRUCTURE;
	case KIND_FLAG:
		return type == BT_FIELD_CLASS_TYPE_BOOL ||
			bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER);
	}
	return false;
}

static const char *kind_name(enum member_kind kind)
{
	switch (kind) {
	case KIND_INT:
		return "an integer";
	case KIND_STRING:
		return "a string";
	case KIND_ARRAY:
		return "an array of structures";
	case KIND_FLAG:
		return "a boolean or an integer";
	}
	return "?";
}

static bool is_signed_fc(const bt_field_class *fc)
{
	return bt_field_class_type_is(bt_field_class_get_type(fc),
		BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
}

/* Maps an enumeration label to a state ("wait_cpu", "Waited CPU", "WAIT_CPU"). */
static unsigned int state_of_label(const char *label)
{
	char norm[32];
	size_t n = 0;

	for (; *label && n + 1 < sizeof(norm); label++) {
		if (isalnum((unsigned char) *label)) {
			norm[n++] = (char) tolower((unsigned char) *label);
		}
	}
	norm[n] = '\0';
	if (strcmp(norm, "user") == 0 || strcmp(norm, "running") == 0) {
		return DS_STATE_USER;
	}
	if (strcmp(norm, "syscall") == 0 || strcmp(norm, "systemcall") == 0) {
		return DS_STATE_SYSCALL;
	}
	if (strstr(norm, "blocked")) {
		return DS_STATE_BLOCKED;
	}
	if (strstr(norm, "cpu")) {
		return DS_STATE_WAIT_CPU;
	}
	if (strstr(norm, "interrupt") || strcmp(norm, "irq") == 0) {
		return DS_STATE_INTERRUPTED;
	}
	return DS_STATE_UNKNOWN;
}

/* Maps a chain kind label ("wait-cpu", "depth_limit") to enum ds_chain_kind. */
static unsigned int kind_of_label(const char *label)
{
	char norm[32];
	size_t n = 0;
	unsigned int k;

	for (; *label && n + 1 < sizeof(norm); label++) {
		if (isalnum((unsigned char) *label)) {
			norm[n++] = (char) tolower((unsigned char) *label);
		}
	}
	norm[n] = '\0';
	for (k = 0; k < DS_CHAIN_KIND_COUNT; k++) {
		const char *name = ds_chain_kind_tag(k);
		size_t i = 0, j = 0;

		for (; name[j]; j++) {
			if (name[j] == '-') {
				continue;
			}
			if (norm[i] != name[j]) {
				break;
			}
			i++;
		}
		if (name[j] == '\0' && norm[i] == '\0') {
			return k;
		}
	}
	return DS_CHAIN_UNKNOWN;
}

/*
 * Fills `table` (value -> enum) from the labels of enumeration class `fc`
 * mapped by `of_label`; identity below `identity_count` (others:
 * `fallback`) when `fc` is a plain integer.
 */
static void resolve_enum_values(uint8_t *table, const bt_field_class *fc,
		unsigned int (*of_label)(const char *), unsigned int identity_count,
		unsigned int fallback)
{
	bt_field_class_type type = bt_field_class_get_type(fc);
	uint64_t i, count, r;

	for (i = 0; i < 256; i++) {
		table[i] = i < identity_count ? (uint8_t) i : (uint8_t) fallback;
	}
	if (type != BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION &&
			type != BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION) {
		return;
	}
	count = bt_field_class_enumeration_get_mapping_count(fc);
	for (i = 0; i < count; i++) {
		if (type == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION) {
			const bt_field_class_enumeration_unsigned_mapping *m =
				bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(fc, i);
			const bt_integer_range_set_unsigned *ranges =
				bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(m);
			unsigned int value = of_label(
				bt_field_class_enumeration_mapping_get_label(
					bt_field_class_enumeration_unsigned_mapping_as_mapping_const(m)));

			for (r = 0; r < bt_integer_range_set_get_range_count(
					bt_integer_range_set_unsigned_as_range_set_const(ranges)); r++) {
				const bt_integer_range_unsigned *range =
					bt_integer_range_set_unsigned_borrow_range_by_index_const(ranges, r);
				uint64_t v;

				for (v = bt_integer_range_unsigned_get_lower(range);
						v <= bt_integer_range_unsigned_get_upper(range) && v < 256; v++) {
					table[v] = (uint8_t) value;
				}
			}
		} else {
			const bt_field_class_enumeration_signed_mapping *m =
				bt_field_class_enumeration_signed_borrow_mapping_by_index_const(fc, i);
			const bt_integer_range_set_signed *ranges =
				bt_field_class_enumeration_signed_mapping_borrow_ranges_const(m);
			unsigned int value = of_label(
				bt_field_class_enumeration_mapping_get_label(
					bt_field_class_enumeration_signed_mapping_as_mapping_const(m)));

			for (r = 0; r < bt_integer_range_set_get_range_count(
					bt_integer_range_set_signed_as_range_set_const(ranges)); r++) {
				const bt_integer_range_signed *range =
					bt_integer_range_set_signed_borrow_range_by_index_const(ranges, r);
				int64_t v;

				for (v = MAX(bt_integer_range_signed_get_lower(range), 0);
						v <= bt_integer_range_signed_get_upper(range) && v < 256; v++) {
					table[v] = (uint8_t) value;
				}
			}
		}
	}
}

static void resolve_state_values(struct ds_span_layout *layout,
		const bt_field_class *fc)
{
	resolve_enum_values(layout->state_of_value, fc, state_of_label,
		DS_STATE_COUNT, DS_STATE_UNKNOWN);
}

/* Finds the members `names` (with `kinds`) of structure class `fc`. */
static bool resolve_element(struct ds_span_reader *reader,
		const bt_field_class *array_fc, const char *array_name,
		const char *const *names, const enum member_kind *kinds,
		unsigned int count, struct element_layout *out,
		const bt_field_class **member_fcs)
{
	const bt_field_class *fc =
		bt_field_class_array_borrow_element_field_class_const(array_fc);
	unsigned int m;

	for (m = 0; m < count; m++) {
		const bt_field_class_structure_member *member = NULL;
		uint64_t i, n = bt_field_class_structure_get_member_count(fc);

		out->index[m] = NO_MEMBER;
		for (i = 0; i < n; i++) {
			member = bt_field_class_structure_borrow_member_by_index_const(fc, i);
			if (strcmp(bt_field_class_structure_member_get_name(member),
					names[m]) == 0) {
				break;
			}
		}
		if (i == n || !kind_matches(
				bt_field_class_structure_member_borrow_field_class_const(member),
				kinds[m])) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				reader->self_comp,
				"%s: event `" SPAN_EVENT_NAME "`: elements of `%s` need a member `%s` "
				"that is %s (doc/span-attrib.md, \"Output: deepspan:span\"); is the producer filter.deepspan.span-attrib?",
				reader->class_name, array_name, names[m],
				kind_name(kinds[m]));
			return false;
		}
		member_fcs[m] = bt_field_class_structure_member_borrow_field_class_const(member);
		out->index[m] = i;
		out->is_signed[m] = is_signed_fc(member_fcs[m]);
	}
	return true;
}

/* Optional integer member `name` of the elements of `array_fc` at `out->index[slot]`, NO_MEMBER when absent. */
static void resolve_optional_int(const bt_field_class *array_fc, const char *name,
		struct element_layout *out, unsigned int slot)
{
	const bt_field_class *fc = bt_field_class_array_borrow_element_field_class_const(array_fc);
	const bt_field_class_structure_member *member =
		bt_field_class_structure_borrow_member_by_name_const(fc, name);
	const bt_field_class *member_fc = member ?
		bt_field_class_structure_member_borrow_field_class_const(member) : NULL;

	out->index[slot] = NO_MEMBER;
	if (member_fc && kind_matches(member_fc, KIND_INT)) {
		uint64_t i, n = bt_field_class_structure_get_member_count(fc);

		for (i = 0; i < n; i++) {
			if (bt_field_class_structure_borrow_member_by_index_const(fc, i) == member) {
				out->index[slot] = i;
				out->is_signed[slot] = is_signed_fc(member_fc);
			}
		}
	}
}

/* The signedness of each chain member as filter.deepspan.span-attrib writes it (output.c). */
static const bool standard_signed[CH_COUNT + 1] = {
	[CH_PARENT] = true, [CH_BEGIN] = true, [CH_END] = true, [CH_TID] = true, [CH_CPU] = true,
};

/* Whether every integer member of a chain entry has the signedness span-attrib writes (standard_signed). */
static bool chain_is_standard(const struct element_layout *el)
{
	static const bool is_int[CH_COUNT + 1] = {
		[CH_SEGMENT] = true, [CH_PARENT] = true, [CH_DEPTH] = true, [CH_BEGIN] = true, [CH_END] = true,
		[CH_TID] = true, [CH_CPU] = true, [CH_STATE] = true, [CH_KIND] = true, [CH_BYTES] = true,
	};
	unsigned int m;

	for (m = 0; m <= CH_BYTES; m++) {
		if (is_int[m] && el->index[m] != NO_MEMBER && el->is_signed[m] != standard_signed[m]) {
			return false;
		}
	}
	return true;
}

static struct ds_span_layout *resolve_layout(struct ds_span_reader *reader,
		const bt_event_class *event_class, bool *error)
{
	const bt_field_class *payload_fc =
		bt_event_class_borrow_payload_field_class_const(event_class);
	struct ds_span_layout *layout;
	const char *name = bt_event_class_get_name(event_class);
	static const char *const syscall_names[] = { "name", "count", "duration" };
	static const enum member_kind syscall_kinds[] = { KIND_STRING, KIND_INT, KIND_INT };
	static const char *const segment_names[] = { "begin", "end", "state", "detail" };
	static const enum member_kind segment_kinds[] = {
		KIND_INT, KIND_INT, KIND_INT, KIND_STRING };
	static const char *const chain_names[CH_COUNT] = {
		"segment", "parent", "depth", "begin", "end", "host", "tid", "comm",
		"process", "cpu", "state", "kind", "detail" };
	static const enum member_kind chain_kinds[CH_COUNT] = {
		KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_STRING, KIND_INT,
		KIND_STRING, KIND_STRING, KIND_INT, KIND_INT, KIND_INT, KIND_STRING };
	const bt_field_class *element_fcs[CH_COUNT];
	uint64_t i, n;
	unsigned int m;

	*error = false;
	if (!name || strcmp(name, SPAN_EVENT_NAME) != 0) {
		return NULL;
	}
	layout = g_new0(struct ds_span_layout, 1);
	if (!payload_fc || bt_field_class_get_type(payload_fc) !=
			BT_FIELD_CLASS_TYPE_STRUCTURE) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(reader->self_comp,
			"%s: event `" SPAN_EVENT_NAME "` has no payload structure (doc/span-attrib.md, \"Output: deepspan:span\").",
			reader->class_name);
		goto error;
	}
	n = bt_field_class_structure_get_member_count(payload_fc);
	for (m = 0; m < M_COUNT; m++) {
		layout->index[m] = NO_MEMBER;
	}
	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *member =
			bt_field_class_structure_borrow_member_by_index_const(payload_fc, i);
		const char *member_name = bt_field_class_structure_member_get_name(member);
		const bt_field_class *fc =
			bt_field_class_structure_member_borrow_field_class_const(member);

		for (m = 0; m < M_COUNT; m++) {
			if (strcmp(member_name, member_specs[m].name) != 0) {
				continue;
			}
			if (!kind_matches(fc, member_specs[m].kind)) {
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
					reader->self_comp,
					"%s: event `" SPAN_EVENT_NAME "`: payload member `%s` must be %s (doc/span-attrib.md, \"Output: deepspan:span\").",
					reader->class_name, member_name,
					kind_name(member_specs[m].kind));
				goto error;
			}
			layout->index[m] = i;
			layout->is_signed[m] = is_signed_fc(fc);
			if (m == M_TRUNCATED) {
				layout->truncated_is_bool =
					bt_field_class_get_type(fc) == BT_FIELD_CLASS_TYPE_BOOL;
			}
			if (m == M_SYSCALLS && !resolve_element(reader, fc, "syscalls",
					syscall_names, syscall_kinds, 3,
					&layout->syscall, element_fcs)) {
				goto error;
			}
			if (m == M_SEGMENTS) {
				if (!resolve_element(reader, fc, "segments",
						segment_names, segment_kinds, 4,
						&layout->segment, element_fcs)) {
					goto error;
				}
				resolve_state_values(layout, element_fcs[SEG_STATE]);
			}
			if (m == M_HOST_CONTEXT) {
				static const char *const host_names[HC_COUNT] = {
					"kind", "pid", "name", "device", "value" };
				static const enum member_kind host_kinds[HC_COUNT] = {
					KIND_INT, KIND_INT, KIND_STRING, KIND_STRING, KIND_INT };

				if (!resolve_element(reader, fc, "host_context", host_names,
						host_kinds, HC_COUNT, &layout->host_item, element_fcs)) {
					goto error;
				}
				resolve_enum_values(layout->host_kind_of_value,
					element_fcs[HC_KIND], ds_host_kind_of_label, DS_HOST_KIND_COUNT,
					DS_HOST_KIND_COUNT);
			}
			if (m == M_CACHE_READS) {
				static const char *const read_names[] = { "begin", "end", "miss" };
				static const enum member_kind read_kinds[] = { KIND_INT, KIND_INT, KIND_FLAG };

				if (!resolve_element(reader, fc, "cache_reads", read_names, read_kinds, 3,
						&layout->read, element_fcs)) {
					goto error;
				}
			}
			if (m == M_CHAIN) {
				if (!resolve_element(reader, fc, "chain", chain_names,
						chain_kinds, CH_COUNT, &layout->chain, element_fcs)) {
					goto error;
				}
				resolve_enum_values(layout->chain_state_of_value,
					element_fcs[CH_STATE], state_of_label, DS_STATE_COUNT,
					DS_STATE_UNKNOWN);
				resolve_enum_values(layout->kind_of_value,
					element_fcs[CH_KIND], kind_of_label, DS_CHAIN_KIND_COUNT,
					DS_CHAIN_UNKNOWN);
				resolve_optional_int(fc, "bytes", &layout->chain, CH_BYTES);
				layout->chain_standard = chain_is_standard(&layout->chain);
			}
		}
	}
	for (m = 0; m < M_COUNT; m++) {
		if (member_specs[m].required && layout->index[m] == NO_MEMBER) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(reader->self_comp,
				"%s: event `" SPAN_EVENT_NAME "` lacks payload member `%s` (%s, doc/span-attrib.md, \"Output: deepspan:span\"); "
				"produce spans with filter.deepspan.span-attrib.",
				reader->class_name, member_specs[m].name,
				kind_name(member_specs[m].kind));
			goto error;
		}
	}
	return layout;

error:
	g_free(layout);
	*error = true;
	return NULL;
}

static inline const bt_field *member_at(const bt_field *structure, uint64_t index)
{
	return bt_field_structure_borrow_member_field_by_index_const(structure, index);
}

static inline int64_t read_int(const bt_field *field, bool is_signed)
{
	return is_signed ? bt_field_integer_signed_get_value(field) :
		(int64_t) bt_field_integer_unsigned_get_value(field);
}

static inline uint64_t read_uint(const bt_field *field, bool is_signed)
{
	return is_signed ? (uint64_t) bt_field_integer_signed_get_value(field) :
		bt_field_integer_unsigned_get_value(field);
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

/* Whether `slot` holds `text` of key `key` (chain-strings.h). */
static inline bool slot_holds(const struct ds_span_store *store, const struct ds_chain_string_slot *slot,
		const struct ds_chain_string_key *key, const char *text)
{
	return ds_chain_string_slot_has(slot, key) && (key->length <= DS_CHAIN_STRING_EXACT ||
		memcmp(text, ds_store_string(store, slot->id), key->length) == 0);
}

/*
 * Interns a chain string (chain-strings.h): the last string of that member first (hosts and threads
 * repeat), then a cache slot chosen by a hash of the key (cheaper than the store's hash table), then the
 * store.
 */
/* Always inlined: a call costs a fifth of it (prologue, epilogue; callgrind, doc/performance.md). */
static inline __attribute__((always_inline)) uint32_t intern_chain_string(struct ds_span_store *store,
		struct ds_span_reader *reader,
		unsigned int member, const bt_field *field)
{
	const char *text = bt_field_string_get_value(field);
	struct ds_chain_string_key key;
	struct ds_chain_string_slot *slot;

	ds_chain_string_key_of(&key, text, bt_field_string_get_length(field));
	if (slot_holds(store, &reader->last_chain_string[member], &key, text)) {
		return reader->last_chain_string[member].id;
	}
	slot = &reader->chain_strings[ds_chain_string_hash(&key, DS_SPAN_READER_STRINGS - 1)];
	if (!slot_holds(store, slot, &key, text)) {
		slot->id = ds_strings_intern(store->strings, text);
		slot->key = key;
	}
	reader->last_chain_string[member] = *slot;
	return slot->id;
}

/* A chain entry as read, before the checks and the labels. */
struct raw_entry {
	int64_t segment;
	int64_t parent;
	int64_t depth;
};

static inline bool is_waited(unsigned int state)
{
	return state == DS_STATE_BLOCKED || state == DS_STATE_WAIT_CPU;
}

/*
 * Checks the invariants of doc/critical-path.md on the chain read into
 * `chain` (`raw`: the indices as read) against the span's segments as read
 * (`wide`, in stored order; `stored_of`: read index -> stored index):
 * depth-first order, parent before child, depths, the children of an entry
 * partitioning it and the depth-0 entries of a segment partitioning it,
 * entries exactly on the waited segments.
 */
static bool check_chain(struct ds_chain_entry *chain, const struct raw_entry *raw,
		uint32_t count, const struct ds_wide_segment *wide, const uint32_t *stored_of,
		uint32_t segment_count, int64_t *cursor, uint32_t *stack)
{
	uint32_t depth = 0, i, covered = 0, waited = 0;
	int64_t segment = -1, segment_cursor = 0;

	for (i = 0; i < count; i++) {
		struct ds_chain_entry *e = &chain[i];
		int64_t parent = raw[i].parent;

		if (raw[i].segment < 0 || raw[i].segment >= segment_count ||
				parent < -1 || parent >= (int64_t) i || e->begin > e->end) {
			return false;
		}
		e->segment = stored_of[raw[i].segment];
		e->parent = (int32_t) parent;
		/* Close the entries that are not ancestors of this one. */
		while (depth > 0 && (int64_t) stack[depth - 1] != parent) {
			uint32_t done = stack[--depth];

			if (done + 1 < count && raw[done + 1].parent == (int64_t) done &&
					cursor[done] != chain[done].end) {
				return false;	/* its children do not reach its end */
			}
		}
		if (parent >= 0 && depth == 0) {
			return false;	/* its parent is closed: not depth-first */
		}
		if (parent < 0) {
			const struct ds_wide_segment *seg = &wide[e->segment];

			if (raw[i].depth != 0) {
				return false;
			}
			if ((int64_t) e->segment != segment) {
				if ((segment >= 0 && (segment_cursor != wide[segment].end ||
						(int64_t) e->segment < segment)) ||
						!is_waited(seg->state)) {
					return false;
				}
				segment = e->segment;
				segment_cursor = seg->begin;
				covered++;
			}
			if (e->begin != segment_cursor) {
				return false;
			}
			segment_cursor = e->end;
			e->depth = 0;
		} else {
			const struct ds_chain_entry *p = &chain[parent];

			if (raw[i].depth != (int64_t) p->depth + 1 || e->segment != p->segment ||
					e->begin != cursor[parent] ||
					p->depth + 1u >= DS_CHAIN_MAX_DEPTH) {
				return false;
			}
			cursor[parent] = e->end;
			e->depth = (uint16_t) (p->depth + 1);
		}
		cursor[i] = e->begin;
		stack[depth++] = i;
	}
	while (depth > 0) {
		uint32_t done = stack[--depth];

		if (done + 1 < count && raw[done + 1].parent == (int64_t) done &&
				cursor[done] != chain[done].end) {
			return false;
		}
	}
	if (segment >= 0 && segment_cursor != wide[segment].end) {
		return false;
	}
	for (i = 0; i < segment_count; i++) {
		waited += is_waited(wide[i].state);
	}
	return covered == waited;
}

static void count_detail(GHashTable *counts, uint32_t detail)
{
	gpointer key = GUINT_TO_POINTER(detail);

	g_hash_table_insert(counts, key, GUINT_TO_POINTER(
		GPOINTER_TO_UINT(g_hash_table_lookup(counts, key)) + 1));
}

/*
 * Counts the deadlocks a chain ends in, and for a span still open at the end
 * of the trace the threads still blocked then (once per span and detail).
 */
static void note_chain_ends(struct ds_span_reader *reader, struct ds_span_store *store,
		const struct ds_span *span, const struct ds_chain_entry *chain, uint32_t count)
{
	uint32_t i, last_deadlock = 0, last_stuck = 0;

	for (i = 0; i < count; i++) {
		const struct ds_chain_entry *e = &chain[i];

		if (!e->leaf) {
			continue;
		}
		if (e->kind == DS_CHAIN_DEADLOCK && e->detail != last_deadlock) {
			count_detail(reader->deadlocks, e->detail);
			last_deadlock = e->detail;
		} else if (span->truncated && e->kind == DS_CHAIN_UNKNOWN && e->detail != last_stuck &&
				g_str_has_prefix(ds_store_string(store, e->detail),
					"unknown: still blocked at end of trace")) {
			count_detail(reader->stuck, e->detail);
			last_stuck = e->detail;
		}
	}
}

/*
 * Reads chain entry `e` into `out` and `raw`.  With `standard` (a constant at each call: the compiler keeps
 * two copies), the members' signedness is span-attrib's, known without a look-up in the layout.
 */
static inline __attribute__((always_inline)) void read_entry(const struct ds_span_layout *layout,
		const bt_field *e, struct ds_chain_entry *out, struct raw_entry *raw, struct ds_span_store *store,
		struct ds_span_reader *reader, bool standard)
{
	const struct element_layout *el = &layout->chain;
	int64_t state, kind;

#define CH_SIGNED(m) (standard ? standard_signed[m] : el->is_signed[m])
#define CH_INT(m) read_int(member_at(e, el->index[m]), CH_SIGNED(m))
#define CH_STRING(m) intern_chain_string(store, reader, m, member_at(e, el->index[m]))
	state = CH_INT(CH_STATE);
	kind = CH_INT(CH_KIND);
	memset(out, 0, sizeof(*out));
	raw->segment = CH_SIGNED(CH_SEGMENT) ? CH_INT(CH_SEGMENT) :
		(int64_t) MIN(read_uint(member_at(e, el->index[CH_SEGMENT]), false), (uint64_t) INT64_MAX);
	raw->parent = CH_INT(CH_PARENT);
	raw->depth = CH_SIGNED(CH_DEPTH) ? CH_INT(CH_DEPTH) :
		(int64_t) MIN(read_uint(member_at(e, el->index[CH_DEPTH]), false), (uint64_t) INT64_MAX);
	out->begin = CH_INT(CH_BEGIN);
	out->end = CH_INT(CH_END);
	out->tid = CH_INT(CH_TID);
	out->cpu = (int32_t) CLAMP(CH_INT(CH_CPU), -1, INT32_MAX);
	out->state = state >= 0 && state < 256 ? layout->chain_state_of_value[state] : DS_STATE_UNKNOWN;
	out->kind = kind >= 0 && kind < 256 ? layout->kind_of_value[kind] : DS_CHAIN_UNKNOWN;
	out->host = CH_STRING(CH_HOST);
	out->comm = CH_STRING(CH_COMM);
	out->process = CH_STRING(CH_PROCESS);
	out->detail = CH_STRING(CH_DETAIL);
	out->bytes = el->index[CH_BYTES] == NO_MEMBER ? DS_CHAIN_BYTES_UNKNOWN :
		read_uint(member_at(e, el->index[CH_BYTES]), CH_SIGNED(CH_BYTES));
#undef CH_SIGNED
#undef CH_INT
#undef CH_STRING
}

/*
 * Reads the chain into the store's arena when it keeps the invariants;
 * otherwise the span keeps no chain and the chain is counted as invalid.
 */
static void read_chain(const struct ds_span_layout *layout, const bt_field *array,
		struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader)
{
	uint64_t n = bt_field_array_get_length(array);
	struct ds_chain_entry *chain;
	const struct ds_wide_segment *wide =
		(const struct ds_wide_segment *) (void *) reader->wide->data;
	struct raw_entry *raw;
	int64_t *cursor;
	uint32_t *stored_of, *stack;
	uint64_t i;

	if (n == 0 || span->invalid) {
		return;
	}
	if (n > UINT32_MAX / 2 || span->segment_count == 0) {
		goto invalid;
	}
	g_byte_array_set_size(reader->chain_scratch, (guint) (n *
		(sizeof(struct ds_chain_entry) + sizeof(struct raw_entry) +
		sizeof(int64_t) + sizeof(uint32_t)) + span->segment_count * sizeof(uint32_t)));
	chain = (struct ds_chain_entry *) (void *) reader->chain_scratch->data;
	raw = (struct raw_entry *) (void *) (chain + n);
	cursor = (int64_t *) (void *) (raw + n);
	stack = (uint32_t *) (void *) (cursor + n);
	stored_of = stack + n;
	if (reader->chain_strings_of != store->strings) {
		/* the cached ids are of other strings */
		memset(reader->last_chain_string, 0, sizeof(reader->last_chain_string));
		memset(reader->chain_strings, 0, sizeof(reader->chain_strings));
		reader->chain_strings_of = store->strings;
	}
	/* The segments may have been sorted: read index -> stored index. */
	for (i = 0; i < span->segment_count; i++) {
		stored_of[wide[i].index] = (uint32_t) i;
	}
	/* two copies of the loop: span-attrib's integer types known, or each member's read from the layout */
	if (layout->chain_standard) {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&chain[i], &raw[i], store, reader, true);
		}
	} else {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&chain[i], &raw[i], store, reader, false);
		}
	}
	if (!check_chain(chain, raw, (uint32_t) n, wide, stored_of,
			span->segment_count, cursor, stack)) {
		goto invalid;
	}
	ds_chain_label(reader->label_cache, reader->scratch, store, chain, (uint32_t) n);
	note_chain_ends(reader, store, span, chain, (uint32_t) n);
	span->chain = ds_arena_alloc(&store->chains, n);
	memcpy((void *) span->chain, chain, n * sizeof(struct ds_chain_entry));
	span->chain_count = (uint32_t) n;
	reader->chains_read++;
	return;

invalid:
	reader->invalid_chains++;
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

static struct ds_span_layout *layout_of(struct ds_span_reader *reader,
		const bt_event_class *event_class, bool *error)
{
	struct ds_span_layout *layout;
	unsigned int i;

	*error = false;
	for (i = 0; i < DS_SPAN_READER_CACHE; i++) {
		if (reader->recent_class[i] == event_class) {
			return reader->recent_layout[i];
		}
	}
	if (!g_hash_table_lookup_extended(reader->layouts, event_class, NULL,
			(gpointer *) &layout)) {
		layout = resolve_layout(reader, event_class, error);
		if (*error) {
			return NULL;
		}
		g_hash_table_insert(reader->layouts, (gpointer) event_class, layout);
	}
	i = reader->recent_next;
	reader->recent_next = (i + 1) % DS_SPAN_READER_CACHE;
	reader->recent_class[i] = event_class;
	reader->recent_layout[i] = layout;
	return layout;
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
		layout_of(reader, bt_event_borrow_class_const(event), &error);
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
		if (layout->index[M_CHAIN] != NO_MEMBER && reader->keep_chains) {
			read_chain(layout, member_at(payload, layout->index[M_CHAIN]),
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
