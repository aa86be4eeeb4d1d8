/* SPDX-License-Identifier: MIT */
/*
 * Trace-IR copy, messages: streams and packets are mirrored when they begin
 * and forgotten when they end; every message is re-created on the output
 * classes with its clock snapshots mapped by the caller's callback.
 */
#include "trace-ir-copy.h"

static uint64_t map_snapshot(const struct ds_ir_copy *copy, const bt_clock_snapshot *cs)
{
	return copy->map_time ? copy->map_time(copy->map_time_data, cs) :
		bt_clock_snapshot_get_value(cs);
}

static bt_stream *begin_stream(struct ds_ir_copy *copy, const bt_stream *in)
{
	bt_stream_class *sc = ds_ir_copy_stream_class(copy, bt_stream_borrow_class_const(in));
	bt_trace *trace = ds_ir_copy_trace(copy, bt_stream_borrow_trace_const(in));
	bt_stream *out;

	if (!sc || !trace) {
		return NULL;
	}
	out = bt_stream_create_with_id(sc, trace, bt_stream_get_id(in));
	if (!out) {
		return NULL;
	}
	if (bt_stream_get_name(in)) {
		bt_stream_set_name(out, bt_stream_get_name(in));
	}
	bt_stream_set_user_attributes(out, bt_stream_borrow_user_attributes_const(in));
	bt_stream_get_ref(in);
	g_hash_table_insert(copy->streams, (gpointer) in, out);
	return out;
}

static enum ds_ir_copy_status copy_stream_boundary(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	bool beginning = bt_message_get_type(in) == BT_MESSAGE_TYPE_STREAM_BEGINNING;
	const bt_stream *in_stream = beginning ?
		bt_message_stream_beginning_borrow_stream_const(in) :
		bt_message_stream_end_borrow_stream_const(in);
	bt_stream *stream = g_hash_table_lookup(copy->streams, in_stream);
	const bt_clock_snapshot *cs = NULL;
	bt_message_stream_clock_snapshot_state state;

	if (beginning && !stream) {
		stream = begin_stream(copy, in_stream);
	}
	if (!stream) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	if (beginning) {
		*out = bt_message_stream_beginning_create(iter, stream);
		state = bt_message_stream_beginning_borrow_default_clock_snapshot_const(in, &cs);
	} else {
		*out = bt_message_stream_end_create(iter, stream);
		state = bt_message_stream_end_borrow_default_clock_snapshot_const(in, &cs);
	}
	if (!*out) {
		return DS_IR_COPY_STATUS_MEMORY_ERROR;
	}
	if (state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		if (beginning) {
			bt_message_stream_beginning_set_default_clock_snapshot(*out,
				map_snapshot(copy, cs));
		} else {
			bt_message_stream_end_set_default_clock_snapshot(*out,
				map_snapshot(copy, cs));
		}
	}
	if (!beginning) {
		g_hash_table_remove(copy->streams, in_stream);
	}
	return DS_IR_COPY_STATUS_OK;
}

static enum ds_ir_copy_status copy_packet_boundary(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	bool beginning = bt_message_get_type(in) == BT_MESSAGE_TYPE_PACKET_BEGINNING;
	const bt_packet *in_packet = beginning ?
		bt_message_packet_beginning_borrow_packet_const(in) :
		bt_message_packet_end_borrow_packet_const(in);
	const bt_stream_class *in_sc =
		bt_stream_borrow_class_const(bt_packet_borrow_stream_const(in_packet));
	bt_packet *packet = g_hash_table_lookup(copy->packets, in_packet);
	bool has_cs;

	if (beginning && !packet) {
		bt_stream *stream = g_hash_table_lookup(copy->streams,
			bt_packet_borrow_stream_const(in_packet));
		const bt_field *ctx = bt_packet_borrow_context_field_const(in_packet);

		packet = stream ? bt_packet_create(stream) : NULL;
		if (!packet) {
			return DS_IR_COPY_STATUS_ERROR;
		}
		if (ctx && ds_ir_copy_field(ctx, bt_packet_borrow_context_field(packet))) {
			bt_packet_put_ref(packet);
			return DS_IR_COPY_STATUS_ERROR;
		}
		bt_packet_get_ref(in_packet);
		g_hash_table_insert(copy->packets, (gpointer) in_packet, packet);
	}
	if (!packet) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	if (beginning) {
		has_cs = bt_stream_class_packets_have_beginning_default_clock_snapshot(in_sc);
		*out = has_cs ? bt_message_packet_beginning_create_with_default_clock_snapshot(
				iter, packet, map_snapshot(copy,
				bt_message_packet_beginning_borrow_default_clock_snapshot_const(in))) :
			bt_message_packet_beginning_create(iter, packet);
	} else {
		has_cs = bt_stream_class_packets_have_end_default_clock_snapshot(in_sc);
		*out = has_cs ? bt_message_packet_end_create_with_default_clock_snapshot(
				iter, packet, map_snapshot(copy,
				bt_message_packet_end_borrow_default_clock_snapshot_const(in))) :
			bt_message_packet_end_create(iter, packet);
		if (copy->last_in_packet == in_packet) {
			copy->last_in_packet = NULL;
			copy->last_out_packet = NULL;
		}
		g_hash_table_remove(copy->packets, in_packet);
	}
	return *out ? DS_IR_COPY_STATUS_OK : DS_IR_COPY_STATUS_MEMORY_ERROR;
}

static enum ds_ir_copy_status copy_event_fields(const bt_event *in, bt_event *out)
{
	const bt_field *f;

	f = bt_event_borrow_common_context_field_const(in);
	if (f && ds_ir_copy_field(f, bt_event_borrow_common_context_field(out))) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	f = bt_event_borrow_specific_context_field_const(in);
	if (f && ds_ir_copy_field(f, bt_event_borrow_specific_context_field(out))) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	f = bt_event_borrow_payload_field_const(in);
	if (f && ds_ir_copy_field(f, bt_event_borrow_payload_field(out))) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	return DS_IR_COPY_STATUS_OK;
}

static enum ds_ir_copy_status copy_event(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	const bt_event *in_event = bt_message_event_borrow_event_const(in);
	const bt_event_class *in_ec = bt_event_borrow_class_const(in_event);
	const bt_stream_class *in_sc = bt_event_class_borrow_stream_class_const(in_ec);
	bt_event_class *ec = in_ec == copy->last_in_ec ? copy->last_out_ec :
		ds_ir_copy_event_class(copy, in_ec);
	bool has_cs = bt_stream_class_borrow_default_clock_class_const(in_sc) != NULL;
	uint64_t value = has_cs ? map_snapshot(copy,
		bt_message_event_borrow_default_clock_snapshot_const(in)) : 0;
	enum ds_ir_copy_status st;

	if (!ec) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	copy->last_in_ec = in_ec;
	copy->last_out_ec = ec;
	if (bt_stream_class_supports_packets(in_sc)) {
		const bt_packet *in_packet = bt_event_borrow_packet_const(in_event);
		bt_packet *packet = in_packet == copy->last_in_packet ? copy->last_out_packet :
			g_hash_table_lookup(copy->packets, in_packet);

		if (!packet) {
			return DS_IR_COPY_STATUS_ERROR;
		}
		copy->last_in_packet = in_packet;
		copy->last_out_packet = packet;
		*out = has_cs ? bt_message_event_create_with_packet_and_default_clock_snapshot(
				iter, ec, packet, value) :
			bt_message_event_create_with_packet(iter, ec, packet);
	} else {
		bt_stream *stream = g_hash_table_lookup(copy->streams,
			bt_event_borrow_stream_const(in_event));

		if (!stream) {
			return DS_IR_COPY_STATUS_ERROR;
		}
		*out = has_cs ? bt_message_event_create_with_default_clock_snapshot(
				iter, ec, stream, value) :
			bt_message_event_create(iter, ec, stream);
	}
	if (!*out) {
		return DS_IR_COPY_STATUS_MEMORY_ERROR;
	}
	st = copy_event_fields(in_event, bt_message_event_borrow_event(*out));
	if (st) {
		BT_MESSAGE_PUT_REF_AND_RESET(*out);
	}
	return st;
}

static enum ds_ir_copy_status copy_discarded(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	bool events = bt_message_get_type(in) == BT_MESSAGE_TYPE_DISCARDED_EVENTS;
	const bt_stream *in_stream = events ?
		bt_message_discarded_events_borrow_stream_const(in) :
		bt_message_discarded_packets_borrow_stream_const(in);
	const bt_stream_class *in_sc = bt_stream_borrow_class_const(in_stream);
	bt_stream *stream = g_hash_table_lookup(copy->streams, in_stream);
	bool has_cs = events ?
		bt_stream_class_discarded_events_have_default_clock_snapshots(in_sc) :
		bt_stream_class_discarded_packets_have_default_clock_snapshots(in_sc);
	uint64_t count;

	if (!stream) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	if (events) {
		*out = has_cs ? bt_message_discarded_events_create_with_default_clock_snapshots(
				iter, stream,
				map_snapshot(copy, bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(in)),
				map_snapshot(copy, bt_message_discarded_events_borrow_end_default_clock_snapshot_const(in))) :
			bt_message_discarded_events_create(iter, stream);
		if (*out && bt_message_discarded_events_get_count(in, &count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			bt_message_discarded_events_set_count(*out, count);
		}
	} else {
		*out = has_cs ? bt_message_discarded_packets_create_with_default_clock_snapshots(
				iter, stream,
				map_snapshot(copy, bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(in)),
				map_snapshot(copy, bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(in))) :
			bt_message_discarded_packets_create(iter, stream);
		if (*out && bt_message_discarded_packets_get_count(in, &count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			bt_message_discarded_packets_set_count(*out, count);
		}
	}
	return *out ? DS_IR_COPY_STATUS_OK : DS_IR_COPY_STATUS_MEMORY_ERROR;
}

static enum ds_ir_copy_status copy_inactivity(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	const bt_clock_snapshot *cs =
		bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(in);
	bt_clock_class *cc = ds_ir_copy_clock_class(copy,
		bt_clock_snapshot_borrow_clock_class_const(cs));

	if (!cc) {
		return DS_IR_COPY_STATUS_ERROR;
	}
	*out = bt_message_message_iterator_inactivity_create(iter, cc, map_snapshot(copy, cs));
	return *out ? DS_IR_COPY_STATUS_OK : DS_IR_COPY_STATUS_MEMORY_ERROR;
}

enum ds_ir_copy_status ds_ir_copy_message(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in, bt_message **out)
{
	*out = NULL;
	switch (bt_message_get_type(in)) {
	case BT_MESSAGE_TYPE_EVENT:
		return copy_event(copy, iter, in, out);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
	case BT_MESSAGE_TYPE_STREAM_END:
		return copy_stream_boundary(copy, iter, in, out);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
	case BT_MESSAGE_TYPE_PACKET_END:
		return copy_packet_boundary(copy, iter, in, out);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return copy_discarded(copy, iter, in, out);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return copy_inactivity(copy, iter, in, out);
	default:
		return DS_IR_COPY_STATUS_ERROR;
	}
}
