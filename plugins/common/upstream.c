/* SPDX-License-Identifier: MIT */
/* Reading an upstream message iterator: see upstream.h for the rules. */
#include "upstream.h"

#include <inttypes.h>
#include <stdbool.h>

#define APPEND_CAUSE(owner, ...) do { \
		if ((owner)->self_msg_iter) { \
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
				(owner)->self_msg_iter, __VA_ARGS__); \
		} else { \
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT( \
				(owner)->self_comp, __VA_ARGS__); \
		} \
	} while (0)

/*
 * An upstream that returned OK, END or AGAIN with an error left on the thread (babeltrace2 2.0.4's
 * source.ctf.fs does so on some corrupt streams, through the muxer): any further library call would
 * abort the process, so the error is kept, the messages are released and the read fails cleanly.
 */
static bt_message_iterator_class_next_method_status check_pending_error(
		const struct ds_upstream_owner *owner, const char *port_name,
		bt_message_iterator_class_next_method_status status, bt_message_array_const msgs,
		uint64_t *count)
{
	const bt_error *pending = bt_current_thread_take_error();
	uint64_t i;

	if (!pending) {
		return status;
	}
	bt_current_thread_move_error(pending);
	for (i = 0; status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK && i < *count; i++) {
		bt_message_put_ref(msgs[i]);
	}
	*count = 0;
	APPEND_CAUSE(owner, "%s: the upstream of input port `%s` reported an error (its cause is above) "
		"but did not fail: the input is corrupt or truncated; check it with `babeltrace2 TRACE "
		"-c sink.utils.dummy --log-level=W` (%s).", owner->class_name, port_name, owner->doc_page);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

bt_message_iterator_class_next_method_status ds_upstream_next(
		const struct ds_upstream_owner *owner, bt_message_iterator *upstream,
		const char *port_name, bt_message_array_const *msgs, uint64_t *count)
{
	bt_message_iterator_class_next_method_status status;

	*count = 0;
	switch (bt_message_iterator_next(upstream, msgs, count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		APPEND_CAUSE(owner, "%s: out of memory while reading input port `%s`.",
			owner->class_name, port_name);
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		break;
	default:
		APPEND_CAUSE(owner, "%s: the upstream of input port `%s` failed (its cause is "
			"above).", owner->class_name, port_name);
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		break;
	}
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR &&
			status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR) {
		status = check_pending_error(owner, port_name, status, *msgs, count);
	}
	return status;
}

bt_component_class_sink_consume_method_status ds_upstream_status_to_sink(
		bt_message_iterator_class_next_method_status status)
{
	switch (status) {
	case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

const bt_stream *ds_message_stream(const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg));
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(bt_message_packet_beginning_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(bt_message_packet_end_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(msg);
	default:
		return NULL;
	}
}

static const bt_stream_class *message_stream_class(const bt_message *msg)
{
	return bt_stream_borrow_class_const(ds_message_stream(msg));
}

static const bt_clock_snapshot *snapshot_of(const bt_message *msg, bt_message_type type)
{
	const bt_clock_snapshot *cs = NULL;

	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_message_event_borrow_stream_class_default_clock_class_const(msg) ?
			bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(
				message_stream_class(msg)) ?
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg) : NULL;
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_class_packets_have_end_default_clock_snapshot(
				message_stream_class(msg)) ?
			bt_message_packet_end_borrow_default_clock_snapshot_const(msg) : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_class_discarded_events_have_default_clock_snapshots(
				message_stream_class(msg)) ?
			bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg) :
			NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(
				message_stream_class(msg)) ?
			bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg) :
			NULL;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg, &cs) ==
			BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ? cs : NULL;
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &cs) ==
			BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ? cs : NULL;
	default:
		return NULL;
	}
}

const bt_clock_snapshot *ds_message_default_clock_snapshot(const bt_message *msg)
{
	return snapshot_of(msg, bt_message_get_type(msg));
}

/* The end snapshot of a discarded-events/packets message that has one, else NULL. */
static const bt_clock_snapshot *discarded_end_snapshot(const bt_message *msg, bt_message_type type)
{
	switch (type) {
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_class_discarded_events_have_default_clock_snapshots(
				message_stream_class(msg)) ?
			bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg) : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(
				message_stream_class(msg)) ?
			bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg) : NULL;
	default:
		return NULL;
	}
}

static const char *message_type_name(bt_message_type type)
{
	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		return "an event";
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return "a packet beginning";
	case BT_MESSAGE_TYPE_PACKET_END:
		return "a packet end";
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return "a discarded events";
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return "a discarded packets";
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return "a message iterator inactivity";
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return "a stream beginning";
	case BT_MESSAGE_TYPE_STREAM_END:
		return "a stream end";
	default:
		return "a";
	}
}

/* Appends the overflow cause (error path only: the names are looked up here). */
static void append_overflow_cause(const struct ds_upstream_owner *owner, const bt_message *msg,
		const bt_clock_snapshot *cs)
{
	const bt_clock_class *cc = bt_clock_snapshot_borrow_clock_class_const(cs);
	const bt_stream *stream = ds_message_stream(msg);
	const bt_trace *trace = stream ? bt_stream_borrow_trace_const(stream) : NULL;
	const bt_value *host = trace ?
		bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname") : NULL;
	const char *event_name = "";
	int64_t offset_s;
	uint64_t offset_cycles;

	bt_clock_class_get_offset(cc, &offset_s, &offset_cycles);
	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT) {
		event_name = bt_event_class_get_name(bt_event_borrow_class_const(
			bt_message_event_borrow_event_const(msg)));
	}
	APPEND_CAUSE(owner,
		"%s: the time of %s message%s%s%s (stream `%s` id %" PRIu64 " of trace `%s`, host `%s`) "
		"does not fit in signed 64-bit nanoseconds from the origin of clock `%s` "
		"(value %" PRIu64 " cycles at %" PRIu64 " Hz, offset %" PRId64 " s + %" PRIu64
		" cycles): the trace is corrupt (a damaged timestamp) or the clock's offset is out of "
		"range. Repair or leave out that stream, or fix `offset_s`/`offset` of clock `%s` in "
		"the trace's metadata (see %s).",
		owner->class_name, message_type_name(bt_message_get_type(msg)),
		event_name && event_name[0] ? " `" : "", event_name ? event_name : "",
		event_name && event_name[0] ? "`" : "",
		stream && bt_stream_get_name(stream) ? bt_stream_get_name(stream) : "(unnamed)",
		stream ? bt_stream_get_id(stream) : 0,
		trace && bt_trace_get_name(trace) ? bt_trace_get_name(trace) : "(unnamed)",
		host && bt_value_is_string(host) ? bt_value_string_get(host) : "(unknown)",
		bt_clock_class_get_name(cc) ? bt_clock_class_get_name(cc) : "(unnamed)",
		bt_clock_snapshot_get_value(cs), bt_clock_class_get_frequency(cc), offset_s,
		offset_cycles, bt_clock_class_get_name(cc) ? bt_clock_class_get_name(cc) : "(unnamed)",
		owner->doc_page);
}

ds_message_time_status ds_clock_snapshot_ns(const struct ds_upstream_owner *owner,
		const bt_message *msg, const bt_clock_snapshot *cs, int64_t *ns)
{
	int64_t value;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &value) !=
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		append_overflow_cause(owner, msg, cs);
		return DS_MESSAGE_TIME_STATUS_ERROR;
	}
	*ns = value;
	return DS_MESSAGE_TIME_STATUS_OK;
}

ds_message_time_status ds_message_time_ns(const struct ds_upstream_owner *owner,
		const bt_message *msg, int64_t *ns, const bt_clock_snapshot **cs_out)
{
	bt_message_type type = bt_message_get_type(msg);
	const bt_clock_snapshot *cs = snapshot_of(msg, type);
	const bt_clock_snapshot *end;
	ds_message_time_status status;
	int64_t end_ns;

	if (cs_out) {
		*cs_out = cs;
	}
	if (!cs) {
		return DS_MESSAGE_TIME_STATUS_NONE;
	}
	status = ds_clock_snapshot_ns(owner, msg, cs, ns);
	if (status != DS_MESSAGE_TIME_STATUS_OK || type == BT_MESSAGE_TYPE_EVENT) {
		return status;
	}
	end = discarded_end_snapshot(msg, type);
	if (end) {
		status = ds_clock_snapshot_ns(owner, msg, end, &end_ns);
	}
	return status;
}
