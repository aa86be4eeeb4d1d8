/* SPDX-License-Identifier: MIT */
/* Methods of sink.deepspan.diff (registered by register.h). */
#ifndef DEEPSPAN_DIFF_COMPONENT_H
#define DEEPSPAN_DIFF_COMPONENT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status diff_component_initialize(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data);
void diff_component_finalize(bt_self_component_sink *self_sink);
bt_component_class_sink_graph_is_configured_method_status
diff_component_graph_is_configured(bt_self_component_sink *self_sink);
bt_component_class_sink_consume_method_status diff_component_consume(
		bt_self_component_sink *self_sink);

#endif /* DEEPSPAN_DIFF_COMPONENT_H */
