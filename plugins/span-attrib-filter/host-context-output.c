/* SPDX-License-Identifier: MIT */
/*
 * The host context members of the deepspan:span payload (doc/host-context.md, "Encoding"), last in the
 * payload: `host_window` (u64: ns the span's host context covers, 0 when it carries none) and `host_context`
 * (dynamic array of {kind, pid, name, device, value}).
 */
#include "span-attrib.h"
#include "host-context.h"

#include <inttypes.h>
#include <stdio.h>

enum { HC_KIND, HC_PID, HC_NAME, HC_DEVICE, HC_VALUE };

int hc_output_append_members(bt_trace_class *tc, bt_field_class *payload, uint64_t *index)
{
	bt_field_class *entry = bt_field_class_structure_create(tc);
	int err;

	*index = bt_field_class_structure_get_member_count(payload);
	err = !entry || output_fc_append(entry, "kind", output_enum_create(tc, DS_HC_KIND_COUNT, ds_hc_kind_name)) ||
		output_fc_append(entry, "pid", bt_field_class_integer_signed_create(tc)) ||
		output_fc_append(entry, "name", bt_field_class_string_create(tc)) ||
		output_fc_append(entry, "device", bt_field_class_string_create(tc)) ||
		output_fc_append(entry, "value", bt_field_class_integer_unsigned_create(tc)) ||
		output_fc_append(payload, "host_window", bt_field_class_integer_unsigned_create(tc)) ||
		output_fc_append(payload, "host_context", bt_field_class_array_dynamic_create(tc, entry, NULL));
	bt_field_class_put_ref(entry);
	return err ? -1 : 0;
}

/* "None" is "-", never "": empty strings do not survive a save (states.h). */
static int set_string(bt_field *field, const char *value)
{
	return bt_field_string_set_value(field, value && value[0] ? value : DS_SPAN_NONE) ==
		BT_FIELD_STRING_SET_VALUE_STATUS_OK ? 0 : -1;
}

int hc_output_fill(bt_field *payload, uint64_t index, const struct host *host, const struct sa_span *span)
{
	const GArray *deltas = span->hc ? span->hc->deltas : NULL;
	bt_field *array = bt_field_structure_borrow_member_field_by_index(payload, index + 1);
	guint count = deltas ? deltas->len : 0, i;

	bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(payload, index),
		deltas ? (uint64_t) (span->end - span->begin) : 0);
	if (bt_field_array_dynamic_set_length(array, count)) {
		return -1;
	}
	for (i = 0; i < count; i++) {
		const struct ds_hc_delta *d = &g_array_index(deltas, struct ds_hc_delta, i);
		const struct ds_hc_counter *c = d->counter;
		bt_field *elem = bt_field_array_borrow_element_field_by_index(array, i);
		char device[32];
		const char *name;

		if (c->kind == DS_HC_CPU || c->kind == DS_HC_RUN_QUEUE || c->kind == DS_HC_DISK) {
			name = c->pid >= 0 ? ds_model_process_name(host->model, c->pid, c->comm) : DS_SPAN_NONE;
		} else {
			name = c->name;
		}
		if (c->kind == DS_HC_DISK) {
			snprintf(device, sizeof(device), "%" PRIu64 ":%" PRIu64, c->dev >> 20, c->dev & 0xfffff);
		} else {
			snprintf(device, sizeof(device), "%s", DS_SPAN_NONE);
		}
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(elem, HC_KIND),
			(uint64_t) c->kind);
		bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(elem, HC_PID),
			c->pid);
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(elem, HC_VALUE),
			d->value);
		if (set_string(bt_field_structure_borrow_member_field_by_index(elem, HC_NAME), name) ||
				set_string(bt_field_structure_borrow_member_field_by_index(elem, HC_DEVICE), device)) {
			return -1;
		}
	}
	return 0;
}
