/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.nodejs-ctx: Node.js requests as spans (doc/nodejs.md).
 *
 * Every upstream message goes through a time-ordered queue.  `vnode` events
 * feed the context engine (ctx.c), whose span operations become
 * `deepspan_ust:span_*` messages inserted into the queue at their own time
 * (span-output.c).  Messages leave the queue once older than the engine's
 * horizon: only a server request waiting for its caller's port holds
 * messages back, so with no vnode events the filter is a plain pass-through.
 */
#include "component.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "json-writer.h"
#include "log.h"
#include "params.h"
#include "span-output.h"
#include "upstream.h"
#include "vnode-input.h"

#define NODEJS_CTX_CLASS "filter.deepspan.nodejs-ctx"
#define DEFAULT_TRACE_ID_HIGH UINT64_C(0x6e6f64656a73)	/* "nodejs" */

struct nodejs_ctx_comp {
	bt_self_component *self_comp;	/* borrowed */
	struct nctx_config config;
	char *stats_path;		/* owned; NULL: no statistics file */
};

struct queued_msg {
	const bt_message *msg;		/* owned reference */
	int64_t ts;			/* ns from origin (the previous one when unknown) */
};

struct nodejs_ctx_iter {
	struct nodejs_ctx_comp *comp;		/* borrowed */
	bt_self_message_iterator *self_msg_iter;	/* borrowed */
	struct ds_upstream_owner owner;		/* names it in upstream.h's causes */
	bt_message_iterator *upstream;		/* owned */
	struct nctx_engine *engine;		/* owned */
	struct vnode_classes classes;		/* owned contents */
	struct span_output output;		/* owned contents */
	GArray *queue;				/* owned; struct queued_msg from `head` on */
	guint head;
	int64_t last_ts;
	int64_t released_ts;			/* time of the youngest message sent downstream */
	uint64_t late_ops;			/* span messages moved up to released_ts */
	bool upstream_ended;
	bool finished;
	bool emit_failed;
};

static const char *const nodejs_ctx_param_names[] = {
	"match-window", "activations", "busy-spans", "busy-min", "trace-id-high", "stats", NULL,
};

bt_component_class_initialize_method_status nodejs_ctx_component_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *configuration,
		const bt_value *params, void *init_method_data)
{
	bt_self_component *self_comp =
		bt_self_component_filter_as_self_component(self_comp_filter);
	struct nodejs_ctx_comp *comp = g_new0(struct nodejs_ctx_comp, 1);
	struct ds_params p = ds_params_make(self_comp, params, NODEJS_CTX_CLASS);
	bt_component_class_initialize_method_status status =
		BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	bt_self_component_add_port_status port_status;
	const char *stats_path = NULL;

	(void) configuration;
	(void) init_method_data;
	comp->self_comp = self_comp;
	if (ds_params_check_names(&p, nodejs_ctx_param_names) ||
			ds_params_get_duration(&p, "match-window", 10000000000LL,
				&comp->config.match_window_ns) ||
			ds_params_get_bool(&p, "activations", true, &comp->config.activations) ||
			ds_params_get_bool(&p, "busy-spans", true, &comp->config.busy_spans) ||
			ds_params_get_duration(&p, "busy-min", 50000, &comp->config.busy_min_ns) ||
			ds_params_get_uint(&p, "trace-id-high", DEFAULT_TRACE_ID_HIGH, 0,
				UINT64_MAX, &comp->config.trace_id_high) ||
			ds_params_get_string(&p, "stats", NULL, &stats_path)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	if (stats_path && !stats_path[0]) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `stats`: expected the path of the statistics file to write, "
			"got an empty string (leave `stats` out for no file).", NODEJS_CTX_CLASS);
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	comp->stats_path = g_strdup(stats_path);
	port_status = bt_self_component_filter_add_input_port(self_comp_filter, "in", NULL, NULL);
	if (port_status == BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		port_status = bt_self_component_filter_add_output_port(self_comp_filter, "out", NULL,
			NULL);
	}
	if (port_status != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: cannot add the ports `in` and `out`.", NODEJS_CTX_CLASS);
		status = port_status == BT_SELF_COMPONENT_ADD_PORT_STATUS_MEMORY_ERROR ?
			BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
			BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	bt_self_component_set_data(self_comp, comp);
	goto end;
error:
	g_free(comp->stats_path);
	g_free(comp);
end:
	return status;
}

void nodejs_ctx_component_finalize(bt_self_component_filter *self_comp_filter)
{
	struct nodejs_ctx_comp *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self_comp_filter));

	if (comp) {
		g_free(comp->stats_path);
		g_free(comp);
	}
}

/* Inserts `msg` (owned) after every queued message not younger than `ts`. */
static void queue_insert(struct nodejs_ctx_iter *iter, const bt_message *msg, int64_t ts)
{
	struct queued_msg entry = { .msg = msg, .ts = ts };
	guint pos = iter->queue->len;

	while (pos > iter->head &&
			g_array_index(iter->queue, struct queued_msg, pos - 1).ts > ts) {
		pos--;
	}
	g_array_insert_val(iter->queue, pos, entry);
}

/* The engine's output: new span messages, queued at their own time. */
static void emit_op(const struct nctx_op *op, void *user)
{
	struct nodejs_ctx_iter *iter = user;
	const bt_message *msgs[2];
	struct nctx_op in_order;
	unsigned int count, i;

	if (iter->emit_failed) {
		return;
	}
	if (op->ts < iter->released_ts) {
		/* Older than what already went downstream: keep the output in time order, and count it. */
		in_order = *op;
		in_order.ts = iter->released_ts;
		in_order.cycles = NCTX_CYCLES_FROM_TS;
		op = &in_order;
		iter->late_ops++;
	}
	count = span_output_messages(&iter->output, iter->self_msg_iter, op, msgs);
	if (count == 0) {
		iter->emit_failed = true;
		return;
	}
	for (i = 0; i < count; i++) {
		queue_insert(iter, msgs[i], op->ts);
	}
}

bt_message_iterator_class_initialize_method_status nodejs_ctx_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *configuration,
		bt_self_component_port_output *self_port)
{
	bt_self_component *self_comp = bt_self_message_iterator_borrow_component(self_msg_iter);
	struct nodejs_ctx_comp *comp = bt_self_component_get_data(self_comp);
	struct nodejs_ctx_iter *iter = g_new0(struct nodejs_ctx_iter, 1);
	bt_self_component_port_input *in_port = bt_self_component_filter_borrow_input_port_by_name(
		(bt_self_component_filter *) self_comp, "in");
	bt_message_iterator_create_from_message_iterator_status create_status;

	(void) configuration;
	(void) self_port;
	iter->comp = comp;
	iter->self_msg_iter = self_msg_iter;
	iter->owner = (struct ds_upstream_owner) { .self_msg_iter = self_msg_iter,
		.class_name = NODEJS_CTX_CLASS, .doc_page = "doc/nodejs.md" };
	create_status = bt_message_iterator_create_from_message_iterator(self_msg_iter, in_port,
		&iter->upstream);
	if (create_status != BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: cannot create the upstream message iterator of port `in`",
			NODEJS_CTX_CLASS);
		g_free(iter);
		return create_status == BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_MEMORY_ERROR ?
			BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
			BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	iter->engine = nctx_engine_create(&comp->config, emit_op, iter);
	vnode_classes_init(&iter->classes);
	span_output_init(&iter->output, self_comp);
	iter->queue = g_array_sized_new(FALSE, FALSE, sizeof(struct queued_msg), 64);
	iter->last_ts = INT64_MIN;
	iter->released_ts = INT64_MIN;
	bt_self_message_iterator_set_data(self_msg_iter, iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void nodejs_ctx_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	struct nodejs_ctx_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);
	guint i;

	if (!iter) {
		return;
	}
	for (i = iter->head; i < iter->queue->len; i++) {
		bt_message_put_ref(g_array_index(iter->queue, struct queued_msg, i).msg);
	}
	g_array_free(iter->queue, TRUE);
	nctx_engine_destroy(iter->engine);
	vnode_classes_fini(&iter->classes);
	span_output_fini(&iter->output);
	BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(iter->upstream);
	g_free(iter);
}

/* Feeds one vnode event to the engine. */
static bool handle_vnode(struct nodejs_ctx_iter *iter, const bt_message *msg,
		struct vnode_class *info, const bt_clock_snapshot *snapshot, int64_t ts)
{
	bt_self_component *self_comp = iter->comp->self_comp;
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct vnode_event decoded;

	if (!snapshot) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: `%s` event without a clock snapshot", NODEJS_CTX_CLASS,
			bt_event_class_get_name(bt_event_borrow_class_const(event)));
		return false;
	}
	if (info->host < 0) {
		info->host = span_output_host(&iter->output, bt_event_borrow_stream_const(event));
		if (info->host < 0) {
			return false;
		}
	}
	if (!vnode_decode(info, event, &decoded, self_comp)) {
		return false;
	}
	decoded.origin.host = (uint32_t) info->host;
	decoded.origin.ts = ts;
	decoded.origin.cycles = bt_clock_snapshot_get_value(snapshot);
	switch (info->kind) {
	case VNODE_ASYNC_CONTEXT:
		nctx_async_context(iter->engine, &decoded.origin, decoded.phase, decoded.id,
			decoded.ctx_id, decoded.type);
		break;
	case VNODE_SERVER_REQUEST:
	case VNODE_CLIENT_REQUEST:
		nctx_http_request(iter->engine, &decoded.origin,
			info->kind == VNODE_CLIENT_REQUEST, &decoded.http);
		break;
	case VNODE_SERVER_RESPONSE:
	case VNODE_CLIENT_RESPONSE:
		nctx_http_response(iter->engine, &decoded.origin,
			info->kind == VNODE_CLIENT_RESPONSE, &decoded.http);
		break;
	case VNODE_NONE:
		break;
	}
	return !iter->emit_failed;
}

/* Queues one upstream message (reference moved) and feeds it to the engine. */
static bool handle_message(struct nodejs_ctx_iter *iter, const bt_message *msg)
{
	const bt_clock_snapshot *snapshot;
	struct vnode_class *info = NULL;
	int64_t ts = iter->last_ts;

	if (ds_message_time_ns(&iter->owner, msg, &ts, &snapshot) == DS_MESSAGE_TIME_STATUS_ERROR) {
		bt_message_put_ref(msg);
		return false;
	}
	if (ts < iter->last_ts) {
		ts = iter->last_ts;
	}
	iter->last_ts = ts;
	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT) {
		info = vnode_classify(&iter->classes, bt_event_borrow_class_const(
			bt_message_event_borrow_event_const(msg)), iter->comp->self_comp);
		if (!info) {
			bt_message_put_ref(msg);
			return false;
		}
	}
	g_array_append_vals(iter->queue, &(struct queued_msg) { .msg = msg, .ts = ts }, 1);
	if (info && info->kind != VNODE_NONE && !handle_vnode(iter, msg, info, snapshot, ts)) {
		return false;
	}
	nctx_engine_advance(iter->engine, ts);
	return true;
}

/* Moves the releasable queued messages (older than the horizon) to `msgs`. */
static uint64_t release(struct nodejs_ctx_iter *iter, bt_message_array_const msgs,
		uint64_t capacity)
{
	int64_t horizon = iter->finished ? INT64_MAX : nctx_engine_horizon(iter->engine);
	uint64_t count = 0;

	while (count < capacity && iter->head < iter->queue->len) {
		const struct queued_msg *entry =
			&g_array_index(iter->queue, struct queued_msg, iter->head);

		if (entry->ts >= horizon) {
			break;
		}
		msgs[count++] = entry->msg;
		iter->released_ts = entry->ts;
		iter->head++;
	}
	if (iter->head == iter->queue->len) {
		g_array_set_size(iter->queue, 0);
		iter->head = 0;
	} else if (iter->head > 4096 && iter->head * 2 > iter->queue->len) {
		g_array_remove_range(iter->queue, 0, iter->head);
		iter->head = 0;
	}
	return count;
}

/* Logs the summary and writes the `stats` file; false (cause appended) when it cannot be written. */
static bool write_stats(struct nodejs_ctx_iter *iter)
{
	const struct nctx_stats *s = nctx_engine_stats(iter->engine);
	struct ds_json_writer writer;
	bool ok = true;
	FILE *file;

	DS_LOG_INFO(iter->comp->self_comp, NODEJS_CTX_CLASS,
		"%" PRIu64 " vnode events; %" PRIu64 " server and %" PRIu64 " client requests; "
		"%" PRIu64 " clients linked to their server request, %" PRIu64 " to their callee; "
		"%" PRIu64 " roots", s->vnode_events, s->server_requests, s->client_requests,
		s->clients_with_parent, s->clients_with_callee, s->roots);
	if (iter->late_ops) {
		DS_LOG_WARN(iter->comp->self_comp, NODEJS_CTX_CLASS,
			"%" PRIu64 " span messages were due before output already sent downstream; "
			"they were emitted at that later time to keep the output in time order",
			iter->late_ops);
	}
	if (s->open_at_end) {
		DS_LOG_WARN(iter->comp->self_comp, NODEJS_CTX_CLASS,
			"%" PRIu64 " requests never answered (their spans have no end)",
			s->open_at_end);
	}
	if (s->unmatched_responses) {
		DS_LOG_WARN(iter->comp->self_comp, NODEJS_CTX_CLASS,
			"%" PRIu64 " responses without a known request", s->unmatched_responses);
	}
	if (!iter->comp->stats_path) {
		return true;
	}
	file = fopen(iter->comp->stats_path, "w");
	if (!file) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(iter->self_msg_iter,
			"%s: parameter `stats`: cannot write \"%s\": %s.", NODEJS_CTX_CLASS,
			iter->comp->stats_path, g_strerror(errno));
		return false;
	}
	ds_json_init(&writer, file, true);
	ds_json_begin_object(&writer, NULL);
	ds_json_uint(&writer, "vnode_events", s->vnode_events);
	ds_json_uint(&writer, "server_requests", s->server_requests);
	ds_json_uint(&writer, "server_responses", s->server_responses);
	ds_json_uint(&writer, "client_requests", s->client_requests);
	ds_json_uint(&writer, "client_responses", s->client_responses);
	ds_json_uint(&writer, "client_retries", s->client_retries);
	ds_json_uint(&writer, "roots", s->roots);
	ds_json_uint(&writer, "clients_with_parent", s->clients_with_parent);
	ds_json_uint(&writer, "clients_with_callee", s->clients_with_callee);
	ds_json_uint(&writer, "servers_with_caller", s->servers_with_caller);
	ds_json_uint(&writer, "deferred_servers", s->deferred_servers);
	ds_json_uint(&writer, "servers_ended_by_caller", s->servers_ended_by_caller);
	ds_json_uint(&writer, "unmatched_responses", s->unmatched_responses);
	ds_json_uint(&writer, "activations", s->activations);
	ds_json_uint(&writer, "busy_spans", s->busy_spans);
	ds_json_uint(&writer, "open_at_end", s->open_at_end);
	ds_json_end_object(&writer);
	fputc('\n', file);
	if (ferror(file)) {
		ok = false;
		errno = EIO;
	}
	if (fclose(file) != 0 || !ok) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(iter->self_msg_iter,
			"%s: parameter `stats`: cannot write \"%s\": %s.", NODEJS_CTX_CLASS,
			iter->comp->stats_path, g_strerror(errno));
		ok = false;
	}
	return ok;
}

/* Upstream ended: decide what is pending, then close our streams; false (cause appended) on error. */
static bool finish(struct nodejs_ctx_iter *iter)
{
	const bt_message *ends[64];
	unsigned int count, i;

	nctx_engine_finish(iter->engine);
	if (!write_stats(iter)) {
		return false;
	}
	do {
		count = span_output_end_messages(&iter->output, iter->self_msg_iter, ends,
			G_N_ELEMENTS(ends));
		for (i = 0; i < count; i++) {
			g_array_append_vals(iter->queue,
				&(struct queued_msg) { .msg = ends[i], .ts = iter->last_ts }, 1);
		}
	} while (count == G_N_ELEMENTS(ends));
	iter->finished = true;
	return true;
}

static bool may_be_vnode(struct nodejs_ctx_iter *iter, const bt_message *msg)
{
	return bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT &&
		vnode_event_may_be_vnode(&iter->classes, bt_message_event_borrow_event_const(msg));
}

/*
 * Fast path: while nothing is queued or held back, messages before the first
 * possible vnode event go straight out (references moved); their count in *passed.
 * false (cause appended, nothing moved) when the time of one of them overflows.
 */
static bool pass_through(struct nodejs_ctx_iter *iter, bt_message_array_const upstream,
		uint64_t upstream_count, bt_message_array_const msgs, uint64_t capacity,
		uint64_t *passed)
{
	int64_t released = iter->released_ts, ts;
	uint64_t i = 0;

	*passed = 0;
	if (iter->head != iter->queue->len || nctx_engine_horizon(iter->engine) != INT64_MAX) {
		return true;
	}
	while (i < upstream_count && i < capacity && !may_be_vnode(iter, upstream[i])) {
		switch (ds_message_time_ns(&iter->owner, upstream[i], &ts, NULL)) {
		case DS_MESSAGE_TIME_STATUS_ERROR:
			return false;
		case DS_MESSAGE_TIME_STATUS_OK:
			if (ts > released) {
				released = ts;
			}
			break;
		default:
			break;
		}
		i++;
	}
	for (*passed = 0; *passed < i; (*passed)++) {
		msgs[*passed] = upstream[*passed];
	}
	iter->released_ts = released;
	return true;
}

bt_message_iterator_class_next_method_status nodejs_ctx_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct nodejs_ctx_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);
	bt_message_iterator_class_next_method_status status;
	bt_message_array_const upstream_msgs;
	uint64_t upstream_count, i;

	for (;;) {
		*count = release(iter, msgs, capacity);
		if (*count > 0) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		}
		if (iter->finished) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		}
		if (iter->upstream_ended) {
			if (!finish(iter) || iter->emit_failed) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}
			continue;
		}
		status = ds_upstream_next(&iter->owner, iter->upstream, "in", &upstream_msgs,
			&upstream_count);
		switch (status) {
		case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK:
			if (!pass_through(iter, upstream_msgs, upstream_count, msgs, capacity, &i)) {
				for (i = 0; i < upstream_count; i++) {
					bt_message_put_ref(upstream_msgs[i]);
				}
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}
			*count = i;
			for (; i < upstream_count; i++) {
				if (!handle_message(iter, upstream_msgs[i])) {
					for (i++; i < upstream_count; i++) {
						bt_message_put_ref(upstream_msgs[i]);
					}
					return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
				}
			}
			if (*count > 0) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
			}
			break;
		case BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END:
			iter->upstream_ended = true;
			BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(iter->upstream);
			break;
		default:
			return status;
		}
	}
}
