/* SPDX-License-Identifier: MIT */
/* filter.deepspan.nodejs-ctx: the component class methods (nodejs-ctx.c). */
#ifndef DEEPSPAN_NODEJS_CTX_COMPONENT_H
#define DEEPSPAN_NODEJS_CTX_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status nodejs_ctx_component_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *configuration,
		const bt_value *params, void *init_method_data);
void nodejs_ctx_component_finalize(bt_self_component_filter *self_comp_filter);
bt_message_iterator_class_initialize_method_status nodejs_ctx_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *configuration,
		bt_self_component_port_output *self_port);
void nodejs_ctx_iterator_finalize(bt_self_message_iterator *self_msg_iter);
bt_message_iterator_class_next_method_status nodejs_ctx_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

#endif /* DEEPSPAN_NODEJS_CTX_COMPONENT_H */
