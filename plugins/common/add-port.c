/* SPDX-License-Identifier: MIT */
/* A component's fixed port (add-port.h). */
#include "add-port.h"

bt_component_class_initialize_method_status ds_add_port_status(bt_self_component_add_port_status status,
		bt_self_component *self_comp, const char *class_name, const char *what)
{
	switch (status) {
	case BT_SELF_COMPONENT_ADD_PORT_STATUS_OK:
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	case BT_SELF_COMPONENT_ADD_PORT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp, "%s: cannot add %s.", class_name, what);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
}
