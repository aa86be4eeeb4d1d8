/* SPDX-License-Identifier: MIT */
/* source.deepspan.clock-fit registration (included by plugins/plugin.c). */
#include "clock-fit-source/component.h"

BT_PLUGIN_SOURCE_COMPONENT_CLASS_WITH_ID(deepspan, clock_fit, "clock-fit", clock_fit_iterator_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, clock_fit,
	"The clock fit of filter.deepspan.sync from the pair records of filter.deepspan.sync-extract: the "
	"same report as sync's `report-only=true` on the hosts' pair traces, with no trace to decode.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP_WITH_ID(deepspan, clock_fit,
	"Reads the pair records that filter.deepspan.sync-extract wrote (its `records` parameter), merged by\n"
	"time as filter.deepspan.sync's pass 1 merges its inputs, runs that pass 1 on them and writes its\n"
	"report.  It emits no message: connect its port `out` to sink.utils.dummy.\n"
	"\n"
	"Parameters:\n"
	"  records      array of strings (paths), required: the pair-records files, in the order of the\n"
	"               inputs filter.deepspan.sync would read (deepspan-report: host by host, each host's\n"
	"               traces in order).\n"
	"  report       string (path), required: where the report goes (doc/sync.md, \"Report\").\n"
	"  reference, match, pair-expiry: as filter.deepspan.sync's, with the same defaults.\n"
	"See doc/scale.md.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, clock_fit, clock_fit_component_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, clock_fit, clock_fit_component_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, clock_fit,
	clock_fit_iterator_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, clock_fit,
	clock_fit_iterator_finalize);
