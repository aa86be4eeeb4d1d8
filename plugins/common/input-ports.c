/* SPDX-License-Identifier: MIT */
#include "input-ports.h"

#include <inttypes.h>
#include <stdio.h>

enum ds_input_ports_status ds_input_ports_add_next(bt_self_component_filter *self_filter,
		const char *class_name)
{
	uint64_t count = bt_component_filter_get_input_port_count(
		bt_self_component_filter_as_component_filter(self_filter));
	enum ds_input_ports_status status = DS_INPUT_PORTS_STATUS_OK;
	char name[32];

	snprintf(name, sizeof(name), "in%" PRIu64, count);
	switch (bt_self_component_filter_add_input_port(self_filter, name, NULL, NULL)) {
	case BT_SELF_COMPONENT_ADD_PORT_STATUS_OK:
		goto end;
	case BT_SELF_COMPONENT_ADD_PORT_STATUS_MEMORY_ERROR:
		status = DS_INPUT_PORTS_STATUS_MEMORY_ERROR;
		break;
	default:
		status = DS_INPUT_PORTS_STATUS_ERROR;
		break;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
		bt_self_component_filter_as_self_component(self_filter),
		"%s: cannot add input port `%s`.", class_name, name);
end:
	return status;
}

bt_component_class_port_connected_method_status ds_input_ports_connected(
		bt_self_component_filter *self_filter, bt_self_component_port_input *self_port,
		const char *class_name)
{
	const bt_component_filter *comp = bt_self_component_filter_as_component_filter(self_filter);
	uint64_t count = bt_component_filter_get_input_port_count(comp);
	const bt_port_input *last = bt_component_filter_borrow_input_port_by_index_const(comp, count - 1);
	bt_component_class_port_connected_method_status status =
		BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_OK;

	if (bt_port_input_as_port_const(last) !=
			bt_port_input_as_port_const(bt_self_component_port_input_as_port_input(self_port))) {
		goto end;
	}
	switch (ds_input_ports_add_next(self_filter, class_name)) {
	case DS_INPUT_PORTS_STATUS_OK:
		break;
	case DS_INPUT_PORTS_STATUS_MEMORY_ERROR:
		status = BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_MEMORY_ERROR;
		break;
	default:
		status = BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_ERROR;
		break;
	}
end:
	return status;
}
