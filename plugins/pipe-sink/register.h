/* SPDX-License-Identifier: MIT */
/* sink.deepspan.pipe registration (included by plugins/plugin.c). */
#include "pipe-sink/component.h"

BT_PLUGIN_SINK_COMPONENT_CLASS_WITH_ID(deepspan, pipe_sink, "pipe", pipe_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, pipe_sink,
	"Writes its input's messages into a file or a FIFO that source.deepspan.pipe reads in another "
	"process: the analysis and its sink on two cores.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP_WITH_ID(deepspan, pipe_sink,
	"Writes every message of its input port `in` (stream beginnings and ends, events with their clock\n"
	"snapshot and payload, message iterator inactivity) and the classes they need into `path`, which\n"
	"source.deepspan.pipe turns back into the same messages.  With a FIFO (mkfifo) the two run at once,\n"
	"in two processes.  Packets, discarded items and contexts other than the payload are not carried:\n"
	"connect it to filter.deepspan.span-attrib with `pass-through=false`.\n"
	"\n"
	"Parameters:\n"
	"  path   string, required (no default): the file or FIFO to write (opened when the graph runs).\n"
	"See doc/scale.md, \"Trace pipe\".");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, pipe_sink, pipe_sink_component_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, pipe_sink, pipe_sink_component_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD_WITH_ID(deepspan, pipe_sink,
	pipe_sink_graph_is_configured);
