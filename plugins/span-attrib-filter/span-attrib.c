/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.span-attrib: component and message iterator (doc/span-attrib.md).
 * Passes every upstream message through and adds one deepspan:span event per finished span.
 */
#include "span-attrib.h"
#include "component.h"
#include "input-ports.h"
#include "log.h"
#include "params.h"

#include <inttypes.h>
#include <stdio.h>

#define APPEND_CAUSE(self_comp, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((self_comp), __VA_ARGS__)

static const char *const known_params[] = {
	"pass-through", "segments", "state-rule", "follow-wakeups", "chain-depth", "chain-window", "chain-encoding",
	"layers",
	"host-context", "cross-host-file", "end-time", "clock-formula", NULL,
};
static const char *const state_rules[] = { "default", "tracecompass", NULL };
/* In enum chain_encoding order. */
static const char *const chain_encodings[] = { "packed", "fields", NULL };

static int parse_params(struct span_attrib_component *comp, const bt_value *params)
{
	struct ds_params p = ds_params_make(comp->self_comp, params, SPAN_ATTRIB_CLASS_NAME);
	unsigned int rule = 0, encoding = 0;
	uint64_t depth = 8;
	const char *cross_host_file = NULL, *clock_formula = NULL;

	if (ds_params_check_names(&p, known_params) ||
			ds_params_get_bool(&p, "pass-through", true, &comp->pass_through) ||
			ds_params_get_bool(&p, "segments", true, &comp->segments) ||
			ds_params_get_choice(&p, "state-rule", state_rules, 0, &rule) ||
			ds_params_get_bool(&p, "follow-wakeups", comp->segments, &comp->follow_wakeups) ||
			ds_params_get_uint(&p, "chain-depth", 8, 1, DS_CHAIN_MAX_DEPTH, &depth) ||
			ds_params_get_duration(&p, "chain-window", 2000000000, &comp->chain_window) ||
			ds_params_get_choice(&p, "chain-encoding", chain_encodings, 0, &encoding) ||
			ds_params_get_bool(&p, "layers", true, &comp->layers) ||
			ds_params_get_bool(&p, "host-context", true, &comp->host_context) ||
			ds_params_get_string(&p, "cross-host-file", NULL, &cross_host_file) ||
			ds_params_get_int(&p, "end-time", INT64_MIN, INT64_MIN, INT64_MAX, &comp->end_time) ||
			ds_params_get_string(&p, "clock-formula", NULL, &clock_formula) ||
			(clock_formula && clock_fit_load(comp, clock_formula) != SPAN_ATTRIB_STATUS_OK)) {
		return -1;
	}
	if (cross_host_file && !cross_host_file[0]) {
		/* said now, not after the whole input was read (the record is written at the end) */
		APPEND_CAUSE(comp->self_comp, "%s: parameter `cross-host-file`: expected the path of a file to write, "
			"got an empty string; give a writable path or leave the parameter out (doc/span-attrib.md, "
			"\"Parameters\").", SPAN_ATTRIB_CLASS_NAME);
		return -1;
	}
	comp->cross_host_file = cross_host_file ? g_strdup(cross_host_file) : NULL;
	comp->state_rule = rule == 1 ? DS_STATE_RULE_TRACECOMPASS : DS_STATE_RULE_DEFAULT;
	comp->chain_depth = (unsigned int) depth;
	comp->chain_encoding = (enum chain_encoding) encoding;
	if (comp->follow_wakeups && !comp->segments) {
		APPEND_CAUSE(comp->self_comp, "%s: parameter `follow-wakeups`: expected false (or absent) when `segments` "
			"is false, got true: chains explain the waited segments, so they need `segments=true` "
			"(doc/critical-path.md, \"Parameters\").", SPAN_ATTRIB_CLASS_NAME);
		return -1;
	}
	if (comp->chain_window == 0) {
		APPEND_CAUSE(comp->self_comp, "%s: parameter `chain-window`: expected a duration above 0 "
			"(such as \"2s\" or \"500ms\"), got 0: the history behind the stream time would be empty "
			"(doc/critical-path.md, \"Parameters\").", SPAN_ATTRIB_CLASS_NAME);
		return -1;
	}
	return 0;
}

bt_component_class_initialize_method_status span_attrib_component_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_method_data)
{
	bt_self_component *self_comp = bt_self_component_filter_as_self_component(self_comp_filter);
	bt_component_class_initialize_method_status status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct span_attrib_component *comp = g_new0(struct span_attrib_component, 1);

	(void) config;
	(void) init_method_data;
	comp->self_comp = self_comp;
	if (parse_params(comp, params)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	switch (ds_input_ports_add_next(self_comp_filter, SPAN_ATTRIB_CLASS_NAME)) {
	case DS_INPUT_PORTS_STATUS_OK:
		break;
	case DS_INPUT_PORTS_STATUS_MEMORY_ERROR:
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto error;
	default:
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	if (bt_self_component_filter_add_output_port(self_comp_filter, "out", NULL, NULL) !=
			BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		APPEND_CAUSE(self_comp, "Cannot add the ports of %s.", SPAN_ATTRIB_CLASS_NAME);
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	bt_self_component_set_data(self_comp, comp);
	goto end;
error:
	g_free(comp->cross_host_file);
	clock_fit_free(comp);
	g_free(comp);
end:
	return status;
}

void span_attrib_component_finalize(bt_self_component_filter *self_comp_filter)
{
	struct span_attrib_component *comp =
		bt_self_component_get_data(bt_self_component_filter_as_self_component(self_comp_filter));

	if (comp) {
		g_free(comp->cross_host_file);
		clock_fit_free(comp);
	}
	g_free(comp);
}

/* "N discarded-WHAT message(s) (M WHAT lost): …", the lost count only when known (non-zero). */
static void report_discarded(bt_self_component *sc, const char *what, uint64_t messages, uint64_t lost)
{
	char lost_text[64] = "";

	if (!messages) {
		return;
	}
	if (lost) {
		snprintf(lost_text, sizeof(lost_text), " (%" PRIu64 " %s lost)", lost, what);
	}
	DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " discarded-%s message(s)%s: "
		"threads of the host were Unknown until their next defining event.", messages, what, lost_text);
}

static void report_warnings(struct span_attrib_iterator *it)
{
	const struct span_attrib_counters *c = &it->counters;
	bt_self_component *sc = it->comp->self_comp;
	GHashTableIter iter;
	gpointer value;

	if (c->unmatched_ends) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " span end event(s) without a matching start were ignored.",
			c->unmatched_ends);
	}
	if (c->unmatched_activations) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " span_activate/span_deactivate event(s) of unknown or "
			"finished spans were ignored.", c->unmatched_activations);
	}
	if (c->duplicate_starts) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " duplicate span start event(s) were ignored "
			"(the first start of each span is kept).", c->duplicate_starts);
	}
	if (c->truncated_spans) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " span(s) still open at the end of the input were "
			"emitted truncated at the last event time.", c->truncated_spans);
	}
	if (c->spans_without_thread) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " span(s) had no vtid context (lttng add-context -u -t vtid): "
			"their time is Unknown.", c->spans_without_thread);
	}
	if (c->spans_invalid_vtid) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " span(s) had a negative (invalid) vtid context value: "
			"their thread is unknown and their time is Unknown.", c->spans_invalid_vtid);
	}
	if (c->out_of_order) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " event(s) were out of time order within their host; "
			"they were applied at the host's latest time.", c->out_of_order);
	}
	if (it->chain && it->chain->counters.deadlocks) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " chain entr(ies) end in a deadlock; the first: %s "
			"(doc/critical-path.md, \"Deadlocks\").", it->chain->counters.deadlocks,
			it->chain->counters.first_deadlock);
	}
	if (it->chain && it->chain->counters.in_flight_clipped) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " TCP segment(s) were received before they were sent "
			"on the hosts' clocks: their in-flight time was clipped to 0 (synchronize the hosts with "
			"filter.deepspan.sync, doc/critical-path.md, \"Across hosts\").", it->chain->counters.in_flight_clipped);
	}
	ds_chain_net_report(sc, it->chain);
	if (it->chain && it->chain->counters.history_expired) {
		DS_LOG_INFO(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " chain entr(ies) are `unknown: history expired` "
			"(raise chain-window to keep more history, doc/critical-path.md).", it->chain->counters.history_expired);
	}
	report_discarded(sc, "events", c->discarded_messages, c->discarded_events);
	report_discarded(sc, "packets", c->discarded_packet_messages, c->discarded_packets);
	g_hash_table_iter_init(&iter, it->hosts);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct host *host = value;

		DS_LOG_INFO(sc, SPAN_ATTRIB_CLASS_NAME, "host `%s`: %" PRIu64 " span(s) emitted, %u thread(s) tracked at the end.",
			host->name, host->spans_emitted, ds_model_thread_count(host->model));
		if (host->has_spans && !host->has_kernel) {
			DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "host `%s` has spans but no kernel trace: "
				"its %" PRIu64 " span(s) are all Unknown.", host->name, host->spans_emitted);
		}
	}
}

static void iterator_destroy(struct span_attrib_iterator *it)
{
	guint i;

	if (!it) {
		return;
	}
	if (it->queue) {
		for (i = it->queue_head; i < it->queue->len; i++) {
			bt_message_put_ref(g_ptr_array_index(it->queue, i));
		}
		g_ptr_array_free(it->queue, TRUE);
	}
	if (it->streams) {
		g_hash_table_destroy(it->streams);
	}
	if (it->hosts) {
		g_hash_table_destroy(it->hosts);
	}
	ds_chain_ctx_destroy(it->chain);
	chain_packer_fini(&it->packer);
	if (it->trace_classes) {
		span_attrib_forget_trace_classes(it);
		g_hash_table_destroy(it->trace_classes);
	}
	if (it->roles) {
		g_hash_table_destroy(it->roles);
	}
	ds_span_events_destroy(it->span_events);
	ds_kernel_events_destroy(it->kernel_events);
	inputs_fini(it);
	g_free(it);
}

bt_message_iterator_class_initialize_method_status span_attrib_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	bt_self_component *self_comp = bt_self_message_iterator_borrow_component(self_msg_iter);
	struct span_attrib_iterator *it = g_new0(struct span_attrib_iterator, 1);
	bt_message_iterator_class_initialize_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

	(void) port;
	it->comp = bt_self_component_get_data(self_comp);
	it->self_msg_iter = self_msg_iter;
	it->owner = (struct ds_upstream_owner) { .self_msg_iter = self_msg_iter,
		.class_name = SPAN_ATTRIB_CLASS_NAME, .doc_page = "doc/span-attrib.md" };
	it->kernel_events = ds_kernel_events_create();
	it->span_events = ds_span_events_create();
	it->roles = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	it->trace_classes = g_hash_table_new(g_direct_hash, g_direct_equal);
	it->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, stream_info_destroy);
	it->hosts = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, host_destroy);
	it->queue = g_ptr_array_sized_new(64);
	it->last_ns = INT64_MIN;
	if (it->comp->follow_wakeups) {
		it->chain = ds_chain_ctx_create(it->comp->chain_depth, it->comp->chain_window);
		chain_packer_init(&it->packer);
	}
	span_attrib_cross_host_init(it);
	if (inputs_init(it, (bt_self_component_filter *) self_comp)) {
		status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	bt_self_message_iterator_configuration_set_can_seek_forward(config, false);
	bt_self_message_iterator_set_data(self_msg_iter, it);
	goto end;
error:
	iterator_destroy(it);
end:
	return status;
}

void span_attrib_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	struct span_attrib_iterator *it = bt_self_message_iterator_get_data(self_msg_iter);

	if (it) {
		report_warnings(it);
		span_attrib_report_families(it);
	}
	iterator_destroy(it);
}

#define PULL_BATCH 64

/* The next method's status for a failed step (MEMORY_ERROR kept). */
static bt_message_iterator_class_next_method_status next_status_of(enum span_attrib_status status)
{
	return status == SPAN_ATTRIB_STATUS_MEMORY_ERROR ?
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR :
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

/* Reads up to PULL_BATCH upstream messages into the queue; returns the upstream status. */
static bt_message_iterator_class_next_method_status pull_upstream(struct span_attrib_iterator *it)
{
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	unsigned int n;

	for (n = 0; n < PULL_BATCH; n++) {
		const bt_message *msg;
		enum span_attrib_status handled;
		guint queued;

		status = inputs_next(it, &msg);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
			it->upstream_ended = true;
			status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
			break;
		}
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN && n > 0) {
				status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
			}
			break;
		}
		if (it->comp->pass_through) {
			/* Upstream message first: the span it ends is emitted right after it. */
			queue_push(it, (bt_message *) msg);
			queued = it->queue->len;
			handled = span_attrib_handle_message(it, msg);
		} else {
			queued = it->queue->len;
			handled = span_attrib_handle_message(it, msg);
			bt_message_put_ref(msg);
		}
		if (handled == SPAN_ATTRIB_STATUS_OK) {
			handled = span_attrib_cross_host_check(it);
		}
		if (handled != SPAN_ATTRIB_STATUS_OK) {
			status = next_status_of(handled);
			break;
		}
		if (it->queue->len > queued) {
			/*
			 * A span was emitted: return it now.  Few span messages are then alive at once,
			 * so babeltrace2's event pool stays small: each pooled event keeps the field
			 * objects of the largest chain it carried (doc/performance.md, "Chains").
			 */
			break;
		}
	}
	return status;
}

bt_message_iterator_class_next_method_status span_attrib_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct span_attrib_iterator *it = bt_self_message_iterator_get_data(self_msg_iter);
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	uint64_t n = 0;

	while (it->queue_head == it->queue->len && !it->flushed) {
		if (it->upstream_ended) {
			enum span_attrib_status flushed;

			it->flushed = true;
			flushed = span_attrib_cross_host_flush(it);
			if (flushed == SPAN_ATTRIB_STATUS_OK) {
				flushed = span_attrib_flush(it);
			}
			if (flushed == SPAN_ATTRIB_STATUS_OK) {
				flushed = span_attrib_cross_host_end(it);
			}
			if (flushed != SPAN_ATTRIB_STATUS_OK) {
				status = next_status_of(flushed);
				goto end;
			}
			break;
		}
		status = pull_upstream(it);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR ||
					status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR) {
				APPEND_CAUSE(it->comp->self_comp, "%s failed while reading its input.", SPAN_ATTRIB_CLASS_NAME);
			}
			goto end;
		}
	}
	while (n < capacity && it->queue_head < it->queue->len) {
		msgs[n++] = g_ptr_array_index(it->queue, it->queue_head++);
	}
	if (it->queue_head == it->queue->len) {
		g_ptr_array_set_size(it->queue, 0);
		it->queue_head = 0;
	}
	if (n == 0) {
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	*count = n;
end:
	return status;
}
