/* SPDX-License-Identifier: MIT */
/* source.deepspan.pipe: component and message-iterator methods (registered by register.h). */
#ifndef DEEPSPAN_PIPE_SOURCE_COMPONENT_H
#define DEEPSPAN_PIPE_SOURCE_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status pipe_source_component_initialize(bt_self_component_source *self,
		bt_self_component_source_configuration *config, const bt_value *params, void *init_data);
void pipe_source_component_finalize(bt_self_component_source *self);
bt_message_iterator_class_initialize_method_status pipe_source_iterator_initialize(bt_self_message_iterator *self,
		bt_self_message_iterator_configuration *config, bt_self_component_port_output *port);
void pipe_source_iterator_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status pipe_source_iterator_next(bt_self_message_iterator *self,
		bt_message_array_const msgs, uint64_t capacity, uint64_t *count);

#endif /* DEEPSPAN_PIPE_SOURCE_COMPONENT_H */
