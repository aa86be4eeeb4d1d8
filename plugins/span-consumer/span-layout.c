/* SPDX-License-Identifier: MIT */
/*
 * Resolving the payload layout of a `deepspan:span` event class (span-layout.h): the members by name and
 * kind, their integer signedness, and the labels of the state, chain kind and host kind enumerations.
 */
#include "span-layout.h"
#include "chain-reader.h"
#include "host-context.h"

#include <ctype.h>
#include <string.h>

#define SPAN_EVENT_NAME "deepspan:span"

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
	[M_CHAIN_PACKED] = { "chain_packed", KIND_STRING, false },
	[M_CACHE_HITS] = { "cache_hits", KIND_INT, false },
	[M_CACHE_MISSES] = { "cache_misses", KIND_INT, false },
	[M_CACHE_HIT_TIME] = { "cache_hit_time", KIND_INT, false },
	[M_CACHE_MISS_TIME] = { "cache_miss_time", KIND_INT, false },
	[M_HOST_WINDOW] = { "host_window", KIND_INT, false },
	[M_HOST_CONTEXT] = { "host_context", KIND_ARRAY, false },
	[M_CACHE_READS] = { "cache_reads", KIND_ARRAY, false },
};

void ds_span_layout_free(gpointer data)
{
	g_free(data);
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

/* `label` in lower case without what is not a letter or a digit, cut to fit `norm` ("Waited CPU" -> "waitedcpu"). */
static void normalize_label(char *norm, size_t size, const char *label)
{
	size_t n = 0;

	for (; *label && n + 1 < size; label++) {
		if (isalnum((unsigned char) *label)) {
			norm[n++] = (char) tolower((unsigned char) *label);
		}
	}
	norm[n] = '\0';
}

/* Maps an enumeration label to a state ("wait_cpu", "Waited CPU", "WAIT_CPU"). */
static unsigned int state_of_label(const char *label)
{
	char norm[32];

	normalize_label(norm, sizeof(norm), label);
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
	unsigned int k;

	normalize_label(norm, sizeof(norm), label);
	for (k = 0; k < DS_CHAIN_KIND_COUNT; k++) {
		const char *name = ds_chain_kind_name(k);
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

/* The array members' elements: syscalls, segments, host_context, cache_reads, chain; true for other members. */
static bool resolve_array_member(struct ds_span_reader *reader, struct ds_span_layout *layout, unsigned int m,
		const bt_field_class *fc)
{
	static const char *const syscall_names[] = { "name", "count", "duration" };
	static const enum member_kind syscall_kinds[] = { KIND_STRING, KIND_INT, KIND_INT };
	static const char *const segment_names[] = { "begin", "end", "state", "detail" };
	static const enum member_kind segment_kinds[] = { KIND_INT, KIND_INT, KIND_INT, KIND_STRING };
	static const char *const host_names[HC_COUNT] = { "kind", "pid", "name", "device", "value" };
	static const enum member_kind host_kinds[HC_COUNT] = { KIND_INT, KIND_INT, KIND_STRING, KIND_STRING, KIND_INT };
	static const char *const read_names[] = { "begin", "end", "miss" };
	static const enum member_kind read_kinds[] = { KIND_INT, KIND_INT, KIND_FLAG };
	static const char *const chain_names[CH_COUNT] = {
		"segment", "parent", "depth", "begin", "end", "host", "tid", "comm",
		"process", "cpu", "state", "kind", "detail" };
	static const enum member_kind chain_kinds[CH_COUNT] = {
		KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_STRING, KIND_INT,
		KIND_STRING, KIND_STRING, KIND_INT, KIND_INT, KIND_INT, KIND_STRING };
	const bt_field_class *element_fcs[CH_COUNT];

	switch (m) {
	case M_SYSCALLS:
		return resolve_element(reader, fc, "syscalls", syscall_names, syscall_kinds, 3, &layout->syscall,
			element_fcs);
	case M_SEGMENTS:
		if (!resolve_element(reader, fc, "segments", segment_names, segment_kinds, 4, &layout->segment,
				element_fcs)) {
			return false;
		}
		resolve_state_values(layout, element_fcs[SEG_STATE]);
		return true;
	case M_HOST_CONTEXT:
		if (!resolve_element(reader, fc, "host_context", host_names, host_kinds, HC_COUNT, &layout->host_item,
				element_fcs)) {
			return false;
		}
		resolve_enum_values(layout->host_kind_of_value, element_fcs[HC_KIND], ds_host_kind_of_label,
			DS_HOST_KIND_COUNT, DS_HOST_KIND_COUNT);
		return true;
	case M_CACHE_READS:
		return resolve_element(reader, fc, "cache_reads", read_names, read_kinds, 3, &layout->read, element_fcs);
	case M_CHAIN:
		if (!resolve_element(reader, fc, "chain", chain_names, chain_kinds, CH_COUNT, &layout->chain,
				element_fcs)) {
			return false;
		}
		resolve_enum_values(layout->chain_state_of_value, element_fcs[CH_STATE], state_of_label,
			DS_STATE_COUNT, DS_STATE_UNKNOWN);
		resolve_enum_values(layout->kind_of_value, element_fcs[CH_KIND], kind_of_label, DS_CHAIN_KIND_COUNT,
			DS_CHAIN_UNKNOWN);
		resolve_optional_int(fc, "bytes", &layout->chain, CH_BYTES);
		layout->chain_standard = ds_chain_is_standard(&layout->chain);
		return true;
	default:
		return true;
	}
}

/* Payload member `index` named `member_name`, of class `fc`: recorded when it is one the reader knows. */
static bool resolve_member(struct ds_span_reader *reader, struct ds_span_layout *layout, uint64_t index,
		const char *member_name, const bt_field_class *fc)
{
	unsigned int m;

	for (m = 0; m < M_COUNT; m++) {
		if (strcmp(member_name, member_specs[m].name) != 0) {
			continue;
		}
		if (!kind_matches(fc, member_specs[m].kind)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(reader->self_comp,
				"%s: event `" SPAN_EVENT_NAME "`: payload member `%s` must be %s (doc/span-attrib.md, \"Output: deepspan:span\").",
				reader->class_name, member_name, kind_name(member_specs[m].kind));
			return false;
		}
		layout->index[m] = index;
		layout->is_signed[m] = is_signed_fc(fc);
		if (m == M_TRUNCATED) {
			layout->truncated_is_bool = bt_field_class_get_type(fc) == BT_FIELD_CLASS_TYPE_BOOL;
		}
		if (!resolve_array_member(reader, layout, m, fc)) {
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

		if (!resolve_member(reader, layout, i, bt_field_class_structure_member_get_name(member),
				bt_field_class_structure_member_borrow_field_class_const(member))) {
			goto error;
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

struct ds_span_layout *ds_span_layout_of(struct ds_span_reader *reader,
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
