/* SPDX-License-Identifier: MIT */
/*
 * Registers filter.deepspan.sync (included by plugins/plugin.c).
 */
#include "sync-filter/component.h"

BT_PLUGIN_FILTER_COMPONENT_CLASS_WITH_ID(deepspan, sync, "sync", sync_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, sync,
	"Put every host on one synchronized clock, from the traces alone "
	"(convex-hull sync over TCP segments and span edges, two passes).");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP_WITH_ID(deepspan, sync,
	"Reads all its inputs once (pass 1) to collect send->receive pairs between hosts,\n"
	"computes each host's clock transform to the reference host with Trace Compass's\n"
	"fully incremental convex-hull method, seeks its upstreams back to the beginning,\n"
	"and re-emits every message on one synchronized clock (origin Unix epoch) in\n"
	"non-decreasing corrected time (pass 2).  A host is a clock UUID, named by the\n"
	"trace environment `hostname`.\n"
	"\n"
	"Ports: input ports `in0`, `in1`, ... (a new one appears whenever the last one is\n"
	"connected: connect one source per host with `babeltrace2 run`, or use `convert`\n"
	"mode for one muxed input); output port `out`.\n"
	"\n"
	"Parameters:\n"
	"  reference  string, default: the host whose clock UUID sorts first.\n"
	"             Hostname of the host whose clock every other host is mapped onto.\n"
	"  match      array of strings among `tcp`, `spans`, `http` (or one string);\n"
	"             default: all.  Pair kinds used: TCP segments (net_dev_queue <->\n"
	"             net_if_receive_skb, inet_sock_local_out <-> inet_sock_local_in, keyed on\n"
	"             seq, ack_seq, flags), span edges across hosts (parent start -> child\n"
	"             start, child end -> parent end; deepspan_ust: client -> server only),\n"
	"             Node.js HTTP (vnode:http_client_request -> http_server_request,\n"
	"             http_server_response -> http_client_response, matched by ports).\n"
	"  pair-expiry  duration (ns integer or string such as `500ms`, `2s`), default 1s,\n"
	"             at most 1 day.  Pass 1 reads the inputs merged by raw time and\n"
	"             forgets a TCP key still missing its send or receive this long after\n"
	"             its first event (counted as `tcp_expired`); span edges are recorded\n"
	"             this long after the child began, spans forgotten after twice that\n"
	"             (an end edge not complete by then: `spans_expired`).  Keeps pass 1's\n"
	"             memory flat in trace length; must exceed the clock offsets between\n"
	"             hosts plus network latency.\n"
	"  report     string (path), default: none.  JSON report: reference, pair counts per\n"
	"             kind, per host slope, offset, transform {x0, y0, slope} (t' = y0 +\n"
	"             slope * (t - x0)), accuracy_ns, bounds, quality (ACCURATE, APPROXIMATE,\n"
	"             INCOMPLETE, FAIL, ABSENT), spanning-tree path; per host pair hull\n"
	"             results; reorder window and high-water mark.\n"
	"  formula    string (path), default: none.  Apply a report written earlier by\n"
	"             `report`: one pass, no pair collection, no seeking.\n"
	"\n"
	"Hosts without pairs keep their clock (ABSENT, one warning); a host pair with\n"
	"contradicting pairs keeps its last good formula (FAIL, one warning).\n"
	"See doc/sync.md.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, sync, sync_component_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, sync, sync_component_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INPUT_PORT_CONNECTED_METHOD_WITH_ID(deepspan, sync,
	sync_component_input_port_connected);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan,
	sync, sync_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan,
	sync, sync_iterator_finalize);
