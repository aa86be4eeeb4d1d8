/* SPDX-License-Identifier: MIT */
/* Methods of filter.deepspan.span-attrib (registered by register.h). */
#ifndef DEEPSPAN_SPAN_ATTRIB_COMPONENT_H
#define DEEPSPAN_SPAN_ATTRIB_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status span_attrib_component_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_method_data);
bt_component_class_port_connected_method_status span_attrib_component_input_port_connected(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_port_input *self_port, const bt_port_output *other_port);
void span_attrib_component_finalize(bt_self_component_filter *self_comp_filter);
bt_message_iterator_class_initialize_method_status span_attrib_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port);
void span_attrib_iterator_finalize(bt_self_message_iterator *self_msg_iter);
bt_message_iterator_class_next_method_status span_attrib_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

#endif /* DEEPSPAN_SPAN_ATTRIB_COMPONENT_H */
