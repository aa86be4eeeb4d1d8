/* SPDX-License-Identifier: MIT */
/* source.deepspan.pipe registration (included by plugins/plugin.c). */
#include "pipe-source/component.h"

BT_PLUGIN_SOURCE_COMPONENT_CLASS_WITH_ID(deepspan, pipe_source, "pipe", pipe_source_iterator_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, pipe_source,
	"Reads what sink.deepspan.pipe wrote (a file, or a FIFO it writes at the same time in another process) "
	"and emits the same messages.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP_WITH_ID(deepspan, pipe_source,
	"Emits, on its port `out`, the messages sink.deepspan.pipe wrote into `path`, with the same classes,\n"
	"streams, clock snapshots and payloads.  A pipe cut short (the writing process failed) or corrupt is an\n"
	"error naming its byte offset.\n"
	"\n"
	"Parameters:\n"
	"  path   string, required (no default): the file or FIFO to read.\n"
	"See doc/scale.md, \"Trace pipe\".");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, pipe_source,
	pipe_source_component_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, pipe_source, pipe_source_component_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, pipe_source,
	pipe_source_iterator_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, pipe_source,
	pipe_source_iterator_finalize);
