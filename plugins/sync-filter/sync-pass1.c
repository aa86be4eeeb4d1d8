/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync, pass 1: read every input to its end and collect the
 * causal pairs (a send on one host, its receive on another).
 *
 * - TCP: a segment is keyed by (seq, ack_seq, flags[, ports]); the first send
 *   and the first receive of a key win (retransmissions are ignored); a send
 *   and a receive on the same host are not a pair.
 * - Spans: a parent span on host A and its child on host B give
 *   parent start -> child start and child end -> parent end; with the
 *   deepspan_ust schema only client -> server edges count.
 * - HTTP (Node.js vnode events): see sync-http.c.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "log.h"
#include "sync.h"

struct sync_tcp_entry {
	struct ds_tcp_key key;		/* first: the hash key */
	int64_t seen;			/* raw time of its first event (expiry) */
	bool has_send, has_recv;
	int send_host, recv_host;
	int64_t send_ts, recv_ts;
};

struct sync_span_key {
	uint64_t trace_hi, trace_lo, span_id;
};

struct sync_span {
	struct sync_span_key key;	/* first: the hash key */
	uint64_t parent;
	int host;
	int kind;			/* enum ds_span_kind, -1 unknown */
	enum ds_span_schema schema;
	bool has_start, has_end;
	bool edges_done;		/* its edge as a child was recorded (or given up) */
	bool unsettled;			/* in spans_unsettled: visited by a sweep before its start was read */
	int64_t seen;			/* raw time of its first event (expiry) */
	int64_t start, end;
};

static guint tcp_hash(gconstpointer p)
{
	return (guint) XXH64(p, sizeof(struct ds_tcp_key), 0);
}

static gboolean tcp_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct ds_tcp_key)) == 0;
}

static guint span_hash(gconstpointer p)
{
	return (guint) XXH64(p, sizeof(struct sync_span_key), 0);
}

static gboolean span_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct sync_span_key)) == 0;
}

int sync_pass1_init(struct sync_iter *it)
{
	it->tcp = g_hash_table_new_full(tcp_hash, tcp_equal, NULL, g_free);
	it->spans = g_hash_table_new_full(span_hash, span_equal, NULL, g_free);
	it->pair_recs = g_array_new(FALSE, FALSE, sizeof(struct sync_pair_rec));
	it->span_order = g_queue_new();
	it->spans_unsettled = g_ptr_array_new();
	it->span_cache = ds_span_events_create();
	it->http = sync_http_table_new();
	return it->tcp && it->spans && it->pair_recs && it->span_cache && it->http ? 0 : -1;
}

void sync_pass1_fini(struct sync_iter *it)
{
	if (it->tcp) {
		g_hash_table_destroy(it->tcp);
		it->tcp = NULL;
	}
	if (it->spans) {
		g_hash_table_destroy(it->spans);
		it->spans = NULL;
	}
	if (it->span_order) {
		g_queue_free(it->span_order);
		it->span_order = NULL;
		it->span_unvisited = NULL;
	}
	if (it->spans_unsettled) {
		g_ptr_array_free(it->spans_unsettled, TRUE);
		it->spans_unsettled = NULL;
	}
	if (it->pair_recs) {
		g_array_free(it->pair_recs, TRUE);
		it->pair_recs = NULL;
	}
	if (it->span_cache) {
		ds_span_events_destroy(it->span_cache);
		it->span_cache = NULL;
	}
	if (it->http) {
		g_hash_table_destroy(it->http);
		it->http = NULL;
	}
}

bool sync_stream_tracks_keys(const bt_stream_class *sc)
{
	if (!bt_stream_class_borrow_default_clock_class_const(sc)) {
		return false;
	}
	return (bt_stream_class_supports_packets(sc) &&
			(!bt_stream_class_packets_have_beginning_default_clock_snapshot(sc) ||
			 !bt_stream_class_packets_have_end_default_clock_snapshot(sc))) ||
		(bt_stream_class_supports_discarded_events(sc) &&
			!bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) ||
		(bt_stream_class_supports_discarded_packets(sc) &&
			!bt_stream_class_discarded_packets_have_default_clock_snapshots(sc));
}

ds_message_time_status sync_msg_view_make(struct sync_iter *it, struct sync_input *in,
		const bt_message *msg, struct sync_msg_view *view)
{
	ds_message_time_status status = DS_MESSAGE_TIME_STATUS_OK;

	view->type = bt_message_get_type(msg);
	view->event = NULL;
	view->cs = NULL;
	if (view->type == BT_MESSAGE_TYPE_EVENT) {
		view->event = bt_message_event_borrow_event_const(msg);
	} else if (view->type == BT_MESSAGE_TYPE_STREAM_BEGINNING) {
		in->tracked_streams |= sync_stream_tracks_keys(bt_stream_borrow_class_const(
			bt_message_stream_beginning_borrow_stream_const(msg)));
	}
	status = ds_message_time_ns(&it->owner, msg, &view->ns, &view->cs);
	if (status == DS_MESSAGE_TIME_STATUS_NONE) {
		view->cs = NULL;
		status = DS_MESSAGE_TIME_STATUS_OK;
	}
	return status;
}

void sync_record_pair(struct sync_iter *it, enum sync_pair_kind kind, int send_host,
		int64_t send_ts, int recv_host, int64_t recv_ts)
{
	struct sync_pair_rec rec = {
		.send_host = send_host, .recv_host = recv_host,
		.send_ts = send_ts, .recv_ts = recv_ts, .kind = kind,
	};

	g_array_append_val(it->pair_recs, rec);
}

void sync_pass1_tcp(struct sync_iter *it, const struct ds_tcp_key *key, bool send, int host, int64_t ts)
{
	struct sync_tcp_entry *e = g_hash_table_lookup(it->tcp, key);

	if (e && e->seen < ds_sat_sub(ts, it->comp->pair_expiry_ns)) {
		/*
		 * Expired, whether or not a sweep has reached it yet: the pairs found do not depend on
		 * when the sweeps run (deepspan-report's per-host pair traces, doc/scale.md).
		 */
		it->tcp_expired++;
		g_hash_table_remove(it->tcp, key);
		e = NULL;
	}
	if (!e) {
		e = g_new0(struct sync_tcp_entry, 1);
		e->key = *key;
		e->seen = ts;
		g_hash_table_insert(it->tcp, &e->key, e);
	}
	if (send ? e->has_send : e->has_recv) {
		return;		/* duplicate key while the pair is open: the first one wins */
	}
	if (send) {
		e->has_send = true;
		e->send_host = host;
		e->send_ts = ts;
	} else {
		e->has_recv = true;
		e->recv_host = host;
		e->recv_ts = ts;
	}
	if (e->has_send && e->has_recv) {
		if (e->send_host == e->recv_host) {
			it->same_host_pairs++;
		} else {
			sync_record_pair(it, SYNC_PAIR_TCP, e->send_host, e->send_ts,
				e->recv_host, e->recv_ts);
		}
		g_hash_table_remove(it->tcp, key);	/* complete: nothing needs it any more */
	}
}

/*
 * A new span in the sweeps' order (by its first event's time, after the spans of the same time).  One older
 * than the last sweep's cut (an input whose times went back) is one the sweeps have passed: each sweep visits
 * it, as it visits every span older than its cut.
 */
static void order_span(struct sync_iter *it, struct sync_span *s)
{
	GList *after = it->span_order->tail;

	while (after && ((struct sync_span *) after->data)->seen > s->seen) {
		after = after->prev;
	}
	if (after) {
		g_queue_insert_after(it->span_order, after, s);
	} else {
		g_queue_push_head(it->span_order, s);
	}
	if (it->has_swept && s->seen < it->last_cut) {
		s->unsettled = true;
		g_ptr_array_add(it->spans_unsettled, s);
	} else if (!it->span_unvisited || s->seen < ((struct sync_span *) it->span_unvisited->data)->seen) {
		it->span_unvisited = after ? after->next : it->span_order->head;
	}
}

void sync_pass1_span(struct sync_iter *it, const struct ds_span_event *ev, int host, int64_t ts)
{
	struct sync_span_key key = { ev->trace_id_high, ev->trace_id_low, ev->span_id };
	struct sync_span *s = g_hash_table_lookup(it->spans, &key);

	if (ev->kind != DS_SPAN_EVENT_START && ev->kind != DS_SPAN_EVENT_END) {
		return;
	}
	if (!s) {
		s = g_new0(struct sync_span, 1);
		s->key = key;
		s->host = host;
		s->kind = -1;
		s->seen = ts;
		g_hash_table_insert(it->spans, &s->key, s);
		order_span(it, s);
	}
	if (ev->kind == DS_SPAN_EVENT_START && !s->has_start) {
		s->has_start = true;
		s->start = ts;
		s->host = host;
		s->parent = ev->parent_span_id;
		s->kind = ev->span_kind;
		s->schema = ev->schema;
	} else if (ev->kind == DS_SPAN_EVENT_END && !s->has_end) {
		s->has_end = true;
		s->end = ts;
	}
}

bool sync_event_info_resolve(struct ds_span_events *span_cache, const bt_event_class *ec,
		bt_self_component *warn_comp, const char *class_name, struct sync_event_info *info)
{
	bool span_class;

	memset(info, 0, sizeof(*info));
	ds_kernel_net_classify(ec, &info->net);
	sync_http_classify(ec, &info->http);
	info->span = ds_span_events_resolve(span_cache, ec);
	span_class = info->span && info->span->kind != DS_SPAN_EVENT_NONE;
	if (span_class && info->span->missing && warn_comp) {
		DS_LOG_WARN(warn_comp, class_name, "span event class `%s` lacks field `%s`: its events are not used for sync",
			bt_event_class_get_name(ec), info->span->missing);
	}
	if (!span_class || info->span->missing) {
		info->span = NULL;
	}
	return info->net.direction != DS_NET_NONE || info->http.role != SYNC_HTTP_NONE || span_class;
}

void sync_event_decode(const struct sync_event_info *info, const bt_event *event, struct sync_event_view *view)
{
	memset(view, 0, sizeof(*view));
	if (info->net.direction != DS_NET_NONE) {
		view->tcp = ds_kernel_net_decode(&info->net, event, &view->key);
		view->send = info->net.direction == DS_NET_SEND;
	}
	view->http_role = info->http.role;
	if (view->http_role != SYNC_HTTP_NONE) {
		view->http_port = (uint32_t) ds_field_ref_read_int(event, info->http.port, 0);
		view->http_local_port = (uint32_t) ds_field_ref_read_int(event, info->http.local_port, 0);
	}
	if (info->span) {
		ds_span_event_decode(info->span, event, &view->span_event);
		view->span = view->span_event.kind == DS_SPAN_EVENT_START || view->span_event.kind == DS_SPAN_EVENT_END;
	}
}

void sync_pass1_event(struct sync_iter *it, const struct sync_event_view *view, int host, int64_t ts)
{
	if (view->tcp && it->comp->match[SYNC_PAIR_TCP]) {
		sync_pass1_tcp(it, &view->key, view->send, host, ts);
	}
	if (view->http_role != SYNC_HTTP_NONE && it->comp->match[SYNC_PAIR_HTTP]) {
		sync_http_record(it, view->http_role, view->http_port, view->http_local_port, host, ts);
	}
	if (view->span && it->comp->match[SYNC_PAIR_SPANS]) {
		sync_pass1_span(it, &view->span_event, host, ts);
	}
}

static const struct sync_event_info *event_info(struct sync_iter *it, const bt_event_class *ec)
{
	struct sync_event_info *info = g_hash_table_lookup(it->event_infos, ec);

	if (!info) {
		info = g_new(struct sync_event_info, 1);
		sync_event_info_resolve(it->span_cache, ec, it->comp->self_comp, SYNC_CLASS_NAME, info);
		bt_event_class_get_ref(ec);
		g_hash_table_insert(it->event_infos, (gpointer) ec, info);
	}
	return info;
}

static void on_event(struct sync_iter *it, const bt_event *event, int host, int64_t ts)
{
	struct sync_event_view view;

	sync_event_decode(event_info(it, bt_event_borrow_class_const(event)), event, &view);
	sync_pass1_event(it, &view, host, ts);
}

static int on_message(struct sync_iter *it, struct sync_input *in, const bt_message *msg,
		const struct sync_msg_view *v)
{
	struct sync_msg_view view = *v;
	int64_t ns;
	int host;

	if (!view.cs) {
		return 0;
	}
	ns = view.ns;
	host = sync_host_of(it, in, bt_clock_snapshot_borrow_clock_class_const(view.cs), msg);
	sync_pass1_timed(it, in, host, ns);
	if (view.event) {
		on_event(it, view.event, host, ns);
	}
	return 0;
}

void sync_pass1_timed(struct sync_iter *it, struct sync_input *in, int host, int64_t ns)
{
	struct sync_host *h = g_ptr_array_index(it->hosts, host);

	if (in->has_last_raw && ns < in->last_raw && in->last_raw - ns > in->max_backstep) {
		in->max_backstep = in->last_raw - ns;
	}
	if (!in->has_last_raw || ns > in->last_raw) {
		in->last_raw = ns;
	}
	in->has_last_raw = true;
	if (!h->has_range || ns < h->first_ns) {
		h->first_ns = ns;
	}
	if (!h->has_range || ns > h->last_ns) {
		h->last_ns = ns;
	}
	h->has_range = true;
}

/*
 * Records the edges of `child` with its parent (once).  false when, before the
 * end of the trace (`final` false), its edges are given up: the parent was not
 * seen within the expiry (or was already forgotten), or the child or its
 * parent has not ended within it (end edge).
 */
static bool span_child_edges(struct sync_iter *it, struct sync_span *child, bool final)
{
	const struct sync_span *parent;
	struct sync_span_key pkey;

	if (child->edges_done || !child->has_start || child->parent == 0) {
		return true;
	}
	child->edges_done = true;
	pkey = child->key;
	pkey.span_id = child->parent;
	parent = g_hash_table_lookup(it->spans, &pkey);
	if (!parent) {
		return final;	/* never seen, or already forgotten */
	}
	if (!parent->has_start || parent->host == child->host) {
		return true;
	}
	if (child->schema == DS_SPAN_SCHEMA_DEEPSPAN &&
			(parent->kind != DS_SPAN_KIND_CLIENT ||
			 child->kind != DS_SPAN_KIND_SERVER)) {
		return true;
	}
	sync_record_pair(it, SYNC_PAIR_SPANS, parent->host, parent->start,
		child->host, child->start);
	if (parent->has_end && child->has_end) {
		sync_record_pair(it, SYNC_PAIR_SPANS, child->host, child->end,
			parent->host, parent->end);
		return true;
	}
	return final;
}

static void add_span_edges(struct sync_iter *it)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, it->spans);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		if (!span_child_edges(it, value, true)) {
			it->spans_expired++;
		}
	}
}

/*
 * Forgets what pass 1 no longer needs once every input has read past
 * `frontier` (raw ns): open TCP keys first seen more than `expiry` before it
 * (counted as expired), span edges of spans that began more than `expiry`
 * before it are recorded (their events are all read by then when spans last
 * less than `expiry`; an end edge still open is given up and counted), and
 * spans that began more than 2 * `expiry` before it are forgotten (a child
 * that begins more than `expiry` after its parent loses its edges).
 */
/*
 * A span that began before the cut: its edges as a child are recorded, or given up (counted), once its start
 * is known; before that, it stays to be visited by the next sweeps.
 */
static void visit_span(struct sync_iter *it, struct sync_span *s)
{
	if (!span_child_edges(it, s, false)) {
		it->spans_expired++;
	}
	if (!s->unsettled && !s->edges_done && !s->has_start) {
		s->unsettled = true;
		g_ptr_array_add(it->spans_unsettled, s);
	}
}

/*
 * The spans' part of a sweep: every span older than `cut` visited (the spans in the order of their first
 * events from the first one not visited yet, then those visited before their start was read), then the spans
 * older than `forget` forgotten, the oldest first.  Which spans are visited by which sweep is what a visit of
 * the whole table would give; only the order of the visits differs, and the pairs they record are sorted
 * (compare_pairs) before anything reads them.
 */
static void expire_spans(struct sync_iter *it, int64_t cut, int64_t forget)
{
	GList *node = it->span_unvisited;
	guint i, n = it->spans_unsettled->len;

	for (; node && ((struct sync_span *) node->data)->seen < cut; node = node->next) {
		visit_span(it, node->data);
	}
	it->span_unvisited = node;
	it->last_cut = cut;
	for (i = 0; i < n; i++) {	/* not those this sweep visited already */
		if (!span_child_edges(it, g_ptr_array_index(it->spans_unsettled, i), false)) {
			it->spans_expired++;
		}
	}
	for (i = 0; i < it->spans_unsettled->len;) {
		struct sync_span *s = g_ptr_array_index(it->spans_unsettled, i);

		if (s->edges_done || s->has_start) {
			s->unsettled = false;
			g_ptr_array_remove_index_fast(it->spans_unsettled, i);
		} else {
			i++;
		}
	}
	while (it->span_order->head && ((struct sync_span *) it->span_order->head->data)->seen < forget) {
		struct sync_span *s = g_queue_pop_head(it->span_order);

		if (s->unsettled) {
			g_ptr_array_remove_fast(it->spans_unsettled, s);
		}
		g_hash_table_remove(it->spans, &s->key);
	}
}

static void pass1_expire(struct sync_iter *it, int64_t frontier)
{
	int64_t expiry = it->comp->pair_expiry_ns;
	int64_t cut = frontier - expiry, forget = frontier - 2 * expiry;
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, it->tcp);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		if (((struct sync_tcp_entry *) value)->seen < cut) {
			it->tcp_expired++;
			g_hash_table_iter_remove(&iter);
		}
	}
	expire_spans(it, cut, forget);
}

void sync_pass1_sweep(struct sync_iter *it, int64_t frontier)
{
	if (frontier != INT64_MIN && (!it->has_swept || frontier - it->last_sweep >= it->comp->pair_expiry_ns / 4)) {
		pass1_expire(it, frontier);
		it->last_sweep = frontier;
		it->has_swept = true;
	}
}

/*
 * Makes sure input `index` has its next message and that message's view (reading a batch when
 * the last one is used up): OK, END (the input has ended) or an error status (cause appended).
 */
static bt_message_iterator_class_next_method_status pass1_fill(struct sync_iter *it, unsigned int index)
{
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	struct sync_input *in = &it->inputs[index];

	if (in->ended) {
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		goto end;
	}
	if (in->p1_head >= in->p1_count) {
		in->p1_head = in->p1_count = 0;
		in->p1_view_ready = false;
		status = sync_input_next(it, index, &in->p1_msgs, &in->p1_count);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			goto end;
		}
	}
	if (!in->p1_view_ready) {
		if (sync_msg_view_make(it, in, in->p1_msgs[in->p1_head], &in->p1_view) !=
				DS_MESSAGE_TIME_STATUS_OK) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
				"%s: pass 1 stopped on input port `in%u`.", SYNC_CLASS_NAME, index);
			status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			goto end;
		}
		in->p1_view_ready = true;
	}
end:
	return status;
}

/* Puts the messages of pass 1's batches not read yet (an error stopped it). */
static void pass1_drop_batches(struct sync_iter *it)
{
	unsigned int i;

	for (i = 0; it->inputs && i < it->input_count; i++) {
		struct sync_input *in = &it->inputs[i];

		while (in->p1_head < in->p1_count) {
			bt_message_put_ref(in->p1_msgs[in->p1_head++]);
		}
	}
}

/*
 * Reads the inputs merged message by message in raw time (ties: the lower input port), so that
 * a send and its receive are read close together whatever input carries them, and so that the
 * order in which the events pass 1 uses are read does not depend on the other events nor on the
 * upstreams' batch sizes: the per-host pair traces of deepspan-report (doc/scale.md) give the
 * same pairs.  Forgets what is no longer needed each time the frontier (the time of the message
 * read) advances by a quarter of the expiry.
 */
/* The time a merge orders an input's head by: a message without a time goes with its input's last time. */
static int64_t head_key(const struct sync_input *in)
{
	return in->p1_view.cs ? in->p1_view.ns : (in->has_last_raw ? in->last_raw : INT64_MIN);
}

/*
 * Fills every input's batch and finds the input whose head comes first (`*best`, NULL when every input
 * ended) and the one after it (`*next`, NULL when none), with their keys.
 */
static bt_message_iterator_class_next_method_status choose_inputs(struct sync_iter *it, struct sync_input **best,
		int64_t *best_key, struct sync_input **next, int64_t *next_key)
{
	unsigned int i;

	*best = NULL;
	*next = NULL;
	*best_key = INT64_MIN;
	*next_key = INT64_MAX;
	for (i = 0; i < it->input_count; i++) {
		struct sync_input *in = &it->inputs[i];
		bt_message_iterator_class_next_method_status st = pass1_fill(it, i);
		int64_t key;

		if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
			continue;
		}
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return st;	/* AGAIN: try again later, the batches read so far are kept */
		}
		key = head_key(in);
		if (!*best || key < *best_key) {
			*next = *best;
			*next_key = *best_key;
			*best = in;
			*best_key = key;
		} else if (!*next || key < *next_key) {
			*next = in;
			*next_key = key;
		}
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * Reads `best` while its messages come before the head of `next` (ties: the lower input port): the order of
 * a message-by-message merge, batch by batch.  Stops at the end of its batch.
 */
static bt_message_iterator_class_next_method_status read_while_first(struct sync_iter *it, struct sync_input *best,
		int64_t best_key, const struct sync_input *next, int64_t next_key)
{
	for (;;) {
		sync_pass1_sweep(it, best_key);
		if (on_message(it, best, best->p1_msgs[best->p1_head], &best->p1_view)) {
			goto error;
		}
		bt_message_put_ref(best->p1_msgs[best->p1_head++]);
		best->p1_view_ready = false;
		if (best->p1_head >= best->p1_count) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;	/* its next batch: back to the choice */
		}
		if (sync_msg_view_make(it, best, best->p1_msgs[best->p1_head], &best->p1_view) !=
				DS_MESSAGE_TIME_STATUS_OK) {
			goto error;
		}
		best->p1_view_ready = true;
		best_key = head_key(best);
		if (next && (best_key > next_key || (best_key == next_key && best > next))) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;	/* another input's head comes first */
		}
	}

error:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		"%s: pass 1 stopped on input port `in%u`.", SYNC_CLASS_NAME, (unsigned int) (best - it->inputs));
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

bt_message_iterator_class_next_method_status sync_pass1_run(struct sync_iter *it)
{
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;

	for (;;) {
		struct sync_input *best, *next;
		int64_t best_key, next_key;

		status = choose_inputs(it, &best, &best_key, &next, &next_key);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN) {
			goto end;
		}
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			goto error;
		}
		if (!best) {
			break;
		}
		status = read_while_first(it, best, best_key, next, next_key);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			goto error;
		}
	}
	goto end;

error:
	pass1_drop_batches(it);
end:
	return status;
}

/* Chronological on the receiving side, so a contradiction rejects the later pairs. */
static gint compare_pairs(gconstpointer a, gconstpointer b)
{
	const struct sync_pair_rec *x = a, *y = b;

	if (x->recv_ts != y->recv_ts) {
		return x->recv_ts < y->recv_ts ? -1 : 1;
	}
	if (x->send_ts != y->send_ts) {
		return x->send_ts < y->send_ts ? -1 : 1;
	}
	if (x->recv_host != y->recv_host) {
		return x->recv_host < y->recv_host ? -1 : 1;
	}
	/* a total order: the pairs' order never depends on the order the sweeps recorded them in */
	if (x->send_host != y->send_host) {
		return x->send_host < y->send_host ? -1 : 1;
	}
	return ((int) x->kind > (int) y->kind) - ((int) x->kind < (int) y->kind);
}

int sync_pass1_solve(struct sync_iter *it)
{
	unsigned int *rank;
	guint i;

	add_span_edges(it);
	sync_http_add_pairs(it);
	g_array_sort(it->pair_recs, compare_pairs);
	if (!ds_sync_solver_init(&it->solver, it->hosts->len)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: out of memory while fitting the clocks of %u hosts.", SYNC_CLASS_NAME,
			it->hosts->len);
		return -1;
	}
	it->solver_ready = true;
	rank = g_new(unsigned int, it->hosts->len ? it->hosts->len : 1);
	sync_host_ranks(it, rank);
	if (!ds_sync_solver_set_rank(&it->solver, rank)) {
		g_free(rank);
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: internal error: the host order is not a permutation of the %u hosts.",
			SYNC_CLASS_NAME, it->hosts->len);
		return -1;
	}
	g_free(rank);
	for (i = 0; i < it->pair_recs->len; i++) {
		const struct sync_pair_rec *r = &g_array_index(it->pair_recs, struct sync_pair_rec, i);
		struct sync_host *s = g_ptr_array_index(it->hosts, r->send_host);
		struct sync_host *d = g_ptr_array_index(it->hosts, r->recv_host);
		bool oom;

		s->pairs[r->kind]++;
		d->pairs[r->kind]++;
		if (r->kind == SYNC_PAIR_TCP) {
			it->tcp_pairs++;
		} else if (r->kind == SYNC_PAIR_SPANS) {
			it->span_pairs++;
		} else {
			it->http_pairs++;
		}
		if (!ds_sync_solver_add(&it->solver, (unsigned int) r->send_host, r->send_ts,
				(unsigned int) r->recv_host, r->recv_ts, &oom)) {
			if (oom) {
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
					"%s: out of memory while fitting the clocks (pair %u of %u).",
					SYNC_CLASS_NAME, i, it->pair_recs->len);
				return -1;
			}
			s->rejected++;
			d->rejected++;
		}
	}
	return 0;
}
