/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.diff, registered against the deepspan plugin descriptor of
 * plugins/plugin.c.
 */
#include "diff-sink/component.h"

BT_PLUGIN_SINK_COMPONENT_CLASS_WITH_ID(deepspan, diff, "diff", diff_component_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, diff,
	"Compare two groups of requests (deepspan:span events) and explain the "
	"difference: differential flame graphs, report.html, explain.txt.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP_WITH_ID(deepspan, diff,
	"Reads deepspan:span events (filter.deepspan.span-attrib), builds each request's "
	"span tree by trace id and parent_span_id across hosts, selects groups A and B, "
	"and writes into `output-dir`: diff.svg, a.svg, b.svg (interactive flame graphs), "
	"a.folded, b.folded, diff.folded (`stack A B`, integer ns), report.html, explain.txt; "
	"a short summary goes to stdout.\n"
	"\n"
	"Input ports: `a` (always) and `b` (optional). With only `a` connected the groups "
	"split that input; with both, group A comes from `a` and group B from `b`.\n"
	"\n"
	"Parameters:\n"
	"  output-dir      string, default \"deepspan-report\": created if needed; must be writable.\n"
	"  mode            string, default \"critical-path\": \"critical-path\" (each request's "
	"latency decomposed exactly along its critical path; leaves sum to the latency), "
	"\"inclusive\" (inclusive span durations and state totals, DTraComp), \"self\" "
	"(duration minus the exact union of child intervals, at every level).\n"
	"  group-a, group-b  map, optional: which requests form each group. Keys: "
	"`min-duration`, `max-duration` (request latency), `min-self`, `max-self` (root span "
	"self time) — durations as integer ns or strings such as \"250us\", \"12ms\", \"1.5s\"; "
	"`percentiles` [lo, hi] (latency rank within the group's pool, 0..100); `begin`, `end` "
	"(the root span lies within this window, ns from the clock origin); `root` (root "
	"operation, \"operation\" or \"service: operation\"; default the most frequent one); "
	"`trace-id` (one request: integer or hex string \"0x2a\"). Default with one input: "
	"A = percentiles [0, 50] (at or under the median latency), B = percentiles [99, 100] "
	"(the slowest 1 %, at least one request).\n"
	"  white-band      real, default 0.05: |d| up to this is drawn white.\n"
	"  saturation      real, default 1.0 (> white-band): |d| from this on is fully red/blue.\n"
	"  top             unsigned integer 1..1000, default 10: causes listed.\n"
	"  waterfalls      unsigned integer 0..50, default 3: slowest B requests drawn in report.html.\n"
	"  skew-tolerance  duration, default 5000 (ns): cross-host children outside their parent "
	"by more than this trigger one warning advising filter.deepspan.sync.\n"
	"  summary         boolean, default true: print the summary on stdout.\n"
	"  grace           duration, default \"1s\": a request is complete, and leaves memory, once "
	"spans more than this later (in trace time) have been read; a span of a request already "
	"complete (an async child ending later than that) is left out and counted: raise it then.\n"
	"\n"
	"Memory holds the spans of the requests still open only; each complete request keeps a "
	"small record, and its attribution and spans go to a temporary file in `output-dir` "
	"(deleted at exit) until the report is written.\n"
	"\n"
	"Requests with a truncated span (its event carries a non-zero `truncated` member), with an "
	"invalid span (begin < 0, end < begin, state or syscall totals longer than the span) or "
	"made only of parent cycles are left out of both groups and counted.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, diff,
	diff_component_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, diff,
	diff_component_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD_WITH_ID(deepspan, diff,
	diff_component_graph_is_configured);
