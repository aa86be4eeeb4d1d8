/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.nodejs-ctx: registered into the deepspan plugin by plugins/plugin.c.
 */
#ifndef DEEPSPAN_NODEJS_CTX_REGISTER_H
#define DEEPSPAN_NODEJS_CTX_REGISTER_H

#include <babeltrace2/babeltrace.h>

#include "nodejs-ctx-filter/component.h"

BT_PLUGIN_FILTER_COMPONENT_CLASS_WITH_ID(deepspan, nodejs_ctx, "nodejs-ctx", nodejs_ctx_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, nodejs_ctx,
	"Rebuild Node.js request spans (deepspan_ust:span_*) from vnode async-context and HTTP events.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP_WITH_ID(deepspan, nodejs_ctx,
	"Reads the `vnode` events recorded by instrumentation/nodejs/deepspan-vnode.js\n"
	"(node -r deepspan-vnode.js app.js; lttng enable-event -u 'vnode:*';\n"
	"lttng add-context -u -t vpid -t vtid -t procname). Per process it rebuilds the\n"
	"async-resource tree, assigns every resource to the incoming HTTP request that\n"
	"created it, links each outgoing client request to that server request, and\n"
	"matches client and server requests across processes by ports (client local/remote\n"
	"= server remote/local, server starting inside the client). It adds, per host, one\n"
	"stream of deepspan_ust:span_start/span_end events (server spans kind 1, client\n"
	"spans kind 2, one trace id per external request, service = process name),\n"
	"event-loop-busy spans (kind 0, see busy-spans) and\n"
	"span_activate/span_deactivate around every callback a request runs on the event\n"
	"loop, timestamped at the vnode event, on a clock copying the host's (a callee's\n"
	"span ends at its response's finish or when its caller got the response, whichever\n"
	"is first). Every\n"
	"upstream message passes through; with no vnode events nothing is added.\n"
	"\n"
	"Parameters:\n"
	"  match-window   duration (integer ns or string like \"500ms\", \"10s\"), default 10s:\n"
	"                 how long a server request waits for a client whose local port\n"
	"                 is not known yet (DNS/connect pending) before it becomes a root.\n"
	"                 Upstream messages after it are held back that long at most.\n"
	"  activations    bool, default true: emit span_activate/span_deactivate.\n"
	"  busy-spans     bool, default true (needs activations): when a client request\n"
	"                 waited for its callee while the callee's event loop ran other\n"
	"                 requests' callbacks, add internal spans (kind 0) under the client\n"
	"                 span, on the callee's thread, named \"event loop busy: <service>:\n"
	"                 <operation>\" of the request that ran. Output is held back from\n"
	"                 a client's start until its callee starts (or it ends).\n"
	"  busy-min       duration, default 50us: shorter busy stretches are not reported.\n"
	"  trace-id-high  unsigned integer, default 0x6e6f64656a73 (\"nodejs\"): the high\n"
	"                 64 bits of every trace id made (low = 1, 2, ...).\n"
	"  stats          string, default none: path of a JSON file with the counts\n"
	"                 (requests, links to parent and callee, roots, deferred matches,\n"
	"                 unanswered requests) written at the end of the stream.\n");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, nodejs_ctx, nodejs_ctx_component_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, nodejs_ctx, nodejs_ctx_component_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, nodejs_ctx,
	nodejs_ctx_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, nodejs_ctx,
	nodejs_ctx_iterator_finalize);
#endif /* DEEPSPAN_NODEJS_CTX_REGISTER_H */
