/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics, registered against the deepspan plugin descriptor of
 * plugins/plugin.c.
 */
#include "metrics-sink/component.h"

BT_PLUGIN_SINK_COMPONENT_CLASS_WITH_ID(deepspan, metrics, "metrics",
	metrics_component_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, metrics,
	"Metric tables of deepspan:span events: per operation, request, syscall, thread, culprit or host.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP_WITH_ID(deepspan, metrics,
	"Reads deepspan:span events (filter.deepspan.span-attrib) on input port `in` and "
	"writes one table.\n"
	"\n"
	"Parameters:\n"
	"  by      string, default \"operation\":\n"
	"            \"operation\": per service and operation: count, mean, p50, p95, p99, max "
	"span latency (nearest-rank percentiles) and the mean time per thread state;\n"
	"            \"request\": one row per request (trace id): root, latency, truncated, and "
	"the critical-path time per thread state (they sum to the latency);\n"
	"            \"syscall\": per operation and syscall: count, total, mean per call, and the "
	"largest total within one span;\n"
	"            \"thread\": per host, pid and tid: spans, span time and time per state;\n"
	"            \"culprit\": per host, process, comm, tid, state and kind that the slow "
	"requests' critical paths (and their chains) end on: mean ns per request in group B and "
	"in group A (doc/metrics.md, \"By culprit\");\n"
	"            \"host\": per host, what ran during group B's requests versus group A's: CPU and "
	"run-queue time per process, time per irq/softirq handler, disk bytes per process and "
	"device, as rates per second of the groups' request time, largest increase first "
	"(doc/host-context.md);\n"
	"            \"disk\": per host, device, submitter and tid: every block request of the trace "
	"(requests, writes, bytes, queue and device time, from span-attrib's deepspan:disk events) and, "
	"for group B and group A, the disk waits of their requests' chains (doc/metrics.md, \"By disk\").\n"
	"  format  string, default \"text\": \"text\" (aligned columns), \"csv\", \"json\", "
	"\"markdown\".\n"
	"  output  string, default \"-\" (stdout): file path to write the table to.\n"
	"  group-a, group-b  maps (by=culprit, by=host and by=disk only), default A = at or under the median latency "
	"of the most frequent root operation, B = its slowest 1%: the groups, as in "
	"sink.deepspan.diff.\n"
	"  grace   duration, default \"1s\" (by=request, by=culprit, by=host, by=disk): a request is complete once spans more "
	"than this later have been read (see sink.deepspan.diff).\n"
	"\n"
	"Durations are nanoseconds in every format (means with one decimal).");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, metrics,
	metrics_component_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, metrics,
	metrics_component_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD_WITH_ID(deepspan, metrics,
	metrics_component_graph_is_configured);
