/* SPDX-License-Identifier: MIT */
/*
 * The output of filter.deepspan.span-attrib: per host a trace (env domain="deepspan",
 * hostname) with one stream of `deepspan:span` events (doc/span-attrib.md), on a clock class that
 * copies the host's upstream clock.
 */
#include "span-attrib.h"

#include <inttypes.h>
#include <string.h>

/* Payload member indices, in §4 order. */
enum {
	F_TRACE_ID_HIGH, F_TRACE_ID_LOW, F_SPAN_ID, F_PARENT_SPAN_ID,
	F_HOST, F_SERVICE, F_OPERATION, F_PID, F_TID, F_BEGIN, F_END,
	F_USER, F_SYSCALL, F_BLOCKED, F_WAIT_CPU, F_INTERRUPTED, F_UNKNOWN,
	F_SYSCALLS, F_SEGMENTS, F_TRUNCATED,
	F_CHAIN,	/* `chain_packed` or `chain`, only with follow-wakeups (chain-output.c) */
};

/* Layers members (doc/storage-network.md, "Page cache"), after `chain` (or `truncated`), with `layers`. */
static const char *const layer_members[] = { "cache_hits", "cache_misses", "cache_hit_time", "cache_miss_time" };

/* Output member of each state total, in enum ds_state order. */
static const int state_member[DS_STATE_COUNT] = {
	F_USER, F_SYSCALL, F_BLOCKED, F_WAIT_CPU, F_INTERRUPTED, F_UNKNOWN,
};

#define APPEND_CAUSE(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((it)->comp->self_comp, __VA_ARGS__)

void queue_push(struct span_attrib_iterator *it, bt_message *msg)
{
	g_ptr_array_add(it->queue, msg);
}

void output_fini(struct host_output *out)
{
	BT_STREAM_PUT_REF_AND_RESET(out->stream);
	BT_TRACE_PUT_REF_AND_RESET(out->trace);
	BT_EVENT_CLASS_PUT_REF_AND_RESET(out->event_class);
	BT_EVENT_CLASS_PUT_REF_AND_RESET(out->disk_class);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(out->stream_class);
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(out->clock_class);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(out->trace_class);
}

/* Appends member `name` of a new field class `fc` (reference moved into the structure). */
int output_fc_append(bt_field_class *structure, const char *name, bt_field_class *fc)
{
	int ret = -1;

	if (fc && bt_field_class_structure_append_member(structure, name, fc) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
		ret = 0;
	}
	bt_field_class_put_ref(fc);
	return ret;
}

/* An 8-bit unsigned enumeration mapping 0..count-1 to their names. */
bt_field_class *output_enum_create(bt_trace_class *tc, int count, const char *(*name)(unsigned int))
{
	bt_field_class *fc = bt_field_class_enumeration_unsigned_create(tc);
	int state;

	if (!fc) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(fc, 8);
	for (state = 0; state < count; state++) {
		bt_integer_range_set_unsigned *ranges = bt_integer_range_set_unsigned_create();
		bool ok = ranges &&
			bt_integer_range_set_unsigned_add_range(ranges, (uint64_t) state, (uint64_t) state) ==
				BT_INTEGER_RANGE_SET_ADD_RANGE_STATUS_OK &&
			bt_field_class_enumeration_unsigned_add_mapping(fc, name((unsigned int) state), ranges) ==
				BT_FIELD_CLASS_ENUMERATION_ADD_MAPPING_STATUS_OK;

		bt_integer_range_set_unsigned_put_ref(ranges);
		if (!ok) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(fc);
			break;
		}
	}
	return fc;
}

static const char *state_name(unsigned int state)
{
	return ds_state_name((enum ds_state) state);
}

bt_field_class *output_state_enum_create(bt_trace_class *tc)
{
	return output_enum_create(tc, DS_STATE_COUNT, state_name);
}

static bt_field_class *payload_create(bt_trace_class *tc, bool with_chain, enum chain_encoding encoding,
		bool with_layers)
{
	bt_field_class *payload = bt_field_class_structure_create(tc);
	bt_field_class *syscall = bt_field_class_structure_create(tc);
	bt_field_class *segment = bt_field_class_structure_create(tc);
	static const char *const u64_ids[] = { "trace_id_high", "trace_id_low", "span_id", "parent_span_id" };
	static const char *const strings[] = { "host", "service", "operation" };
	static const char *const s64s[] = { "pid", "tid", "begin", "end" };
	int err = !payload || !syscall || !segment;
	size_t i;

	for (i = 0; !err && i < G_N_ELEMENTS(u64_ids); i++) {
		err = output_fc_append(payload, u64_ids[i], bt_field_class_integer_unsigned_create(tc));
	}
	for (i = 0; !err && i < G_N_ELEMENTS(strings); i++) {
		err = output_fc_append(payload, strings[i], bt_field_class_string_create(tc));
	}
	for (i = 0; !err && i < G_N_ELEMENTS(s64s); i++) {
		err = output_fc_append(payload, s64s[i], bt_field_class_integer_signed_create(tc));
	}
	for (i = 0; !err && i < DS_STATE_COUNT; i++) {
		err = output_fc_append(payload, ds_state_name(i), bt_field_class_integer_unsigned_create(tc));
	}
	err = err || output_fc_append(syscall, "name", bt_field_class_string_create(tc)) ||
		output_fc_append(syscall, "count", bt_field_class_integer_unsigned_create(tc)) ||
		output_fc_append(syscall, "duration", bt_field_class_integer_unsigned_create(tc)) ||
		output_fc_append(segment, "begin", bt_field_class_integer_signed_create(tc)) ||
		output_fc_append(segment, "end", bt_field_class_integer_signed_create(tc)) ||
		output_fc_append(segment, "state", output_state_enum_create(tc)) ||
		output_fc_append(segment, "detail", bt_field_class_string_create(tc));
	if (!err) {
		err = output_fc_append(payload, "syscalls", bt_field_class_array_dynamic_create(tc, syscall, NULL)) ||
			output_fc_append(payload, "segments", bt_field_class_array_dynamic_create(tc, segment, NULL)) ||
			/* true: still open at the end of the input, ended at the last event time */
			output_fc_append(payload, "truncated", bt_field_class_bool_create(tc));
	}
	if (!err && with_chain) {
		err = chain_output_append_member(tc, payload, encoding, with_layers);
	}
	for (i = 0; !err && with_layers && i < G_N_ELEMENTS(layer_members); i++) {
		err = output_fc_append(payload, layer_members[i], bt_field_class_integer_unsigned_create(tc));
	}
	bt_field_class_put_ref(syscall);
	bt_field_class_put_ref(segment);
	if (err) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(payload);
	}
	return payload;
}

static bt_clock_class *clock_copy(bt_self_component *self_comp, const bt_clock_class *up)
{
	bt_clock_class *cc = bt_clock_class_create(self_comp);
	int64_t seconds;
	uint64_t cycles;

	if (!cc || !up) {
		return cc;
	}
	if (bt_clock_class_get_name(up) &&
			bt_clock_class_set_name(cc, bt_clock_class_get_name(up)) != BT_CLOCK_CLASS_SET_NAME_STATUS_OK) {
		BT_CLOCK_CLASS_PUT_REF_AND_RESET(cc);
		return NULL;
	}
	if (bt_clock_class_get_description(up) &&
			bt_clock_class_set_description(cc, bt_clock_class_get_description(up)) !=
				BT_CLOCK_CLASS_SET_DESCRIPTION_STATUS_OK) {
		BT_CLOCK_CLASS_PUT_REF_AND_RESET(cc);
		return NULL;
	}
	bt_clock_class_set_frequency(cc, bt_clock_class_get_frequency(up));
	bt_clock_class_get_offset(up, &seconds, &cycles);
	bt_clock_class_set_offset(cc, seconds, cycles);
	bt_clock_class_set_precision(cc, bt_clock_class_get_precision(up));
	bt_clock_class_set_origin_is_unix_epoch(cc, bt_clock_class_origin_is_unix_epoch(up));
	if (bt_clock_class_get_uuid(up)) {
		bt_clock_class_set_uuid(cc, bt_clock_class_get_uuid(up));
	}
	return cc;
}

/* Creates the host's output trace IR (once); every failure is an allocation failure. */
static enum span_attrib_status output_init(struct span_attrib_iterator *it, struct host *host)
{
	bt_self_component *self_comp = it->comp->self_comp;
	struct host_output *out = &host->output;
	bt_field_class *payload = NULL;
	char *trace_name = NULL;
	enum span_attrib_status status = SPAN_ATTRIB_STATUS_MEMORY_ERROR;

	out->trace_class = bt_trace_class_create(self_comp);
	out->clock_class = out->trace_class ? clock_copy(self_comp, host->out_clock.clock_class) : NULL;
	if (!out->clock_class) {
		goto end;
	}
	out->stream_class = bt_stream_class_create(out->trace_class);
	if (!out->stream_class || bt_stream_class_set_name(out->stream_class, "deepspan-spans") ||
			bt_stream_class_set_default_clock_class(out->stream_class, out->clock_class)) {
		goto end;
	}
	out->event_class = bt_event_class_create(out->stream_class);
	payload = out->event_class ? payload_create(out->trace_class, it->chain != NULL,
		it->comp->chain_encoding, it->comp->layers) : NULL;
	if (payload && it->comp->layers &&
			reads_output_append_member(out->trace_class, payload, &out->reads_member)) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(payload);
	}
	if (payload && it->comp->host_context &&
			hc_output_append_members(out->trace_class, payload, &out->hc_member)) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(payload);
	}
	if (!payload || bt_event_class_set_name(out->event_class, "deepspan:span") ||
			bt_event_class_set_payload_field_class(out->event_class, payload)) {
		goto end;
	}
	if (it->comp->layers) {
		bt_field_class *disk = NULL;

		out->disk_class = bt_event_class_create(out->stream_class);
		disk = out->disk_class ? disk_payload_create(out->trace_class) : NULL;
		if (!disk || bt_event_class_set_name(out->disk_class, "deepspan:disk") ||
				bt_event_class_set_payload_field_class(out->disk_class, disk)) {
			bt_field_class_put_ref(disk);
			goto end;
		}
		bt_field_class_put_ref(disk);
	}
	out->trace = bt_trace_create(out->trace_class);
	trace_name = g_strdup_printf("deepspan-%s", host->name);
	if (!out->trace || bt_trace_set_name(out->trace, trace_name) ||
			bt_trace_set_environment_entry_string(out->trace, "domain", "deepspan") ||
			bt_trace_set_environment_entry_string(out->trace, "hostname", host->name)) {
		goto end;
	}
	out->stream = bt_stream_create(out->stream_class, out->trace);
	if (!out->stream) {
		goto end;
	}
	status = SPAN_ATTRIB_STATUS_OK;
end:
	if (status != SPAN_ATTRIB_STATUS_OK) {
		APPEND_CAUSE(it, "Cannot create the deepspan:span output trace of host `%s` (out of memory?).",
			host->name);
	}
	bt_field_class_put_ref(payload);
	g_free(trace_name);
	return status;
}

void output_set_u64(bt_field *structure, int index, uint64_t value)
{
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(structure, (uint64_t) index), value);
}

void output_set_s64(bt_field *structure, int index, int64_t value)
{
	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(structure, (uint64_t) index), value);
}

/* "None" is written DS_SPAN_NONE, never "": empty strings do not survive a save (states.h). */
static int set_string(bt_field *field, const char *value)
{
	return bt_field_string_set_value(field, value && value[0] ? value : DS_SPAN_NONE) ==
		BT_FIELD_STRING_SET_VALUE_STATUS_OK ? 0 : -1;
}

static int fill_syscalls(bt_field *array, const struct sa_span *span)
{
	guint i, j, n = 0;

	if (bt_field_array_dynamic_set_length(array, span->syscalls->len)) {
		return -1;
	}
	for (i = 0; i < span->syscalls->len; i++) {
		const struct sa_syscall_total *t = &g_array_index(span->syscalls, struct sa_syscall_total, i);
		uint64_t count = t->count, duration = t->duration;
		bool seen = false;
		bt_field *elem;

		/* entry and compat entry classes give equal names through distinct pointers: merge */
		for (j = 0; j < i; j++) {
			seen = seen || strcmp(g_array_index(span->syscalls, struct sa_syscall_total, j).name, t->name) == 0;
		}
		for (j = i + 1; !seen && j < span->syscalls->len; j++) {
			const struct sa_syscall_total *u = &g_array_index(span->syscalls, struct sa_syscall_total, j);

			if (strcmp(u->name, t->name) == 0) {
				count += u->count;
				duration += u->duration;
			}
		}
		if (seen) {
			continue;
		}
		elem = bt_field_array_borrow_element_field_by_index(array, n++);
		if (set_string(bt_field_structure_borrow_member_field_by_index(elem, 0), t->name)) {
			return -1;
		}
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(elem, 1), count);
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(elem, 2), duration);
	}
	return n == span->syscalls->len ? 0 : (bt_field_array_dynamic_set_length(array, n) ? -1 : 0);
}

static int fill_segments(bt_field *array, const struct sa_span *span)
{
	guint count = span->segments ? span->segments->len : 0;
	char detail[64];
	const char *text;
	guint i;

	if (bt_field_array_dynamic_set_length(array, count)) {
		return -1;
	}
	for (i = 0; i < count; i++) {
		const struct sa_segment *seg = &g_array_index(span->segments, struct sa_segment, i);
		bt_field *elem = bt_field_array_borrow_element_field_by_index(array, i);

		bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(elem, 0), seg->begin);
		bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(elem, 1), seg->end);
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(elem, 2),
			(uint64_t) seg->state);
		text = ds_detail_text(&seg->detail, detail, sizeof(detail));
		/* Not bt_field_string_clear(): in babeltrace2 2.0.4 it keeps the old bytes of a
		 * recycled event's string readable by bt_field_string_get_value(). */
		if (set_string(bt_field_structure_borrow_member_field_by_index(elem, 3), text)) {
			return -1;
		}
	}
	return 0;
}

static int fill_payload(struct span_attrib_iterator *it, bt_field *payload, const struct host *host,
		const struct sa_span *span)
{
	bool with_chain = it->chain != NULL, with_layers = it->comp->layers;
	int state;

	output_set_u64(payload, F_TRACE_ID_HIGH, span->trace_id_high);
	output_set_u64(payload, F_TRACE_ID_LOW, span->trace_id_low);
	output_set_u64(payload, F_SPAN_ID, span->span_id);
	output_set_u64(payload, F_PARENT_SPAN_ID, span->parent_span_id);
	if (set_string(bt_field_structure_borrow_member_field_by_index(payload, F_HOST), host->name) ||
			set_string(bt_field_structure_borrow_member_field_by_index(payload, F_SERVICE), span->service) ||
			set_string(bt_field_structure_borrow_member_field_by_index(payload, F_OPERATION), span->operation)) {
		return -1;
	}
	output_set_s64(payload, F_PID, span->pid);
	output_set_s64(payload, F_TID, span->tid);
	output_set_s64(payload, F_BEGIN, span->begin);
	output_set_s64(payload, F_END, span->end);
	for (state = 0; state < DS_STATE_COUNT; state++) {
		output_set_u64(payload, state_member[state], span->states[state]);
	}
	bt_field_bool_set_value(bt_field_structure_borrow_member_field_by_index(payload, F_TRUNCATED),
		span->truncated ? BT_TRUE : BT_FALSE);
	if (fill_syscalls(bt_field_structure_borrow_member_field_by_index(payload, F_SYSCALLS), span) ||
			fill_segments(bt_field_structure_borrow_member_field_by_index(payload, F_SEGMENTS), span)) {
		return -1;
	}
	if (with_chain && chain_output_fill(bt_field_structure_borrow_member_field_by_index(payload, F_CHAIN),
			&it->packer, span, it->comp->chain_encoding, with_layers)) {
		return -1;
	}
	if (with_layers) {
		int first = with_chain ? F_CHAIN + 1 : F_CHAIN;

		output_set_u64(payload, first, span->cache_hits);
		output_set_u64(payload, first + 1, span->cache_misses);
		output_set_u64(payload, first + 2, span->cache_hit_time);
		output_set_u64(payload, first + 3, span->cache_miss_time);
	}
	return 0;
}

/* The fill_*() and message creation functions fail only when memory runs out. */
enum span_attrib_status output_emit_span(struct span_attrib_iterator *it, struct host *host,
		const struct sa_span *span, uint64_t end_cycles)
{
	struct host_output *out = &host->output;
	bt_message *msg = NULL;
	enum span_attrib_status status = SPAN_ATTRIB_STATUS_MEMORY_ERROR;

	if (!out->stream) {
		status = output_init(it, host);
		if (status != SPAN_ATTRIB_STATUS_OK) {
			goto end;
		}
		status = SPAN_ATTRIB_STATUS_MEMORY_ERROR;
	}
	if (!out->begun) {
		msg = bt_message_stream_beginning_create(it->self_msg_iter, out->stream);
		if (!msg) {
			goto error;
		}
		queue_push(it, msg);
		out->begun = true;
	}
	msg = bt_message_event_create_with_default_clock_snapshot(it->self_msg_iter,
		out->event_class, out->stream, end_cycles);
	if (!msg) {
		goto error;
	}
	if (fill_payload(it, bt_event_borrow_payload_field(bt_message_event_borrow_event(msg)), host, span) ||
			(it->comp->host_context && hc_output_fill(bt_event_borrow_payload_field(
				bt_message_event_borrow_event(msg)), out->hc_member, host, span)) ||
			(it->comp->layers && reads_output_fill(bt_event_borrow_payload_field(
				bt_message_event_borrow_event(msg)), out->reads_member, span))) {
		BT_MESSAGE_PUT_REF_AND_RESET(msg);
		goto error;
	}
	queue_push(it, msg);
	host->spans_emitted++;
	status = SPAN_ATTRIB_STATUS_OK;
	goto end;
error:
	APPEND_CAUSE(it, "Cannot create the deepspan:span message of span %" PRIu64 " (host `%s`): out of memory.",
		span->span_id, host->name);
end:
	return status;
}

/* Layers: the host's deepspan:disk events at the latest time seen (its stream begun if needed). */
static enum span_attrib_status output_disk(struct span_attrib_iterator *it, struct host *host)
{
	enum span_attrib_status status = SPAN_ATTRIB_STATUS_OK;
	bt_message *msg;

	if (!host->out_clock.clock_class) {
		host->out_clock = host->kernel_clock;
	}
	if (!host->output.stream) {
		status = output_init(it, host);
		if (status != SPAN_ATTRIB_STATUS_OK) {
			return status;
		}
	}
	if (!host->output.begun) {
		msg = bt_message_stream_beginning_create(it->self_msg_iter, host->output.stream);
		if (!msg) {
			APPEND_CAUSE(it, "Cannot create the stream beginning message of host `%s`: out of memory.",
				host->name);
			return SPAN_ATTRIB_STATUS_MEMORY_ERROR;
		}
		queue_push(it, msg);
		host->output.begun = true;
	}
	return disk_output_emit(it, host, clock_map_cycles(&host->out_clock, it->last_ns));
}

enum span_attrib_status output_end_streams(struct span_attrib_iterator *it)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, it->hosts);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct host *host = value;
		bt_message *msg;

		if (disk_output_wanted(it, host)) {
			enum span_attrib_status status = output_disk(it, host);

			if (status != SPAN_ATTRIB_STATUS_OK) {
				return status;
			}
		}
		if (!host->output.begun) {
			continue;
		}
		msg = bt_message_stream_end_create(it->self_msg_iter, host->output.stream);
		if (!msg) {
			APPEND_CAUSE(it, "Cannot create the stream end message of host `%s`: out of memory.",
				host->name);
			return SPAN_ATTRIB_STATUS_MEMORY_ERROR;
		}
		queue_push(it, msg);
		host->output.begun = false;
	}
	return SPAN_ATTRIB_STATUS_OK;
}
