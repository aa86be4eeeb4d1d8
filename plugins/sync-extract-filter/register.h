/* SPDX-License-Identifier: MIT */
/*
 * Registers filter.deepspan.sync-extract (included by plugins/plugin.c).
 */
#include "sync-extract-filter/component.h"

BT_PLUGIN_FILTER_COMPONENT_CLASS_WITH_ID(deepspan, sync_extract, "sync-extract",
	sync_extract_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, sync_extract,
	"Keep only the events filter.deepspan.sync's first pass reads (TCP segments, span "
	"and Node.js HTTP events): one host's small pair trace for deepspan-report --jobs.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP_WITH_ID(deepspan, sync_extract,
	"Reads its inputs merged by time and forwards, unchanged, every message except the\n"
	"events filter.deepspan.sync does not use to estimate the clocks: what remains are\n"
	"the TCP segment events (net_dev_queue, net_if_receive_skb, inet_sock_local_out,\n"
	"inet_sock_local_in), the span events and the Node.js HTTP events, with every stream,\n"
	"packet and discarded-events message.  Write its output with sink.ctf.fs per host;\n"
	"filter.deepspan.sync with `report=` on those small traces finds the same pairs\n"
	"and the same clock transforms as on the whole traces.\n"
	"\n"
	"Ports: input ports `in0`, `in1`, ... (a new one appears whenever the last one is\n"
	"connected); output port `out`.\n"
	"\n"
	"Parameters:\n"
	"  stats    string (path), default: none.  At the end, writes\n"
	"           {\"events\": N, \"kept\": K, \"last_event_ns\": T} there: the events read and\n"
	"           kept, T the latest event time read (ns from the clock origin; null\n"
	"           without events).\n"
	"  records  string (path), default: none.  Writes what the clock fit reads of the\n"
	"           kept events and of every message with a time as pair records there\n"
	"           (read by source.deepspan.clock-fit) and forwards no event: connect the\n"
	"           output to sink.utils.dummy.  The step fails if the file cannot be\n"
	"           written whole.\n"
	"See doc/scale.md.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, sync_extract,
	sync_extract_component_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, sync_extract,
	sync_extract_component_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INPUT_PORT_CONNECTED_METHOD_WITH_ID(deepspan, sync_extract,
	sync_extract_input_port_connected);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan,
	sync_extract, sync_extract_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan,
	sync_extract, sync_extract_iterator_finalize);
