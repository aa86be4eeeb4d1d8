/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics: reads deepspan:span events on port `in` and writes
 * one table (metrics-build.c) in the chosen format to a file or stdout.
 */
#include "component.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "log.h"
#include "metrics-build.h"
#include "params.h"
#include "upstream.h"
#include "span-consumer/progress.h"
#include "span-consumer/span-reader.h"
#include "disk-table.h"
#include "span-consumer/request-stream.h"
#include "span-consumer/span-upstream.h"
#include "table.h"

#define CLASS_NAME "sink.deepspan.metrics"
/* Cross-host skew tolerated when building request trees (ns). */
#define SKEW_TOLERANCE_NS 5000

struct metrics_sink {
	bt_self_component *self_comp;		/* borrowed */
	bt_message_iterator *iterator;		/* owned */
	enum ds_metrics_by by;
	enum ds_table_format format;
	char *output;				/* owned; NULL = stdout */
	FILE *file;				/* owned when `output` is set */
	int64_t grace;				/* ns (table by request) */
	struct ds_request_stream stream;	/* spans not accumulated yet */
	struct ds_metrics_acc acc;		/* the table's rows */
	struct ds_span_reader reader;
	struct ds_progress progress;
	struct ds_disk_table *disk;		/* owned; by="disk" only (disk-table.h) */
	struct ds_span_upstream upstream;	/* what feeds port `in` (the no-spans warning says why) */
};

static const char *const known_params[] = {
	"by", "format", "output", "grace", "group-a", "group-b", NULL,
};

static void destroy(struct metrics_sink *sink)
{
	if (!sink) {
		return;
	}
	BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterator);
	if (sink->file) {
		fclose(sink->file);
	}
	g_free(sink->output);
	ds_span_reader_fini(&sink->reader);
	ds_metrics_acc_fini(&sink->acc);
	ds_request_stream_fini(&sink->stream);
	ds_disk_table_destroy(sink->disk);
	g_free(sink);
}

static bool read_params(struct metrics_sink *sink, const bt_value *map)
{
	struct ds_params params = ds_params_make(sink->self_comp, map, CLASS_NAME);
	unsigned int by, format;
	const char *output;

	if (ds_params_check_names(&params, known_params) ||
			ds_params_get_choice(&params, "by", ds_metrics_by_names, 0, &by) ||
			ds_params_get_choice(&params, "format", ds_table_format_names, 0, &format) ||
			ds_params_get_string(&params, "output", "-", &output) ||
			ds_params_get_duration(&params, "grace", 1000000000, &sink->grace) ||
			ds_group_spec_parse(&params, "group-a", &sink->acc.groups[0]) ||
			ds_group_spec_parse(&params, "group-b", &sink->acc.groups[1])) {
		return false;
	}
	sink->by = (enum ds_metrics_by) by;
	if (sink->by == DS_METRICS_BY_DISK) {
		sink->disk = ds_disk_table_create();
	}
	if (sink->by != DS_METRICS_BY_CULPRIT && sink->by != DS_METRICS_BY_HOST && sink->by != DS_METRICS_BY_DISK &&
			(sink->acc.groups[0].given || sink->acc.groups[1].given)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `%s` only applies to the table by culprit: add by=\"culprit\" "
			"(or by=\"host\") or by=\"disk\", or remove it (doc/metrics.md, \"By culprit\", \"By host\", "
			"\"By disk\").",
			CLASS_NAME,
			sink->acc.groups[0].given ? "group-a" : "group-b");
		return false;
	}
	sink->format = (enum ds_table_format) format;
	if (*output == '\0') {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: parameter `output`: expected a file path or \"-\" (stdout), "
			"got an empty string.", CLASS_NAME);
		return false;
	}
	if (strcmp(output, "-") != 0) {
		sink->output = g_strdup(output);
		/* Opened now so that a bad path fails before any work. */
		sink->file = fopen(output, "w");
		if (!sink->file) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
				"%s: parameter `output`: cannot write `%s`: %s.",
				CLASS_NAME, output, strerror(errno));
			return false;
		}
	}
	return true;
}

bt_component_class_initialize_method_status metrics_component_initialize(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data)
{
	struct metrics_sink *sink = g_new0(struct metrics_sink, 1);
	struct ds_group_spec groups[2];

	(void) configuration;
	(void) init_data;
	struct ds_request_stream_config stream_config = {
		.skew_tolerance = SKEW_TOLERANCE_NS,
		.on_request = ds_metrics_add_request,
		.on_span = ds_metrics_add_span,
	};

	sink->self_comp = bt_self_component_sink_as_self_component(self_sink);
	ds_progress_init(&sink->progress, CLASS_NAME);
	if (!read_params(sink, params)) {
		ds_span_reader_init(&sink->reader, sink->self_comp, CLASS_NAME, false, false);
		goto error;
	}
	/*
	 * Only the request and culprit tables need the state timelines (and the
	 * chains) and trees, only by=syscall the syscalls.
	 */
	ds_span_reader_init(&sink->reader, sink->self_comp, CLASS_NAME,
		sink->by == DS_METRICS_BY_REQUEST || sink->by == DS_METRICS_BY_CULPRIT ||
		sink->by == DS_METRICS_BY_DISK, sink->by == DS_METRICS_BY_SYSCALL);
	stream_config.grace = sink->grace;
	stream_config.build_requests = sink->by == DS_METRICS_BY_REQUEST ||
		sink->by == DS_METRICS_BY_CULPRIT || sink->by == DS_METRICS_BY_HOST ||
		sink->by == DS_METRICS_BY_DISK;
	stream_config.data = &sink->acc;
	ds_request_stream_init(&sink->stream, &stream_config);
	if (stream_config.build_requests) {
		sink->progress.requests = &sink->stream.requests;
	}
	groups[0] = sink->acc.groups[0];
	groups[1] = sink->acc.groups[1];
	if (!ds_metrics_acc_init(&sink->acc, sink->by, &sink->stream.strings, g_get_tmp_dir())) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: cannot create a temporary file in `%s` (span durations for the "
			"percentiles): %s; set TMPDIR to a writable directory.", CLASS_NAME,
			g_get_tmp_dir(), strerror(errno));
		goto error;
	}
	if (bt_self_component_sink_add_input_port(self_sink, "in", NULL, NULL) !=
			BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: cannot add input port `in`.", CLASS_NAME);
		goto error;
	}
	sink->acc.groups[0] = groups[0];
	sink->acc.groups[1] = groups[1];
	sink->acc.disk = sink->disk;
	bt_self_component_set_data(sink->self_comp, sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	destroy(sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void metrics_component_finalize(bt_self_component_sink *self_sink)
{
	destroy(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink)));
}

bt_component_class_sink_graph_is_configured_method_status
metrics_component_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct metrics_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));

	bt_self_component_port_input *port = bt_self_component_sink_borrow_input_port_by_name(self_sink, "in");

	ds_span_upstream_probe(bt_self_component_port_input_as_port_input(port), &sink->upstream);
	if (bt_message_iterator_create_from_sink_component(self_sink, port,
			&sink->iterator) != BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: cannot create a message iterator on port `in` (is it connected?).",
			CLASS_NAME);
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* Warns about the spans and requests left out of the table (non-zero counts only). */
static void warn_left_out(struct metrics_sink *sink)
{
	const struct ds_request_stream *stream = &sink->stream;

	if (sink->reader.invalid_spans) {
		DS_LOG_WARN(sink->self_comp, CLASS_NAME,
			"%" PRIu64 " spans have bounds out of range (begin < 0, end < begin, or state "
			"or syscall totals longer than the span) and were left out%s: the trace is "
			"corrupt; re-record it or check the span producer (doc/metrics.md).",
			sink->reader.invalid_spans, sink->by == DS_METRICS_BY_REQUEST ?
				" with their requests" : "");
	}
	if (sink->reader.invalid_chains) {
		DS_LOG_WARN(sink->self_comp, CLASS_NAME,
			"%" PRIu64 " span chains break their invariants (a parent after its child, "
			"children not partitioning their parent, entries not partitioning the "
			"waited segments, or a `chain_packed` text not of the packed format): those "
			"spans were kept without their chain. Check the chain producer, "
			"filter.deepspan.span-attrib (doc/critical-path.md, \"Reading chains\" and "
			"\"Encoding\").", sink->reader.invalid_chains);
	}
	if (sink->by != DS_METRICS_BY_DISK && stream->spans == 0 && sink->reader.invalid_spans == 0) {
		GString *why = g_string_new(NULL);

		ds_span_upstream_no_spans(&sink->upstream, why);
		DS_LOG_WARN(sink->self_comp, CLASS_NAME, "the table is empty: %s", why->str);
		g_string_free(why, TRUE);
	}
	if (stream->cycle_spans) {
		char rootless[80] = "";

		/* Only non-zero counts are listed. */
		if (stream->cycle_requests) {
			snprintf(rootless, sizeof(rootless), "; %" PRIu64 " requests had no root span",
				stream->cycle_requests);
		}
		DS_LOG_WARN(sink->self_comp, CLASS_NAME,
			"%" PRIu64 " spans are in parent cycles (a span is its own ancestor) and were "
			"left out of the request table%s: check the producer's `parent_span_id` values.",
			stream->cycle_spans, rootless);
	}
}

static bt_component_class_sink_consume_method_status write_table(
		struct metrics_sink *sink)
{
	struct ds_table table;
	FILE *file = sink->file ? sink->file : stdout;
	bool ok;

	ds_request_stream_finish(&sink->stream);
	warn_left_out(sink);
	ds_progress_stage(&sink->progress, "writing the table");
	if (sink->disk) {
		if (!ds_disk_table_events(sink->disk)) {
			DS_LOG_WARN(sink->self_comp, CLASS_NAME, "by=\"disk\": the input has no deepspan:disk event: "
				"the table is empty (filter.deepspan.span-attrib writes them with layers=true from the "
				"block_rq_* kernel events, doc/storage-network.md).");
		}
		ds_metrics_select_groups(&sink->acc);
		ds_disk_table_write(sink->disk, &sink->acc.selection, &table);
	} else if (!ds_metrics_write(&sink->acc, &table)) {
		ds_table_fini(&table);
		if (sink->acc.overflow) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
				"%s: a total of row `%s` exceeds 2^63 - 1 ns (about 292 years): its "
				"spans last absurdly long; check the trace for corrupt span bounds "
				"(doc/metrics.md).", CLASS_NAME, sink->acc.overflow_row);
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: the temporary file of span durations in `%s` failed: %s; free disk "
			"space there or set TMPDIR to another directory.", CLASS_NAME,
			g_get_tmp_dir(), g_strerror(sink->acc.spill.error));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	ds_table_write(&table, file, sink->format, ds_metrics_by_names[sink->by]);
	ds_table_fini(&table);
	ok = fflush(file) == 0 && !ferror(file);
	if (sink->file) {
		ok = fclose(sink->file) == 0 && ok;
		sink->file = NULL;
	}
	ds_progress_stage(&sink->progress, NULL);
	if (!ok) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"%s: writing the table to `%s` failed.", CLASS_NAME,
			sink->output ? sink->output : "stdout");
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

bt_component_class_sink_consume_method_status metrics_component_consume(
		bt_self_component_sink *self_sink)
{
	struct metrics_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));
	bt_message_array_const messages;
	uint64_t count;
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;

	const struct ds_upstream_owner owner = {
		.self_comp = sink->self_comp, .class_name = CLASS_NAME, .doc_page = "doc/metrics.md",
	};
	bt_message_iterator_class_next_method_status next =
		ds_upstream_next(&owner, sink->iterator, "in", &messages, &count);

	if (next == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterator);
		return write_table(sink);
	}
	if (next != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return ds_upstream_status_to_sink(next);
	}
	/* before the span reader, which releases the messages */
	if (sink->disk && !ds_disk_table_read(sink->disk, sink->self_comp, CLASS_NAME, messages, count)) {
		status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	if (!ds_span_reader_read_batch(&sink->reader, messages, count, 0,
			&sink->stream, &sink->progress)) {
		status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	ds_request_stream_maybe_flush(&sink->stream);
	return status;
}
