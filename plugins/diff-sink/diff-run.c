/* SPDX-License-Identifier: MIT */
#include "diff-run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "colour.h"
#include "explain.h"
#include "flamegraph-svg.h"
#include "log.h"
#include "report-html.h"
#include "span-consumer/request-record.h"

const char *const ds_mode_names[] = { "critical-path", "inclusive", "self", NULL };

struct run {
	const struct ds_diff_config *config;
	struct ds_diff_collector *collector;	/* borrowed */
	struct ds_request_stream *stream;	/* borrowed: strings and facts */
	bt_self_component *self_comp;
	const char *class_name;
	struct ds_selection selection;
	struct ds_aggregate agg;
	struct ds_explanation explanation;
	struct ds_input_facts facts;
	GArray *host_rows;	/* owned: struct ds_host_row, NULL when no span carries host context */
};

static FILE *open_output(struct run *run, const char *name)
{
	char *path = g_build_filename(run->config->output_dir, name, NULL);
	FILE *file = fopen(path, "w");

	if (!file) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
			"%s: cannot write `%s`: %s; check parameter `output-dir`.",
			run->class_name, path, strerror(errno));
	}
	g_free(path);
	return file;
}

static bool close_output(struct run *run, FILE *file, const char *name)
{
	bool ok = !ferror(file);

	ok = fclose(file) == 0 && ok;
	if (!ok) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
			"%s: writing `%s` in `%s` failed (disk full?).", run->class_name,
			name, run->config->output_dir);
	}
	return ok;
}

static bool write_svg(struct run *run, const char *name, enum ds_flamegraph_kind kind,
		const char *title)
{
	FILE *file = open_output(run, name);
	char subtitle[160], a[32], b[32];
	struct ds_flamegraph_options options = {
		.kind = kind,
		.id = kind == DS_FLAMEGRAPH_DIFF ? "fg-diff" :
			(kind == DS_FLAMEGRAPH_A ? "fg-a" : "fg-b"),
		.title = title,
		.subtitle = subtitle,
		.white_band = run->config->white_band,
		.saturation = run->config->saturation,
		.standalone = true,
	};

	if (!file) {
		return false;
	}
	ds_format_duration(ds_aggregate_mean_latency(&run->agg, DS_GROUP_A), false, a, sizeof(a));
	ds_format_duration(ds_aggregate_mean_latency(&run->agg, DS_GROUP_B), false, b, sizeof(b));
	snprintf(subtitle, sizeof(subtitle), "mode %s; A: %" PRIu64 " request%s, mean %s; "
		"B: %" PRIu64 " request%s, mean %s", ds_mode_names[run->agg.mode],
		run->agg.requests[DS_GROUP_A], run->agg.requests[DS_GROUP_A] == 1 ? "" : "s", a,
		run->agg.requests[DS_GROUP_B], run->agg.requests[DS_GROUP_B] == 1 ? "" : "s", b);
	ds_write_flamegraph_svg(file, &run->agg, &options);
	return close_output(run, file, name);
}

static bool write_text_outputs(struct run *run)
{
	FILE *file;

	if (!(file = open_output(run, "a.folded"))) {
		return false;
	}
	ds_write_folded(file, &run->agg, DS_GROUP_A);
	if (!close_output(run, file, "a.folded") ||
			!(file = open_output(run, "b.folded"))) {
		return false;
	}
	ds_write_folded(file, &run->agg, DS_GROUP_B);
	if (!close_output(run, file, "b.folded") ||
			!(file = open_output(run, "diff.folded"))) {
		return false;
	}
	ds_write_diff_folded(file, &run->agg);
	if (!close_output(run, file, "diff.folded") ||
			!(file = open_output(run, "explain.txt"))) {
		return false;
	}
	ds_explain_write(file, &run->agg, &run->explanation, &run->selection,
		&run->facts, ds_mode_names[run->agg.mode], run->config->top, false);
	ds_host_write_text(file, run->host_rows, &run->stream->strings, run->config->top);
	return close_output(run, file, "explain.txt");
}

static bool write_report(struct run *run)
{
	FILE *file = open_output(run, "report.html");
	struct ds_report report = {
		.strings = &run->stream->strings,
		.records = run->collector->records,
		.spill = &run->collector->spill,
		.agg = &run->agg,
		.explanation = &run->explanation,
		.selection = &run->selection,
		.facts = &run->facts,
		.mode_name = ds_mode_names[run->agg.mode],
		.white_band = run->config->white_band,
		.saturation = run->config->saturation,
		.top = run->config->top,
		.waterfalls = run->config->waterfalls,
		.host_rows = run->host_rows,
	};

	if (!file) {
		return false;
	}
	ds_write_report_html(file, &report);
	return close_output(run, file, "report.html");
}

/* The deadlocks the chains found (listed in explain.txt). */
static void warn_deadlocks(const struct run *run)
{
	if (run->facts.deadlocks && g_hash_table_size(run->facts.deadlocks)) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%u deadlock%s: chains come back to a thread already on them (listed in "
			"explain.txt, doc/critical-path.md).", g_hash_table_size(run->facts.deadlocks),
			g_hash_table_size(run->facts.deadlocks) == 1 ? "" : "s");
	}
}

/* The warnings about the spans read: invalid bounds and chains, duplicate ids. */
static void warn_span_facts(const struct run *run)
{
	if (run->facts.invalid_spans) {
		char reversed[64] = "";

		/* Only non-zero counts are listed. */
		if (run->facts.reversed_spans) {
			snprintf(reversed, sizeof(reversed), "; %" PRIu64 " of them end before they begin",
				run->facts.reversed_spans);
		}
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " spans have bounds out of range (begin < 0, end < begin, or state "
			"or syscall totals longer than the span%s): %" PRIu64 " requests were left out "
			"of both groups. The trace is corrupt: re-record it or check the span producer "
			"(doc/diff.md, \"Invalid spans\").", run->facts.invalid_spans, reversed,
			run->facts.invalid_requests);
	}
	if (run->facts.invalid_chains) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " span chains break their invariants (a parent after its child, "
			"children not partitioning their parent, entries not partitioning the "
			"waited segments, or a `chain_packed` text not of the packed format): those "
			"spans were kept without their chain (their waited time is one leaf). Check "
			"the chain producer, filter.deepspan.span-attrib (doc/critical-path.md, "
			"\"Reading chains\" and \"Encoding\").", run->facts.invalid_chains);
	}
	if (run->facts.duplicate_spans) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " span ids appear twice in a trace (only the first is a parent).",
			run->facts.duplicate_spans);
	}
}

/* The warnings about the requests built: parent cycles, depth, late spans, clock skew. */
static void warn_request_facts(const struct run *run)
{
	const struct ds_request_stream *stream = run->stream;

	if (stream->cycle_spans) {
		char rootless[80] = "";

		if (stream->cycle_requests) {
			snprintf(rootless, sizeof(rootless), "; %" PRIu64 " requests had no root span "
				"at all and were left out", stream->cycle_requests);
		}
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " spans are in parent cycles (a span is its own ancestor) and were "
			"left out%s: check the producer's `parent_span_id` values.", stream->cycle_spans,
			rootless);
	}
	if (stream->deep_requests) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " requests are deeper than %u spans: their %" PRIu64 " spans below "
			"that depth are folded into their ancestor at depth %u (doc/diff.md).",
			stream->deep_requests, DS_REQUEST_MAX_DEPTH, stream->folded_spans,
			DS_REQUEST_MAX_DEPTH);
	}
	if (stream->late_spans) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " spans arrived more than %" PRId64 " ns (parameter `grace`) "
			"after the last span of their request and were left out: raise `grace` "
			"to keep async children that end that late.", stream->late_spans,
			run->config->grace);
	}
	if (stream->worst_skew_where) {
		DS_LOG_WARN(run->self_comp, run->class_name,
			"%" PRIu64 " cross-host child spans lie outside their parents by more than "
			"%" PRId64 " ns (worst %" PRId64 " ns: %s): the hosts' clocks are not "
			"synchronized; add filter.deepspan.sync before filter.deepspan.span-attrib.",
			stream->skewed_children, run->config->skew_tolerance,
			stream->worst_skew, stream->worst_skew_where);
	}
}

static void collect_facts(struct run *run)
{
	const struct ds_request_stream *stream = run->stream;

	run->facts.spans = stream->spans;
	run->facts.requests = stream->requests;
	run->facts.truncated_requests = stream->truncated_requests;
	run->facts.reversed_spans = run->config->reversed_spans;
	run->facts.invalid_spans = run->config->invalid_spans;
	run->facts.invalid_requests = stream->invalid_requests;
	run->facts.invalid_chains = run->config->invalid_chains;
	run->facts.strings = &stream->strings;
	run->facts.deadlocks = run->config->deadlocks;
	run->facts.stuck = run->config->stuck;
	run->facts.cycle_spans = stream->cycle_spans;
	run->facts.cycle_requests = stream->cycle_requests;
	run->facts.deep_requests = stream->deep_requests;
	run->facts.folded_spans = stream->folded_spans;
	run->facts.duplicate_spans = stream->duplicate_spans;
	run->facts.late_spans = stream->late_spans;
	run->facts.skewed_children = stream->skewed_children;
	run->facts.worst_skew = stream->worst_skew;
	run->facts.worst_skew_where = stream->worst_skew_where;
	warn_deadlocks(run);
	warn_span_facts(run);
	warn_request_facts(run);
}

/*
 * Adds the members of both groups from their recorded attribution; stops at
 * a read error of the spill file (check_spill() reports it).
 */
static void aggregate_groups(struct run *run)
{
	GArray *entries = g_array_new(FALSE, FALSE, sizeof(struct ds_attribution_entry));
	struct ds_spill *spill = &run->collector->spill;
	unsigned int g;
	uint32_t i;

	for (g = 0; g < 2; g++) {
		const GArray *members = run->selection.members[g];

		for (i = 0; i < members->len; i++) {
			const struct ds_request_record *record = ds_record_at(
				run->collector->records, g_array_index(members, uint32_t, i));

			if (!ds_spill_read_attribution(spill, record, entries)) {
				goto end;
			}
			ds_aggregate_add_recorded(&run->agg,
				(const struct ds_attribution_entry *) (void *) entries->data,
				entries->len, record->latency, g);
			if (record->has_cache) {
				run->agg.has_cache = true;
				run->agg.cache_hits[g] += record->cache_hits;
				run->agg.cache_misses[g] += record->cache_misses;
				run->agg.cache_miss_time[g] += record->cache_miss_time;
			}
		}
	}
end:
	g_array_free(entries, TRUE);
}

/* The longest latency among both groups' members. */
static int64_t largest_latency(const struct run *run)
{
	int64_t largest = 0;
	unsigned int g;
	uint32_t i;

	for (g = 0; g < 2; g++) {
		for (i = 0; i < run->selection.members[g]->len; i++) {
			largest = MAX(largest, ds_record_at(run->collector->records,
				g_array_index(run->selection.members[g], uint32_t, i))->latency);
		}
	}
	return largest;
}

static bool check_spill(struct run *run)
{
	if (run->collector->spill.error == 0) {
		return true;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
		"%s: the spill file in `%s` (requests kept on disk until the end) failed: %s; "
		"free disk space there or choose another `output-dir`.", run->class_name,
		run->config->output_dir, g_strerror(run->collector->spill.error));
	return false;
}

/* The error when no span at all reached the sink: why, and what to do. */
static void report_no_spans(struct run *run)
{
	GString *why = g_string_new(NULL);

	ds_span_upstream_no_spans(&run->config->upstream, why);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp, "%s: %s", run->class_name, why->str);
	g_string_free(why, TRUE);
}

static bool check_groups(struct run *run)
{
	GString *left_out;
	unsigned int g;

	if (run->stream->spans == 0) {
		report_no_spans(run);
		return false;
	}
	for (g = 0; g < 2; g++) {
		if (run->selection.members[g]->len != 0) {
			continue;
		}
		left_out = g_string_new(NULL);
		if (!ds_facts_left_out(&run->facts, ", ", left_out)) {
			g_string_assign(left_out, "none");
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
			"%s: group %c is empty (%s; %" PRIu64 " requests in its pool of %" PRIu64
			" requests read; left out before the groups: %s): widen parameter `group-%c`%s.",
			run->class_name, g ? 'B' : 'A', run->selection.description[g],
			run->selection.pool[g], run->facts.requests, left_out->str, g ? 'b' : 'a',
			run->facts.invalid_requests || run->facts.cycle_spans ?
				", or fix the corrupt spans (doc/diff.md, \"Invalid spans\")" : "");
		g_string_free(left_out, TRUE);
		return false;
	}
	return true;
}

/* The groups' latency sum must fit in an int64_t. */
static bool check_latency_sum(const struct run *run)
{
	if (run->agg.overflow) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
			"%s: the sum of the groups' latencies exceeds 2^63 - 1 ns (about 292 years): "
			"some spans last absurdly long (largest latency in the groups: %" PRId64 " ns); "
			"restrict the groups (parameter `group-a` / `group-b`, e.g. `max-duration`) "
			"or check the trace for corrupt span bounds (doc/diff.md, \"Invalid spans\").",
			run->class_name, largest_latency(run));
		return false;
	}
	return true;
}

/* The explanation, the host context's rows, and the exactness of the critical-path leaves. */
static bool explain_groups(struct run *run)
{
	ds_aggregate_finish(&run->agg);
	ds_explain(&run->agg, &run->explanation);
	if (run->collector->host.any) {
		bool host_overflow;

		run->host_rows = ds_host_rows(&run->collector->host, &run->stream->strings, &run->selection,
			&host_overflow);
		if (host_overflow) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
				"%s: a host context sum of the groups exceeds 2^64 - 1 (ns or bytes): the "
				"`host_context` values of the spans are corrupt; re-run filter.deepspan.span-attrib "
				"or set its host-context=false (doc/host-context.md).", run->class_name);
			return false;
		}
	}
	if (run->config->mode == DS_MODE_CRITICAL_PATH && !run->explanation.exact) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(run->self_comp,
			"%s: internal check failed: the critical-path leaves do not sum to "
			"the latency difference; please report this with the trace.", run->class_name);
		return false;
	}
	return true;
}

/* explain.txt, the folded files, the three flame graphs, report.html and the summary on stdout. */
static bool write_outputs(struct run *run)
{
	if (!write_text_outputs(run) ||
			!write_svg(run, "diff.svg", DS_FLAMEGRAPH_DIFF,
				"Differential flame graph (width: B, colour: B vs A)") ||
			!write_svg(run, "a.svg", DS_FLAMEGRAPH_A, "Group A") ||
			!write_svg(run, "b.svg", DS_FLAMEGRAPH_B, "Group B") ||
			!write_report(run) || !check_spill(run)) {
		return false;
	}
	if (run->config->summary) {
		ds_explain_write(stdout, &run->agg, &run->explanation, &run->selection,
			&run->facts, ds_mode_names[run->config->mode],
			run->config->top < 5 ? run->config->top : 5, true);
		printf("Report: %s/report.html\n", run->config->output_dir);
		fflush(stdout);
	}
	return true;
}

bool ds_diff_run(const struct ds_diff_config *config, struct ds_diff_collector *collector,
		struct ds_request_stream *stream, bt_self_component *self_comp,
		const char *class_name)
{
	struct run run = {
		.config = config,
		.collector = collector,
		.stream = stream,
		.self_comp = self_comp,
		.class_name = class_name,
	};
	bool ok = false;
	int64_t start_us = g_get_monotonic_time();

	DS_LOG_INFO(self_comp, class_name, "%" PRIu64 " spans in %" PRIu64 " requests, "
		"at most %u spans held at once (%u batches), %u strings, %" PRIu64
		" bytes spilled", stream->spans, stream->requests, stream->peak_spans,
		stream->batches, stream->strings.texts->len, collector->spill.size);
	ds_select_groups(&stream->strings, collector->records, stream->truncated_requests,
		&config->groups[0], &config->groups[1], config->two_inputs, &run.selection);
	ds_aggregate_init(&run.agg, &stream->strings, config->mode);
	collect_facts(&run);
	if (!check_groups(&run)) {
		goto end;
	}
	aggregate_groups(&run);
	if (!check_spill(&run)) {
		goto end;
	}
	if (!check_latency_sum(&run) || !explain_groups(&run) || !write_outputs(&run)) {
		goto end;
	}
	ok = true;
	DS_LOG_INFO(self_comp, class_name, "analysis and output: %.1f ms",
		(double) (g_get_monotonic_time() - start_us) / 1e3);
end:
	if (run.host_rows) {
		g_array_free(run.host_rows, TRUE);
	}
	ds_explanation_fini(&run.explanation);
	ds_aggregate_fini(&run.agg);
	ds_selection_fini(&run.selection);
	return ok;
}
