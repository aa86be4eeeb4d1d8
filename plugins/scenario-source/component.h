/* SPDX-License-Identifier: MIT */
/* source.deepspan.scenario: component and message-iterator methods. */
#ifndef DEEPSPAN_SCENARIO_COMPONENT_H
#define DEEPSPAN_SCENARIO_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status scenario_component_initialize(
		bt_self_component_source *self_comp_src,
		bt_self_component_source_configuration *config,
		const bt_value *params, void *init_method_data);
void scenario_component_finalize(bt_self_component_source *self_comp_src);
bt_message_iterator_class_initialize_method_status scenario_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *self_port);
void scenario_iterator_finalize(bt_self_message_iterator *self_msg_iter);
bt_message_iterator_class_can_seek_beginning_method_status
scenario_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek);
bt_message_iterator_class_seek_beginning_method_status
scenario_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter);
bt_message_iterator_class_next_method_status scenario_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

#endif /* DEEPSPAN_SCENARIO_COMPONENT_H */
