/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: the message iterator.  Pass 1 (sync-pass1.c) on the
 * first call, then the upstreams are seeked to the beginning and pass 2
 * merges the inputs by corrected time through one reorder buffer (reorder.h): a message is
 * released once every input that has not ended has read past its corrected
 * time plus that input's reorder window (the largest correction spread
 * between the hosts it carries, plus the largest backward step of its raw
 * timestamps, both measured in pass 1).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "bt-put.h"
#include "log.h"
#include "sync.h"
#include "component.h"

/* ---- time ---- */

/* Host-local ns -> reference ns, checked; false with the cause appended. */
static bool map_host_time(struct sync_iter *it, int host, int64_t ns, int64_t *out)
{
	struct sync_host *h = g_ptr_array_index(it->hosts, host);

	if (ds_transform_apply_checked(&h->result.to_ref, ns, out)) {
		return true;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		"%s: host `%s`: its clock transform (x0 %" PRId64 ", y0 %" PRId64 ", slope %.17g) "
		"maps time %" PRId64 " ns outside the int64 nanosecond range%s%s%s.",
		it->comp->class_name, h->name, h->result.to_ref.x0, h->result.to_ref.y0,
		h->result.to_ref.slope, ns, it->comp->formula ? " (from formula \"" : "",
		it->comp->formula ? it->comp->formula_path : "",
		it->comp->formula ? "\"): the formula does not fit this trace; re-run "
			"filter.deepspan.sync with `report=` on these traces to regenerate it" : "");
	return false;
}

/* `ns` (raw, from a snapshot on clock class `cc` of `msg`) on the reference clock into *out, and its host's
 * index into *host_out; false (cause appended) when the host is refused or the time maps outside int64. */
static bool corrected_ns(struct sync_iter *it, struct sync_input *in,
		const bt_clock_class *cc, const bt_message *msg, int64_t ns, int64_t *out, int *host_out)
{
	int host = sync_host_of(it, in, cc, msg);

	*host_out = host;
	return host >= 0 && map_host_time(it, host, ns, out);
}

/*
 * ds_ir_copy's callback: the output clock counts ns since the reference origin.
 * The snapshots other than the key's (a discarded message's end) were checked by
 * ds_message_time_ns(); should one still fail, its error is taken off the thread (the
 * copy goes on calling the library) into time_error, and push_copy() fails with it.
 */
static uint64_t map_time(void *data, const bt_clock_snapshot *cs)
{
	struct sync_iter *it = data;
	int64_t ns, t;
	int host;

	if (cs == it->current_cs) {
		/* the snapshot the message's key came from: already corrected and clamped */
		return it->current_key < 0 ? 0 : (uint64_t) it->current_key;
	}
	if (ds_clock_snapshot_ns(&it->owner, it->current_in, cs, &ns) !=
			DS_MESSAGE_TIME_STATUS_OK ||
			!corrected_ns(it, it->current_input, bt_clock_snapshot_borrow_clock_class_const(cs),
				it->current_in, ns, &t, &host)) {
		if (it->time_error) {
			bt_current_thread_clear_error();
		} else {
			it->time_error = bt_current_thread_take_error();
		}
		return 0;
	}
	if (t < it->map_floor) {
		t = it->map_floor;
	}
	return t < 0 ? 0 : (uint64_t) t;
}

/*
 * The last key slot of `stream` (created, with a reference to the stream, when new); the
 * input's last stream is cached, since an input of source.ctf.fs is one stream.
 */
static int64_t *stream_key_slot(struct sync_iter *it, struct sync_input *in, const bt_stream *stream)
{
	int64_t *slot;

	if (in->key_stream == stream) {
		return in->key_slot;
	}
	slot = g_hash_table_lookup(it->stream_keys, stream);
	if (!slot) {
		slot = g_new(int64_t, 1);
		*slot = INT64_MIN;
		bt_stream_get_ref(stream);
		g_hash_table_insert(it->stream_keys, (gpointer) stream, slot);
	}
	in->key_stream = stream;
	in->key_slot = slot;
	return slot;
}

static void stream_keys_forget(struct sync_iter *it, const bt_stream *stream)
{
	unsigned int i;

	for (i = 0; i < it->input_count; i++) {
		if (it->inputs[i].key_stream == stream) {
			it->inputs[i].key_stream = NULL;
			it->inputs[i].key_slot = NULL;
		}
	}
	g_hash_table_remove(it->stream_keys, stream);
}

/* `end`, a packet end held back, is taken at the time of `next`, its stream's next packet beginning, when that is earlier. */
static void cap_packet_end(struct sync_iter *it, const bt_message *end, const bt_message *next)
{
	const bt_clock_snapshot *cs = NULL;
	int64_t ns;

	if (bt_message_get_type(next) != BT_MESSAGE_TYPE_PACKET_BEGINNING ||
			ds_message_stream(end) != ds_message_stream(next)) {
		return;
	}
	switch (ds_message_time_ns(&it->owner, next, &ns, &cs)) {
	case DS_MESSAGE_TIME_STATUS_OK:
		if (cs) {
			it->packet_end_cap = ns;
		}
		break;
	case DS_MESSAGE_TIME_STATUS_ERROR:
		/* no cap: the beginning's own key, right after, reports its time's error */
		bt_current_thread_clear_error();
		break;
	default:
		break;
	}
}

bt_message_iterator_class_next_method_status sync_push_batch(struct sync_iter *it, struct sync_input *in,
		bt_message_array_const msgs, uint64_t count, sync_push_fn push)
{
	bt_message_iterator_class_next_method_status st = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	const bt_message *held;
	uint64_t i;

	for (i = 0; i < count; i++) {
		if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK && in->held_end) {
			held = in->held_end;
			in->held_end = NULL;
			cap_packet_end(it, held, msgs[i]);
			st = push(it, in, held);
		}
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			bt_message_put_ref(msgs[i]);
		} else if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_PACKET_END) {
			in->held_end = msgs[i];
		} else {
			st = push(it, in, msgs[i]);
		}
	}
	return st;
}

bt_message_iterator_class_next_method_status sync_push_held(struct sync_iter *it, struct sync_input *in,
		sync_push_fn push)
{
	const bt_message *held = in->held_end;

	if (!held) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	in->held_end = NULL;
	return push(it, in, held);
}

/*
 * Key of `msg` into *key; *timed says whether it carries a snapshot (then clamped to
 * the floor, and to its stream's previous key: a stream's messages keep their order even
 * where its own times go back).  A packet end later than the beginning of its stream's next
 * packet (packets that overlap, an LTTng quirk; sync_push_batch() holds each packet end until
 * its input's next message) is taken at that beginning.  -1 (cause appended) when its time
 * overflows.
 */
int sync_message_key(struct sync_iter *it, struct sync_input *in,
		const bt_message *msg, int64_t *key_out, bool *timed, int *host_out)
{
	struct sync_msg_view view;
	const bt_stream *stream = NULL;
	bt_message_type type;
	bool tracks = false;
	int64_t key = 0, *slot, cap;

	cap = it->packet_end_cap;
	it->packet_end_cap = INT64_MAX;
	if (sync_msg_view_make(it, in, msg, &view) != DS_MESSAGE_TIME_STATUS_OK) {
		return -1;
	}
	type = view.type;
	if (view.cs && type == BT_MESSAGE_TYPE_PACKET_END && view.ns > cap) {
		view.ns = cap;	/* the next packet of its stream begins earlier */
	}
	if (type != BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY) {
		stream = ds_message_stream(msg);
		tracks = in->tracked_streams && sync_stream_tracks_keys(bt_stream_borrow_class_const(stream));
	}
	*timed = false;
	*host_out = -1;
	it->current_cs = view.cs;
	if (view.cs) {
		if (!corrected_ns(it, in, bt_clock_snapshot_borrow_clock_class_const(view.cs), msg,
				view.ns, &key, host_out)) {
			return -1;
		}
		*timed = true;
		if (it->has_floor && key < it->floor) {
			key = it->floor;
			it->late++;
		}
		if (stream) {
			slot = stream_key_slot(it, in, stream);
			if (key < *slot) {
				key = *slot;
				it->stream_backsteps++;
			}
			*slot = key;
		}
	} else if (type == BT_MESSAGE_TYPE_STREAM_END) {
		key = INT64_MAX;
	} else if (type == BT_MESSAGE_TYPE_STREAM_BEGINNING || !tracks) {
		key = INT64_MIN;
	} else {
		key = *stream_key_slot(it, in, stream);	/* INT64_MIN before its first timed message */
	}
	if (type == BT_MESSAGE_TYPE_STREAM_END) {
		stream_keys_forget(it, stream);
	}
	*key_out = key;
	return 0;
}

void sync_warn_stream_backsteps(const struct sync_iter *it, bt_self_component *self_comp,
		const char *class_name)
{
	if (it->stream_backsteps) {
		DS_LOG_WARN(self_comp, class_name,
			"%" PRIu64 " message(s) were earlier than the previous message of their stream "
			"(e.g. a packet that begins before the previous one ends) and were given that "
			"message's timestamp, so that each stream keeps its order", it->stream_backsteps);
	}
}

/* ---- pass 2 ---- */

static bt_message_iterator_class_next_method_status push_copy(struct sync_iter *it,
		struct sync_input *in, const bt_message *msg)
{
	bt_message *out = NULL;
	int64_t key;
	bool timed;
	int host;

	if (sync_message_key(it, in, msg, &key, &timed, &host)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	it->map_floor = it->has_floor ? it->floor : INT64_MIN;
	it->current_in = msg;
	it->current_input = in;
	it->current_key = key;
	if (!timed) {
		it->current_cs = NULL;
	}
	if (ds_ir_copy_message(&it->copy, it->self, msg, &out) || it->time_error) {
		BT_MESSAGE_PUT_REF_AND_RESET(out);
		if (it->time_error) {
			/* the copy's own error, if any, gives way to the time's */
			bt_current_thread_clear_error();
			bt_current_thread_move_error(it->time_error);
			it->time_error = NULL;
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: cannot copy a %s message onto the synchronized clock.",
			SYNC_CLASS_NAME, bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT ?
			"event" : "non-event");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	sync_reorder_push(it, in, key, timed, host, out);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* push_copy() for sync_push_batch(): the upstream's reference is put once copied. */
static bt_message_iterator_class_next_method_status push_copy_of(struct sync_iter *it,
		struct sync_input *in, const bt_message *msg)
{
	bt_message_iterator_class_next_method_status st = push_copy(it, in, msg);

	bt_message_put_ref(msg);
	return st;
}

/*
 * The input that limits the release bound (smallest max_key - window among
 * inputs not ended; one that has read nothing timed limits everything);
 * -1 when every input has ended.  *bound receives the bound.
 */
int sync_limiting_input(struct sync_iter *it, int64_t *bound)
{
	int best = -1;
	unsigned int i;

	if (it->limiting_known) {
		*bound = it->limiting_bound;
		return it->limiting;
	}
	*bound = INT64_MAX;
	for (i = 0; i < it->input_count; i++) {
		struct sync_input *in = &it->inputs[i];
		int64_t b;

		if (in->ended) {
			continue;
		}
		b = in->has_key ? in->max_key - in->window : INT64_MIN;
		if (best < 0 || b < *bound) {
			best = (int) i;
			*bound = b;
		}
	}
	it->limiting_known = true;
	it->limiting = best;
	it->limiting_bound = *bound;
	return best;
}

bt_message_iterator_class_next_method_status sync_input_next(struct sync_iter *it, unsigned int index,
		bt_message_array_const *msgs, uint64_t *count)
{
	struct sync_input *in = &it->inputs[index];
	bt_message_iterator_class_next_method_status st;
	char port[24];

	snprintf(port, sizeof(port), "in%u", index);
	st = ds_upstream_next(&it->owner, in->iter, port, msgs, count);
	if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		in->ended = true;
		sync_limiting_forget(it);
	}
	return st;
}

static bt_message_iterator_class_next_method_status pull(struct sync_iter *it, int index)
{
	struct sync_input *in = &it->inputs[index];
	bt_message_iterator_class_next_method_status st;
	bt_message_array_const msgs;
	uint64_t count, i;

	st = sync_input_next(it, (unsigned int) index, &msgs, &count);
	if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		return sync_push_held(it, in, push_copy_of);
	}
	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		for (i = 0; i < count; i++) {
			bt_message_put_ref(msgs[i]);
		}
		return st;
	}
	return sync_push_batch(it, in, msgs, count, push_copy_of);
}

static bt_message_iterator_class_next_method_status pass2_next(struct sync_iter *it,
		bt_message_array_const msgs, uint64_t capacity, uint64_t *count)
{
	bt_message_iterator_class_next_method_status st =
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;

	*count = 0;
	while (*count < capacity) {
		int64_t bound;
		int limiting = sync_limiting_input(it, &bound);
		const struct ds_reorder_item *head = ds_reorder_peek(&it->reorder);

		if (head && (limiting < 0 || head->key <= bound)) {
			struct ds_reorder_item p = ds_reorder_pop(&it->reorder);

			if (p.key != INT64_MIN && p.key != INT64_MAX &&
					(!it->has_floor || p.key > it->floor)) {
				it->floor = p.key;
				it->has_floor = true;
			}
			msgs[(*count)++] = p.data;
			continue;
		}
		if (limiting < 0) {
			break;
		}
		st = pull(it, limiting);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			break;
		}
	}
	if (*count > 0 && st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN) {
		st = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK && *count == 0) {
		it->phase = SYNC_PHASE_DONE;
		if (it->comp->formula) {
			sync_formula_warn_unused(it);
		}
		if (it->late) {
			DS_LOG_WARN(it->comp->self_comp, SYNC_CLASS_NAME,
				"%" PRIu64 " messages arrived later than the reorder window allowed "
				"and were given the previous timestamp", it->late);
		}
		sync_warn_stream_backsteps(it, it->comp->self_comp, SYNC_CLASS_NAME);
		if (sync_write_report(it, true)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		st = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	return st;
}

/* ---- between the passes ---- */

/* Can every upstream seek back to its beginning? -1 with the cause when one cannot. */
static int check_seekable(struct sync_iter *it)
{
	unsigned int i;

	for (i = 0; i < it->input_count; i++) {
		bt_bool can = BT_FALSE;

		if (bt_message_iterator_can_seek_beginning(it->inputs[i].iter, &can) || !can) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
				"%s: the upstream of input port `in%u` cannot seek back to its "
				"beginning, which the second pass needs. Run once with "
				"`report=\"sync.json\"` on a seekable source (e.g. source.ctf.fs), "
				"then apply it with `formula=\"sync.json\"` (one pass, no seeking; "
				"doc/sync.md, \"Sources that cannot seek\").",
				SYNC_CLASS_NAME, i);
			return -1;
		}
	}
	return 0;
}

static int seek_inputs(struct sync_iter *it)
{
	unsigned int i;

	if (check_seekable(it)) {
		return -1;
	}
	for (i = 0; i < it->input_count; i++) {
		if (bt_message_iterator_seek_beginning(it->inputs[i].iter)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
				"%s: seeking input port `in%u` to its beginning failed.",
				SYNC_CLASS_NAME, i);
			return -1;
		}
		it->inputs[i].ended = false;
	}
	sync_limiting_forget(it);
	return 0;
}

/* a + b for a, b >= 0, saturated */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Correction spread between the hosts of one input, plus its raw backsteps. */
static void compute_windows(struct sync_iter *it)
{
	unsigned int i;
	guint h;

	for (i = 0; i < it->input_count; i++) {
		struct sync_input *in = &it->inputs[i];
		int64_t spread = 0;
		int end;

		for (end = 0; end < 2; end++) {
			bool any = false;
			int64_t lo = 0, hi = 0;

			for (h = 0; h < in->hosts_seen->len; h++) {
				struct sync_host *host = g_ptr_array_index(it->hosts, h);
				int64_t t, corr;

				if (!g_array_index(in->hosts_seen, gboolean, h) || !host->has_range) {
					continue;
				}
				t = end ? host->last_ns : host->first_ns;
				corr = ds_sat_sub(ds_transform_apply(&host->result.to_ref, t), t);
				lo = any && lo < corr ? lo : corr;
				hi = any && hi > corr ? hi : corr;
				any = true;
			}
			if (any && ds_sat_sub(hi, lo) > spread) {
				spread = ds_sat_sub(hi, lo);
			}
		}
		in->window = sat_add(sat_add(spread, in->max_backstep),
			in->max_backstep / 1000 + 1);
		if (in->window > it->window_max) {
			it->window_max = in->window;
		}
	}
	sync_limiting_forget(it);
}

int sync_make_out_clock(struct sync_iter *it)
{
	struct sync_host *ref = it->hosts->len ?
		g_ptr_array_index(it->hosts, it->reference) : NULL;
	char *seed, *descr;
	XXH128_hash_t h;
	uint8_t uuid[16];
	int i, ret = 0;

	it->out_clock = bt_clock_class_create(it->comp->self_comp);
	if (!it->out_clock) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: cannot create the synchronized clock class (out of memory).",
			SYNC_CLASS_NAME);
		return -1;
	}
	seed = g_strdup_printf("deepspan-synchronized:%s:%s", ref ? ref->uuid : "",
		ref ? ref->name : "");
	h = XXH3_128bits(seed, strlen(seed));
	for (i = 0; i < 8; i++) {
		uuid[i] = (uint8_t) (h.high64 >> (56 - 8 * i));
		uuid[8 + i] = (uint8_t) (h.low64 >> (56 - 8 * i));
	}
	uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x50);	/* name-based */
	uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);
	descr = g_strdup_printf("synchronized by %s onto the clock of host %s",
		SYNC_CLASS_NAME, ref ? ref->name : "(none)");
	if (bt_clock_class_set_name(it->out_clock, ref && ref->clock_name ? ref->clock_name :
			"synchronized") != BT_CLOCK_CLASS_SET_NAME_STATUS_OK ||
			bt_clock_class_set_description(it->out_clock, descr) !=
			BT_CLOCK_CLASS_SET_DESCRIPTION_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: cannot name the synchronized clock class (out of memory).",
			SYNC_CLASS_NAME);
		ret = -1;
	}
	bt_clock_class_set_frequency(it->out_clock, 1000000000);
	bt_clock_class_set_offset(it->out_clock, 0, 0);
	bt_clock_class_set_origin_is_unix_epoch(it->out_clock,
		ref ? ref->origin_is_unix_epoch : BT_TRUE);
	bt_clock_class_set_uuid(it->out_clock, uuid);
	g_free(seed);
	g_free(descr);
	return ret;
}

static int start_pass2(struct sync_iter *it)
{
	if (sync_make_out_clock(it) ||
			ds_ir_copy_init(&it->copy, it->comp->self_comp, it->out_clock, map_time, it)) {
		return -1;
	}
	it->copy_ready = true;
	it->phase = SYNC_PHASE_PASS2;
	return 0;
}

int sync_finish_pass1(struct sync_iter *it)
{
	unsigned int h;

	if (sync_pass1_solve(it) || sync_choose_reference(it)) {
		return -1;
	}
	{
		struct ds_sync_host_result *results = g_new0(struct ds_sync_host_result,
			it->hosts->len ? it->hosts->len : 1);

		ds_sync_solver_solve(&it->solver, it->reference, results);
		for (h = 0; h < it->hosts->len; h++) {
			((struct sync_host *) g_ptr_array_index(it->hosts, h))->result = results[h];
		}
		g_free(results);
	}
	for (h = 0; h < it->hosts->len; h++) {
		struct sync_host *host = g_ptr_array_index(it->hosts, h);

		if (host->result.quality == DS_SYNC_QUALITY_ABSENT) {
			DS_LOG_WARN(it->comp->self_comp, SYNC_CLASS_NAME,
				"host %s: no usable send/receive pair joins it to reference host %s: "
				"it keeps its own clock (quality ABSENT)", host->name,
				((struct sync_host *) g_ptr_array_index(it->hosts, it->reference))->name);
		} else if (fabs(host->result.to_ref.slope - 1.0) > SYNC_MAX_SLOPE_DEVIATION) {
			DS_LOG_WARN(it->comp->self_comp, SYNC_CLASS_NAME,
				"host %s: its clock slope %.9f is more than %.0f ppm from 1, beyond a "
				"real clock's drift (quality %s: check its pairs); the report cannot be "
				"applied as a `formula` (doc/sync.md, \"Formula\")", host->name,
				host->result.to_ref.slope, SYNC_MAX_SLOPE_DEVIATION * 1e6,
				ds_sync_quality_name(host->result.quality));
		}
		if (host->result.quality == DS_SYNC_QUALITY_ABSENT || !host->result.fail_on_path) {
			continue;
		}
		if (host->rejected) {
			DS_LOG_WARN(it->comp->self_comp, SYNC_CLASS_NAME,
				"host %s: contradicting pairs on its path to the reference (quality FAIL): "
				"the last good formula is kept (%" PRIu64 " pairs rejected)",
				host->name, host->rejected);
		} else {
			DS_LOG_WARN(it->comp->self_comp, SYNC_CLASS_NAME,
				"host %s: contradicting pairs on its path to the reference (quality FAIL): "
				"the last good formula is kept", host->name);
		}
	}
	compute_windows(it);
	sync_pass1_fini(it);
	if (it->comp->report_only) {
		/* the report is the result: no pass 2, no message out */
		it->phase = SYNC_PHASE_DONE;
		return sync_write_report(it, false);
	}
	if (sync_write_report(it, false) || seek_inputs(it)) {
		return -1;
	}
	return start_pass2(it);
}

bt_message_iterator_class_next_method_status sync_iterator_next(
		bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
		uint64_t *count)
{
	struct sync_iter *it = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status st;

	*count = 0;
	if (it->phase == SYNC_PHASE_PASS1) {
		st = sync_pass1_run(it);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return st;
		}
		if (sync_finish_pass1(it)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}
	if (it->phase == SYNC_PHASE_DONE) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	return pass2_next(it, msgs, capacity, count);
}

/* ---- life cycle ---- */

void sync_iter_tables_init(struct sync_iter *it)
{
	it->hosts = g_ptr_array_new_with_free_func(sync_host_destroy);
	it->clock_hosts = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		ds_put_clock_class, NULL);
	it->stream_keys = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		ds_put_stream, g_free);
	it->packet_end_cap = INT64_MAX;
	ds_reorder_init(&it->reorder);
}

void sync_iter_release(struct sync_iter *it)
{
	unsigned int i;

	for (i = 0; i < it->input_count; i++) {
		while (it->inputs[i].p1_head < it->inputs[i].p1_count) {	/* pass 1 stopped midway */
			bt_message_put_ref(it->inputs[i].p1_msgs[it->inputs[i].p1_head++]);
		}
		BT_MESSAGE_PUT_REF_AND_RESET(it->inputs[i].held_end);
		bt_message_iterator_put_ref(it->inputs[i].iter);
		if (it->inputs[i].hosts_seen) {
			g_array_free(it->inputs[i].hosts_seen, TRUE);
		}
		if (it->inputs[i].host_lanes) {
			g_array_free(it->inputs[i].host_lanes, TRUE);
		}
	}
	g_free(it->inputs);
	if (it->reorder.lanes) {
		while (it->reorder.len) {
			bt_message_put_ref(ds_reorder_pop(&it->reorder).data);
		}
		ds_reorder_fini(&it->reorder);
	}
	sync_pass1_fini(it);
	if (it->solver_ready) {
		ds_sync_solver_fini(&it->solver);
	}
	if (it->copy_ready) {
		ds_ir_copy_fini(&it->copy);
	}
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(it->out_clock);
	if (it->time_error) {
		bt_error_release(it->time_error);
	}
	if (it->stream_keys) {
		g_hash_table_destroy(it->stream_keys);
	}
	if (it->event_infos) {
		g_hash_table_destroy(it->event_infos);
	}
	if (it->clock_hosts) {
		g_hash_table_destroy(it->clock_hosts);
	}
	if (it->hosts) {
		g_ptr_array_free(it->hosts, TRUE);
	}
}

static void iter_destroy(struct sync_iter *it)
{
	if (!it) {
		return;
	}
	sync_iter_release(it);
	g_free(it);
}

static int create_inputs(struct sync_iter *it)
{
	bt_self_component_filter *filter = it->comp->self_filter;
	uint64_t i, n = bt_component_filter_get_input_port_count(
		bt_self_component_filter_as_component_filter(filter));

	it->inputs = g_new0(struct sync_input, n ? n : 1);
	for (i = 0; i < n; i++) {
		bt_self_component_port_input *port =
			bt_self_component_filter_borrow_input_port_by_index(filter, i);
		struct sync_input *in = &it->inputs[it->input_count];

		if (!bt_port_is_connected(bt_self_component_port_as_port(
				bt_self_component_port_input_as_self_component_port(port)))) {
			continue;
		}
		if (bt_message_iterator_create_from_message_iterator(it->self, port, &in->iter)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
				"%s: cannot create a message iterator on input port `in%" PRIu64 "`.",
				SYNC_CLASS_NAME, i);
			return -1;
		}
		in->hosts_seen = g_array_new(FALSE, TRUE, sizeof(gboolean));
		it->input_count++;
	}
	return 0;
}

bt_message_iterator_class_initialize_method_status sync_iterator_initialize(
		bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	struct sync_iter *it = g_new0(struct sync_iter, 1);

	(void) config;
	(void) port;
	it->self = self;
	it->owner = (struct ds_upstream_owner) { .self_msg_iter = self,
		.class_name = SYNC_CLASS_NAME, .doc_page = "doc/sync.md" };
	it->comp = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	sync_iter_tables_init(it);
	it->event_infos = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		ds_put_event_class, g_free);
	if (create_inputs(it)) {
		goto error;
	}
	if (sync_pass1_init(it)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self,
			"%s: out of memory while preparing pass 1.", SYNC_CLASS_NAME);
		goto error;
	}
	/* two passes: fail now rather than after reading everything once */
	if (!it->comp->formula && !it->comp->report_only && check_seekable(it)) {
		goto error;
	}
	if (it->comp->formula) {
		sync_pass1_fini(it);
		if (sync_apply_formula(it) || start_pass2(it)) {
			goto error;
		}
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	iter_destroy(it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void sync_iterator_finalize(bt_self_message_iterator *self)
{
	iter_destroy(bt_self_message_iterator_get_data(self));
}
