/* SPDX-License-Identifier: MIT */
/* Methods of filter.deepspan.sync-extract (registered by register.h). */
#ifndef DEEPSPAN_SYNC_EXTRACT_COMPONENT_H
#define DEEPSPAN_SYNC_EXTRACT_COMPONENT_H

#include <babeltrace2/babeltrace.h>

/* sync-extract.c */
bt_component_class_initialize_method_status sync_extract_component_initialize(
		bt_self_component_filter *self, bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data);
void sync_extract_component_finalize(bt_self_component_filter *self);
bt_component_class_port_connected_method_status sync_extract_input_port_connected(
		bt_self_component_filter *self, bt_self_component_port_input *self_port,
		const bt_port_output *other_port);
bt_message_iterator_class_initialize_method_status sync_extract_iterator_initialize(
		bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port);
void sync_extract_iterator_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status sync_extract_iterator_next(
		bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
		uint64_t *count);

#endif /* DEEPSPAN_SYNC_EXTRACT_COMPONENT_H */
