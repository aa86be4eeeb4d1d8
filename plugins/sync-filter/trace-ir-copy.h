/* SPDX-License-Identifier: MIT */
/*
 * Trace-IR copy: mirrors upstream trace IR (trace/stream/event classes, every
 * field class type with its field paths resolved, traces with their
 * environment, streams, packets) into classes owned by a filter, deep-copies
 * fields, and re-creates messages on an output clock chosen by the caller.
 *
 * babeltrace2 IR objects of an upstream are read-only and messages cannot
 * change clocks, so a filter that changes time (filter.deepspan.sync) must
 * rebuild everything.  Classes are mirrored lazily, the first time a message
 * needs them, and cached in hash tables keyed by the input object pointer
 * (the copier holds a reference on every input key so no address is reused);
 * per event only the output message itself is allocated.
 *
 * Output classes keep names, ids, environment and field names; only the
 * default clock class changes: the caller's `out_clock` (shared by every
 * output stream class), or, when NULL, a mirror of each input clock class.
 * Every clock snapshot goes through the caller's `map_time` callback.
 */
#ifndef DEEPSPAN_SYNC_TRACE_IR_COPY_H
#define DEEPSPAN_SYNC_TRACE_IR_COPY_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

/* Maps an input clock snapshot to the output clock's value (cycles). */
typedef uint64_t (*ds_ir_map_time_func)(void *data,
		const bt_clock_snapshot *snapshot);

enum ds_ir_copy_status {
	DS_IR_COPY_STATUS_OK = 0,
	DS_IR_COPY_STATUS_MEMORY_ERROR = -12,
	DS_IR_COPY_STATUS_ERROR = -1,
};

struct ds_ir_copy {
	bt_self_component *self_comp;		/* borrowed: owns every output object */
	bt_clock_class *out_clock;		/* owned; NULL: mirror input clocks */
	ds_ir_map_time_func map_time;		/* NULL: keep the input value */
	void *map_time_data;			/* borrowed */
	/* caches: input object (ref held) -> output object (ref held) */
	GHashTable *clock_classes;
	GHashTable *trace_classes;
	GHashTable *stream_classes;
	GHashTable *event_classes;
	GHashTable *traces;
	GHashTable *streams;			/* entries dropped at stream end */
	GHashTable *packets;			/* entries dropped at packet end */
	/* input field class -> output field class (both borrowed; resolves paths) */
	GHashTable *field_classes;
	/* one-entry caches in front of the tables (borrowed) */
	const bt_event_class *last_in_ec;
	bt_event_class *last_out_ec;
	const bt_packet *last_in_packet;
	bt_packet *last_out_packet;
};

/*
 * `out_clock` (borrowed; a reference is taken) is the clock of every output
 * stream class, or NULL to mirror input clock classes one by one.
 */
enum ds_ir_copy_status ds_ir_copy_init(struct ds_ir_copy *copy,
		bt_self_component *self_comp, bt_clock_class *out_clock,
		ds_ir_map_time_func map_time, void *map_time_data);
void ds_ir_copy_fini(struct ds_ir_copy *copy);

/*
 * Creates in `*out` (new reference) the output twin of `in` on `iter`,
 * mirroring classes, traces, streams and packets as needed.  Supports stream
 * beginning/end, packet beginning/end, event, discarded events/packets and
 * message iterator inactivity messages.
 */
enum ds_ir_copy_status ds_ir_copy_message(struct ds_ir_copy *copy,
		bt_self_message_iterator *iter, const bt_message *in,
		bt_message **out);

/* ---- the pieces, for components that build their own messages ---- */

/* The output twin of an input stream class, event class, trace, clock class (borrowed; NULL on error). */
bt_stream_class *ds_ir_copy_stream_class(struct ds_ir_copy *copy,
		const bt_stream_class *in_sc);
bt_event_class *ds_ir_copy_event_class(struct ds_ir_copy *copy,
		const bt_event_class *in_ec);
bt_trace *ds_ir_copy_trace(struct ds_ir_copy *copy, const bt_trace *in_trace);
bt_clock_class *ds_ir_copy_clock_class(struct ds_ir_copy *copy,
		const bt_clock_class *in_cc);

/* Output field class for `in_fc`, in the scope of (in_sc, in_ec); new reference. */
bt_field_class *ds_ir_copy_field_class(struct ds_ir_copy *copy,
		bt_trace_class *out_tc, const bt_stream_class *in_sc,
		const bt_event_class *in_ec, const bt_field_class *in_fc);

/* Deep-copies the value of `in` into `out` (same shape). */
enum ds_ir_copy_status ds_ir_copy_field(const bt_field *in, bt_field *out);

#endif /* DEEPSPAN_SYNC_TRACE_IR_COPY_H */
