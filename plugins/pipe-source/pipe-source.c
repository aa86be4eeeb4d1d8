/* SPDX-License-Identifier: MIT */
/*
 * source.deepspan.pipe (doc/scale.md, "Trace pipe"): reads what sink.deepspan.pipe wrote, from a file or a
 * FIFO, and emits the same messages: each class is created once, when its frame comes, and each message
 * frame becomes a message of the same stream with the same clock snapshot and payload values.  Ids are checked
 * (a definition takes the next id of its kind, a message names ids defined before it), so a pipe that is cut
 * short or corrupt is an error naming its byte offset, never a partial stream presented as whole.
 */
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "add-port.h"
#include "bt-put.h"
#include "params.h"
#include "pipe-types.h"
#include "pipe-source/component.h"

#define PIPE_SOURCE_CLASS_NAME "source.deepspan.pipe"

struct pipe_source {
	bt_self_component *self_comp;		/* borrowed */
	char *path;				/* owned */
};

struct event_class_slot {
	bt_event_class *ec;			/* owned */
	bt_stream_class *sc;			/* borrowed from `stream_classes` */
	struct ds_pipe_type *payload;		/* owned; NULL: no payload */
};

struct pipe_iter {
	struct pipe_source *comp;		/* borrowed */
	bt_self_message_iterator *self;		/* borrowed */
	struct ds_pipe_in in;			/* the file */
	/* by id - 1: owned references (streams: NULL once ended) */
	GPtrArray *clocks, *trace_classes, *traces, *stream_classes, *streams;
	GArray *event_classes;			/* struct event_class_slot */
	uint64_t messages;
	bool ended;
};

enum iter_status {
	ITER_OK = 0,
	ITER_MESSAGE = 1,			/* *msg holds a message */
	ITER_END = 2,
	ITER_ERROR = -1,			/* in.why says what */
	ITER_MEMORY_ERROR = -12,
};

static void destroy_comp(struct pipe_source *comp)
{
	if (comp) {
		g_free(comp->path);
		g_free(comp);
	}
}

bt_component_class_initialize_method_status pipe_source_component_initialize(bt_self_component_source *self,
		bt_self_component_source_configuration *config, const bt_value *params, void *init_data)
{
	static const char *const known[] = { "path", NULL };
	bt_self_component *self_comp = bt_self_component_source_as_self_component(self);
	struct ds_params p = ds_params_make(self_comp, params, PIPE_SOURCE_CLASS_NAME);
	bt_component_class_initialize_method_status status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct pipe_source *comp = g_new0(struct pipe_source, 1);
	const char *path = NULL;

	(void) config;
	(void) init_data;
	comp->self_comp = self_comp;
	if (ds_params_check_names(&p, known) || ds_params_get_required_string(&p, "path", "the file or FIFO that "
			"sink.deepspan.pipe writes (doc/scale.md, \"Trace pipe\")", &path)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	comp->path = g_strdup(path);
	status = ds_add_port_status(bt_self_component_source_add_output_port(self, "out", NULL, NULL), self_comp,
		PIPE_SOURCE_CLASS_NAME, "the output port `out`");
end:
	if (status == BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		bt_self_component_set_data(self_comp, comp);
	} else {
		destroy_comp(comp);	/* finalize is not called after a failed initialization */
	}
	return status;
}

void pipe_source_component_finalize(bt_self_component_source *self)
{
	destroy_comp(bt_self_component_get_data(bt_self_component_source_as_self_component(self)));
}

static void clear_event_class(gpointer p)
{
	struct event_class_slot *slot = p;

	BT_EVENT_CLASS_PUT_REF_AND_RESET(slot->ec);
	ds_pipe_type_free(slot->payload);
	slot->payload = NULL;
}

static void destroy_iter(struct pipe_iter *it)
{
	if (!it) {
		return;
	}
	ds_pipe_in_close(&it->in);
	g_array_free(it->event_classes, TRUE);
	g_ptr_array_free(it->streams, TRUE);
	g_ptr_array_free(it->stream_classes, TRUE);
	g_ptr_array_free(it->traces, TRUE);
	g_ptr_array_free(it->trace_classes, TRUE);
	g_ptr_array_free(it->clocks, TRUE);
	g_free(it);
}

static bt_message_iterator_class_next_method_status fail(struct pipe_iter *it, enum iter_status status)
{
	if (status == ITER_MEMORY_ERROR) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: `%s`: out of memory at byte %" PRIu64 ".", PIPE_SOURCE_CLASS_NAME, it->comp->path,
			it->in.offset);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		"%s: `%s` (parameter `path`): %s; it must be what sink.deepspan.pipe wrote, whole "
		"(doc/scale.md, \"Trace pipe\").", PIPE_SOURCE_CLASS_NAME, it->comp->path, it->in.why);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

bt_message_iterator_class_initialize_method_status pipe_source_iterator_initialize(bt_self_message_iterator *self,
		bt_self_message_iterator_configuration *config, bt_self_component_port_output *port)
{
	struct pipe_iter *it = g_new0(struct pipe_iter, 1);
	bt_message_iterator_class_initialize_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

	(void) config;
	(void) port;
	it->self = self;
	it->comp = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	it->clocks = g_ptr_array_new_with_free_func(ds_put_clock_class);
	it->trace_classes = g_ptr_array_new_with_free_func(ds_put_trace_class);
	it->traces = g_ptr_array_new_with_free_func(ds_put_trace);
	it->stream_classes = g_ptr_array_new_with_free_func(ds_put_stream_class);
	it->streams = g_ptr_array_new_with_free_func(ds_put_stream);
	it->event_classes = g_array_new(FALSE, TRUE, sizeof(struct event_class_slot));
	g_array_set_clear_func(it->event_classes, clear_event_class);
	if (!ds_pipe_in_open(&it->in, it->comp->path)) {
		fail(it, ITER_ERROR);
		status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	bt_self_message_iterator_set_data(self, it);
end:
	if (status != BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		destroy_iter(it);	/* finalize is not called after a failed initialization */
	}
	return status;
}

void pipe_source_iterator_finalize(bt_self_message_iterator *self)
{
	destroy_iter(bt_self_message_iterator_get_data(self));
}

/* ---- definitions ---- */

/* Reads an id that must be the next of `table` (a definition). */
static enum iter_status next_id(struct pipe_iter *it, guint len, const char *what)
{
	uint64_t id;
	char text[96];

	if (!ds_pipe_get_u(&it->in, &id)) {
		return ITER_ERROR;
	}
	if (id != (uint64_t) len + 1) {
		snprintf(text, sizeof(text), "a %s defined out of order", what);
		ds_pipe_in_fail(&it->in, text);
		return ITER_ERROR;
	}
	return ITER_OK;
}

/* Reads an id defined before (`zero_ok`: 0, none, too) into *index (id - 1; G_MAXUINT for 0). */
static enum iter_status known_id(struct pipe_iter *it, guint len, bool zero_ok, const char *what, guint *index)
{
	uint64_t id;
	char text[96];

	if (!ds_pipe_get_u(&it->in, &id)) {
		return ITER_ERROR;
	}
	if ((id == 0 && !zero_ok) || id > len) {
		snprintf(text, sizeof(text), "a %s that was not defined", what);
		ds_pipe_in_fail(&it->in, text);
		return ITER_ERROR;
	}
	*index = id == 0 ? G_MAXUINT : (guint) (id - 1);
	return ITER_OK;
}

static enum iter_status read_clock(struct pipe_iter *it)
{
	bt_clock_class *cc = NULL;
	uint64_t frequency, cycles, precision;
	const char *name, *description;
	uint8_t origin, has_uuid, uuid[16];
	char *name_copy = NULL;
	int64_t seconds;
	enum iter_status status = next_id(it, it->clocks->len, "clock class");

	if (status || !ds_pipe_get_optstr(&it->in, &name)) {
		return ITER_ERROR;
	}
	name_copy = g_strdup(name);
	if (!ds_pipe_get_optstr(&it->in, &description) || !ds_pipe_get_u(&it->in, &frequency) ||
			!ds_pipe_get_s(&it->in, &seconds) || !ds_pipe_get_u(&it->in, &cycles) ||
			!ds_pipe_get_u(&it->in, &precision) || !ds_pipe_get_byte(&it->in, &origin) ||
			!ds_pipe_get_byte(&it->in, &has_uuid) || (has_uuid && !ds_pipe_get_raw(&it->in, uuid, 16))) {
		status = ITER_ERROR;
	} else if (frequency == 0 || frequency == UINT64_MAX || cycles >= frequency || precision == UINT64_MAX) {
		ds_pipe_in_fail(&it->in, "a clock class with a frequency of 0 or 2^64 - 1, an offset beyond a second "
			"or a precision of 2^64 - 1");
		status = ITER_ERROR;
	} else if (!(cc = bt_clock_class_create(bt_self_message_iterator_borrow_component(it->self))) ||
			(name_copy && bt_clock_class_set_name(cc, name_copy)) ||
			(description && bt_clock_class_set_description(cc, description))) {
		status = ITER_MEMORY_ERROR;
	}
	if (status == ITER_OK) {
		bt_clock_class_set_frequency(cc, frequency);
		bt_clock_class_set_offset(cc, seconds, cycles);
		bt_clock_class_set_precision(cc, precision);
		bt_clock_class_set_origin_is_unix_epoch(cc, origin ? BT_TRUE : BT_FALSE);
		if (has_uuid) {
			bt_clock_class_set_uuid(cc, uuid);
		}
		g_ptr_array_add(it->clocks, cc);
		cc = NULL;
	}
	bt_clock_class_put_ref(cc);
	g_free(name_copy);
	return status;
}

static enum iter_status read_trace_class(struct pipe_iter *it)
{
	bt_trace_class *tc;

	if (next_id(it, it->trace_classes->len, "trace class")) {
		return ITER_ERROR;
	}
	tc = bt_trace_class_create(bt_self_message_iterator_borrow_component(it->self));
	if (!tc) {
		return ITER_MEMORY_ERROR;
	}
	g_ptr_array_add(it->trace_classes, tc);
	return ITER_OK;
}

static enum iter_status read_environment(struct pipe_iter *it, bt_trace *trace)
{
	uint64_t i, n;

	if (!ds_pipe_get_u(&it->in, &n)) {
		return ITER_ERROR;
	}
	for (i = 0; i < n; i++) {
		const char *text;
		char *name;
		size_t len;
		uint8_t kind;
		int64_t value;
		enum iter_status status = ITER_OK;

		if (!ds_pipe_get_str(&it->in, &text, &len)) {
			return ITER_ERROR;
		}
		name = g_strdup(text);
		if (!ds_pipe_get_byte(&it->in, &kind) || (kind == 0 ? !ds_pipe_get_s(&it->in, &value) :
				!ds_pipe_get_str(&it->in, &text, &len))) {
			status = ITER_ERROR;
		} else if (kind > 1) {
			ds_pipe_in_fail(&it->in, "an environment entry that is neither an integer nor a string");
			status = ITER_ERROR;
		} else if (kind == 0 ? bt_trace_set_environment_entry_integer(trace, name, value) :
				bt_trace_set_environment_entry_string(trace, name, text)) {
			status = ITER_MEMORY_ERROR;
		}
		g_free(name);
		if (status) {
			return status;
		}
	}
	return ITER_OK;
}

static enum iter_status read_trace(struct pipe_iter *it)
{
	enum iter_status status = next_id(it, it->traces->len, "trace");
	const char *name;
	bt_trace *trace = NULL;
	uint8_t has_uuid, uuid[16];
	guint tc;

	if (status || known_id(it, it->trace_classes->len, false, "trace class", &tc) ||
			!ds_pipe_get_optstr(&it->in, &name)) {
		return ITER_ERROR;
	}
	trace = bt_trace_create(g_ptr_array_index(it->trace_classes, tc));
	if (!trace || (name && bt_trace_set_name(trace, name))) {
		status = ITER_MEMORY_ERROR;
	} else if (!ds_pipe_get_byte(&it->in, &has_uuid) || (has_uuid && !ds_pipe_get_raw(&it->in, uuid, 16))) {
		status = ITER_ERROR;
	} else {
		if (has_uuid) {
			bt_trace_set_uuid(trace, uuid);
		}
		status = read_environment(it, trace);
	}
	if (status == ITER_OK) {
		g_ptr_array_add(it->traces, trace);
		trace = NULL;
	}
	bt_trace_put_ref(trace);
	return status;
}

static enum iter_status read_stream_class(struct pipe_iter *it)
{
	enum iter_status status = next_id(it, it->stream_classes->len, "stream class");
	bt_stream_class *sc = NULL;
	const char *name;
	guint tc, clock;

	if (status || known_id(it, it->trace_classes->len, false, "trace class", &tc) ||
			!ds_pipe_get_optstr(&it->in, &name)) {
		return ITER_ERROR;
	}
	sc = bt_stream_class_create(g_ptr_array_index(it->trace_classes, tc));
	if (!sc || (name && bt_stream_class_set_name(sc, name))) {
		status = ITER_MEMORY_ERROR;
	} else if (known_id(it, it->clocks->len, true, "clock class", &clock)) {
		status = ITER_ERROR;
	} else if (clock != G_MAXUINT &&
			bt_stream_class_set_default_clock_class(sc, g_ptr_array_index(it->clocks, clock))) {
		status = ITER_MEMORY_ERROR;
	}
	if (status == ITER_OK) {
		g_ptr_array_add(it->stream_classes, sc);
		sc = NULL;
	}
	bt_stream_class_put_ref(sc);
	return status;
}

static enum iter_status read_event_class(struct pipe_iter *it)
{
	enum iter_status status = next_id(it, it->event_classes->len, "event class");
	struct event_class_slot slot = { 0 };
	bt_field_class *payload = NULL;
	const char *name;
	uint8_t has_payload;
	guint sc;

	if (status || known_id(it, it->stream_classes->len, false, "stream class", &sc) ||
			!ds_pipe_get_optstr(&it->in, &name)) {
		return ITER_ERROR;
	}
	slot.sc = g_ptr_array_index(it->stream_classes, sc);
	slot.ec = bt_event_class_create(slot.sc);
	if (!slot.ec || (name && bt_event_class_set_name(slot.ec, name))) {
		status = ITER_MEMORY_ERROR;
	} else if (!ds_pipe_get_byte(&it->in, &has_payload)) {
		status = ITER_ERROR;
	} else if (has_payload) {
		switch (ds_pipe_get_field_class(&it->in, bt_stream_class_borrow_trace_class(slot.sc), &payload,
				&slot.payload)) {
		case DS_PIPE_OK:
			if (slot.payload->kind != DS_PIPE_STRUCT) {
				ds_pipe_in_fail(&it->in, "an event payload that is not a structure");
				status = ITER_ERROR;
			} else {
				status = bt_event_class_set_payload_field_class(slot.ec, payload) ?
					ITER_MEMORY_ERROR : ITER_OK;
			}
			break;
		case DS_PIPE_MEMORY_ERROR:
			status = ITER_MEMORY_ERROR;
			break;
		default:
			status = ITER_ERROR;
		}
	}
	bt_field_class_put_ref(payload);
	if (status == ITER_OK) {
		g_array_append_val(it->event_classes, slot);
	} else {
		clear_event_class(&slot);
	}
	return status;
}

/* ---- messages ---- */

static enum iter_status read_snapshot(struct pipe_iter *it, bool *has, uint64_t *value)
{
	uint8_t flag;

	if (!ds_pipe_get_byte(&it->in, &flag) || (flag && !ds_pipe_get_u(&it->in, value))) {
		return ITER_ERROR;
	}
	*has = flag != 0;
	return ITER_OK;
}

/* The stream of the id read next, not ended (*index its slot); NULL with `why`. */
static bt_stream *known_stream(struct pipe_iter *it, guint *index)
{
	bt_stream *stream;

	if (known_id(it, it->streams->len, false, "stream", index)) {
		return NULL;
	}
	stream = g_ptr_array_index(it->streams, *index);
	if (!stream) {
		ds_pipe_in_fail(&it->in, "a message of a stream already ended");
	}
	return stream;
}

static enum iter_status snapshot_fits(struct pipe_iter *it, const bt_stream_class *sc, bool has)
{
	if (has != (bt_stream_class_borrow_default_clock_class_const(sc) != NULL)) {
		ds_pipe_in_fail(&it->in, has ? "a clock snapshot in a stream class without a clock" :
			"a message without the clock snapshot its stream class has");
		return ITER_ERROR;
	}
	return ITER_OK;
}

static enum iter_status read_stream_beginning(struct pipe_iter *it, bt_message **msg)
{
	enum iter_status status = next_id(it, it->streams->len, "stream");
	bt_stream *stream = NULL;
	const char *name;
	uint64_t value = 0;
	guint sc, trace;
	bool has;

	if (status || known_id(it, it->stream_classes->len, false, "stream class", &sc) ||
			known_id(it, it->traces->len, false, "trace", &trace) || !ds_pipe_get_optstr(&it->in, &name)) {
		return ITER_ERROR;
	}
	if (bt_stream_class_borrow_trace_class(g_ptr_array_index(it->stream_classes, sc)) !=
			bt_trace_borrow_class(g_ptr_array_index(it->traces, trace))) {
		ds_pipe_in_fail(&it->in, "a stream of a trace and a stream class of two trace classes");
		return ITER_ERROR;
	}
	stream = bt_stream_create(g_ptr_array_index(it->stream_classes, sc), g_ptr_array_index(it->traces, trace));
	if (!stream || (name && bt_stream_set_name(stream, name))) {
		status = ITER_MEMORY_ERROR;
	} else if (read_snapshot(it, &has, &value) ||
			(has && snapshot_fits(it, g_ptr_array_index(it->stream_classes, sc), true))) {
		status = ITER_ERROR;
	} else if (!(*msg = bt_message_stream_beginning_create(it->self, stream))) {
		status = ITER_MEMORY_ERROR;
	} else {
		if (has) {
			bt_message_stream_beginning_set_default_clock_snapshot(*msg, value);
		}
		g_ptr_array_add(it->streams, stream);
		stream = NULL;
		status = ITER_MESSAGE;
	}
	bt_stream_put_ref(stream);
	return status;
}

static enum iter_status read_stream_end(struct pipe_iter *it, bt_message **msg)
{
	guint index;
	bt_stream *stream = known_stream(it, &index);
	uint64_t value = 0;
	bool has;

	if (!stream || read_snapshot(it, &has, &value) ||
			(has && snapshot_fits(it, bt_stream_borrow_class(stream), true))) {
		return ITER_ERROR;
	}
	*msg = bt_message_stream_end_create(it->self, stream);
	if (!*msg) {
		return ITER_MEMORY_ERROR;
	}
	if (has) {
		bt_message_stream_end_set_default_clock_snapshot(*msg, value);
	}
	/* the message holds the stream now; its id names no stream any more */
	bt_stream_put_ref(stream);
	g_ptr_array_index(it->streams, index) = NULL;
	return ITER_MESSAGE;
}

static enum iter_status read_event(struct pipe_iter *it, bt_message **msg)
{
	const struct event_class_slot *slot;
	enum ds_pipe_status got;
	bt_stream *stream;
	uint64_t value = 0;
	guint ec, index;
	bool has;

	if (known_id(it, it->event_classes->len, false, "event class", &ec) || !(stream = known_stream(it, &index)) ||
			read_snapshot(it, &has, &value)) {
		return ITER_ERROR;
	}
	slot = &g_array_index(it->event_classes, struct event_class_slot, ec);
	if (bt_stream_borrow_class(stream) != slot->sc) {
		ds_pipe_in_fail(&it->in, "an event of a class of another stream class than its stream's");
		return ITER_ERROR;
	}
	if (snapshot_fits(it, slot->sc, has)) {
		return ITER_ERROR;
	}
	*msg = has ? bt_message_event_create_with_default_clock_snapshot(it->self, slot->ec, stream, value) :
		bt_message_event_create(it->self, slot->ec, stream);
	if (!*msg) {
		return ITER_MEMORY_ERROR;
	}
	if (!slot->payload) {
		return ITER_MESSAGE;
	}
	got = ds_pipe_get_value(&it->in, slot->payload,
		bt_event_borrow_payload_field(bt_message_event_borrow_event(*msg)));
	if (got != DS_PIPE_OK) {
		BT_MESSAGE_PUT_REF_AND_RESET(*msg);
		return got == DS_PIPE_MEMORY_ERROR ? ITER_MEMORY_ERROR : ITER_ERROR;
	}
	return ITER_MESSAGE;
}

static enum iter_status read_inactivity(struct pipe_iter *it, bt_message **msg)
{
	uint64_t value;
	guint clock;

	if (known_id(it, it->clocks->len, false, "clock class", &clock) || !ds_pipe_get_u(&it->in, &value)) {
		return ITER_ERROR;
	}
	*msg = bt_message_message_iterator_inactivity_create(it->self, g_ptr_array_index(it->clocks, clock), value);
	return *msg ? ITER_MESSAGE : ITER_MEMORY_ERROR;
}

/* The end frame: the count of messages, then nothing more. */
static enum iter_status read_end(struct pipe_iter *it)
{
	uint64_t count;
	bool at_end;

	if (!ds_pipe_get_u(&it->in, &count) || !ds_pipe_in_at_end(&it->in, &at_end)) {
		return ITER_ERROR;
	}
	if (count != it->messages) {
		ds_pipe_in_fail(&it->in, "an end frame counting other messages than those read");
		return ITER_ERROR;
	}
	if (!at_end) {
		ds_pipe_in_fail(&it->in, "bytes after the end frame");
		return ITER_ERROR;
	}
	it->ended = true;
	return ITER_END;
}

/* One frame: a definition (OK), a message (MESSAGE, *msg), the end (END), or an error. */
static enum iter_status read_frame(struct pipe_iter *it, bt_message **msg)
{
	enum iter_status status;
	uint8_t tag;

	if (!ds_pipe_get_byte(&it->in, &tag)) {
		return ITER_ERROR;
	}
	switch (tag) {
	case 'K': return read_clock(it);
	case 'C': return read_trace_class(it);
	case 'T': return read_trace(it);
	case 'S': return read_stream_class(it);
	case 'E': return read_event_class(it);
	case 'Z': return read_end(it);
	case 'B': status = read_stream_beginning(it, msg); break;
	case 'V': status = read_event(it, msg); break;
	case 'N': status = read_stream_end(it, msg); break;
	case 'I': status = read_inactivity(it, msg); break;
	default:
		ds_pipe_in_fail(&it->in, "an unknown frame");
		return ITER_ERROR;
	}
	if (status == ITER_MESSAGE) {
		it->messages++;
	}
	return status;
}

bt_message_iterator_class_next_method_status pipe_source_iterator_next(bt_self_message_iterator *self,
		bt_message_array_const msgs, uint64_t capacity, uint64_t *count)
{
	struct pipe_iter *it = bt_self_message_iterator_get_data(self);
	enum iter_status status = ITER_OK;

	*count = 0;
	while (!it->ended && *count < capacity) {
		bt_message *msg = NULL;

		status = read_frame(it, &msg);
		if (status == ITER_MESSAGE) {
			msgs[(*count)++] = msg;
		} else if (status == ITER_ERROR || status == ITER_MEMORY_ERROR) {
			break;
		}
	}
	if (status == ITER_ERROR || status == ITER_MEMORY_ERROR) {
		while (*count) {
			bt_message_put_ref(msgs[--(*count)]);
		}
		return fail(it, status);
	}
	return *count ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}
