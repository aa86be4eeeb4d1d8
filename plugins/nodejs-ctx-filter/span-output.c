/* SPDX-License-Identifier: MIT */
/* The output trace IR of filter.deepspan.nodejs-ctx: see span-output.h. */
#include "span-output.h"

#include <string.h>

#include "states.h"

#define NODEJS_CTX_CLASS "filter.deepspan.nodejs-ctx"
#define UUID_BYTES 16	/* bt_uuid: 16 bytes */

static const char *const span_event_names[4] = {
	[NCTX_OP_SPAN_START] = "deepspan_ust:span_start",
	[NCTX_OP_SPAN_END] = "deepspan_ust:span_end",
	[NCTX_OP_SPAN_ACTIVATE] = "deepspan_ust:span_activate",
	[NCTX_OP_SPAN_DEACTIVATE] = "deepspan_ust:span_deactivate",
};

static void host_free(gpointer data)
{
	struct span_host *host = data;

	BT_STREAM_PUT_REF_AND_RESET(host->stream);
	BT_TRACE_PUT_REF_AND_RESET(host->trace);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(host->trace_class);
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(host->upstream_clock);
	g_free(host->hostname);
	g_free(host);
}

void span_output_init(struct span_output *output, bt_self_component *self_comp)
{
	output->self_comp = self_comp;
	output->hosts = g_ptr_array_new_with_free_func(host_free);
}

void span_output_fini(struct span_output *output)
{
	if (output->hosts) {
		g_ptr_array_free(output->hosts, TRUE);
		output->hosts = NULL;
	}
}

static bool same_clock(const bt_clock_class *a, const bt_clock_class *b)
{
	const uint8_t *uuid_a, *uuid_b;

	if (a == b) {
		return true;
	}
	uuid_a = bt_clock_class_get_uuid(a);
	uuid_b = bt_clock_class_get_uuid(b);
	return uuid_a && uuid_b && memcmp(uuid_a, uuid_b, UUID_BYTES) == 0;
}

/* A clock class of ours with the upstream clock's properties. */
static bt_clock_class *copy_clock_class(bt_self_component *self_comp,
		const bt_clock_class *upstream)
{
	bt_clock_class *clock = bt_clock_class_create(self_comp);
	int64_t offset_seconds;
	uint64_t offset_cycles;

	if (!clock) {
		return NULL;
	}
	if (bt_clock_class_get_name(upstream) &&
			bt_clock_class_set_name(clock, bt_clock_class_get_name(upstream))) {
		BT_CLOCK_CLASS_PUT_REF_AND_RESET(clock);
		return NULL;
	}
	bt_clock_class_set_frequency(clock, bt_clock_class_get_frequency(upstream));
	bt_clock_class_get_offset(upstream, &offset_seconds, &offset_cycles);
	bt_clock_class_set_offset(clock, offset_seconds, offset_cycles);
	bt_clock_class_set_precision(clock, bt_clock_class_get_precision(upstream));
	bt_clock_class_set_origin_is_unix_epoch(clock,
		bt_clock_class_origin_is_unix_epoch(upstream));
	if (bt_clock_class_get_uuid(upstream)) {
		bt_clock_class_set_uuid(clock, bt_clock_class_get_uuid(upstream));
	}
	return clock;
}

static bool append_member(bt_trace_class *trace_class, bt_field_class *structure,
		const char *name, bool string, bool is_signed, unsigned int bits)
{
	bt_field_class *fc;
	bool ok;

	if (string) {
		fc = bt_field_class_string_create(trace_class);
	} else if (is_signed) {
		fc = bt_field_class_integer_signed_create(trace_class);
	} else {
		fc = bt_field_class_integer_unsigned_create(trace_class);
	}
	if (!fc) {
		return false;
	}
	if (!string) {
		bt_field_class_integer_set_field_value_range(fc, bits);
	}
	ok = bt_field_class_structure_append_member(structure, name, fc) ==
		BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;
	bt_field_class_put_ref(fc);
	return ok;
}

static bool make_event_class(struct span_host *host, enum nctx_op_kind kind)
{
	bt_trace_class *tc = host->trace_class;
	bt_event_class *event_class = bt_event_class_create(host->stream_class);
	bt_field_class *payload = bt_field_class_structure_create(tc);
	bool ok = event_class && payload &&
		bt_event_class_set_name(event_class, span_event_names[kind]) ==
			BT_EVENT_CLASS_SET_NAME_STATUS_OK &&
		append_member(tc, payload, "trace_id_high", false, false, 64) &&
		append_member(tc, payload, "trace_id_low", false, false, 64) &&
		append_member(tc, payload, "span_id", false, false, 64);

	if (ok && kind == NCTX_OP_SPAN_START) {
		ok = append_member(tc, payload, "parent_span_id", false, false, 64) &&
			append_member(tc, payload, "service", true, false, 0) &&
			append_member(tc, payload, "operation", true, false, 0) &&
			append_member(tc, payload, "kind", false, false, 8);
	} else if (ok && kind == NCTX_OP_SPAN_END) {
		ok = append_member(tc, payload, "status", false, false, 8);
	}
	ok = ok && bt_event_class_set_payload_field_class(event_class, payload) ==
		BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(payload);
	host->event_classes[kind] = event_class;
	if (event_class) {
		/* The stream class keeps it alive. */
		bt_event_class_put_ref(event_class);
	}
	return ok;
}

static bool make_host_classes(struct span_output *output, struct span_host *host)
{
	bt_clock_class *clock = copy_clock_class(output->self_comp, host->upstream_clock);
	bt_field_class *context = NULL;
	bool ok = false;
	int kind;

	host->trace_class = bt_trace_class_create(output->self_comp);
	if (!clock || !host->trace_class) {
		goto end;
	}
	host->stream_class = bt_stream_class_create(host->trace_class);
	if (!host->stream_class) {
		goto end;
	}
	bt_stream_class_put_ref(host->stream_class);	/* the trace class keeps it */
	if (bt_stream_class_set_default_clock_class(host->stream_class, clock) !=
			BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK) {
		goto end;
	}
	context = bt_field_class_structure_create(host->trace_class);
	if (!context ||
			!append_member(host->trace_class, context, "vpid", false, true, 64) ||
			!append_member(host->trace_class, context, "vtid", false, true, 64) ||
			!append_member(host->trace_class, context, "procname", true, false, 0) ||
			bt_stream_class_set_event_common_context_field_class(host->stream_class,
				context) != BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK) {
		goto end;
	}
	for (kind = NCTX_OP_SPAN_START; kind <= NCTX_OP_SPAN_DEACTIVATE; kind++) {
		if (!make_event_class(host, kind)) {
			goto end;
		}
	}
	ok = true;
end:
	bt_field_class_put_ref(context);
	bt_clock_class_put_ref(clock);
	return ok;
}

int span_output_host(struct span_output *output, const bt_stream *stream)
{
	const bt_clock_class *clock = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream));
	const bt_value *hostname;
	struct span_host *host;
	guint i;

	if (!clock) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(output->self_comp,
			"%s: vnode events in a stream without a clock: cannot time spans",
			NODEJS_CTX_CLASS);
		return -1;
	}
	for (i = 0; i < output->hosts->len; i++) {
		host = g_ptr_array_index(output->hosts, i);
		if (same_clock(host->upstream_clock, clock)) {
			return (int) i;
		}
	}
	host = g_new0(struct span_host, 1);
	host->upstream_clock = clock;
	bt_clock_class_get_ref(clock);
	hostname = bt_trace_borrow_environment_entry_value_by_name_const(
		bt_stream_borrow_trace_const(stream), "hostname");
	host->hostname = g_strdup(hostname && bt_value_is_string(hostname) ?
		bt_value_string_get(hostname) : "unknown");
	g_ptr_array_add(output->hosts, host);
	if (!make_host_classes(output, host)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(output->self_comp,
			"%s: cannot create the span trace classes of host `%s` (out of memory?)",
			NODEJS_CTX_CLASS, host->hostname);
		return -1;
	}
	return (int) (output->hosts->len - 1);
}

static bool start_stream(struct span_output *output, struct span_host *host)
{
	char *name = g_strdup_printf("nodejs-ctx-%s", host->hostname);
	bool ok;

	host->trace = bt_trace_create(host->trace_class);
	ok = host->trace &&
		bt_trace_set_name(host->trace, name) == BT_TRACE_SET_NAME_STATUS_OK &&
		bt_trace_set_environment_entry_string(host->trace, "hostname",
			host->hostname) == BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(host->trace, "domain", "ust") ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(host->trace, "deepspan_source",
			NODEJS_CTX_CLASS) == BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
	g_free(name);
	if (ok) {
		host->stream = bt_stream_create(host->stream_class, host->trace);
		ok = host->stream != NULL;
	}
	if (!ok) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(output->self_comp,
			"%s: cannot create the span stream of host `%s`", NODEJS_CTX_CLASS,
			host->hostname);
	}
	return ok;
}

static bool set_uint(bt_field *structure, uint64_t index, uint64_t value)
{
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(structure, index), value);
	return true;
}

/* "None" is written DS_SPAN_NONE, never "": empty strings do not survive a save (states.h). */
static bool set_string(bt_field *structure, uint64_t index, const char *value)
{
	return bt_field_string_set_value(
		bt_field_structure_borrow_member_field_by_index(structure, index),
		value && value[0] ? value : DS_SPAN_NONE) == BT_FIELD_STRING_SET_VALUE_STATUS_OK;
}

static bool fill_event(bt_event *event, const struct nctx_op *op)
{
	bt_field *payload = bt_event_borrow_payload_field(event);
	bt_field *context = bt_event_borrow_common_context_field(event);

	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(context, 0), op->vpid);
	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(context, 1), op->vtid);
	if (!set_string(context, 2, op->procname)) {
		return false;
	}
	set_uint(payload, 0, op->trace_id_high);
	set_uint(payload, 1, op->trace_id_low);
	set_uint(payload, 2, op->span_id);
	if (op->kind == NCTX_OP_SPAN_START) {
		set_uint(payload, 3, op->parent_span_id);
		set_uint(payload, 6, (uint64_t) op->span_kind);
		return set_string(payload, 4, op->service) &&
			set_string(payload, 5, op->operation);
	}
	if (op->kind == NCTX_OP_SPAN_END) {
		set_uint(payload, 3, op->status);
	}
	return true;
}

/* The cycle value of `host`'s clock at `ns` from its origin. */
static uint64_t cycles_at(const struct span_host *host, int64_t ns)
{
	const bt_clock_class *clock = host->upstream_clock;
	uint64_t frequency = bt_clock_class_get_frequency(clock);
	int64_t offset_seconds;
	uint64_t offset_cycles;
	__int128 cycles;

	bt_clock_class_get_offset(clock, &offset_seconds, &offset_cycles);
	cycles = ((__int128) ns - (__int128) offset_seconds * 1000000000) *
		(__int128) frequency / 1000000000 - (__int128) offset_cycles;
	return cycles < 0 ? 0 : (uint64_t) cycles;
}

unsigned int span_output_messages(struct span_output *output,
		bt_self_message_iterator *self_msg_iter, const struct nctx_op *op,
		const bt_message **msgs)
{
	struct span_host *host = g_ptr_array_index(output->hosts, op->host);
	uint64_t cycles = op->cycles == NCTX_CYCLES_FROM_TS ? cycles_at(host, op->ts) : op->cycles;
	unsigned int count = 0;
	bt_message *msg;

	if (!host->stream) {
		if (!start_stream(output, host)) {
			goto error;
		}
		msg = bt_message_stream_beginning_create(self_msg_iter, host->stream);
		if (!msg) {
			goto error;
		}
		bt_message_stream_beginning_set_default_clock_snapshot(msg, cycles);
		msgs[count++] = msg;
	}
	msg = bt_message_event_create_with_default_clock_snapshot(self_msg_iter,
		host->event_classes[op->kind], host->stream, cycles);
	if (!msg || !fill_event(bt_message_event_borrow_event(msg), op)) {
		bt_message_put_ref(msg);
		goto error;
	}
	msgs[count++] = msg;
	return count;
error:
	while (count > 0) {
		bt_message_put_ref(msgs[--count]);
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(output->self_comp,
		"%s: cannot create a `%s` message for host `%s`", NODEJS_CTX_CLASS,
		span_event_names[op->kind], host->hostname);
	return 0;
}

unsigned int span_output_end_messages(struct span_output *output,
		bt_self_message_iterator *self_msg_iter, const bt_message **msgs,
		unsigned int capacity)
{
	unsigned int count = 0;
	guint i;

	for (i = 0; i < output->hosts->len && count < capacity; i++) {
		struct span_host *host = g_ptr_array_index(output->hosts, i);
		bt_message *msg;

		if (!host->stream) {
			continue;
		}
		msg = bt_message_stream_end_create(self_msg_iter, host->stream);
		if (!msg) {
			break;
		}
		msgs[count++] = msg;
		BT_STREAM_PUT_REF_AND_RESET(host->stream);
	}
	return count;
}
