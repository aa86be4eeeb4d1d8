/* SPDX-License-Identifier: MIT */
/*
 * One request's waterfall for report.html: a bar per span, coloured by thread
 * state; under a span with a chain (doc/critical-path.md), one row per chain
 * depth: what the waited time was spent on, thread by thread.
 */
#include "report-html.h"

#include <inttypes.h>

#include "colour.h"
#include "svg-number.h"
#include "span-consumer/sanitize.h"

#define LABEL_WIDTH 330.0
#define BAR_AREA 880.0
#define ROW_HEIGHT 16.0
#define MAX_ROWS 200

static double x_of(int64_t t, int64_t t0, int64_t t1)
{
	return LABEL_WIDTH + (t1 > t0 ? (double) (t - t0) / (double) (t1 - t0) * BAR_AREA : 0.0);
}

/* A name from the trace, made safe for XML (sanitize.h). */
static void write_name(FILE *file, const char *name)
{
	GString *text;

	if (ds_sanitize_xml_unchanged(name)) {
		fputs(name, file);	/* the same bytes, without the copies */
		return;
	}
	text = g_string_new(NULL);

	ds_sanitize_text(text, name);
	ds_xml_escape(file, text->str);
	g_string_free(text, TRUE);
}

/*
 * chain_bars()'s buffer: the 4 numbers and texts before the first name, then names up to
 * CHAIN_BAR_NAME bytes, each followed by at most CHAIN_BAR_TAIL bytes of numbers and fixed texts.
 */
#define CHAIN_BAR_NAME 512
#define CHAIN_BAR_TAIL 256
#define CHAIN_BAR_BUFFER (4 * DS_SVG_NUMBER_MAX + CHAIN_BAR_NAME + CHAIN_BAR_TAIL)

/*
 * Appends a name to the chain bar being built in buf ([buf, p) not yet written) and returns the new
 * end: copied when written unchanged (ds_sanitize_xml_unchanged) and short, else through
 * write_name(); what the buffer holds is written first when the name and a tail might not fit.
 */
static char *put_name(FILE *file, char *buf, char *p, const char *name)
{
	size_t n = strlen(name);
	bool copy = n <= CHAIN_BAR_NAME && ds_sanitize_xml_unchanged(name);

	if (!copy || (size_t) (p - buf) + n + CHAIN_BAR_TAIL > CHAIN_BAR_BUFFER) {
		fwrite(buf, 1, (size_t) (p - buf), file);
		p = buf;
	}
	if (!copy) {
		write_name(file, name);
		return p;
	}
	memcpy(p, name, n);
	return p + n;
}

static void span_title(FILE *file, const struct ds_span_store *store,
		const struct ds_span *span)
{
	char duration[32];
	unsigned int s;

	ds_format_duration((double) (span->end - span->begin), false, duration,
		sizeof(duration));
	fputs("<title>", file);
	write_name(file, ds_store_string(store, span->service));
	fputs(": ", file);
	write_name(file, ds_store_string(store, span->operation));
	fputs(" on ", file);
	write_name(file, ds_store_string(store, span->host));
	fprintf(file, " (tid %" PRId64 ")\n%s", span->tid, duration);
	for (s = 0; s < DS_STATE_COUNT; s++) {
		if (span->states[s]) {
			ds_format_duration((double) span->states[s], false, duration, sizeof(duration));
			fprintf(file, "\n%s: %s", ds_state_title(s), duration);
		}
	}
	fputs("</title>", file);
}

/* Bars from the segments, or proportional to the state totals without them. */
static void span_bars(FILE *file, const struct ds_span_store *store,
		const struct ds_span *span, double y, int64_t t0, int64_t t1)
{
	const struct ds_segment *segments = ds_store_segments(store, span);
	uint32_t i;

	fprintf(file, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#ddd\" "
		"stroke=\"#888\" stroke-width=\"0.5\"/>", x_of(span->begin, t0, t1), y,
		x_of(span->end, t0, t1) - x_of(span->begin, t0, t1), ROW_HEIGHT - 3);
	if (span->segment_count == 0) {
		int64_t cursor = span->begin;
		unsigned int s;

		for (s = 0; s < DS_STATE_COUNT; s++) {
			struct ds_rgb c = ds_state_colour(s);
			int64_t next = cursor + (int64_t) span->states[s];

			if (span->states[s] == 0) {
				continue;
			}
			fprintf(file, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
				"fill=\"rgb(%u,%u,%u)\" opacity=\"0.85\"/>", x_of(cursor, t0, t1), y,
				x_of(next, t0, t1) - x_of(cursor, t0, t1), ROW_HEIGHT - 3, c.r, c.g, c.b);
			cursor = next;
		}
		return;
	}
	for (i = 0; i < span->segment_count; i++) {
		unsigned int state = ds_segment_state(&segments[i]);
		uint32_t detail = ds_segment_detail(&segments[i]);
		struct ds_rgb c = ds_state_colour(state);
		/* Packed segments lie within the span. */
		int64_t from = ds_segment_begin(span, &segments[i]);
		int64_t to = ds_segment_end(span, &segments[i]);

		if (to <= from) {
			continue;
		}
		fprintf(file, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			"fill=\"rgb(%u,%u,%u)\"><title>%s", x_of(from, t0, t1), y,
			MAX(x_of(to, t0, t1) - x_of(from, t0, t1), 0.3), ROW_HEIGHT - 3,
			c.r, c.g, c.b, ds_state_title(state));
		if (detail) {
			fputs(" ", file);
			write_name(file, ds_store_string(store, detail));
		}
		fprintf(file, " (%" PRId64 " ns)</title></rect>", to - from);
	}
}

/* Rows a span's chain takes: its deepest depth + 1 (0 without a chain). */
static unsigned int chain_rows(const struct ds_span *span)
{
	unsigned int depth = 0;
	uint32_t i;

	for (i = 0; i < span->chain_count; i++) {
		depth = MAX(depth, (unsigned int) span->chain[i].depth + 1);
	}
	return depth;
}

/* The chain entries at depth `depth` (they never overlap), clipped to the span. */
static void chain_bars(FILE *file, const struct ds_span_store *store,
		const struct ds_span *span, unsigned int depth, double y, int64_t t0, int64_t t1)
{
	uint32_t i;

	for (i = 0; i < span->chain_count; i++) {
		const struct ds_stored_chain_entry *e = &span->chain[i];
		int64_t from = MAX(e->begin, span->begin), to = MIN(e->end, span->end);
		struct ds_rgb c = ds_state_colour(e->state);
		char buf[CHAIN_BAR_BUFFER], *p;

		if (e->depth != depth || to <= from) {
			continue;
		}
		/* printf-free (svg-number.h): one rectangle per entry, the same bytes, one write */
		p = ds_svg_text(buf, "<rect x=\"");
		p = ds_svg_fixed(p, x_of(from, t0, t1), 2);
		p = ds_svg_text(p, "\" y=\"");
		p = ds_svg_fixed(p, y, 1);
		p = ds_svg_text(p, "\" width=\"");
		p = ds_svg_fixed(p, MAX(x_of(to, t0, t1) - x_of(from, t0, t1), 0.3), 2);
		p = ds_svg_text(p, "\" height=\"");
		p = ds_svg_fixed(p, ROW_HEIGHT - 5, 1);
		p = ds_svg_text(p, "\" fill=\"rgb(");
		p = ds_svg_int(p, c.r);
		*p++ = ',';
		p = ds_svg_int(p, c.g);
		*p++ = ',';
		p = ds_svg_int(p, c.b);
		p = ds_svg_text(p, ")\" stroke=\"#555\" stroke-width=\"0.3\"><title>");
		p = put_name(file, buf, p, ds_store_string(store, e->comm));
		*p++ = '/';
		p = ds_svg_int(p, e->tid);
		p = ds_svg_text(p, " on ");
		p = put_name(file, buf, p, ds_store_string(store, e->host));
		if (e->cpu >= 0) {
			p = ds_svg_text(p, ", CPU ");
			p = ds_svg_int(p, e->cpu);
		}
		p = ds_svg_text(p, ": ");
		p = ds_svg_text(p, ds_state_title(e->state));
		p = ds_svg_text(p, ", ");
		p = ds_svg_text(p, ds_chain_kind_name(e->kind));
		p = ds_svg_text(p, ": ");
		p = put_name(file, buf, p, ds_store_string(store, e->detail));
		p = ds_svg_text(p, " (");
		p = ds_svg_int(p, to - from);
		p = ds_svg_text(p, " ns)</title></rect>");
		fwrite(buf, 1, (size_t) (p - buf), file);
	}
}

static gint compare_begin(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_span *x = ds_store_span(data, *(const uint32_t *) a);
	const struct ds_span *y = ds_store_span(data, *(const uint32_t *) b);

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Depth-first order of the request's trees, children by start time. */
static void order_rows(const struct ds_span_store *store, const struct ds_requests *requests,
		uint32_t index, GArray *rows)
{
	const struct ds_span *span = ds_store_span(store, index);
	uint32_t *children = g_memdup2(ds_span_children(requests, span),
		sizeof(uint32_t) * span->child_count);
	uint32_t i;

	g_array_append_val(rows, index);
	g_qsort_with_data(children, span->child_count, sizeof(uint32_t), compare_begin,
		(gpointer) store);
	for (i = 0; i < span->child_count && rows->len < MAX_ROWS; i++) {
		order_rows(store, requests, children[i], rows);
	}
	g_free(children);
}

void ds_write_waterfall_svg(FILE *file, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, const char *title)
{
	const struct ds_request *request = ds_request_at(requests, index);
	const uint32_t *all = &g_array_index(requests->spans, uint32_t, request->first_span);
	GArray *order = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	const uint32_t *spans;
	uint32_t rows, i, extra, row = 0;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double height;
	char latency[32];

	for (i = 0; i < request->span_count && order->len < MAX_ROWS; i++) {
		if (ds_store_span(store, all[i])->parent == DS_NO_SPAN) {
			order_rows(store, requests, all[i], order);
		}
	}
	spans = (const uint32_t *) order->data;
	rows = order->len;
	for (i = 0, extra = 0; i < rows; i++) {
		extra += chain_rows(ds_store_span(store, spans[i]));
	}
	height = (rows + extra + 2) * ROW_HEIGHT + 10;
	for (i = 0; i < rows; i++) {
		const struct ds_span *span = ds_store_span(store, spans[i]);

		t0 = MIN(t0, span->begin);
		t1 = MAX(t1, span->end);
	}
	ds_format_duration((double) request->latency, false, latency, sizeof(latency));
	fputs("<h3>", file);
	ds_xml_escape(file, title);
	fprintf(file, ": trace 0x%016" PRIx64 "%016" PRIx64 ", latency %s, %" PRIu32 " spans%s</h3>\n",
		request->trace_id_high, request->trace_id_low, latency, request->span_count,
		request->span_count > rows ? " (first 200 drawn)" : "");
	fprintf(file, "<svg class=\"waterfall\" width=\"%.0f\" height=\"%.0f\">\n",
		LABEL_WIDTH + BAR_AREA + 20, height);
	for (i = 0; i < rows; i++) {
		const struct ds_span *span = ds_store_span(store, spans[i]);
		double y = (++row) * ROW_HEIGHT;
		unsigned int depth = 0, d, chain_depths = chain_rows(span);
		uint32_t up = span->parent;
		GString *label = g_string_new(NULL);

		while (up != DS_NO_SPAN && depth < 20) {
			depth++;
			up = ds_store_span(store, up)->parent;
		}
		/* Made safe before measuring: glib's UTF-8 functions need valid UTF-8. */
		g_string_append_printf(label, "%*s", (int) depth, "");
		ds_sanitize_text(label, ds_store_string(store, span->service));
		g_string_append(label, ": ");
		ds_sanitize_text(label, ds_store_string(store, span->operation));
		g_string_append(label, " @");
		ds_sanitize_text(label, ds_store_string(store, span->host));
		if (g_utf8_strlen(label->str, -1) > 48) {
			char *cut = g_utf8_substring(label->str, 0, 46);

			g_string_assign(label, cut);
			g_string_append(label, "..");
			g_free(cut);
		}
		fputs("<g>", file);
		span_title(file, store, span);
		fprintf(file, "<text x=\"2\" y=\"%.1f\" xml:space=\"preserve\">", y + ROW_HEIGHT - 6);
		ds_xml_escape(file, label->str);
		fputs("</text>", file);
		span_bars(file, store, span, y, t0, t1);
		fputs("</g>\n", file);
		for (d = 0; d < chain_depths; d++) {
			y = (++row) * ROW_HEIGHT;
			fprintf(file, "<g class=\"chain\"><text x=\"2\" y=\"%.1f\" "
				"xml:space=\"preserve\" font-style=\"italic\">%*s\xe2\x86\xb3 chain depth %u%s</text>",
				y + ROW_HEIGHT - 6, (int) (depth + 1 + d), "", d,
				d == 0 ? " (its own thread)" : d == 1 ? " (its waker)" : " (the waker's waker)");
			chain_bars(file, store, span, d, y + 1, t0, t1);
			fputs("</g>\n", file);
		}
		g_string_free(label, TRUE);
	}
	ds_format_duration((double) (t1 - t0), false, latency, sizeof(latency));
	fprintf(file, "<text x=\"%.0f\" y=\"12\">0</text><text x=\"%.0f\" y=\"12\" "
		"text-anchor=\"end\">%s</text>\n</svg>\n", LABEL_WIDTH, LABEL_WIDTH + BAR_AREA, latency);
	g_array_free(order, TRUE);
}
