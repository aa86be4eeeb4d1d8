/* SPDX-License-Identifier: MIT */
/*
 * The input ports of filter.deepspan.span-attrib: `in0`, `in1`, … (a new one appears when the last
 * is connected, like filter.utils.muxer's).  One connected port is read batch by batch; several are
 * merged by time (ns from origin of each message's default clock snapshot, upstream.h's rule; messages
 * without one — most stream beginnings and ends — go first), so `babeltrace2 run` can connect each host's source directly.
 * The next message is the head of the first upstream (by port) whose head has no time, else the earliest head
 * (the first upstream on a tie): a binary heap of the upstreams by (timed, time, port) gives it without a look
 * at every upstream per message.
 */
#include "span-attrib.h"

#include "input-ports.h"
#include "index-heap.h"

#include <inttypes.h>
#include <stdio.h>

struct upstream {
	bt_message_iterator *iter;	/* owned */
	bt_message_array_const batch;	/* borrowed array; the messages from `index` on are owned */
	uint64_t count, index;
	bool ended;
	/* the time of the message at `index` (ds_message_time_ns), found once per message, not once per merge step */
	enum { HEAD_UNKNOWN, HEAD_TIME, HEAD_NO_TIME } head;
	int64_t head_ns;		/* with HEAD_TIME */
	char port[24];			/* its input port's name */
};

#define APPEND_CAUSE(self_comp, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((self_comp), __VA_ARGS__)

bt_component_class_port_connected_method_status span_attrib_component_input_port_connected(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_port_input *self_port, const bt_port_output *other_port)
{
	(void) other_port;
	return ds_input_ports_connected(self_comp_filter, self_port, SPAN_ATTRIB_CLASS_NAME);
}

int inputs_init(struct span_attrib_iterator *it, bt_self_component_filter *self_comp_filter)
{
	const bt_component_filter *comp = bt_self_component_filter_as_component_filter(self_comp_filter);
	uint64_t count = bt_component_filter_get_input_port_count(comp), i;

	it->upstreams = g_array_new(FALSE, TRUE, sizeof(struct upstream));
	for (i = 0; i < count; i++) {
		bt_self_component_port_input *port =
			bt_self_component_filter_borrow_input_port_by_index(self_comp_filter, i);
		struct upstream up = { 0 };

		if (!bt_port_is_connected(bt_port_input_as_port_const(
				bt_self_component_port_input_as_port_input(port)))) {
			continue;
		}
		if (bt_message_iterator_create_from_message_iterator(it->self_msg_iter, port, &up.iter) !=
				BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
			APPEND_CAUSE(it->comp->self_comp, "%s: cannot create the message iterator of input port in%" PRIu64
				" (its upstream's cause is above).", SPAN_ATTRIB_CLASS_NAME, i);
			return -1;
		}
		snprintf(up.port, sizeof(up.port), "in%" PRIu64, i);
		g_array_append_val(it->upstreams, up);
	}
	if (it->upstreams->len == 0) {
		APPEND_CAUSE(it->comp->self_comp, "%s has no connected input port: connect `in0`.", SPAN_ATTRIB_CLASS_NAME);
		return -1;
	}
	if (it->comp->clock_formula) {
		/* the merge on the clock fit reads the upstreams (clock-fit.c) */
		bt_message_iterator **iters = g_new(bt_message_iterator *, it->upstreams->len);
		int ret;

		for (i = 0; i < it->upstreams->len; i++) {
			iters[i] = g_array_index(it->upstreams, struct upstream, i).iter;
			g_array_index(it->upstreams, struct upstream, i).iter = NULL;
		}
		ret = clock_fit_start(it, iters, it->upstreams->len) == SPAN_ATTRIB_STATUS_OK ? 0 : -1;
		g_free(iters);
		return ret;
	}
	return 0;
}

void inputs_fini(struct span_attrib_iterator *it)
{
	guint i;

	if (!it->upstreams) {
		return;
	}
	for (i = 0; i < it->upstreams->len; i++) {
		struct upstream *up = &g_array_index(it->upstreams, struct upstream, i);

		for (; up->index < up->count; up->index++) {
			bt_message_put_ref(up->batch[up->index]);
		}
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(up->iter);
	}
	g_array_free(it->upstreams, TRUE);
	it->upstreams = NULL;
	g_free(it->ready);
	it->ready = NULL;
	ds_sync_merge_destroy(it->fit);
	it->fit = NULL;
}

/* Makes sure `up` has a message at `index` unless it ended. */
static bt_message_iterator_class_next_method_status fill(struct span_attrib_iterator *it,
		struct upstream *up)
{
	bt_message_iterator_class_next_method_status status;

	if (up->ended || up->index < up->count) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	up->index = 0;
	up->count = 0;
	up->head = HEAD_UNKNOWN;
	status = ds_upstream_next(&it->owner, up->iter, up->port, &up->batch, &up->count);
	if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		up->ended = true;
		status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	return status;
}

/* Whether upstream `a`'s head comes before upstream `b`'s (both known). */
static bool upstream_before(const void *ctx, guint a, guint b)
{
	const struct upstream *ups = ctx, *x = &ups[a], *y = &ups[b];

	if (x->head != y->head) {
		return x->head == HEAD_NO_TIME;
	}
	if (x->head == HEAD_TIME && x->head_ns != y->head_ns) {
		return x->head_ns < y->head_ns;
	}
	return a < b;
}

static void ready_sift_up(struct span_attrib_iterator *it, guint at)
{
	ds_index_heap_sift_up(it->ready, at, upstream_before, it->upstreams->data);
}

static void ready_sift_down(struct span_attrib_iterator *it, guint at)
{
	ds_index_heap_sift_down(it->ready, it->ready_len, at, upstream_before, it->upstreams->data);
}

/* Fills upstream `index` and finds the time of its head (unless it ended). */
static bt_message_iterator_class_next_method_status find_head(struct span_attrib_iterator *it, guint index)
{
	struct upstream *up = &g_array_index(it->upstreams, struct upstream, index);
	bt_message_iterator_class_next_method_status status = fill(it, up);
	ds_message_time_status time_status;

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK || up->ended) {
		return status;
	}
	time_status = ds_message_time_ns(&it->owner, up->batch[up->index], &up->head_ns, NULL);
	if (time_status == DS_MESSAGE_TIME_STATUS_ERROR) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	up->head = time_status == DS_MESSAGE_TIME_STATUS_NONE ? HEAD_NO_TIME : HEAD_TIME;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* The heap of every upstream with a head, at the first message. */
static bt_message_iterator_class_next_method_status ready_start(struct span_attrib_iterator *it)
{
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	guint i;

	it->ready = g_new(guint, it->upstreams->len);
	it->ready_len = 0;
	it->taken = false;
	for (i = 0; i < it->upstreams->len && status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK; i++) {
		status = find_head(it, i);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK &&
				!g_array_index(it->upstreams, struct upstream, i).ended) {
			it->ready[it->ready_len++] = i;
			ready_sift_up(it, it->ready_len - 1);
		}
	}
	return status;
}

/*
 * The next message of several upstreams, merged by time: the head of the heap's top, which stays at the top
 * (`taken`) until the next call finds its next head (a pull when its batch is done) and moves it down.
 */
static bt_message_iterator_class_next_method_status merge_next(struct span_attrib_iterator *it,
		const bt_message **out)
{
	bt_message_iterator_class_next_method_status status = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	struct upstream *up;

	if (!it->ready) {
		status = ready_start(it);
	} else if (it->taken) {
		it->taken = false;
		status = find_head(it, it->ready[0]);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			if (g_array_index(it->upstreams, struct upstream, it->ready[0]).ended) {
				it->ready[0] = it->ready[--it->ready_len];
			}
			ready_sift_down(it, 0);
		}
	}
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}
	if (it->ready_len == 0) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	up = &g_array_index(it->upstreams, struct upstream, it->ready[0]);
	*out = up->batch[up->index++];
	up->head = HEAD_UNKNOWN;
	it->taken = true;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_message_iterator_class_next_method_status inputs_next(struct span_attrib_iterator *it,
		const bt_message **out)
{
	bt_message_iterator_class_next_method_status status;
	struct upstream *up;

	*out = NULL;
	if (it->fit) {
		return ds_sync_merge_next(it->fit, out, &it->fit_cycles);
	}
	if (it->upstreams->len > 1) {
		return merge_next(it, out);
	}
	up = &g_array_index(it->upstreams, struct upstream, 0);
	status = fill(it, up);
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}
	if (up->ended) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	*out = up->batch[up->index++];
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
