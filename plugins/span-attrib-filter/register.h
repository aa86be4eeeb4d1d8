/* SPDX-License-Identifier: MIT */
/* Registers filter.deepspan.span-attrib with the deepspan plugin (included by plugins/plugin.c). */
#ifndef DEEPSPAN_SPAN_ATTRIB_REGISTER_H
#define DEEPSPAN_SPAN_ATTRIB_REGISTER_H

#include <babeltrace2/babeltrace.h>

#include "component.h"

BT_PLUGIN_FILTER_COMPONENT_CLASS_WITH_ID(deepspan, span_attrib, "span-attrib", span_attrib_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, span_attrib,
	"Attribute every nanosecond of every span (jaeger_ust, deepspan_ust) to a kernel thread state; "
	"emits one deepspan:span event per finished span.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP_WITH_ID(deepspan, span_attrib,
	"Reads the kernel (lttng-modules) and span (LTTng-UST jaeger_ust / deepspan_ust) events of one or\n"
	"many hosts on its input ports `in0`, `in1`, ... (one muxed input with `babeltrace2 convert`; with\n"
	"`babeltrace2 run`, one port per source, merged by time like filter.utils.muxer), keeps per host\n"
	"(trace env `hostname`) the state of every CPU and thread, and when a span ends emits a\n"
	"`deepspan:span` event on a stream of its own (trace env domain=\"deepspan\", hostname=HOST),\n"
	"timestamped at the span's end on a copy of the host's clock.  Its payload: ids, host, service,\n"
	"operation, pid, tid, begin, end, the ns of the span's thread in each state (user, syscall, blocked,\n"
	"wait_cpu, interrupted, unknown; they sum exactly to end - begin), per-syscall count and duration\n"
	"clipped to the span, and the state timeline (segments) with details (syscall name, waker comm/tid,\n"
	"softirq:NET_RX, irq:NAME, timer, inactive).  See doc/span-attrib.md.\n"
	"\n"
	"Parameters:\n"
	"  pass-through=BOOL   (default true) also pass every upstream message through unchanged;\n"
	"                      false: output only the deepspan:span streams.\n"
	"  segments=BOOL       (default true) fill each span's `segments` timeline; false leaves it\n"
	"                      empty (smaller output, the totals are unchanged).\n"
	"  state-rule=STRING   (default \"default\") how sched_switch prev_state is decoded:\n"
	"                      \"default\" reads both the raw task->state and the report encodings\n"
	"                      (0/256/preempted = wait_cpu; 1, 2, 64, 128 bits = blocked; 16/32 = exited);\n"
	"                      \"tracecompass\" reproduces Trace Compass (s & 1023: 0 = wait_cpu,\n"
	"                      s & 3 = blocked, s & 64 = exited, else unknown).\n"
	"  follow-wakeups=BOOL (default true; false when segments=false) fill the `chain` member: each\n"
	"                      blocked / wait_cpu segment explained by what its waker did meanwhile,\n"
	"                      recursively, across hosts through TCP segments (doc/critical-path.md);\n"
	"                      false: the output without `chain`, as before chains.\n"
	"  chain-depth=UINT    (default 8, 1..64) deepest chain entry; deeper wakers are `depth-limit`.\n"
	"  chain-window=DURATION (default \"2s\") history kept per thread and CPU behind the stream\n"
	"                      time; older parts of a chain are `unknown: history expired`.\n"
	"  layers=BOOL         (default true) block requests: a chain's disk wait split into queue time\n"
	"                      (charged to the submitters served ahead) and device time; per span the\n"
	"                      page-cache hits/misses of read-family syscalls (cache_* members); a\n"
	"                      warning per host missing kernel event families (doc/storage-network.md);\n"
	"                      false: the output without them.\n"
	"  host-context=BOOL   (default true) fill the `host_window` and `host_context` members: what\n"
	"                      else the host did during each span whose parent is not open on its host\n"
	"                      (CPU and run-queue ns per process, ns per irq/softirq handler, disk bytes\n"
	"                      per process and device), exact over [begin, end) (doc/host-context.md);\n"
	"                      false: the output without them.\n"
	"  clock-formula=PATH  a clock fit of filter.deepspan.sync (its report) applied while the inputs\n"
	"                      are merged, without sync in the graph: the same output as sync formula=\n"
	"                      before span-attrib, on sync's clock; needs pass-through=false.\n"
	"  cross-host-file=PATH  this component reads one host's traces (deepspan-report's per-host\n"
	"                      analysis): where a graph of every host would need another host's\n"
	"                      events, it writes what it met to PATH (JSON) and stops the graph with\n"
	"                      an error; a pass that ends writes its latest times (doc/span-attrib.md).\n"
	"  end-time=INT        (ns from the clock origin) spans still open at the end are truncated at\n"
	"                      this time when it is later than the latest event time seen.\n"
	"\n"
	"Warnings (one line each at the end, at log level W): span ends without start, duplicate starts,\n"
	"spans still open at the end (emitted truncated), hosts with spans but no kernel trace (all\n"
	"Unknown), events out of order, discarded events, chains ending in a deadlock, TCP segments\n"
	"received before they were sent (clocks not synchronized), hosts missing kernel event families\n"
	"(with the lttng enable-event line).\n"
	"\n"
	"Example: babeltrace2 --plugin-path=DIR host1/ host2/ -c filter.deepspan.span-attrib \\\n"
	"           -c sink.ctf.fs -p 'path=\"enriched\"'");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, span_attrib, span_attrib_component_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, span_attrib, span_attrib_component_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INPUT_PORT_CONNECTED_METHOD_WITH_ID(deepspan, span_attrib,
	span_attrib_component_input_port_connected);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, span_attrib,
	span_attrib_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, span_attrib,
	span_attrib_iterator_finalize);
#endif /* DEEPSPAN_SPAN_ATTRIB_REGISTER_H */
