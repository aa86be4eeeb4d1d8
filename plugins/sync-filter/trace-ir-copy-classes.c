/* SPDX-License-Identifier: MIT */
/*
 * Trace-IR copy, classes and containers: clock classes, trace classes,
 * stream classes, event classes, traces (with their environment), and the
 * mapping caches.
 */
#include <string.h>

#include "bt-put.h"
#include "trace-ir-copy.h"

enum ds_ir_copy_status ds_ir_copy_init(struct ds_ir_copy *copy,
		bt_self_component *self_comp, bt_clock_class *out_clock,
		ds_ir_map_time_func map_time, void *map_time_data)
{
	GHashTable **tables[] = {
		&copy->clock_classes, &copy->trace_classes, &copy->stream_classes,
		&copy->event_classes, &copy->traces, &copy->streams, &copy->packets,
	};
	GDestroyNotify puts[] = {
		ds_put_clock_class, ds_put_trace_class, ds_put_stream_class, ds_put_event_class,
		ds_put_trace, ds_put_stream, ds_put_packet,
	};
	size_t i;

	memset(copy, 0, sizeof(*copy));
	copy->self_comp = self_comp;
	copy->map_time = map_time;
	copy->map_time_data = map_time_data;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		/* keys: input objects, values: output objects; both referenced */
		*tables[i] = g_hash_table_new_full(g_direct_hash, g_direct_equal,
			puts[i], puts[i]);
		if (!*tables[i]) {
			goto error;
		}
	}
	copy->field_classes = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (!copy->field_classes) {
		goto error;
	}
	if (out_clock) {
		copy->out_clock = out_clock;
		bt_clock_class_get_ref(out_clock);
	}
	return DS_IR_COPY_STATUS_OK;

error:
	ds_ir_copy_fini(copy);
	return DS_IR_COPY_STATUS_MEMORY_ERROR;
}

void ds_ir_copy_fini(struct ds_ir_copy *copy)
{
	GHashTable **tables[] = {
		&copy->packets, &copy->streams, &copy->traces, &copy->event_classes,
		&copy->stream_classes, &copy->trace_classes, &copy->clock_classes,
		&copy->field_classes,
	};
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (*tables[i]) {
			g_hash_table_destroy(*tables[i]);
			*tables[i] = NULL;
		}
	}
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(copy->out_clock);
}

/* Records in -> out in `table`; the caller took a reference on `in`, out's moves in. */
static void remember(GHashTable *table, const void *in, void *out)
{
	g_hash_table_insert(table, (gpointer) in, out);
}

bt_clock_class *ds_ir_copy_clock_class(struct ds_ir_copy *copy,
		const bt_clock_class *in_cc)
{
	bt_clock_class *out;
	int64_t off_s;
	uint64_t off_c;

	if (copy->out_clock) {
		return copy->out_clock;
	}
	out = g_hash_table_lookup(copy->clock_classes, in_cc);
	if (out) {
		return out;
	}
	out = bt_clock_class_create(copy->self_comp);
	if (!out) {
		return NULL;
	}
	if (bt_clock_class_get_name(in_cc)) {
		bt_clock_class_set_name(out, bt_clock_class_get_name(in_cc));
	}
	if (bt_clock_class_get_description(in_cc)) {
		bt_clock_class_set_description(out, bt_clock_class_get_description(in_cc));
	}
	bt_clock_class_set_frequency(out, bt_clock_class_get_frequency(in_cc));
	bt_clock_class_set_precision(out, bt_clock_class_get_precision(in_cc));
	bt_clock_class_get_offset(in_cc, &off_s, &off_c);
	bt_clock_class_set_offset(out, off_s, off_c);
	bt_clock_class_set_origin_is_unix_epoch(out, bt_clock_class_origin_is_unix_epoch(in_cc));
	if (bt_clock_class_get_uuid(in_cc)) {
		bt_clock_class_set_uuid(out, bt_clock_class_get_uuid(in_cc));
	}
	bt_clock_class_set_user_attributes(out, bt_clock_class_borrow_user_attributes_const(in_cc));
	bt_clock_class_get_ref(in_cc);
	remember(copy->clock_classes, in_cc, out);
	return out;
}

static bt_trace_class *copy_trace_class(struct ds_ir_copy *copy,
		const bt_trace_class *in_tc)
{
	bt_trace_class *out = g_hash_table_lookup(copy->trace_classes, in_tc);

	if (out) {
		return out;
	}
	out = bt_trace_class_create(copy->self_comp);
	if (!out) {
		return NULL;
	}
	bt_trace_class_set_assigns_automatic_stream_class_id(out, BT_FALSE);
	bt_trace_class_set_user_attributes(out, bt_trace_class_borrow_user_attributes_const(in_tc));
	bt_trace_class_get_ref(in_tc);
	remember(copy->trace_classes, in_tc, out);
	return out;
}

static int set_stream_class_scopes(struct ds_ir_copy *copy, bt_trace_class *out_tc,
		const bt_stream_class *in_sc, bt_stream_class *out)
{
	const bt_field_class *in_fc;
	bt_field_class *fc;
	int st = 0;

	in_fc = bt_stream_class_borrow_packet_context_field_class_const(in_sc);
	if (in_fc) {
		fc = ds_ir_copy_field_class(copy, out_tc, in_sc, NULL, in_fc);
		st = !fc || bt_stream_class_set_packet_context_field_class(out, fc);
		bt_field_class_put_ref(fc);
		if (st) {
			return -1;
		}
	}
	in_fc = bt_stream_class_borrow_event_common_context_field_class_const(in_sc);
	if (in_fc) {
		fc = ds_ir_copy_field_class(copy, out_tc, in_sc, NULL, in_fc);
		st = !fc || bt_stream_class_set_event_common_context_field_class(out, fc);
		bt_field_class_put_ref(fc);
	}
	return st ? -1 : 0;
}

bt_stream_class *ds_ir_copy_stream_class(struct ds_ir_copy *copy,
		const bt_stream_class *in_sc)
{
	bt_stream_class *out = g_hash_table_lookup(copy->stream_classes, in_sc);
	bt_trace_class *out_tc;
	const bt_clock_class *in_cc;

	if (out) {
		return out;
	}
	out_tc = copy_trace_class(copy, bt_stream_class_borrow_trace_class_const(in_sc));
	if (!out_tc) {
		return NULL;
	}
	out = bt_stream_class_create_with_id(out_tc, bt_stream_class_get_id(in_sc));
	if (!out) {
		return NULL;
	}
	if (bt_stream_class_get_name(in_sc)) {
		bt_stream_class_set_name(out, bt_stream_class_get_name(in_sc));
	}
	in_cc = bt_stream_class_borrow_default_clock_class_const(in_sc);
	if (in_cc) {
		bt_clock_class *cc = ds_ir_copy_clock_class(copy, in_cc);

		if (!cc || bt_stream_class_set_default_clock_class(out, cc)) {
			goto error;
		}
	}
	bt_stream_class_set_assigns_automatic_event_class_id(out, BT_FALSE);
	bt_stream_class_set_assigns_automatic_stream_id(out, BT_FALSE);
	bt_stream_class_set_supports_packets(out, bt_stream_class_supports_packets(in_sc),
		bt_stream_class_packets_have_beginning_default_clock_snapshot(in_sc),
		bt_stream_class_packets_have_end_default_clock_snapshot(in_sc));
	bt_stream_class_set_supports_discarded_events(out,
		bt_stream_class_supports_discarded_events(in_sc),
		bt_stream_class_discarded_events_have_default_clock_snapshots(in_sc));
	bt_stream_class_set_supports_discarded_packets(out,
		bt_stream_class_supports_discarded_packets(in_sc),
		bt_stream_class_discarded_packets_have_default_clock_snapshots(in_sc));
	bt_stream_class_set_user_attributes(out, bt_stream_class_borrow_user_attributes_const(in_sc));
	if (set_stream_class_scopes(copy, out_tc, in_sc, out)) {
		goto error;
	}
	bt_stream_class_get_ref(in_sc);
	remember(copy->stream_classes, in_sc, out);
	return out;

error:
	bt_stream_class_put_ref(out);
	return NULL;
}

static int set_event_class_scopes(struct ds_ir_copy *copy, bt_trace_class *out_tc,
		const bt_event_class *in_ec, bt_event_class *out)
{
	const bt_stream_class *in_sc = bt_event_class_borrow_stream_class_const(in_ec);
	const bt_field_class *in_fc;
	bt_field_class *fc;
	int st = 0;

	in_fc = bt_event_class_borrow_specific_context_field_class_const(in_ec);
	if (in_fc) {
		fc = ds_ir_copy_field_class(copy, out_tc, in_sc, in_ec, in_fc);
		st = !fc || bt_event_class_set_specific_context_field_class(out, fc);
		bt_field_class_put_ref(fc);
		if (st) {
			return -1;
		}
	}
	in_fc = bt_event_class_borrow_payload_field_class_const(in_ec);
	if (in_fc) {
		fc = ds_ir_copy_field_class(copy, out_tc, in_sc, in_ec, in_fc);
		st = !fc || bt_event_class_set_payload_field_class(out, fc);
		bt_field_class_put_ref(fc);
	}
	return st ? -1 : 0;
}

bt_event_class *ds_ir_copy_event_class(struct ds_ir_copy *copy,
		const bt_event_class *in_ec)
{
	bt_event_class *out = g_hash_table_lookup(copy->event_classes, in_ec);
	const bt_stream_class *in_sc;
	bt_stream_class *out_sc;
	bt_event_class_log_level level;

	if (out) {
		return out;
	}
	in_sc = bt_event_class_borrow_stream_class_const(in_ec);
	out_sc = ds_ir_copy_stream_class(copy, in_sc);
	if (!out_sc) {
		return NULL;
	}
	out = bt_event_class_create_with_id(out_sc, bt_event_class_get_id(in_ec));
	if (!out) {
		return NULL;
	}
	if (bt_event_class_get_name(in_ec)) {
		bt_event_class_set_name(out, bt_event_class_get_name(in_ec));
	}
	if (bt_event_class_get_log_level(in_ec, &level) == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		bt_event_class_set_log_level(out, level);
	}
	if (bt_event_class_get_emf_uri(in_ec)) {
		bt_event_class_set_emf_uri(out, bt_event_class_get_emf_uri(in_ec));
	}
	bt_event_class_set_user_attributes(out, bt_event_class_borrow_user_attributes_const(in_ec));
	if (set_event_class_scopes(copy, bt_stream_class_borrow_trace_class(out_sc), in_ec, out)) {
		bt_event_class_put_ref(out);
		return NULL;
	}
	bt_event_class_get_ref(in_ec);
	remember(copy->event_classes, in_ec, out);
	return out;
}

static int copy_environment(const bt_trace *in, bt_trace *out)
{
	uint64_t i, n = bt_trace_get_environment_entry_count(in);

	for (i = 0; i < n; i++) {
		const char *name;
		const bt_value *value;
		int st;

		bt_trace_borrow_environment_entry_by_index_const(in, i, &name, &value);
		if (bt_value_is_signed_integer(value)) {
			st = bt_trace_set_environment_entry_integer(out, name,
				bt_value_integer_signed_get(value));
		} else {
			st = bt_trace_set_environment_entry_string(out, name,
				bt_value_string_get(value));
		}
		if (st) {
			return -1;
		}
	}
	return 0;
}

bt_trace *ds_ir_copy_trace(struct ds_ir_copy *copy, const bt_trace *in)
{
	bt_trace *out = g_hash_table_lookup(copy->traces, in);
	bt_trace_class *out_tc;

	if (out) {
		return out;
	}
	out_tc = copy_trace_class(copy, bt_trace_borrow_class_const(in));
	if (!out_tc) {
		return NULL;
	}
	out = bt_trace_create(out_tc);
	if (!out) {
		return NULL;
	}
	if (bt_trace_get_name(in)) {
		bt_trace_set_name(out, bt_trace_get_name(in));
	}
	if (bt_trace_get_uuid(in)) {
		bt_trace_set_uuid(out, bt_trace_get_uuid(in));
	}
	bt_trace_set_user_attributes(out, bt_trace_borrow_user_attributes_const(in));
	if (copy_environment(in, out)) {
		bt_trace_put_ref(out);
		return NULL;
	}
	bt_trace_get_ref(in);
	remember(copy->traces, in, out);
	return out;
}
