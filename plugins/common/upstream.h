/* SPDX-License-Identifier: MIT */
/*
 * Reading an upstream message iterator, shared by the filters (and usable by the sinks):
 *
 * - ds_upstream_next(): bt_message_iterator_next() with its status mapped to the caller's
 *   iterator-next status (MEMORY_ERROR kept distinct; an error gets a cause naming the
 *   component class and the input port).
 * - ds_message_time_ns(): a message's default clock snapshot in ns from origin, with one rule
 *   for every message type (see below), and a clean error when the conversion overflows.
 *
 * The rule ("the time of a message"):
 *   event                          its default clock snapshot, when its stream class has a
 *                                  default clock class
 *   packet beginning / end         its default clock snapshot, when the stream class says
 *                                  packets have one
 *   discarded events / packets     the beginning snapshot (the time the loss starts), when the
 *                                  stream class says they have snapshots; the end snapshot is
 *                                  converted too, so that an overflow in either fails here
 *   message iterator inactivity    its clock snapshot
 *   stream beginning / end         its default clock snapshot when its state is KNOWN
 *   anything else                  none
 *
 * A conversion that does not fit in int64 ns from origin (a corrupt timestamp, or a clock
 * offset near the limits) is an error: a cause naming the trace, stream and clock and what to
 * do is appended and DS_MESSAGE_TIME_STATUS_ERROR returned; the caller returns an error status
 * so that the graph fails cleanly (never another library call with the error left pending).
 */
#ifndef DEEPSPAN_COMMON_UPSTREAM_H
#define DEEPSPAN_COMMON_UPSTREAM_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* Who reads: the causes name `class_name` and the doc page `doc_page` (e.g. "doc/sync.md"). */
struct ds_upstream_owner {
	bt_self_message_iterator *self_msg_iter;	/* borrowed; NULL for a sink */
	bt_self_component *self_comp;			/* borrowed; used when self_msg_iter is NULL */
	const char *class_name;				/* borrowed, static */
	const char *doc_page;				/* borrowed, static */
};

/*
 * bt_message_iterator_next(upstream): OK (messages in *msgs, *count, references moved to the
 * caller), END, AGAIN, MEMORY_ERROR or ERROR (cause appended naming `port_name`).
 */
bt_message_iterator_class_next_method_status ds_upstream_next(
		const struct ds_upstream_owner *owner, bt_message_iterator *upstream,
		const char *port_name, bt_message_array_const *msgs, uint64_t *count);

/* The same status as a sink's consume status (END stays END). */
bt_component_class_sink_consume_method_status ds_upstream_status_to_sink(
		bt_message_iterator_class_next_method_status status);

typedef enum ds_message_time_status {
	DS_MESSAGE_TIME_STATUS_OK = 0,
	DS_MESSAGE_TIME_STATUS_NONE = 1,	/* the message has no time (rule above) */
	DS_MESSAGE_TIME_STATUS_ERROR = -1,	/* conversion overflow, cause appended */
} ds_message_time_status;

/* The message's default clock snapshot by the rule above (borrowed), or NULL. */
const bt_clock_snapshot *ds_message_default_clock_snapshot(const bt_message *msg);

/*
 * The time of `msg` in ns from origin (rule above) into *ns (untouched unless OK); when
 * `cs_out` is not NULL, *cs_out receives the snapshot it came from (NULL: none).
 */
ds_message_time_status ds_message_time_ns(const struct ds_upstream_owner *owner,
		const bt_message *msg, int64_t *ns, const bt_clock_snapshot **cs_out);

/*
 * `cs` (a snapshot of `msg`) in ns from origin: OK or ERROR (cause appended naming msg's
 * trace, stream and clock).
 */
ds_message_time_status ds_clock_snapshot_ns(const struct ds_upstream_owner *owner,
		const bt_message *msg, const bt_clock_snapshot *cs, int64_t *ns);

/* The stream of `msg`, or NULL (message iterator inactivity). */
const bt_stream *ds_message_stream(const bt_message *msg);

#endif /* DEEPSPAN_COMMON_UPSTREAM_H */
