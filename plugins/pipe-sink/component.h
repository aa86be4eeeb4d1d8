/* SPDX-License-Identifier: MIT */
/* sink.deepspan.pipe: component methods (registered by register.h). */
#ifndef DEEPSPAN_PIPE_SINK_COMPONENT_H
#define DEEPSPAN_PIPE_SINK_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status pipe_sink_component_initialize(bt_self_component_sink *self,
		bt_self_component_sink_configuration *config, const bt_value *params, void *init_data);
void pipe_sink_component_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status pipe_sink_graph_is_configured(
		bt_self_component_sink *self);
bt_component_class_sink_consume_method_status pipe_sink_consume(bt_self_component_sink *self);

#endif /* DEEPSPAN_PIPE_SINK_COMPONENT_H */
