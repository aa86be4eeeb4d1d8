/* SPDX-License-Identifier: MIT */
#include "report-html.h"
#include "host-report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "colour.h"
#include "flamegraph-svg.h"

#define HIST_BINS 40
#define WATERFALL_MAX_ROWS 200
#define TABLE_ROWS 30

static const char page_style[] =
"body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1240px; }\n"
"h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }\n"
"table { border-collapse: collapse; font-size: 0.85em; }\n"
"td, th { border: 1px solid #ddd; padding: 2px 6px; } th { background: #eee; }\n"
"td.num { text-align: right; font-family: monospace; }\n"
"pre.causes { background: #fff8f0; border: 1px solid #f0d0b0; padding: 0.6em; overflow-x: auto; }\n"
".warn { color: #a00; font-weight: bold; }\n"
".legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }\n"
"svg.waterfall text, svg.histogram text { font-family: monospace; font-size: 11px; }\n";

/* Installed first so that any later script error is recorded in the page. */
static const char error_hook[] =
"window.dsErrors = [];\n"
"window.addEventListener('error', function (e) {\n"
"  window.dsErrors.push(String(e.message));\n"
"  document.documentElement.setAttribute('data-script-errors', window.dsErrors.join(' | '));\n"
"});\n";

static void esc(FILE *file, const char *text)
{
	ds_xml_escape(file, text);
}

static void write_groups(FILE *file, const struct ds_report *r)
{
	const struct ds_aggregate *agg = r->agg;
	GString *left_out = g_string_new(NULL);
	unsigned int g;

	fputs("<h2>Groups</h2>\n<table><tr><th>group</th><th>requests</th><th>pool</th>"
		"<th>mean latency</th><th>definition</th></tr>\n", file);
	for (g = 0; g < 2; g++) {
		char mean[32];

		ds_format_duration(ds_aggregate_mean_latency(agg, g), false, mean, sizeof(mean));
		fprintf(file, "<tr><td>%c</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%"
			PRIu64 "</td><td class=\"num\">%s</td><td>", g ? 'B' : 'A',
			agg->requests[g], r->selection->pool[g], mean);
		esc(file, r->selection->description[g]);
		fputs("</td></tr>\n", file);
	}
	fputs("</table>\n", file);
	fprintf(file, "<p>Input: %" PRIu64 " spans in %" PRIu64 " requests; mode <b>%s</b>.",
		r->facts->spans, r->facts->requests, r->mode_name);
	if (ds_facts_left_out(r->facts, ", ", left_out)) {
		fputs(" Left out: ", file);
		esc(file, left_out->str);
		fputc('.', file);
	}
	fputs("</p>\n", file);
	g_string_free(left_out, TRUE);
	if (r->facts->invalid_spans) {
		fprintf(file, "<p class=\"warn\">%" PRIu64 " spans have bounds out of range "
			"(begin &lt; 0, end &lt; begin, or state or syscall totals longer than the span) "
			"and were left out with their requests: the trace is corrupt.</p>\n",
			r->facts->invalid_spans);
	}
	if (r->facts->deep_requests) {
		fprintf(file, "<p class=\"warn\">%" PRIu64 " requests are deeper than %u spans: "
			"their %" PRIu64 " spans below that depth are folded into their ancestor.</p>\n",
			r->facts->deep_requests, DS_REQUEST_MAX_DEPTH, r->facts->folded_spans);
	}
	if (r->facts->late_spans) {
		fprintf(file, "<p class=\"warn\">%" PRIu64 " spans arrived after their request was "
			"complete and were left out: raise parameter <code>grace</code>.</p>\n",
			r->facts->late_spans);
	}
	if (r->facts->skewed_children) {
		char worst[32];

		ds_format_duration((double) r->facts->worst_skew, false, worst, sizeof(worst));
		fprintf(file, "<p class=\"warn\">%" PRIu64 " cross-host child spans lie outside "
			"their parents (worst %s, ", r->facts->skewed_children, worst);
		esc(file, r->facts->worst_skew_where ? r->facts->worst_skew_where : "?");
		fputs("): the hosts are not synchronized; add filter.deepspan.sync.</p>\n", file);
	}
}

/*
 * Bar height of `count` on the histogram's logarithmic count axis: group B
 * is often a handful of requests next to hundreds in A, and must stay
 * visible (a single request is a fifth of the height of 1,000).
 */
static double log_height(uint64_t count, uint64_t peak, double height)
{
	return count == 0 ? 0.0 : height * log10(1.0 + (double) count) / log10(1.0 + (double) peak);
}

static void write_count_axis(FILE *file, uint64_t peak, double left, double width, double height)
{
	uint64_t tick;

	for (tick = 1; tick <= peak; tick *= 10) {
		double y = 5 + height - log_height(tick, peak, height);

		fprintf(file, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%" PRIu64 "</text>\n",
			left, y, left + width, y, left - 4, y + 4, tick);
		if (tick > UINT64_MAX / 10) {
			break;
		}
	}
}

static void write_histogram(FILE *file, const struct ds_report *r)
{
	const double width = 1000, height = 160, left = 40, bottom = 24;
	uint64_t counts[2][HIST_BINS] = { { 0 } };
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t peak = 1;
	unsigned int g, b;
	uint32_t i;
	char text[32];

	for (g = 0; g < 2; g++) {
		for (i = 0; i < r->selection->members[g]->len; i++) {
			int64_t v = ds_record_at(r->records,
				g_array_index(r->selection->members[g], uint32_t, i))->latency;

			lo = MIN(lo, v);
			hi = MAX(hi, v);
		}
	}
	if (lo > hi) {
		return;
	}
	for (g = 0; g < 2; g++) {
		for (i = 0; i < r->selection->members[g]->len; i++) {
			int64_t v = ds_record_at(r->records,
				g_array_index(r->selection->members[g], uint32_t, i))->latency;

			b = hi > lo ? (unsigned int) ((double) (v - lo) / (double) (hi - lo) *
				(HIST_BINS - 1) + 0.5) : 0;
			counts[g][b]++;
			peak = MAX(peak, counts[g][b]);
		}
	}
	fprintf(file, "<h2>Latency histograms</h2>\n<svg class=\"histogram\" width=\"%.0f\" "
		"height=\"%.0f\">\n", width + left + 20, height + bottom + 10);
	write_count_axis(file, peak, left, width, height);
	for (b = 0; b < HIST_BINS; b++) {
		double x = left + b * width / HIST_BINS, bw = width / HIST_BINS / 2 - 1;

		for (g = 0; g < 2; g++) {
			double h = log_height(counts[g][b], peak, height);

			if (counts[g][b] == 0) {
				continue;
			}
			fprintf(file, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\"><title>group %c: %" PRIu64 " requests</title></rect>\n",
				x + g * (bw + 1), 5 + height - h, bw, h, g ? "#d33" : "#36c",
				g ? 'B' : 'A', counts[g][b]);
		}
	}
	ds_format_duration((double) lo, false, text, sizeof(text));
	fprintf(file, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", left, height + bottom, text);
	ds_format_duration((double) hi, false, text, sizeof(text));
	fprintf(file, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>\n",
		left + width, height + bottom, text);
	fputs("</svg>\n<div class=\"legend\"><span style=\"background:#36c\"></span>group A"
		"<span style=\"background:#d33\"></span>group B (request latency, equal-width bins; "
		"requests per bin on a logarithmic axis)</div>\n", file);
}

static void write_causes(FILE *file, const struct ds_report *r)
{
	GString *line = g_string_new(NULL);
	const struct ds_explanation *e = r->explanation;
	uint32_t i;
	char diff[32];

	ds_format_duration(ds_aggregate_mean_latency(r->agg, DS_GROUP_B) -
		ds_aggregate_mean_latency(r->agg, DS_GROUP_A), true, diff, sizeof(diff));
	fprintf(file, "<h2>Explanation</h2>\n<p>Mean latency difference B &minus; A: <b>%s</b>.", diff);
	if (r->agg->mode == DS_MODE_CRITICAL_PATH) {
		fprintf(file, " The critical-path leaves' differences %s it exactly.",
			e->exact ? "sum to" : "do <b>not</b> sum to");
	}
	fputs("</p>\n<pre class=\"causes\" id=\"causes\">", file);
	for (i = 0; i < e->ranked->len && i < r->top; i++) {
		uint32_t frame = g_array_index(e->ranked, uint32_t, i);

		if (ds_frame_delta_numerator(r->agg, ds_frame_at(r->agg, frame)) <= 0) {
			break;
		}
		g_string_truncate(line, 0);
		ds_explain_line(r->agg, e, frame, line);
		esc(file, line->str);
		fputc('\n', file);
		g_string_truncate(line, 0);
		if (ds_explain_sentence(r->agg, e, frame, line)) {
			fputs("    ", file);
			esc(file, line->str);
			fputc('\n', file);
		}
	}
	fputs("</pre>\n", file);
	g_string_free(line, TRUE);
}

static void frame_row(FILE *file, const struct ds_report *r, uint32_t index, GString *path)
{
	const struct ds_frame *frame = ds_frame_at(r->agg, index);
	char a[32], b[32], delta[32];
	bool is_new;
	double d = ds_frame_relative(r->agg, frame, &is_new);

	ds_format_duration(ds_frame_mean(r->agg, frame, DS_GROUP_A), false, a, sizeof(a));
	ds_format_duration(ds_frame_mean(r->agg, frame, DS_GROUP_B), false, b, sizeof(b));
	ds_format_duration(ds_frame_delta(r->agg, frame), true, delta, sizeof(delta));
	g_string_truncate(path, 0);
	ds_frame_path(r->agg, index, " > ", path);
	fputs("<tr><td>", file);
	esc(file, path->str);
	fprintf(file, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		"<td class=\"num\">", a, b, delta);
	if (is_new) {
		fputs("new", file);
	} else if (frame->count[DS_GROUP_B] == 0) {
		fputs("gone", file);
	} else {
		fprintf(file, "%+.1f%%", 100.0 * d);
	}
	fprintf(file, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
		"</td></tr>\n", frame->count[DS_GROUP_A], frame->count[DS_GROUP_B]);
}

/* `decreases_only`: walk `frames` from the end, keeping frames that got faster. */
static void frame_table(FILE *file, const struct ds_report *r, const char *title,
		const GArray *frames, bool decreases_only)
{
	GString *path = g_string_new(NULL);
	uint32_t i, shown = 0, n = frames->len;

	fprintf(file, "<h3>%s</h3>\n", title);
	for (i = 0; i < n && shown < TABLE_ROWS; i++) {
		uint32_t frame = g_array_index(frames, uint32_t, decreases_only ? n - 1 - i : i);

		if (decreases_only &&
				ds_frame_delta_numerator(r->agg, ds_frame_at(r->agg, frame)) >= 0) {
			break;
		}
		if (shown++ == 0) {
			fputs("<table><tr><th>path</th><th>W<sub>A</sub></th><th>W<sub>B</sub></th>"
				"<th>B &minus; A</th><th>d</th><th>count A</th><th>count B</th></tr>\n",
				file);
		}
		frame_row(file, r, frame, path);
	}
	fputs(shown ? "</table>\n" : "<p>(none)</p>\n", file);
	g_string_free(path, TRUE);
}

static void write_tables(FILE *file, const struct ds_report *r)
{
	fputs("<h2>Tables</h2>\n", file);
	frame_table(file, r, "Leaves, largest increase first", r->explanation->ranked, false);
	frame_table(file, r, "Leaves that got faster, largest decrease first",
		r->explanation->ranked, true);
	frame_table(file, r, "New in B", r->explanation->added, false);
	frame_table(file, r, "Gone in B (only in A)", r->explanation->gone, false);
}

static void write_graph(FILE *file, const struct ds_report *r, enum ds_flamegraph_kind kind,
		const char *id, const char *title)
{
	struct ds_flamegraph_options options = {
		.kind = kind,
		.id = id,
		.title = title,
		.subtitle = NULL,
		.white_band = r->white_band,
		.saturation = r->saturation,
		.standalone = false,
	};

	fputs("<div class=\"graph\">\n", file);
	ds_write_flamegraph_svg(file, r->agg, &options);
	fputs("</div>\n", file);
}

/* Reads the spans of record `index` back from the spill and draws them. */
static void write_spilled_waterfall(FILE *file, const struct ds_report *r,
		uint32_t index, const char *title)
{
	struct ds_span_store store;
	struct ds_requests requests;

	ds_span_store_init(&store, r->strings);
	if (ds_spill_read_spans(r->spill, ds_record_at(r->records, index), &store)) {
		ds_requests_build(&requests, &store, INT64_MAX);
		if (requests.requests->len > 0) {
			ds_write_waterfall_svg(file, &store, &requests, 0, title);
		}
		ds_requests_fini(&requests);
	}
	ds_span_store_fini(&store);
}

static void write_waterfalls(FILE *file, const struct ds_report *r)
{
	const GArray *a = r->selection->members[DS_GROUP_A];
	const GArray *b = r->selection->members[DS_GROUP_B];
	unsigned int s, shown;

	fputs("<h2>Waterfalls</h2>\n<div class=\"legend\">", file);
	for (s = 0; s < DS_STATE_COUNT; s++) {
		struct ds_rgb c = ds_state_colour(s);

		fprintf(file, "<span style=\"background:rgb(%u,%u,%u)\"></span>%s", c.r, c.g, c.b,
			ds_state_title(s));
	}
	fputs("</div>\n", file);
	for (shown = 0; shown < r->waterfalls && shown < b->len; shown++) {
		char *title = g_strdup_printf("Slowest B request #%u", shown + 1);

		write_spilled_waterfall(file, r, g_array_index(b, uint32_t, b->len - 1 - shown),
			title);
		g_free(title);
	}
	if (a->len > 0) {
		write_spilled_waterfall(file, r, g_array_index(a, uint32_t, a->len / 2),
			"Typical A request (median of A)");
	}
}

void ds_write_report_html(FILE *file, const struct ds_report *r)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>deepspan: why are some requests slow?</title>\n<script>\n", file);
	fputs(error_hook, file);
	fprintf(file, "</script>\n<style>\n%s</style>\n</head><body>\n", page_style);
	fputs("<h1>deepspan differential report</h1>\n", file);
	write_groups(file, r);
	write_causes(file, r);
	write_histogram(file, r);
	fputs("<h2>Flame graphs</h2>\n<p>Search all graphs: <input id=\"search\" size=\"30\" "
		"placeholder=\"e.g. futex\"> <button id=\"reset\">Reset zoom</button></p>\n", file);
	write_graph(file, r, DS_FLAMEGRAPH_DIFF, "fg-diff",
		"Differential flame graph: width = B, red = slower in B, blue = faster, pure red = new");
	write_graph(file, r, DS_FLAMEGRAPH_A, "fg-a", "Group A");
	write_graph(file, r, DS_FLAMEGRAPH_B, "fg-b", "Group B");
	fputs("<script>\n(function () {\n"
		"  var ids = ['fg-diff', 'fg-a', 'fg-b'];\n"
		"  document.getElementById('search').addEventListener('input', function (e) {\n"
		"    ids.forEach(function (id) { if (window.dsFlame[id]) window.dsFlame[id].search(e.target.value); });\n"
		"  });\n"
		"  document.getElementById('reset').addEventListener('click', function () {\n"
		"    ids.forEach(function (id) { if (window.dsFlame[id]) window.dsFlame[id].reset(); });\n"
		"  });\n"
		"  document.documentElement.setAttribute('data-ready', '1');\n"
		"})();\n</script>\n", file);
	write_tables(file, r);
	ds_write_host_html(file, r->host_rows, r->strings, r->top);
	write_waterfalls(file, r);
	fputs("</body></html>\n", file);
}
