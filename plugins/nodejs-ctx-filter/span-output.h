/* SPDX-License-Identifier: MIT */
/*
 * The output side of filter.deepspan.nodejs-ctx: per host, one trace of our
 * own holding one stream of `deepspan_ust:span_*` events (doc/instrumentation.md),
 * on a clock class copying the host's upstream clock (upstream IR objects
 * are read-only), so the spans stay correlatable with the host's traces.
 */
#ifndef DEEPSPAN_NODEJS_SPAN_OUTPUT_H
#define DEEPSPAN_NODEJS_SPAN_OUTPUT_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>

#include "ctx.h"

struct span_host {
	const bt_clock_class *upstream_clock;	/* owned reference */
	char *hostname;				/* owned */
	bt_trace_class *trace_class;		/* owned */
	bt_stream_class *stream_class;		/* borrowed from trace_class */
	bt_event_class *event_classes[4];	/* borrowed; by enum nctx_op_kind */
	bt_trace *trace;			/* owned; NULL until the first span */
	bt_stream *stream;			/* owned; NULL until the first span */
};

struct span_output {
	bt_self_component *self_comp;		/* borrowed */
	GPtrArray *hosts;			/* owned; struct span_host (owned) */
};

void span_output_init(struct span_output *output, bt_self_component *self_comp);
void span_output_fini(struct span_output *output);

/*
 * The index of the host of `stream` (whose class has a default clock), made
 * on first sight: one per upstream clock (same UUID = same host).  −1 on error.
 */
int span_output_host(struct span_output *output, const bt_stream *stream);

/*
 * The messages for `op`: a stream beginning first on the host's first span,
 * then the event.  Returns the number of messages written to `msgs` (0 on error).
 */
unsigned int span_output_messages(struct span_output *output,
		bt_self_message_iterator *self_msg_iter, const struct nctx_op *op,
		const bt_message **msgs);

/* Stream end messages of every started stream; returns how many were written. */
unsigned int span_output_end_messages(struct span_output *output,
		bt_self_message_iterator *self_msg_iter, const bt_message **msgs,
		unsigned int capacity);

#endif /* DEEPSPAN_NODEJS_SPAN_OUTPUT_H */
