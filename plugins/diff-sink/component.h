/* Methods of sink.deepspan.diff and sink.deepspan.metrics (registered in register.h). */
#ifndef DEEPSPAN_DIFF_DIFF_SINK_H
#define DEEPSPAN_DIFF_DIFF_SINK_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status ds_diff_sink_initialize(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data);
void ds_diff_sink_finalize(bt_self_component_sink *self_sink);
bt_component_class_sink_graph_is_configured_method_status
ds_diff_sink_graph_is_configured(bt_self_component_sink *self_sink);
bt_component_class_sink_consume_method_status ds_diff_sink_consume(
		bt_self_component_sink *self_sink);

bt_component_class_initialize_method_status ds_metrics_sink_initialize(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data);
void ds_metrics_sink_finalize(bt_self_component_sink *self_sink);
bt_component_class_sink_graph_is_configured_method_status
ds_metrics_sink_graph_is_configured(bt_self_component_sink *self_sink);
bt_component_class_sink_consume_method_status ds_metrics_sink_consume(
		bt_self_component_sink *self_sink);

#endif /* DEEPSPAN_DIFF_DIFF_SINK_H */
