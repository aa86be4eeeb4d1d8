/* SPDX-License-Identifier: MIT */
/*
 * The `deepspan:disk` events of filter.deepspan.span-attrib (layers, doc/storage-network.md, "Storage"):
 * at the end of the input, per host, one event per device and submitter with the totals of the block
 * requests completed in the trace (sink.deepspan.metrics by="disk" reads them).
 */
#include "span-attrib.h"
#include "thread-state.h"

#include <inttypes.h>
#include <string.h>

enum {
	D_HOST, D_DEVICE, D_DEV, D_SUBMITTER, D_TID, D_REQUESTS, D_WRITES, D_BYTES, D_QUEUE, D_DEVICE_TIME,
};

bt_field_class *disk_payload_create(bt_trace_class *tc)
{
	static const char *const strings[] = { "host", "device" };
	static const char *const counts[] = { "requests", "writes", "bytes", "queue", "device_time" };
	bt_field_class *payload = bt_field_class_structure_create(tc);
	size_t i;
	int err = !payload;

#define APPEND(name, fc) do {									\
		bt_field_class *fc_ = (fc);							\
		err = err || !fc_ || bt_field_class_structure_append_member(payload, (name), fc_) !=	\
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;			\
		bt_field_class_put_ref(fc_);							\
	} while (0)
	for (i = 0; !err && i < G_N_ELEMENTS(strings); i++) {
		APPEND(strings[i], bt_field_class_string_create(tc));
	}
	if (!err) {
		APPEND("dev", bt_field_class_integer_unsigned_create(tc));
		APPEND("submitter", bt_field_class_string_create(tc));
		APPEND("tid", bt_field_class_integer_signed_create(tc));
	}
	for (i = 0; !err && i < G_N_ELEMENTS(counts); i++) {
		APPEND(counts[i], bt_field_class_integer_unsigned_create(tc));
	}
#undef APPEND
	if (err) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(payload);
	}
	return payload;
}

struct emit_ctx {
	struct span_attrib_iterator *it;
	struct host *host;
	uint64_t cycles;
	enum span_attrib_status status;
};

static bool set_string(bt_field *payload, int index, const char *value)
{
	return bt_field_string_set_value(bt_field_structure_borrow_member_field_by_index(payload, index),
		value && value[0] ? value : "-") == BT_FIELD_STRING_SET_VALUE_STATUS_OK;
}

static void emit_total(const struct ds_block_total *t, void *data)
{
	struct emit_ctx *ctx = data;
	struct host_output *out = &ctx->host->output;
	bt_message *msg;
	bt_field *payload;
	char device[64];

	if (ctx->status != SPAN_ATTRIB_STATUS_OK) {
		return;
	}
	msg = bt_message_event_create_with_default_clock_snapshot(ctx->it->self_msg_iter, out->disk_class,
		out->stream, ctx->cycles);
	if (!msg) {
		ctx->status = SPAN_ATTRIB_STATUS_MEMORY_ERROR;
		return;
	}
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	ds_block_device_label(ds_model_block(ctx->host->model), t->dev, device, sizeof(device));
	if (!set_string(payload, D_HOST, ctx->host->name) || !set_string(payload, D_DEVICE, device) ||
			!set_string(payload, D_SUBMITTER, t->comm)) {
		BT_MESSAGE_PUT_REF_AND_RESET(msg);
		ctx->status = SPAN_ATTRIB_STATUS_MEMORY_ERROR;
		return;
	}
	output_set_u64(payload, D_DEV, t->dev);
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(payload, D_TID), t->tid);
	output_set_u64(payload, D_REQUESTS, t->requests);
	output_set_u64(payload, D_WRITES, t->writes);
	output_set_u64(payload, D_BYTES, t->bytes);
	output_set_u64(payload, D_QUEUE, t->queue);
	output_set_u64(payload, D_DEVICE_TIME, t->device);
	queue_push(ctx->it, msg);
}

enum span_attrib_status disk_output_emit(struct span_attrib_iterator *it, struct host *host, uint64_t cycles)
{
	struct emit_ctx ctx = { it, host, cycles, SPAN_ATTRIB_STATUS_OK };

	ds_block_foreach_total(ds_model_block(host->model), emit_total, &ctx);
	if (ctx.status != SPAN_ATTRIB_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(it->comp->self_comp,
			"Cannot create the deepspan:disk messages of host `%s`: out of memory.", host->name);
	}
	return ctx.status;
}

/* Whether the host has any block total to emit. */
static void any_total(const struct ds_block_total *t, void *data)
{
	(void) t;
	*(bool *) data = true;
}

bool disk_output_wanted(struct span_attrib_iterator *it, struct host *host)
{
	bool any = false;

	if (it->comp->layers && ds_model_block(host->model)) {
		ds_block_foreach_total(ds_model_block(host->model), any_total, &any);
	}
	return any;
}
