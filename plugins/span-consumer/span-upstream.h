/* SPDX-License-Identifier: MIT */
/*
 * What feeds a span sink (sink.deepspan.diff, sink.deepspan.metrics): the deepspan components upstream of its
 * input ports, looked at once when the graph is configured, so that a sink that read no `deepspan:span` event
 * can say why and what to do.
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_SPAN_UPSTREAM_H
#define DEEPSPAN_SPAN_CONSUMER_SPAN_UPSTREAM_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>
#include <glib.h>

struct ds_span_upstream {
	bool span_attrib;	/* a filter.deepspan.span-attrib feeds the sink (or a source.deepspan.pipe: below) */
	bool nodejs_ctx;	/* a filter.deepspan.nodejs-ctx feeds it */
	bool pipe;		/* a source.deepspan.pipe feeds it: span-attrib's output from another process, whose
				 * graph is not seen from here */
};

/* Adds to `found` what feeds input port `port` (the components upstream of it, through every filter); nothing when
 * it is not connected. */
void ds_span_upstream_probe(const bt_port_input *port, struct ds_span_upstream *found);

/*
 * Appends to `out` why no `deepspan:span` event reached the sink and what to do: put span-attrib before it, or
 * record the spans span-attrib looks for (its providers, Node.js through nodejs-ctx).
 */
void ds_span_upstream_no_spans(const struct ds_span_upstream *found, GString *out);

#endif /* DEEPSPAN_SPAN_CONSUMER_SPAN_UPSTREAM_H */
