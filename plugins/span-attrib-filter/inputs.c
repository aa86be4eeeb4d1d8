/* SPDX-License-Identifier: MIT */
/*
 * The input ports of filter.deepspan.span-attrib: `in0`, `in1`, … (a new one appears when the last
 * is connected, like filter.utils.muxer's).  One connected port is read batch by batch; several are
 * merged by time (ns from origin of each message's default clock snapshot, upstream.h's rule; messages
 * without one — most stream beginnings and ends — go first), so `babeltrace2 run` can connect each host's source directly.
 */
#include "span-attrib.h"

#include "input-ports.h"

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

bt_message_iterator_class_next_method_status inputs_next(struct span_attrib_iterator *it,
		const bt_message **out)
{
	bt_message_iterator_class_next_method_status status;
	struct upstream *best = NULL;
	int64_t best_ns = INT64_MAX;
	guint i;

	*out = NULL;
	if (it->fit) {
		return ds_sync_merge_next(it->fit, out, &it->fit_cycles);
	}
	for (i = 0; i < it->upstreams->len; i++) {
		struct upstream *up = &g_array_index(it->upstreams, struct upstream, i);
		ds_message_time_status time_status;
		int64_t ns;

		status = fill(it, up);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
		if (up->ended) {
			continue;
		}
		if (it->upstreams->len == 1) {
			best = up;
			break;
		}
		if (up->head == HEAD_UNKNOWN) {
			time_status = ds_message_time_ns(&it->owner, up->batch[up->index], &up->head_ns, NULL);
			if (time_status == DS_MESSAGE_TIME_STATUS_ERROR) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}
			up->head = time_status == DS_MESSAGE_TIME_STATUS_NONE ? HEAD_NO_TIME : HEAD_TIME;
		}
		if (up->head == HEAD_NO_TIME) {
			best = up;
			break;
		}
		ns = up->head_ns;
		if (!best || ns < best_ns) {
			best = up;
			best_ns = ns;
		}
	}
	if (!best) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	*out = best->batch[best->index++];
	best->head = HEAD_UNKNOWN;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
