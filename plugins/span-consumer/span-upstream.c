/* SPDX-License-Identifier: MIT */
#include "span-upstream.h"

#include <string.h>

/* Components upstream of a sink looked at, at most (a graph is a handful of them). */
#define UPSTREAM_PROBE_LIMIT 256

/* The name of the class of `component`. */
static const char *class_name_of(const bt_component *component)
{
	return bt_component_class_get_name(bt_component_borrow_class_const(component));
}

void ds_span_upstream_probe(const bt_port_input *port, struct ds_span_upstream *found)
{
	GPtrArray *pending = g_ptr_array_new();
	GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	guint next = 0;

	g_ptr_array_add(pending, (gpointer) port);
	while (next < pending->len && next < UPSTREAM_PROBE_LIMIT) {
		const bt_connection *connection = bt_port_borrow_connection_const(
			bt_port_input_as_port_const(g_ptr_array_index(pending, next++)));
		const bt_component *upstream;
		const char *name;
		uint64_t i, n;

		if (!connection) {
			continue;
		}
		upstream = bt_port_borrow_component_const(bt_port_output_as_port_const(
			bt_connection_borrow_upstream_port_const(connection)));
		if (upstream && bt_component_is_source(upstream) && strcmp(class_name_of(upstream), "pipe") == 0) {
			/* source.deepspan.pipe carries span-attrib's output from another process (doc/scale.md) */
			found->span_attrib = true;
			found->pipe = true;
		}
		if (!upstream || !bt_component_is_filter(upstream) || g_hash_table_contains(seen, upstream)) {
			continue;
		}
		g_hash_table_add(seen, (gpointer) upstream);
		name = class_name_of(upstream);
		if (strcmp(name, "span-attrib") == 0) {
			found->span_attrib = true;
		} else if (strcmp(name, "nodejs-ctx") == 0) {
			found->nodejs_ctx = true;
		}
		n = bt_component_filter_get_input_port_count((const bt_component_filter *) upstream);
		for (i = 0; i < n; i++) {
			g_ptr_array_add(pending, (gpointer) bt_component_filter_borrow_input_port_by_index_const(
				(const bt_component_filter *) upstream, i));
		}
	}
	g_hash_table_destroy(seen);
	g_ptr_array_free(pending, TRUE);
}

/* Whether filter.deepspan.nodejs-ctx feeds the sink, as said in the no-spans text. */
static const char *nodejs_ctx_said(const struct ds_span_upstream *found)
{
	if (found->nodejs_ctx) {
		return "filter.deepspan.nodejs-ctx is in the graph";
	}
	if (found->pipe) {
		return "this sink reads a trace pipe (source.deepspan.pipe): for Node.js services, add "
			"filter.deepspan.nodejs-ctx before span-attrib in the graph that writes it "
			"(deepspan-report --nodejs)";
	}
	return "filter.deepspan.nodejs-ctx is not in the graph: add it before span-attrib "
		"(deepspan-report --nodejs) for Node.js services";
}

void ds_span_upstream_no_spans(const struct ds_span_upstream *found, GString *out)
{
	if (!found->span_attrib) {
		g_string_append(out, "no `deepspan:span` event reached this sink: put "
			"filter.deepspan.span-attrib before it (doc/span-attrib.md).");
		return;
	}
	g_string_append_printf(out, "the input has no spans: filter.deepspan.span-attrib (upstream of this sink) "
		"found no span events. It looks for the span providers jaeger_ust "
		"(`jaeger_ust:start_span` / `jaeger_ust:end_span`), deepspan_ust "
		"(`deepspan_ust:span_start` / `deepspan_ust:span_end`) and, through "
		"filter.deepspan.nodejs-ctx, Node.js `vnode:*` events (%s). Record the "
		"application's user-space trace with one of these providers next to the kernel "
		"trace (doc/instrumentation.md, doc/nodejs.md).", nodejs_ctx_said(found));
}
