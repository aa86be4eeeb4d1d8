/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.diff: the component (parameters, ports `a` and `b`, the
 * message loop); the analysis itself is diff-run.c.
 */
#include "component.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "diff-run.h"
#include "params.h"
#include "upstream.h"
#include "span-consumer/progress.h"
#include "span-consumer/span-reader.h"
#include "span-consumer/request-stream.h"

#define CLASS_NAME "sink.deepspan.diff"

static const char *const port_names[2] = { "a", "b" };

struct diff_sink {
	bt_self_component *self_comp;			/* borrowed */
	bt_message_iterator *iterators[2];		/* owned, NULL when unconnected */
	bool ended[2];
	struct ds_diff_config config;			/* strings below */
	char *output_dir;				/* owned */
	char *roots[2];					/* owned copies of `root` */
	struct ds_request_stream stream;		/* spans of open requests */
	struct ds_diff_collector collector;		/* what complete requests leave */
	struct ds_span_reader reader;
	struct ds_progress progress;
};

static const char *const known_params[] = {
	"output-dir", "mode", "group-a", "group-b", "white-band", "saturation",
	"top", "waterfalls", "skew-tolerance", "summary", "grace", NULL,
};

static void destroy(struct diff_sink *sink)
{
	unsigned int i;

	if (!sink) {
		return;
	}
	for (i = 0; i < 2; i++) {
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterators[i]);
		g_free(sink->roots[i]);
	}
	g_free(sink->output_dir);
	ds_span_reader_fini(&sink->reader);
	ds_request_stream_fini(&sink->stream);
	ds_diff_collector_fini(&sink->collector);
	g_free(sink);
}

static bool prepare_output_dir(struct diff_sink *sink)
{
	const char *dir = sink->output_dir;

	if (g_mkdir_with_parents(dir, 0755) != 0 || !g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `output-dir`: cannot create directory `%s`: %s.",
			CLASS_NAME, dir, strerror(errno));
		return false;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `output-dir`: directory `%s` is not writable: %s.",
			CLASS_NAME, dir, strerror(errno));
		return false;
	}
	return true;
}

static bool read_params(struct diff_sink *sink, const bt_value *map)
{
	struct ds_params params = ds_params_make(sink->self_comp, map, CLASS_NAME);
	struct ds_diff_config *c = &sink->config;
	const char *output_dir;
	unsigned int mode, g;
	uint64_t top, waterfalls;

	if (ds_params_check_names(&params, known_params) ||
			ds_params_get_string(&params, "output-dir", "deepspan-report", &output_dir) ||
			ds_params_get_choice(&params, "mode", ds_mode_names, 0, &mode) ||
			ds_group_spec_parse(&params, "group-a", &c->groups[0]) ||
			ds_group_spec_parse(&params, "group-b", &c->groups[1]) ||
			ds_params_get_double(&params, "white-band", 0.05, 0.0, 10.0, &c->white_band) ||
			ds_params_get_double(&params, "saturation", 1.0, 0.0, 1000.0, &c->saturation) ||
			ds_params_get_uint(&params, "top", 10, 1, 1000, &top) ||
			ds_params_get_uint(&params, "waterfalls", 3, 0, 50, &waterfalls) ||
			ds_params_get_duration(&params, "skew-tolerance", 5000, &c->skew_tolerance) ||
			ds_params_get_duration(&params, "grace", 1000000000, &c->grace) ||
			ds_params_get_bool(&params, "summary", true, &c->summary)) {
		return false;
	}
	if (c->saturation <= c->white_band) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `saturation`: expected a value greater than `white-band` "
			"(%g), got %g.", CLASS_NAME, c->white_band, c->saturation);
		return false;
	}
	if (*output_dir == '\0') {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `output-dir`: expected a directory path, got an empty string.",
			CLASS_NAME);
		return false;
	}
	sink->output_dir = g_strdup(output_dir);
	c->output_dir = sink->output_dir;
	c->mode = (enum ds_mode) mode;
	c->top = (unsigned int) top;
	c->waterfalls = (unsigned int) waterfalls;
	for (g = 0; g < 2; g++) {
		/* The parameter map does not outlive initialization: copy. */
		sink->roots[g] = g_strdup(c->groups[g].root);
		c->groups[g].root = sink->roots[g];
	}
	return true;
}

/* The spill file and the request stream (after the parameters). */
static bool start_collecting(struct diff_sink *sink)
{
	const struct ds_request_stream_config stream_config = {
		.grace = sink->config.grace,
		.skew_tolerance = sink->config.skew_tolerance,
		.build_requests = true,
		.on_request = ds_diff_collect_request,
		.data = &sink->collector,
	};

	if (!ds_diff_collector_init(&sink->collector, sink->config.mode, sink->output_dir)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `output-dir`: cannot create a temporary file in `%s`: %s.",
			CLASS_NAME, sink->output_dir, strerror(errno));
		return false;
	}
	ds_request_stream_init(&sink->stream, &stream_config);
	sink->progress.requests = &sink->stream.requests;
	return true;
}

bt_component_class_initialize_method_status diff_component_initialize(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data)
{
	struct diff_sink *sink = g_new0(struct diff_sink, 1);
	unsigned int i;

	(void) configuration;
	(void) init_data;
	sink->self_comp = bt_self_component_sink_as_self_component(self_sink);
	ds_span_reader_init(&sink->reader, sink->self_comp, CLASS_NAME, true, false);
	ds_progress_init(&sink->progress, CLASS_NAME);
	if (!read_params(sink, params) || !prepare_output_dir(sink) ||
			!start_collecting(sink)) {
		goto error;
	}
	for (i = 0; i < 2; i++) {
		if (bt_self_component_sink_add_input_port(self_sink, port_names[i], NULL,
				NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
				"%s: cannot add input port `%s`.", CLASS_NAME, port_names[i]);
			goto error;
		}
	}
	bt_self_component_set_data(sink->self_comp, sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	destroy(sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void diff_component_finalize(bt_self_component_sink *self_sink)
{
	destroy(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink)));
}

bt_component_class_sink_graph_is_configured_method_status
diff_component_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct diff_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));
	bool connected[2];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		bt_self_component_port_input *port =
			bt_self_component_sink_borrow_input_port_by_name(self_sink, port_names[i]);

		connected[i] = bt_port_is_connected(bt_self_component_port_as_port(
			bt_self_component_port_input_as_self_component_port(port)));
		if (connected[i]) {
			ds_span_upstream_probe(bt_self_component_port_input_as_port_input(port),
				&sink->config.upstream);
		}
		if (connected[i] && bt_message_iterator_create_from_sink_component(self_sink,
				port, &sink->iterators[i]) !=
				BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
				"%s: cannot create a message iterator on port `%s`.",
				CLASS_NAME, port_names[i]);
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
		}
		sink->ended[i] = !connected[i];
	}
	if (!connected[0]) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: input port `a` is not connected: connect the spans to `a` "
			"(and a second run's spans to `b` to compare two runs).", CLASS_NAME);
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	sink->config.two_inputs = connected[1];
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* Reads one batch from input `input`; returns the consume status. */
static bt_component_class_sink_consume_method_status consume_input(
		struct diff_sink *sink, unsigned int input)
{
	bt_message_array_const messages;
	uint64_t count;
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;

	const struct ds_upstream_owner owner = {
		.self_comp = sink->self_comp, .class_name = CLASS_NAME, .doc_page = "doc/diff.md",
	};
	bt_message_iterator_class_next_method_status next =
		ds_upstream_next(&owner, sink->iterators[input], port_names[input], &messages, &count);

	if (next == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		sink->ended[input] = true;
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterators[input]);
		return status;
	}
	if (next != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return ds_upstream_status_to_sink(next);
	}
	if (!ds_span_reader_read_batch(&sink->reader, messages, count, input,
			&sink->stream, &sink->progress)) {
		status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	ds_request_stream_maybe_flush(&sink->stream);
	return status;
}

bt_component_class_sink_consume_method_status diff_component_consume(
		bt_self_component_sink *self_sink)
{
	struct diff_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!sink->ended[i]) {
			status = consume_input(sink, i);
			if (status != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK) {
				return status;
			}
		}
	}
	if (!sink->ended[0] || !sink->ended[1]) {
		return status;
	}
	ds_progress_stage(&sink->progress, "completing the last requests");
	sink->config.reversed_spans = sink->reader.reversed_spans;
	sink->config.invalid_spans = sink->reader.invalid_spans;
	sink->config.invalid_chains = sink->reader.invalid_chains;
	sink->config.deadlocks = sink->reader.deadlocks;
	sink->config.stuck = sink->reader.stuck;
	ds_request_stream_finish(&sink->stream);
	ds_progress_stage(&sink->progress, "writing the report");
	if (!ds_diff_run(&sink->config, &sink->collector, &sink->stream, sink->self_comp,
			CLASS_NAME)) {
		ds_progress_stage(&sink->progress, NULL);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	ds_progress_stage(&sink->progress, NULL);
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}
