/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync-extract (doc/scale.md): forwards its inputs merged by time, dropping every
 * event that filter.deepspan.sync's pass 1 does not read.  Per host, its output written by
 * sink.ctf.fs is the small "pair trace" from which the central step estimates the clocks
 * (deepspan-report --jobs).  Messages are forwarded as they are (no copy).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "add-port.h"
#include "bt-put.h"
#include "input-ports.h"
#include "log.h"
#include "pair-records.h"
#include "params.h"
#include "upstream.h"
#include "sync-filter/sync.h"
#include "sync-extract-filter/component.h"

#define EXTRACT_CLASS_NAME "filter.deepspan.sync-extract"

/* One input port's upstream and the batch being forwarded. */
struct extract_input {
	bt_message_iterator *iter;		/* owned */
	bt_message_array_const batch;		/* borrowed array of the upstream; refs owned from `head` */
	uint64_t count, head;
	bool ended;
	bool head_known;			/* key and head_cs are those of batch[head] */
	int64_t key;				/* time of the head message, or of the last one with a time */
	const bt_clock_snapshot *head_cs;	/* borrowed: the head message's snapshot, NULL without a time */
};

/* The component: its parameters. */
struct extract_comp {
	char *stats_path;			/* owned; NULL: no statistics file */
	char *records_path;			/* owned; NULL: events are forwarded, not written as pair records */
};

/* One event class: whether pass 1 of filter.deepspan.sync reads its events, and what of them (resolved once). */
struct extract_class {
	bool keep;
	struct sync_event_info info;
};

struct extract_iter {
	bt_self_message_iterator *self;		/* borrowed */
	struct extract_comp *comp;		/* borrowed */
	struct ds_upstream_owner owner;
	struct extract_input *inputs;		/* owned; input_count */
	unsigned int input_count;
	GHashTable *keep;			/* event class (ref) -> struct extract_class * (owned) */
	struct ds_span_events *span_cache;	/* owned */
	/* with `records`: */
	struct ds_pair_writer writer;		/* owns its file while `writing` */
	bool writing;
	GHashTable *clocks;			/* clock class (ref) -> GUINT_TO_POINTER(record clock id + 1) */
	uint64_t kept, dropped;
	int64_t last_event_ns;			/* latest event time read (ns from origin); INT64_MIN: none */
};

bt_component_class_initialize_method_status sync_extract_component_initialize(
		bt_self_component_filter *self, bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data)
{
	static const char *const known[] = { "stats", "records", NULL };
	struct ds_params p = ds_params_make(bt_self_component_filter_as_self_component(self), params,
		EXTRACT_CLASS_NAME);
	bt_component_class_initialize_method_status status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct extract_comp *comp = g_new0(struct extract_comp, 1);
	const char *stats, *records;

	(void) config;
	(void) init_data;
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), comp);
	if (ds_params_check_names(&p, known) || ds_params_get_string(&p, "stats", NULL, &stats) ||
			ds_params_get_string(&p, "records", NULL, &records)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	comp->stats_path = stats ? g_strdup(stats) : NULL;
	comp->records_path = records ? g_strdup(records) : NULL;
	switch (ds_input_ports_add_next(self, EXTRACT_CLASS_NAME)) {
	case DS_INPUT_PORTS_STATUS_OK:
		break;
	case DS_INPUT_PORTS_STATUS_MEMORY_ERROR:
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto end;
	default:
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto end;
	}
	status = ds_add_port_status(bt_self_component_filter_add_output_port(self, "out", NULL, NULL),
		bt_self_component_filter_as_self_component(self), EXTRACT_CLASS_NAME, "the output port `out`");
end:
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		/* finalize is not called after a failed initialization */
		bt_self_component_set_data(bt_self_component_filter_as_self_component(self), NULL);
		g_free(comp->stats_path);
		g_free(comp->records_path);
		g_free(comp);
	}
	return status;
}

void sync_extract_component_finalize(bt_self_component_filter *self)
{
	struct extract_comp *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self));

	if (comp) {
		g_free(comp->stats_path);
		g_free(comp->records_path);
		g_free(comp);
	}
}

bt_component_class_port_connected_method_status sync_extract_input_port_connected(
		bt_self_component_filter *self, bt_self_component_port_input *self_port,
		const bt_port_output *other_port)
{
	(void) other_port;
	return ds_input_ports_connected(self, self_port, EXTRACT_CLASS_NAME);
}

static void iter_destroy(struct extract_iter *it)
{
	unsigned int i;

	if (!it) {
		return;
	}
	for (i = 0; it->inputs && i < it->input_count; i++) {
		struct extract_input *in = &it->inputs[i];

		while (in->head < in->count) {
			bt_message_put_ref(in->batch[in->head++]);
		}
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(in->iter);
	}
	g_free(it->inputs);
	if (it->writing) {
		ds_pair_writer_abandon(&it->writer);	/* no end item: a reader refuses the file */
	}
	if (it->clocks) {
		g_hash_table_destroy(it->clocks);
	}
	if (it->keep) {
		g_hash_table_destroy(it->keep);
	}
	ds_span_events_destroy(it->span_cache);
	g_free(it);
}

bt_message_iterator_class_initialize_method_status sync_extract_iterator_initialize(
		bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	bt_self_component_filter *filter = (bt_self_component_filter *) comp;
	bt_message_iterator_class_initialize_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct extract_iter *it = g_new0(struct extract_iter, 1);
	uint64_t n = bt_component_filter_get_input_port_count(
		bt_self_component_filter_as_component_filter(filter));
	unsigned int i;

	(void) config;
	(void) port;
	it->self = self;
	it->comp = bt_self_component_get_data(comp);
	it->owner.self_msg_iter = self;
	it->owner.self_comp = comp;
	it->owner.class_name = EXTRACT_CLASS_NAME;
	it->owner.doc_page = "doc/scale.md";
	it->last_event_ns = INT64_MIN;
	it->keep = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_event_class, g_free);
	it->clocks = g_hash_table_new_full(g_direct_hash, g_direct_equal, ds_put_clock_class, NULL);
	it->span_cache = ds_span_events_create();
	it->inputs = g_new0(struct extract_input, n ? n : 1);
	for (i = 0; i < n; i++) {
		bt_self_component_port_input *in_port =
			bt_self_component_filter_borrow_input_port_by_index(filter, i);

		if (!bt_port_is_connected(bt_self_component_port_as_port(
				bt_self_component_port_input_as_self_component_port(in_port)))) {
			continue;	/* the last, spare, dynamic port */
		}
		switch (bt_message_iterator_create_from_message_iterator(self, in_port,
				&it->inputs[it->input_count].iter)) {
		case BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK:
			it->inputs[it->input_count].key = INT64_MIN;
			it->input_count++;
			break;
		case BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_MEMORY_ERROR:
			status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
			goto error;
		default:
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self,
				"%s: cannot create a message iterator on input port `in%u`.",
				EXTRACT_CLASS_NAME, i);
			status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
			goto error;
		}
	}
	if (it->comp->records_path) {
		if (!ds_pair_writer_open(&it->writer, it->comp->records_path)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self,
				"%s: parameter `records`: cannot write \"%s\" (%s); give a path in a writable "
				"directory (doc/scale.md, \"filter.deepspan.sync-extract\").", EXTRACT_CLASS_NAME,
				it->comp->records_path, g_strerror(errno));
			status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
			goto error;
		}
		it->writing = true;
	}
	bt_self_message_iterator_set_data(self, it);
	goto end;

error:
	iter_destroy(it);
end:
	return status;
}

/*
 * The `stats` file: events read and kept (deepspan-report's progress), the latest event time (ns from the
 * clock's origin, null without events; deepspan-report's end of the per-host analysis); a failure is only a
 * warning.
 */
static void write_stats(struct extract_iter *it)
{
	char last[32] = "null";
	FILE *f;
	bool written;

	if (!it->comp || !it->comp->stats_path) {
		return;
	}
	if (it->last_event_ns != INT64_MIN) {
		snprintf(last, sizeof(last), "%" PRId64, it->last_event_ns);
	}
	f = fopen(it->comp->stats_path, "w");
	written = f && fprintf(f, "{\"events\": %" PRIu64 ", \"kept\": %" PRIu64 ", \"last_event_ns\": %s}\n",
		it->kept + it->dropped, it->kept, last) >= 0;
	if (f && fclose(f) != 0) {	/* closed once, whether the write or the close failed */
		written = false;
	}
	if (!written) {
		DS_LOG_WARN(bt_self_message_iterator_borrow_component(it->self), EXTRACT_CLASS_NAME,
			"parameter `stats`: cannot write \"%s\" (%s)", it->comp->stats_path,
			g_strerror(errno));
	}
}

void sync_extract_iterator_finalize(bt_self_message_iterator *self)
{
	struct extract_iter *it = bt_self_message_iterator_get_data(self);

	if (it) {
		DS_LOG_INFO(bt_self_message_iterator_borrow_component(self), EXTRACT_CLASS_NAME,
			"%" PRIu64 " events kept, %" PRIu64 " dropped", it->kept, it->dropped);
		write_stats(it);
	}
	iter_destroy(it);
}

/* What pass 1 of filter.deepspan.sync reads of events of this class.  Resolved once per class. */
static const struct extract_class *class_of(struct extract_iter *it, const bt_event_class *ec)
{
	struct extract_class *cls = g_hash_table_lookup(it->keep, ec);

	if (!cls) {
		cls = g_new(struct extract_class, 1);
		/* with records, the warning filter.deepspan.sync would give of the events in a pair trace */
		cls->keep = sync_event_info_resolve(it->span_cache, ec,
			it->writing ? bt_self_message_iterator_borrow_component(it->self) : NULL, EXTRACT_CLASS_NAME,
			&cls->info);
		bt_event_class_get_ref(ec);
		g_hash_table_insert(it->keep, (gpointer) ec, cls);
	}
	return cls;
}

/* The record id of a clock class, its 'C' item written on first sight (what sync-hosts.c names a host by). */
static uint32_t clock_id(struct extract_iter *it, const bt_clock_class *cc, const bt_message *msg)
{
	gpointer v = g_hash_table_lookup(it->clocks, cc);
	struct ds_pair_clock clock = { 0 };

	if (v) {
		return GPOINTER_TO_UINT(v) - 1;
	}
	clock.id = g_hash_table_size(it->clocks);
	clock.has_uuid = bt_clock_class_get_uuid(cc) != NULL;
	if (clock.has_uuid) {
		sync_format_uuid(bt_clock_class_get_uuid(cc), clock.uuid);
	}
	clock.origin_is_unix_epoch = bt_clock_class_origin_is_unix_epoch(cc);
	clock.name = (char *) bt_clock_class_get_name(cc);
	clock.hostname = (char *) sync_hostname_of(ds_message_stream(msg));
	ds_pair_writer_clock(&it->writer, &clock);
	bt_clock_class_get_ref(cc);
	g_hash_table_insert(it->clocks, (gpointer) cc, GUINT_TO_POINTER(clock.id + 1));
	return clock.id;
}

/* The records of an event pass 1 reads: its TCP segment, HTTP message, span start or end; else its time. */
static void record_event(struct extract_iter *it, const struct extract_class *cls, const bt_event *event,
		uint32_t port, uint32_t clock, int64_t ns)
{
	struct sync_event_view view;

	sync_event_decode(&cls->info, event, &view);
	if (view.tcp) {
		ds_pair_writer_tcp(&it->writer, port, clock, ns, view.send, &view.key);
	}
	if (view.http_role != SYNC_HTTP_NONE) {
		struct ds_pair_http http = { (uint8_t) view.http_role, view.http_port, view.http_local_port };

		ds_pair_writer_http(&it->writer, port, clock, ns, &http);
	}
	if (view.span) {
		struct ds_pair_span span = {
			.kind = (uint8_t) view.span_event.kind, .schema = (uint8_t) view.span_event.schema,
			.span_kind = view.span_event.span_kind, .trace_id_high = view.span_event.trace_id_high,
			.trace_id_low = view.span_event.trace_id_low, .span_id = view.span_event.span_id,
			.parent_span_id = view.span_event.parent_span_id,
		};

		ds_pair_writer_span(&it->writer, port, clock, ns, &span);
	}
	if (!view.tcp && view.http_role == SYNC_HTTP_NONE && !view.span) {
		ds_pair_writer_timed(&it->writer, port, clock, ns);
	}
}

/*
 * With `records`: what a pair trace would hold of the head message `msg` of input `in` (an event pass 1 reads,
 * or any other message with a time), as records, with the time fill() took of it.
 */
static void record_message(struct extract_iter *it, const struct extract_input *in, const bt_message *msg,
		const struct extract_class *cls)
{
	uint32_t port = (uint32_t) (in - it->inputs), clock;

	if (!in->head_cs) {
		return;		/* no time: pass 1 does nothing with it */
	}
	clock = clock_id(it, bt_clock_snapshot_borrow_clock_class_const(in->head_cs), msg);
	if (cls) {
		record_event(it, cls, bt_message_event_borrow_event_const(msg), port, clock, in->key);
	} else {
		ds_pair_writer_timed(&it->writer, port, clock, in->key);
	}
}

/* The end of the input with `records`: the end item and the file closed; false (cause appended) on failure. */
static bool finish_records(struct extract_iter *it)
{
	it->writing = false;
	if (!ds_pair_writer_finish(&it->writer, it->input_count)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `records`: cannot write \"%s\" (%s); the pair records are incomplete "
			"(is the disk full?).", EXTRACT_CLASS_NAME, it->comp->records_path, g_strerror(it->writer.error));
		return false;
	}
	return true;
}

/*
 * Makes sure input `in` has a head message (reading a batch if needed) and sets its key;
 * END when it has ended.
 */
static bt_message_iterator_class_next_method_status fill(struct extract_iter *it, unsigned int index)
{
	struct extract_input *in = &it->inputs[index];
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	char port[24];
	int64_t ns;

	if (in->ended) {
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		goto end;
	}
	if (in->head >= in->count) {
		snprintf(port, sizeof(port), "in%u", index);
		in->head = in->count = 0;
		status = ds_upstream_next(&it->owner, in->iter, port, &in->batch, &in->count);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
			in->ended = true;
			goto end;
		}
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			goto end;
		}
	}
	if (in->head_known) {
		goto end;	/* the head's time is computed once, not once per look at every input */
	}
	in->head_cs = NULL;
	switch (ds_message_time_ns(&it->owner, in->batch[in->head], &ns, &in->head_cs)) {
	case DS_MESSAGE_TIME_STATUS_OK:
		in->key = ns;
		in->head_known = true;
		if (ns > it->last_event_ns && bt_message_get_type(in->batch[in->head]) == BT_MESSAGE_TYPE_EVENT) {
			it->last_event_ns = ns;
		}
		break;
	case DS_MESSAGE_TIME_STATUS_NONE:
		in->head_cs = NULL;
		in->head_known = true;
		break;		/* no time: it goes with the input's last time */
	default:
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		break;
	}
end:
	return status;
}

bt_message_iterator_class_next_method_status sync_extract_iterator_next(
		bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
		uint64_t *count)
{
	struct extract_iter *it = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	unsigned int i;

	*count = 0;
	while (*count < capacity) {
		struct extract_input *best = NULL;
		const struct extract_class *cls;
		const bt_message *msg;

		for (i = 0; i < it->input_count; i++) {
			bt_message_iterator_class_next_method_status st = fill(it, i);

			if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
				continue;
			}
			if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
				status = st;
				goto end;
			}
			if (!best || it->inputs[i].key < best->key) {
				best = &it->inputs[i];
			}
		}
		if (!best) {
			if (*count == 0) {
				status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
			}
			goto end;
		}
		msg = best->batch[best->head];
		cls = bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT ?
			class_of(it, bt_event_borrow_class_const(bt_message_event_borrow_event_const(msg))) : NULL;
		if (it->writing && (!cls || cls->keep)) {
			record_message(it, best, msg, cls);	/* with the head's time, before the head moves */
		}
		best->head++;
		best->head_known = false;
		if (cls && !cls->keep) {
			bt_message_put_ref(msg);
			it->dropped++;
			continue;
		}
		if (cls) {
			it->kept++;
			if (it->writing) {	/* written as records, not forwarded */
				bt_message_put_ref(msg);
				continue;
			}
		}
		msgs[(*count)++] = msg;
	}
end:
	if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END && it->writing && !finish_records(it)) {
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK &&
			status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		/* the cause is on the thread: fail now, handing back nothing */
		while (*count > 0) {
			bt_message_put_ref(msgs[--(*count)]);
		}
	}
	return status;
}
