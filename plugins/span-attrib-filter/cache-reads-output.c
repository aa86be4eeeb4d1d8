/* SPDX-License-Identifier: MIT */
/*
 * Layers: the member `cache_reads` of the deepspan:span payload (doc/storage-network.md, "Page cache"), after
 * `cache_miss_time` (before the host context members, which stay last): every read-family syscall of the span, entry to exit clipped to the time the span was
 * attached (as `cache_hit_time` / `cache_miss_time` sum them), and whether it missed the page cache.  The
 * sinks give each flame-graph frame of those syscalls its own hits and misses (doc/diff.md, "Page cache").
 */
#include "span-attrib.h"

enum { R_BEGIN, R_END, R_MISS };

int reads_output_append_member(bt_trace_class *tc, bt_field_class *payload, uint64_t *index)
{
	bt_field_class *read = bt_field_class_structure_create(tc);
	int err;

	*index = bt_field_class_structure_get_member_count(payload);
	err = !read || output_fc_append(read, "begin", bt_field_class_integer_signed_create(tc)) ||
		output_fc_append(read, "end", bt_field_class_integer_signed_create(tc)) ||
		output_fc_append(read, "miss", bt_field_class_bool_create(tc)) ||
		output_fc_append(payload, "cache_reads", bt_field_class_array_dynamic_create(tc, read, NULL));
	bt_field_class_put_ref(read);
	return err ? -1 : 0;
}

int reads_output_fill(bt_field *payload, uint64_t index, const struct sa_span *span)
{
	bt_field *array = bt_field_structure_borrow_member_field_by_index(payload, index);
	guint count = span->reads ? span->reads->len : 0, i;

	if (bt_field_array_dynamic_set_length(array, count)) {
		return -1;
	}
	for (i = 0; i < count; i++) {
		const struct sa_read *r = &g_array_index(span->reads, struct sa_read, i);
		bt_field *elem = bt_field_array_borrow_element_field_by_index(array, i);

		bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(elem, R_BEGIN),
			r->begin);
		bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(elem, R_END),
			r->end);
		bt_field_bool_set_value(bt_field_structure_borrow_member_field_by_index(elem, R_MISS),
			r->miss ? BT_TRUE : BT_FALSE);
	}
	return 0;
}
