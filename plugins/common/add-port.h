/* SPDX-License-Identifier: MIT */
/* A component's fixed port, added in its initialize method: the method's status for the library's. */
#ifndef DEEPSPAN_COMMON_ADD_PORT_H
#define DEEPSPAN_COMMON_ADD_PORT_H

#include <babeltrace2/babeltrace.h>

/*
 * OK, MEMORY_ERROR, or ERROR with a cause "CLASS: cannot add WHAT." (`what`: e.g. "the output port `out`"), for
 * the status of a bt_self_component_*_add_*_port() call.
 */
bt_component_class_initialize_method_status ds_add_port_status(bt_self_component_add_port_status status,
		bt_self_component *self_comp, const char *class_name, const char *what);

#endif /* DEEPSPAN_COMMON_ADD_PORT_H */
