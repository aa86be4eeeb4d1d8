/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.pipe (doc/scale.md, "Trace pipe"): writes the messages of its input into a file or a FIFO,
 * which source.deepspan.pipe turns back into the same messages in another process.  Each class (clock, trace,
 * stream, event) is written once, before the first message that needs it, with an id; each message then names
 * its classes and stream by id and carries its clock snapshot and its payload's values (pipe-types.h).  A
 * reference is held on every object given an id, so that no other object can take its address (streams are
 * let go at their end).
 */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "add-port.h"
#include "bt-put.h"
#include "params.h"
#include "pipe-types.h"
#include "upstream.h"
#include "pipe-sink/component.h"

#define PIPE_SINK_CLASS_NAME "sink.deepspan.pipe"

enum pipe_frame {
	FRAME_CLOCK = 'K',
	FRAME_TRACE_CLASS = 'C',
	FRAME_TRACE = 'T',
	FRAME_STREAM_CLASS = 'S',
	FRAME_EVENT_CLASS = 'E',
	FRAME_STREAM_BEGINNING = 'B',
	FRAME_EVENT = 'V',
	FRAME_STREAM_END = 'N',
	FRAME_INACTIVITY = 'I',
	FRAME_END = 'Z',
};

struct event_class_entry {
	uint64_t id;
	struct ds_pipe_type *payload;		/* owned; NULL: no payload */
};

struct pipe_sink {
	bt_self_component *self_comp;		/* borrowed */
	char *path;				/* owned */
	char *end_path;				/* owned; NULL: the end frame goes into `path` */
	bt_message_iterator *iterator;		/* owned */
	struct ds_pipe_out out;			/* owned: the file, open (fd >= 0) from the first consumption on */
	/* owned tables: object (a reference held, put when the entry goes) -> id (GSIZE_TO_POINTER) */
	GHashTable *clocks, *trace_classes, *traces, *stream_classes, *streams;
	GHashTable *event_classes;		/* owned: event class (a reference held) -> owned struct event_class_entry */
	uint64_t next_id[6];			/* the last id given, per table (T_*): ids from 1 */
	uint64_t messages;			/* messages written, for the end frame */
};

enum { T_CLOCK, T_TRACE_CLASS, T_TRACE, T_STREAM_CLASS, T_STREAM, T_EVENT_CLASS };

static void free_event_class_entry(gpointer p)
{
	struct event_class_entry *e = p;

	ds_pipe_type_free(e->payload);
	g_free(e);
}

static void destroy(struct pipe_sink *sink)
{
	if (!sink) {
		return;
	}
	BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterator);
	(void) ds_pipe_out_close(&sink->out);	/* nothing when never opened or already closed */
	g_hash_table_destroy(sink->event_classes);
	g_hash_table_destroy(sink->streams);
	g_hash_table_destroy(sink->stream_classes);
	g_hash_table_destroy(sink->traces);
	g_hash_table_destroy(sink->trace_classes);
	g_hash_table_destroy(sink->clocks);
	g_free(sink->path);
	g_free(sink->end_path);
	g_free(sink);
}

bt_component_class_initialize_method_status pipe_sink_component_initialize(bt_self_component_sink *self,
		bt_self_component_sink_configuration *config, const bt_value *params, void *init_data)
{
	static const char *const known[] = { "path", "end-path", NULL };
	bt_self_component *self_comp = bt_self_component_sink_as_self_component(self);
	struct ds_params p = ds_params_make(self_comp, params, PIPE_SINK_CLASS_NAME);
	bt_component_class_initialize_method_status status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct pipe_sink *sink = g_new0(struct pipe_sink, 1);
	const char *path = NULL, *end_path = NULL;

	(void) config;
	(void) init_data;
	sink->self_comp = self_comp;
	sink->out = (struct ds_pipe_out) { .fd = -1 };
	sink->clocks = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_clock_class, NULL);
	sink->trace_classes = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_trace_class, NULL);
	sink->traces = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_trace, NULL);
	sink->stream_classes = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_stream_class, NULL);
	sink->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_stream, NULL);
	sink->event_classes = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_event_class,
		free_event_class_entry);
	if (ds_params_check_names(&p, known) || ds_params_get_required_string(&p, "path", "the file or FIFO to "
			"write the messages into, which source.deepspan.pipe reads (doc/scale.md, \"Trace pipe\")", &path) ||
			ds_params_get_string(&p, "end-path", NULL, &end_path)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	if (end_path && (*end_path == '\0' || strcmp(end_path, path) == 0)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `end-path` is `%s`: it must name another file than `path`, where the end "
			"frame is written for someone to append to `path` (doc/scale.md, \"Trace pipe\"); leave it "
			"out to end the pipe in `path` itself.", PIPE_SINK_CLASS_NAME, end_path);
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	sink->path = g_strdup(path);
	sink->end_path = g_strdup(end_path);
	status = ds_add_port_status(bt_self_component_sink_add_input_port(self, "in", NULL, NULL), self_comp,
		PIPE_SINK_CLASS_NAME, "the input port `in`");
end:
	if (status == BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		bt_self_component_set_data(self_comp, sink);
	} else {
		destroy(sink);	/* finalize is not called after a failed initialization */
	}
	return status;
}

void pipe_sink_component_finalize(bt_self_component_sink *self)
{
	destroy(bt_self_component_get_data(bt_self_component_sink_as_self_component(self)));
}

bt_component_class_sink_graph_is_configured_method_status pipe_sink_graph_is_configured(
		bt_self_component_sink *self)
{
	struct pipe_sink *sink = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *port = bt_self_component_sink_borrow_input_port_by_name(self, "in");

	switch (bt_message_iterator_create_from_sink_component(self, port, &sink->iterator)) {
	case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK:
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: cannot create a message iterator on port `in` (is it connected?).", PIPE_SINK_CLASS_NAME);
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
}

/* ---- classes, each written once ---- */

/* The id of `object` in `table` (T_*), 0 when it has none yet. */
static uint64_t id_of(GHashTable *table, const void *object)
{
	return GPOINTER_TO_SIZE(g_hash_table_lookup(table, object));
}

static uint64_t new_id(struct pipe_sink *sink, GHashTable *table, int which, const void *object)
{
	uint64_t id = ++sink->next_id[which];

	g_hash_table_insert(table, (gpointer) object, GSIZE_TO_POINTER((gsize) id));
	return id;
}

static uint64_t clock_id(struct pipe_sink *sink, const bt_clock_class *cc)
{
	struct ds_pipe_out *o = &sink->out;
	uint64_t id = id_of(sink->clocks, cc);
	int64_t seconds;
	uint64_t cycles;

	if (id) {
		return id;
	}
	bt_clock_class_get_ref(cc);
	id = new_id(sink, sink->clocks, T_CLOCK, cc);
	bt_clock_class_get_offset(cc, &seconds, &cycles);
	ds_pipe_put_byte(o, FRAME_CLOCK);
	ds_pipe_put_u(o, id);
	ds_pipe_put_optstr(o, bt_clock_class_get_name(cc));
	ds_pipe_put_optstr(o, bt_clock_class_get_description(cc));
	ds_pipe_put_u(o, bt_clock_class_get_frequency(cc));
	ds_pipe_put_s(o, seconds);
	ds_pipe_put_u(o, cycles);
	ds_pipe_put_u(o, bt_clock_class_get_precision(cc));
	ds_pipe_put_byte(o, bt_clock_class_origin_is_unix_epoch(cc) ? 1 : 0);
	ds_pipe_put_byte(o, bt_clock_class_get_uuid(cc) ? 1 : 0);
	if (bt_clock_class_get_uuid(cc)) {
		ds_pipe_put_raw(o, bt_clock_class_get_uuid(cc), 16);
	}
	return id;
}

static uint64_t trace_class_id(struct pipe_sink *sink, const bt_trace_class *tc)
{
	uint64_t id = id_of(sink->trace_classes, tc);

	if (!id) {
		bt_trace_class_get_ref(tc);
		id = new_id(sink, sink->trace_classes, T_TRACE_CLASS, tc);
		ds_pipe_put_byte(&sink->out, FRAME_TRACE_CLASS);
		ds_pipe_put_u(&sink->out, id);
	}
	return id;
}

static uint64_t trace_id(struct pipe_sink *sink, const bt_trace *trace)
{
	struct ds_pipe_out *o = &sink->out;
	uint64_t id = id_of(sink->traces, trace), tc, i, n;

	if (id) {
		return id;
	}
	tc = trace_class_id(sink, bt_trace_borrow_class_const(trace));
	bt_trace_get_ref(trace);
	id = new_id(sink, sink->traces, T_TRACE, trace);
	n = bt_trace_get_environment_entry_count(trace);
	ds_pipe_put_byte(o, FRAME_TRACE);
	ds_pipe_put_u(o, id);
	ds_pipe_put_u(o, tc);
	ds_pipe_put_optstr(o, bt_trace_get_name(trace));
	ds_pipe_put_byte(o, bt_trace_get_uuid(trace) ? 1 : 0);
	if (bt_trace_get_uuid(trace)) {
		ds_pipe_put_raw(o, bt_trace_get_uuid(trace), 16);
	}
	ds_pipe_put_u(o, n);
	for (i = 0; i < n; i++) {
		const char *name;
		const bt_value *value;

		bt_trace_borrow_environment_entry_by_index_const(trace, i, &name, &value);
		ds_pipe_put_str(o, name);
		if (bt_value_is_signed_integer(value)) {
			ds_pipe_put_byte(o, 0);
			ds_pipe_put_s(o, bt_value_integer_signed_get(value));
		} else {
			ds_pipe_put_byte(o, 1);
			ds_pipe_put_str(o, bt_value_string_get(value));
		}
	}
	return id;
}

static const struct event_class_entry *event_class_entry(struct pipe_sink *sink, const bt_event_class *ec,
		uint64_t sc);

/* 0 with the cause appended: a stream class the pipe does not carry. */
static uint64_t stream_class_id(struct pipe_sink *sink, const bt_stream_class *sc)
{
	struct ds_pipe_out *o = &sink->out;
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(sc);
	uint64_t id = id_of(sink->stream_classes, sc), tc, clock, i;

	if (id) {
		return id;
	}
	if (bt_stream_class_supports_packets(sc) || bt_stream_class_supports_discarded_events(sc) ||
			bt_stream_class_supports_discarded_packets(sc) ||
			bt_stream_class_borrow_event_common_context_field_class_const(sc)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: stream class `%s` has packets, discarded items or an event common context, which the "
			"pipe does not carry: connect it to what deepspan's analysis emits (span-attrib with "
			"`pass-through=false`; doc/scale.md, \"Trace pipe\").", PIPE_SINK_CLASS_NAME,
			bt_stream_class_get_name(sc) ? bt_stream_class_get_name(sc) : "(no name)");
		return 0;
	}
	tc = trace_class_id(sink, bt_stream_class_borrow_trace_class_const(sc));
	clock = cc ? clock_id(sink, cc) : 0;
	bt_stream_class_get_ref(sc);
	id = new_id(sink, sink->stream_classes, T_STREAM_CLASS, sc);
	ds_pipe_put_byte(o, FRAME_STREAM_CLASS);
	ds_pipe_put_u(o, id);
	ds_pipe_put_u(o, tc);
	ds_pipe_put_optstr(o, bt_stream_class_get_name(sc));
	ds_pipe_put_u(o, clock);
	/* its event classes now, in their order, as the reader's stream class must list them (later ones lazily) */
	for (i = 0; i < bt_stream_class_get_event_class_count(sc); i++) {
		if (!event_class_entry(sink, bt_stream_class_borrow_event_class_by_index_const(sc, i), id)) {
			return 0;
		}
	}
	return id;
}

/* NULL with the cause appended: an event class the pipe does not carry. */
static const struct event_class_entry *event_class_entry(struct pipe_sink *sink, const bt_event_class *ec,
		uint64_t sc)
{
	struct event_class_entry *e = g_hash_table_lookup(sink->event_classes, ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	char why[160] = "";

	if (e) {
		return e;
	}
	e = g_new0(struct event_class_entry, 1);
	e->id = ++sink->next_id[T_EVENT_CLASS];
	ds_pipe_put_byte(&sink->out, FRAME_EVENT_CLASS);
	ds_pipe_put_u(&sink->out, e->id);
	ds_pipe_put_u(&sink->out, sc);
	ds_pipe_put_optstr(&sink->out, bt_event_class_get_name(ec));
	ds_pipe_put_byte(&sink->out, payload ? 1 : 0);
	if (bt_event_class_borrow_specific_context_field_class_const(ec)) {
		g_strlcpy(why, "a specific context", sizeof(why));
	} else if (payload) {
		e->payload = ds_pipe_put_field_class(&sink->out, payload, why, sizeof(why));
	}
	if (why[0]) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: event class `%s` has %s: connect the pipe to what deepspan's analysis emits (span-attrib "
			"with `pass-through=false`; doc/scale.md, \"Trace pipe\").", PIPE_SINK_CLASS_NAME,
			bt_event_class_get_name(ec) ? bt_event_class_get_name(ec) : "(no name)", why);
		free_event_class_entry(e);
		return NULL;
	}
	bt_event_class_get_ref(ec);
	g_hash_table_insert(sink->event_classes, (gpointer) ec, e);
	return e;
}

/* ---- messages ---- */

static void put_snapshot(struct ds_pipe_out *o, const bt_clock_snapshot *cs)
{
	ds_pipe_put_byte(o, cs ? 1 : 0);
	if (cs) {
		ds_pipe_put_u(o, bt_clock_snapshot_get_value(cs));
	}
}

/* A stream beginning or end: its stream's id, given at its beginning. */
static int write_stream_edge(struct pipe_sink *sink, const bt_message *msg, bool beginning)
{
	const bt_stream *stream = beginning ? bt_message_stream_beginning_borrow_stream_const(msg) :
		bt_message_stream_end_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	const bt_clock_snapshot *cs = NULL;
	uint64_t sc_id = stream_class_id(sink, sc), id, trace;

	if (!sc_id) {
		return -1;
	}
	if (bt_stream_class_borrow_default_clock_class_const(sc) &&
			(beginning ? bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg, &cs) :
			 bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &cs)) !=
				BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		cs = NULL;
	}
	if (beginning) {
		trace = trace_id(sink, bt_stream_borrow_trace_const(stream));
		bt_stream_get_ref(stream);
		id = new_id(sink, sink->streams, T_STREAM, stream);
		ds_pipe_put_byte(&sink->out, FRAME_STREAM_BEGINNING);
		ds_pipe_put_u(&sink->out, id);
		ds_pipe_put_u(&sink->out, sc_id);
		ds_pipe_put_u(&sink->out, trace);
		ds_pipe_put_optstr(&sink->out, bt_stream_get_name(stream));
	} else {
		id = id_of(sink->streams, stream);
		ds_pipe_put_byte(&sink->out, FRAME_STREAM_END);
		ds_pipe_put_u(&sink->out, id);
		g_hash_table_remove(sink->streams, stream);
	}
	put_snapshot(&sink->out, cs);
	return 0;
}

static int write_event(struct pipe_sink *sink, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	const struct event_class_entry *e = event_class_entry(sink, bt_event_borrow_class_const(event),
		id_of(sink->stream_classes, sc));

	if (!e) {
		return -1;
	}
	ds_pipe_put_byte(&sink->out, FRAME_EVENT);
	ds_pipe_put_u(&sink->out, e->id);
	ds_pipe_put_u(&sink->out, id_of(sink->streams, stream));
	put_snapshot(&sink->out, bt_stream_class_borrow_default_clock_class_const(sc) ?
		bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL);
	if (e->payload) {
		ds_pipe_put_value(&sink->out, e->payload, bt_event_borrow_payload_field_const(event));
	}
	return 0;
}

static int write_inactivity(struct pipe_sink *sink, const bt_message *msg)
{
	const bt_clock_snapshot *cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
	uint64_t clock = clock_id(sink, bt_clock_snapshot_borrow_clock_class_const(cs));

	ds_pipe_put_byte(&sink->out, FRAME_INACTIVITY);
	ds_pipe_put_u(&sink->out, clock);
	ds_pipe_put_u(&sink->out, bt_clock_snapshot_get_value(cs));
	return 0;
}

static int write_message(struct pipe_sink *sink, const bt_message *msg)
{
	sink->messages++;
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return write_event(sink, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return write_stream_edge(sink, msg, true);
	case BT_MESSAGE_TYPE_STREAM_END:
		return write_stream_edge(sink, msg, false);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return write_inactivity(sink, msg);
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: a packet or discarded-items message, which the pipe does not carry: connect it to what "
			"deepspan's analysis emits (span-attrib with `pass-through=false`; doc/scale.md, \"Trace pipe\").",
			PIPE_SINK_CLASS_NAME);
		return -1;
	}
}

static bt_component_class_sink_consume_method_status write_failed(struct pipe_sink *sink)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
		"%s: cannot write `%s`: %s (a full disk, or the reading process ended: see its error).",
		PIPE_SINK_CLASS_NAME, sink->path, g_strerror(sink->out.error));
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

static bt_component_class_sink_consume_method_status end_failed(struct pipe_sink *sink)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
		"%s: cannot write the end frame into `%s` (parameter `end-path`) after `%s`: %s.",
		PIPE_SINK_CLASS_NAME, sink->end_path, sink->path, g_strerror(sink->out.error));
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

/* The end frame, in `path` or (parameter `end-path`) in a file of its own; then the file is closed. */
static bt_component_class_sink_consume_method_status finish(struct pipe_sink *sink)
{
	bool apart = sink->end_path != NULL;

	BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterator);
	if (apart && !ds_pipe_out_close_file(&sink->out)) {
		return write_failed(sink);
	}
	if (apart && !ds_pipe_out_reopen(&sink->out, sink->end_path)) {
		return end_failed(sink);
	}
	ds_pipe_put_byte(&sink->out, FRAME_END);
	ds_pipe_put_u(&sink->out, sink->messages);
	if (!ds_pipe_out_close(&sink->out)) {
		return apart ? end_failed(sink) : write_failed(sink);
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

bt_component_class_sink_consume_method_status pipe_sink_consume(bt_self_component_sink *self)
{
	struct pipe_sink *sink = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	const struct ds_upstream_owner owner = {
		.self_comp = sink->self_comp, .class_name = PIPE_SINK_CLASS_NAME, .doc_page = "doc/scale.md",
	};
	bt_component_class_sink_consume_method_status status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	bt_message_iterator_class_next_method_status next;
	bt_message_array_const msgs;
	uint64_t count = 0, i;

	if (sink->out.fd < 0) {
		if (!ds_pipe_out_open(&sink->out, sink->path)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
				"%s: cannot open `%s` (parameter `path`) for writing: %s.", PIPE_SINK_CLASS_NAME,
				sink->path, g_strerror(errno));
			status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
			goto end;
		}
	}
	next = ds_upstream_next(&owner, sink->iterator, "in", &msgs, &count);
	if (next == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		status = finish(sink);
		goto end;
	}
	if (next != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		status = ds_upstream_status_to_sink(next);
		goto end;
	}
	for (i = 0; i < count; i++) {
		if (status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK && write_message(sink, msgs[i])) {
			status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		}
		bt_message_put_ref(msgs[i]);
	}
	if (status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK && sink->out.failed) {
		status = write_failed(sink);
	}
end:
	return status;
}
