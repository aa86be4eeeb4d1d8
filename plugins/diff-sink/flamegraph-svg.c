/* SPDX-License-Identifier: MIT */
#include "flamegraph-svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "colour.h"
#include "explain.h"
#include "flamegraph-script.h"
#include "frame-cache.h"

#define SVG_WIDTH 1200.0
#define PAD 10.0
#define FRAME_HEIGHT 17.0
#define HEADER 62.0
#define FOOTER 30.0
#define CHAR_WIDTH 6.7
#define MIN_PIXELS 0.1

struct svg_writer {
	FILE *file;
	const struct ds_aggregate *agg;
	const struct ds_flamegraph_options *options;
	unsigned int group;	/* the group giving widths */
	double total;		/* top frame's sum in that group */
	unsigned int max_depth;
	GString *text;		/* scratch */
};

static unsigned int width_group(enum ds_flamegraph_kind kind)
{
	return kind == DS_FLAMEGRAPH_A ? DS_GROUP_A : DS_GROUP_B;
}

static void measure_depth(struct svg_writer *w, uint32_t index, double fraction)
{
	const struct ds_frame *frame = ds_frame_at(w->agg, index);
	const uint32_t *children = ds_frame_children(w->agg, frame);
	uint32_t i;

	if (fraction * (SVG_WIDTH - 2 * PAD) < MIN_PIXELS) {
		return;
	}
	if (frame->depth > w->max_depth) {
		w->max_depth = frame->depth;
	}
	for (i = 0; i < frame->child_count; i++) {
		measure_depth(w, children[i],
			(double) ds_frame_at(w->agg, children[i])->sum[w->group] / w->total);
	}
}

static void append_states(GString *out, const struct ds_frame *frame,
		unsigned int group, uint64_t requests)
{
	unsigned int s;
	bool any = false;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		char value[32];

		if (frame->state_sum[group][s] == 0 || requests == 0) {
			continue;
		}
		ds_format_duration((double) frame->state_sum[group][s] / (double) requests,
			false, value, sizeof(value));
		g_string_append_printf(out, "%s%s %s", any ? ", " : "",
			ds_state_title(s), value);
		any = true;
	}
	if (!any) {
		g_string_append(out, "-");
	}
}

/* The frame's tooltip (<title>) into w->text. */
static void describe_frame(struct svg_writer *w, const struct ds_frame *frame)
{
	const struct ds_aggregate *agg = w->agg;
	char a[32], b[32], delta[32];
	bool is_new;
	double d = ds_frame_relative(agg, frame, &is_new);

	ds_format_duration(ds_frame_mean(agg, frame, DS_GROUP_A), false, a, sizeof(a));
	ds_format_duration(ds_frame_mean(agg, frame, DS_GROUP_B), false, b, sizeof(b));
	ds_format_duration(ds_frame_delta(agg, frame), true, delta, sizeof(delta));
	g_string_truncate(w->text, 0);
	g_string_append_printf(w->text, "%s\nA: %s per request (%" PRIu64 " in %" PRIu64
		" requests)\nB: %s per request (%" PRIu64 " in %" PRIu64 " requests)\n",
		ds_frame_label(agg, frame), a, frame->count[DS_GROUP_A],
		agg->requests[DS_GROUP_A], b, frame->count[DS_GROUP_B],
		agg->requests[DS_GROUP_B]);
	if (is_new) {
		g_string_append_printf(w->text, "B - A: %s, d: new in B\n", delta);
	} else if (frame->count[DS_GROUP_B] == 0) {
		g_string_append_printf(w->text, "B - A: %s, d: gone in B\n", delta);
	} else {
		g_string_append_printf(w->text, "B - A: %s, d: %+.1f%%\n", delta, 100.0 * d);
	}
	g_string_append(w->text, "States A: ");
	append_states(w->text, frame, DS_GROUP_A, agg->requests[DS_GROUP_A]);
	g_string_append(w->text, "\nStates B: ");
	append_states(w->text, frame, DS_GROUP_B, agg->requests[DS_GROUP_B]);
	if (frame->kind == DS_FRAME_TOP && agg->has_cache) {
		unsigned int g;

		for (g = 0; g < 2; g++) {
			char miss[32];

			ds_format_duration((double) agg->cache_miss_time[g], false, miss, sizeof(miss));
			g_string_append_printf(w->text, "\nPage cache %s: %" PRIu64 " hit%s, %" PRIu64
				" miss%s (%s)", g == DS_GROUP_B ? "B" : "A", agg->cache_hits[g],
				agg->cache_hits[g] == 1 ? "" : "s", agg->cache_misses[g],
				agg->cache_misses[g] == 1 ? "" : "es", miss);
		}
	}
	if (frame->kind != DS_FRAME_TOP && ds_frame_cache_of(agg, frame)) {
		/* A frame of read syscalls (doc/diff.md, "Page cache"): its own hits and misses. */
		unsigned int g;

		for (g = 0; g < 2; g++) {
			g_string_append_printf(w->text, "\nPage cache here %s: ", g == DS_GROUP_B ? "B" : "A");
			ds_frame_cache_text(agg, ds_frame_cache_of(agg, frame), g == DS_GROUP_B ? DS_GROUP_B :
				DS_GROUP_A, w->text);
		}
	}
	if (frame->note) {
		/* A chain frame: its heaviest contributor, with the tids (doc/diff.md, "Chains"). */
		g_string_append(w->text, "\nMostly: ");
		ds_explain_clause(w->text, ds_strings_get(agg->strings, frame->note), b);
	}
}

static struct ds_rgb frame_colour(const struct svg_writer *w,
		const struct ds_frame *frame)
{
	bool is_new;
	double d;

	if (frame->kind == DS_FRAME_TOP) {
		return (struct ds_rgb) { 220, 220, 220 };
	}
	if (w->options->kind == DS_FLAMEGRAPH_DIFF) {
		d = ds_frame_relative(w->agg, frame, &is_new);
		return ds_diff_colour(d, is_new, w->options->white_band,
			w->options->saturation);
	}
	return frame->kind == DS_FRAME_LEAF || frame->kind == DS_FRAME_CHAIN ?
		ds_state_colour(frame->state) :
		ds_label_colour(ds_frame_label(w->agg, frame));
}

static void write_label_text(FILE *file, const char *label, double pixels)
{
	int fit = (int) floor((pixels - 6) / CHAR_WIDTH);
	glong length = g_utf8_strlen(label, -1);
	char *cut;

	if (fit < 3) {
		return;
	}
	if (length <= fit) {
		ds_xml_escape(file, label);
		return;
	}
	cut = g_utf8_substring(label, 0, fit - 2);
	ds_xml_escape(file, cut);
	fputs("..", file);
	g_free(cut);
}

static void write_frame(struct svg_writer *w, uint32_t index, double x, double width)
{
	const struct ds_frame *frame = ds_frame_at(w->agg, index);
	const uint32_t *children = ds_frame_children(w->agg, frame);
	double graph = SVG_WIDTH - 2 * PAD, px = PAD + x * graph, pw = width * graph;
	double y = HEADER + (w->max_depth - frame->depth) * FRAME_HEIGHT;
	double children_sum = 0, scale = 1, cursor = x;
	struct ds_rgb rgb = frame_colour(w, frame);
	const char *label = ds_frame_label(w->agg, frame);
	char a[32], b[32];
	bool is_new;
	double d = ds_frame_relative(w->agg, frame, &is_new);
	uint32_t i;

	if (pw < MIN_PIXELS) {
		return;
	}
	describe_frame(w, frame);
	fprintf(w->file, "<g class=\"f\" data-n=\"%" PRIu32 "\" data-x=\"%.9f\" "
		"data-w=\"%.9f\" data-d=\"%u\" data-label=\"", index, x, width,
		(unsigned int) frame->depth);
	ds_xml_escape(w->file, label);
	ds_format_duration(ds_frame_mean(w->agg, frame, DS_GROUP_A), false, a, sizeof(a));
	ds_format_duration(ds_frame_mean(w->agg, frame, DS_GROUP_B), false, b, sizeof(b));
	fputs("\" data-info=\"", w->file);
	ds_xml_escape(w->file, label);
	fprintf(w->file, " | A %s | B %s | ", a, b);
	if (is_new) {
		fputs("new in B", w->file);
	} else {
		fprintf(w->file, "d %+.1f%%", 100.0 * d);
	}
	fputs("\"><title>", w->file);
	ds_xml_escape(w->file, w->text->str);
	fprintf(w->file, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"fill=\"rgb(%u,%u,%u)\" stroke=\"#bbb\" stroke-width=\"0.5\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		px, y, pw, FRAME_HEIGHT - 1, rgb.r, rgb.g, rgb.b, px + 3,
		y + FRAME_HEIGHT - 5);
	write_label_text(w->file, label, pw);
	fputs("</text></g>\n", w->file);
	for (i = 0; i < frame->child_count; i++) {
		children_sum += (double) ds_frame_at(w->agg, children[i])->sum[w->group];
	}
	if (children_sum / w->total > width && children_sum > 0) {
		scale = width * w->total / children_sum;	/* inclusive mode overlap */
	}
	for (i = 0; i < frame->child_count; i++) {
		double cw = scale * (double) ds_frame_at(w->agg, children[i])->sum[w->group] /
			w->total;

		write_frame(w, children[i], cursor, cw);
		cursor += cw;
	}
}

static void write_header(struct svg_writer *w, double height)
{
	const struct ds_flamegraph_options *o = w->options;

	if (o->standalone) {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", w->file);
	}
	fprintf(w->file, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"%s\" "
		"class=\"flamegraph\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"data-width=\"%.0f\">\n", o->id, SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH);
	fputs("<style>.flamegraph text { font-family: monospace; font-size: 11px; fill: #000; }\n"
		".flamegraph g.f:hover rect { stroke: #000; stroke-width: 0.6; cursor: pointer; }\n"
		".flamegraph .title { font-size: 16px; font-family: sans-serif; }\n"
		".flamegraph .control { cursor: pointer; fill: #1a4f9c; }\n</style>\n", w->file);
	fprintf(w->file, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f8\"/>\n",
		SVG_WIDTH, height);
	fprintf(w->file, "<text class=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">",
		SVG_WIDTH / 2);
	ds_xml_escape(w->file, o->title);
	fputs("</text>\n", w->file);
	if (o->subtitle) {
		fprintf(w->file, "<text x=\"%.0f\" y=\"38\" text-anchor=\"middle\">", SVG_WIDTH / 2);
		ds_xml_escape(w->file, o->subtitle);
		fputs("</text>\n", w->file);
	}
	fprintf(w->file, "<text class=\"control reset\" x=\"%.0f\" y=\"52\">Reset zoom</text>\n"
		"<text class=\"control search\" x=\"%.0f\" y=\"52\" text-anchor=\"end\">Search</text>\n"
		"<text class=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		PAD, SVG_WIDTH - PAD, SVG_WIDTH - PAD, height - 10);
	if (o->kind == DS_FLAMEGRAPH_DIFF) {
		struct ds_rgb slower = ds_diff_colour(o->saturation, false, o->white_band, o->saturation);
		struct ds_rgb faster = ds_diff_colour(-o->saturation, false, o->white_band, o->saturation);

		fprintf(w->file, "<g class=\"legend\"><rect x=\"400\" y=\"43\" width=\"10\" height=\"10\" "
			"fill=\"rgb(%u,%u,%u)\"/><text x=\"414\" y=\"52\">slower in B (+%.0f%%+) or new</text>"
			"<rect x=\"620\" y=\"43\" width=\"10\" height=\"10\" fill=\"#fff\" stroke=\"#bbb\"/>"
			"<text x=\"634\" y=\"52\">within \xc2\xb1%.0f%%</text><rect x=\"740\" y=\"43\" width=\"10\" "
			"height=\"10\" fill=\"rgb(%u,%u,%u)\"/><text x=\"754\" y=\"52\">faster in B</text></g>\n",
			slower.r, slower.g, slower.b, 100.0 * o->saturation, 100.0 * o->white_band,
			faster.r, faster.g, faster.b);
	}
}

void ds_write_flamegraph_svg(FILE *file, const struct ds_aggregate *agg,
		const struct ds_flamegraph_options *options)
{
	struct svg_writer w = {
		.file = file,
		.agg = agg,
		.options = options,
		.group = width_group(options->kind),
		.text = g_string_new(NULL),
	};
	double height;

	w.total = (double) ds_frame_at(agg, 0)->sum[w.group];
	if (w.total > 0) {
		measure_depth(&w, 0, 1.0);
	}
	height = HEADER + (w.max_depth + 1) * FRAME_HEIGHT + FOOTER;
	write_header(&w, height);
	fprintf(file, "<text class=\"details\" x=\"%.0f\" y=\"%.0f\">%s</text>\n", PAD,
		height - 10, w.total > 0 ? "Click a frame to zoom, hover for details." :
		"This group has no request.");
	if (w.total > 0) {
		write_frame(&w, 0, 0.0, 1.0);
	}
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", file);
	fputs(ds_flamegraph_script, file);
	fprintf(file, "dsFlameInit(document.getElementById('%s'));\n]]></script>\n</svg>\n",
		options->id);
	g_string_free(w.text, TRUE);
}
