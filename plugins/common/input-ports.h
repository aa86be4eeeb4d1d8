/* SPDX-License-Identifier: MIT */
/*
 * Dynamic input ports `in0`, `in1`, ... of a filter (like filter.utils.muxer's): the filter adds
 * `in0` when it is initialized, and a new port appears whenever the last one is connected, so that
 * `babeltrace2 run` can connect one source per host.  Used by filter.deepspan.sync,
 * filter.deepspan.sync-extract and filter.deepspan.span-attrib.
 */
#ifndef DEEPSPAN_COMMON_INPUT_PORTS_H
#define DEEPSPAN_COMMON_INPUT_PORTS_H

#include <babeltrace2/babeltrace.h>

enum ds_input_ports_status {
	DS_INPUT_PORTS_STATUS_OK = 0,
	DS_INPUT_PORTS_STATUS_ERROR = -1,
	DS_INPUT_PORTS_STATUS_MEMORY_ERROR = -12,
};

/*
 * Adds the next input port, `inN` with N the current input port count.  On failure, appends a
 * cause naming `class_name` (e.g. "filter.deepspan.sync") and the port.
 */
enum ds_input_ports_status ds_input_ports_add_next(bt_self_component_filter *self_filter,
		const char *class_name);

/*
 * The body of a port-connected method: when `self_port` is the last input port, adds the next
 * one; returns the method's status (MEMORY_ERROR kept distinct).
 */
bt_component_class_port_connected_method_status ds_input_ports_connected(
		bt_self_component_filter *self_filter, bt_self_component_port_input *self_port,
		const char *class_name);

#endif /* DEEPSPAN_COMMON_INPUT_PORTS_H */
