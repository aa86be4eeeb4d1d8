/* SPDX-License-Identifier: MIT */
#include "explain.h"
#include "frame-cache.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "colour.h"
#include "span-consumer/sanitize.h"

static gint compare_delta_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_aggregate *agg = data;
	__int128 x = ds_frame_delta_numerator(agg, ds_frame_at(agg, *(const uint32_t *) a));
	__int128 y = ds_frame_delta_numerator(agg, ds_frame_at(agg, *(const uint32_t *) b));

	if (x != y) {
		return x > y ? -1 : 1;
	}
	return *(const uint32_t *) a < *(const uint32_t *) b ? -1 : 1;
}

/* Largest width in group B first (the mean per B request, N_B fixed); ties by frame order. */
static gint compare_sum_b_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_aggregate *agg = data;
	int64_t x = ds_frame_at(agg, *(const uint32_t *) a)->sum[DS_GROUP_B];
	int64_t y = ds_frame_at(agg, *(const uint32_t *) b)->sum[DS_GROUP_B];

	if (x != y) {
		return x > y ? -1 : 1;
	}
	return *(const uint32_t *) a < *(const uint32_t *) b ? -1 : 1;
}

/* Largest width in group A first. */
static gint compare_sum_a_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_aggregate *agg = data;
	int64_t x = ds_frame_at(agg, *(const uint32_t *) a)->sum[DS_GROUP_A];
	int64_t y = ds_frame_at(agg, *(const uint32_t *) b)->sum[DS_GROUP_A];

	if (x != y) {
		return x > y ? -1 : 1;
	}
	return *(const uint32_t *) a < *(const uint32_t *) b ? -1 : 1;
}

void ds_explain(const struct ds_aggregate *agg, struct ds_explanation *out)
{
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->ranked = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	out->gone = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	out->added = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (i = 1; i < agg->frames->len; i++) {
		const struct ds_frame *frame = ds_frame_at(agg, i);
		const struct ds_frame *parent = ds_frame_at(agg, frame->parent);

		if (frame->kind == DS_FRAME_LEAF) {
			g_array_append_val(out->ranked, i);
		}
		/* Topmost frames only in one group (their parent is in both). */
		if (frame->count[DS_GROUP_B] == 0 && frame->count[DS_GROUP_A] > 0 &&
				(frame->parent == 0 || parent->count[DS_GROUP_B] > 0)) {
			g_array_append_val(out->gone, i);
		}
		if (frame->count[DS_GROUP_A] == 0 && frame->count[DS_GROUP_B] > 0 &&
				(frame->parent == 0 || parent->count[DS_GROUP_A] > 0)) {
			g_array_append_val(out->added, i);
		}
	}
	g_qsort_with_data(out->ranked->data, out->ranked->len, sizeof(uint32_t),
		compare_delta_desc, (gpointer) agg);
	/* "New in B" and "Gone in B" by magnitude, largest first. */
	g_qsort_with_data(out->added->data, out->added->len, sizeof(uint32_t),
		compare_sum_b_desc, (gpointer) agg);
	g_qsort_with_data(out->gone->data, out->gone->len, sizeof(uint32_t),
		compare_sum_a_desc, (gpointer) agg);
	out->exact = ds_aggregate_check_exact(agg, &out->leaf_total,
		&out->latency_total) && agg->mode == DS_MODE_CRITICAL_PATH;
}

void ds_explanation_fini(struct ds_explanation *explanation)
{
	if (explanation->ranked) {
		g_array_free(explanation->ranked, TRUE);
	}
	if (explanation->gone) {
		g_array_free(explanation->gone, TRUE);
	}
	if (explanation->added) {
		g_array_free(explanation->added, TRUE);
	}
	memset(explanation, 0, sizeof(*explanation));
}

double ds_explain_share(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame)
{
	if (explanation->latency_total == 0) {
		return 0.0;
	}
	return 100.0 * (double) ds_frame_delta_numerator(agg, ds_frame_at(agg, frame)) /
		(double) explanation->latency_total;
}

void ds_explain_line(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame, GString *out)
{
	char delta[32];

	ds_format_duration(ds_frame_delta(agg, ds_frame_at(agg, frame)), true,
		delta, sizeof(delta));
	g_string_append_printf(out, "%s (%.0f%%)  ", delta,
		ds_explain_share(agg, explanation, frame));
	ds_frame_path(agg, frame, " > ", out);
}

void ds_explain_clause(GString *out, const char *note, const char *duration)
{
	gchar **parts = g_strsplit(note, "\x01", -1);
	guint i;

	for (i = 0; parts[i]; i++) {
		if (i > 0) {
			g_string_append(out, duration);
		}
		ds_sanitize_text(out, parts[i]);
	}
	g_strfreev(parts);
}

bool ds_explain_sentence(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame, GString *out)
{
	uint32_t path[2 * DS_CHAIN_MAX_READ_DEPTH + 2];
	unsigned int n = 0;
	bool first = true;

	while (frame != 0 && ds_frame_at(agg, frame)->in_chain && n < G_N_ELEMENTS(path)) {
		path[n++] = frame;
		frame = ds_frame_at(agg, frame)->parent;
	}
	while (n-- > 0) {
		const struct ds_frame *f = ds_frame_at(agg, path[n]);
		char duration[32];

		if (f->note == 0) {
			continue;
		}
		ds_format_duration(ds_frame_delta(agg, f), false, duration, sizeof(duration));
		if (first) {
			g_string_append_printf(out, "%s (%.0f%%) ", duration,
				ds_explain_share(agg, explanation, path[n]));
		} else {
			g_string_append(out, ", which ");
		}
		ds_explain_clause(out, ds_strings_get(agg->strings, f->note), duration);
		first = false;
	}
	return !first;
}

static gint compare_count_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	GHashTable *counts = data;
	guint x = GPOINTER_TO_UINT(g_hash_table_lookup(counts, a));
	guint y = GPOINTER_TO_UINT(g_hash_table_lookup(counts, b));

	if (x != y) {
		return x > y ? -1 : 1;
	}
	return GPOINTER_TO_UINT(a) < GPOINTER_TO_UINT(b) ? -1 : 1;
}

/* `title`, then one line per detail of `counts` (spans, largest first). */
static void write_chain_ends(FILE *file, const struct ds_strings *strings, GHashTable *counts,
		const char *title)
{
	GList *keys, *k;
	GString *text = g_string_new(NULL);

	if (!counts || g_hash_table_size(counts) == 0) {
		goto end;
	}
	keys = g_list_sort_with_data(g_hash_table_get_keys(counts), compare_count_desc, counts);
	fprintf(file, "\n%s:\n", title);
	for (k = keys; k; k = k->next) {
		guint n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, k->data));

		g_string_truncate(text, 0);
		ds_sanitize_text(text, ds_strings_get(strings, GPOINTER_TO_UINT(k->data)));
		fprintf(file, "  %u span%s: %s\n", n, n == 1 ? "" : "s", text->str);
	}
	g_list_free(keys);
end:
	g_string_free(text, TRUE);
}

static void write_group(FILE *file, const struct ds_aggregate *agg,
		const struct ds_selection *selection, enum ds_group group)
{
	char mean[32];

	ds_format_duration(ds_aggregate_mean_latency(agg, group), false, mean, sizeof(mean));
	fprintf(file, "Group %c: %" PRIu64 " request%s of %" PRIu64 " in its pool, mean latency %s (%s)\n",
		group == DS_GROUP_A ? 'A' : 'B', agg->requests[group],
		agg->requests[group] == 1 ? "" : "s", selection->pool[group], mean,
		selection->description[group]);
}

static void write_frames(FILE *file, const struct ds_aggregate *agg,
		const GArray *frames, enum ds_group group, const char *title)
{
	GString *path = g_string_new(NULL);
	uint32_t i;

	if (frames->len == 0) {
		goto end;
	}
	fprintf(file, "\n%s:\n", title);
	for (i = 0; i < frames->len; i++) {
		uint32_t frame = g_array_index(frames, uint32_t, i);
		char mean[32];

		ds_format_duration(ds_frame_mean(agg, ds_frame_at(agg, frame), group),
			false, mean, sizeof(mean));
		g_string_truncate(path, 0);
		ds_frame_path(agg, frame, " > ", path);
		fprintf(file, "  %s  %s\n", mean, path->str);
	}
end:
	g_string_free(path, TRUE);
}

static void write_causes(FILE *file, const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, unsigned int top, bool increases)
{
	GString *line = g_string_new(NULL);
	uint32_t i, shown = 0, n = explanation->ranked->len;

	for (i = 0; i < n && shown < top; i++) {
		uint32_t frame = g_array_index(explanation->ranked, uint32_t,
			increases ? i : n - 1 - i);
		__int128 num = ds_frame_delta_numerator(agg, ds_frame_at(agg, frame));

		if (increases ? num <= 0 : num >= 0) {
			break;
		}
		g_string_truncate(line, 0);
		ds_explain_line(agg, explanation, frame, line);
		fprintf(file, "  %s\n", line->str);
		g_string_truncate(line, 0);
		if (ds_explain_sentence(agg, explanation, frame, line)) {
			fprintf(file, "    %s\n", line->str);
		}
		g_string_truncate(line, 0);
		if (ds_frame_cache_explain(agg, frame, line)) {
			fprintf(file, "    %s\n", line->str);
		}
		shown++;
	}
	if (shown == 0) {
		fprintf(file, "  (none)\n");
	}
	g_string_free(line, TRUE);
}

bool ds_facts_left_out(const struct ds_input_facts *facts, const char *separator,
		GString *out)
{
	const struct {
		uint64_t count;
		const char *one, *many;
	} items[] = {
		{ facts->truncated_requests, "request with truncated spans",
			"requests with truncated spans" },
		{ facts->invalid_requests,
			"request with an invalid span (begin < 0, end < begin, or state or "
			"syscall totals longer than the span: a corrupt trace)",
			"requests with an invalid span (begin < 0, end < begin, or state or "
			"syscall totals longer than the span: a corrupt trace)" },
		{ facts->cycle_requests, "request made only of a parent cycle (no root span)",
			"requests made only of parent cycles (no root span)" },
		{ facts->cycle_spans, "span in a parent cycle (reachable from no root)",
			"spans in parent cycles (reachable from no root)" },
	};
	bool any = false;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(items); i++) {
		if (items[i].count == 0) {
			continue;
		}
		g_string_append_printf(out, "%s%" PRIu64 " %s", any ? separator : "",
			items[i].count, items[i].count == 1 ? items[i].one : items[i].many);
		any = true;
	}
	return any;
}

/* The warnings about the input: corrupt spans and chains, duplicate ids, depth, late spans, clock skew. */
static void write_input_warnings(FILE *file, const struct ds_input_facts *facts)
{
	if (facts->invalid_spans) {
		fprintf(file, "Warning: %" PRIu64 " span%s with bounds out of range (left out with "
			"%s request%s; see doc/diff.md, \"Invalid spans\"): the trace is corrupt, "
			"re-record it or check the span producer\n", facts->invalid_spans,
			facts->invalid_spans == 1 ? "" : "s", facts->invalid_spans == 1 ? "its" : "their",
			facts->invalid_spans == 1 ? "" : "s");
	}
	if (facts->invalid_chains) {
		fprintf(file, "Warning: %" PRIu64 " span chain%s broke the chain invariants and %s "
			"ignored (%s waited time is one leaf; doc/critical-path.md, \"Reading chains\")\n",
			facts->invalid_chains, facts->invalid_chains == 1 ? "" : "s",
			facts->invalid_chains == 1 ? "was" : "were",
			facts->invalid_chains == 1 ? "its span's" : "their spans'");
	}
	if (facts->duplicate_spans) {
		fprintf(file, "Warning: %" PRIu64 " duplicated span id%s (only the first is a parent)\n",
			facts->duplicate_spans, facts->duplicate_spans == 1 ? "" : "s");
	}
	if (facts->deep_requests) {
		fprintf(file, "Warning: %" PRIu64 " request%s deeper than %u spans: the %" PRIu64
			" span%s below that depth %s folded into %s ancestor at depth %u\n",
			facts->deep_requests, facts->deep_requests == 1 ? " is" : "s are",
			DS_REQUEST_MAX_DEPTH, facts->folded_spans, facts->folded_spans == 1 ? "" : "s",
			facts->folded_spans == 1 ? "is" : "are",
			facts->folded_spans == 1 ? "its" : "their", DS_REQUEST_MAX_DEPTH);
	}
	if (facts->late_spans) {
		fprintf(file, "Warning: %" PRIu64 " span%s arrived after %s request was complete "
			"(left out; raise parameter `grace`)\n", facts->late_spans,
			facts->late_spans == 1 ? "" : "s", facts->late_spans == 1 ? "its" : "their");
	}
	if (facts->skewed_children) {
		char worst[32];

		ds_format_duration((double) facts->worst_skew, false, worst, sizeof(worst));
		fprintf(file, "Warning: %" PRIu64 " cross-host child span%s outside %s parent "
			"(worst %s, %s): hosts are not synchronized; add filter.deepspan.sync\n",
			facts->skewed_children, facts->skewed_children == 1 ? "" : "s",
			facts->skewed_children == 1 ? "its" : "their", worst,
			facts->worst_skew_where ? facts->worst_skew_where : "?");
	}
}

void ds_explain_write(FILE *file, const struct ds_aggregate *agg,
		const struct ds_explanation *explanation,
		const struct ds_selection *selection, const struct ds_input_facts *facts,
		const char *mode_name, unsigned int top, bool summary)
{
	char diff[32];
	GString *left_out;

	ds_format_duration(ds_aggregate_mean_latency(agg, DS_GROUP_B) -
		ds_aggregate_mean_latency(agg, DS_GROUP_A), true, diff, sizeof(diff));
	if (!summary) {
		fprintf(file, "deepspan differential analysis, mode %s\n", mode_name);
		fprintf(file, "Input: %" PRIu64 " spans, %" PRIu64 " requests\n",
			facts->spans, facts->requests);
	}
	write_group(file, agg, selection, DS_GROUP_A);
	write_group(file, agg, selection, DS_GROUP_B);
	left_out = g_string_new(NULL);
	if (ds_facts_left_out(facts, ", ", left_out)) {
		fprintf(file, "Left out: %s\n", left_out->str);
	}
	g_string_free(left_out, TRUE);
	write_input_warnings(file, facts);
	fprintf(file, "Mean latency difference B - A: %s\n", diff);
	if (agg->mode == DS_MODE_CRITICAL_PATH) {
		fprintf(file, "Check: the critical-path leaves' differences %s the latency "
			"difference exactly (%s)\n",
			explanation->exact ? "sum to" : "DO NOT sum to",
			explanation->exact ? "integer arithmetic" : "report this as a bug");
	}
	fprintf(file, "\nTop causes (W_B - W_A per leaf, share of the latency difference%s):\n",
		agg->mode == DS_MODE_CRITICAL_PATH ? "" :
		"; leaves overlap in this mode, so shares do not add up");
	write_causes(file, agg, explanation, top, true);
	if (summary) {
		return;
	}
	fprintf(file, "\nLargest decreases:\n");
	write_causes(file, agg, explanation, top, false);
	write_frames(file, agg, explanation->added, DS_GROUP_B, "New in B (mean per B request)");
	write_frames(file, agg, explanation->gone, DS_GROUP_A, "Gone in B (mean per A request)");
	write_chain_ends(file, facts->strings, facts->deadlocks,
		"Deadlocks (chains that come back to a thread on them; doc/critical-path.md)");
	write_chain_ends(file, facts->strings, facts->stuck,
		"Still blocked at the end of the trace (spans of requests still open)");
}

int64_t ds_frame_own(const struct ds_aggregate *agg, uint32_t index,
		enum ds_group group)
{
	const struct ds_frame *frame = ds_frame_at(agg, index);
	const uint32_t *children = ds_frame_children(agg, frame);
	__int128 own = frame->sum[group];
	uint32_t i;

	for (i = 0; i < frame->child_count; i++) {
		own -= ds_frame_at(agg, children[i])->sum[group];
	}
	return own > 0 ? (own < INT64_MAX ? (int64_t) own : INT64_MAX) : 0;
}

/* Mean per request rounded to the nearest integer ns. */
static int64_t rounded_mean(int64_t sum, uint64_t n)
{
	if (n == 0) {
		return 0;
	}
	return (int64_t) (((__int128) sum * 2 + (__int128) n) / ((__int128) n * 2));
}

/* The frames of the path, each in the folded form (sanitize.h), joined by `;`. */
static void folded_path(const struct ds_aggregate *agg, uint32_t frame, GString *path)
{
	uint32_t chain[1024];
	unsigned int n = 0;

	g_string_truncate(path, 0);
	while (frame != 0 && n < G_N_ELEMENTS(chain)) {
		chain[n++] = frame;
		frame = ds_frame_at(agg, frame)->parent;
	}
	while (n-- > 0) {
		ds_sanitize_folded(path, ds_frame_label(agg, ds_frame_at(agg, chain[n])));
		if (n > 0) {
			g_string_append_c(path, ';');
		}
	}
	/* The value follows the last space: a trailing space would read as an empty frame. */
	if (path->len > 0 && path->str[path->len - 1] == ' ') {
		path->str[path->len - 1] = '_';
	}
}

void ds_write_folded(FILE *file, const struct ds_aggregate *agg, enum ds_group group)
{
	GString *path = g_string_new(NULL);
	uint32_t i;

	for (i = 1; i < agg->frames->len; i++) {
		int64_t own = rounded_mean(ds_frame_own(agg, i, group), agg->requests[group]);

		if (own <= 0) {
			continue;
		}
		folded_path(agg, i, path);
		fprintf(file, "%s %" PRId64 "\n", path->str, own);
	}
	g_string_free(path, TRUE);
}

void ds_write_diff_folded(FILE *file, const struct ds_aggregate *agg)
{
	GString *path = g_string_new(NULL);
	uint32_t i;

	for (i = 1; i < agg->frames->len; i++) {
		int64_t a = rounded_mean(ds_frame_own(agg, i, DS_GROUP_A),
			agg->requests[DS_GROUP_A]);
		int64_t b = rounded_mean(ds_frame_own(agg, i, DS_GROUP_B),
			agg->requests[DS_GROUP_B]);

		if (a <= 0 && b <= 0) {
			continue;
		}
		folded_path(agg, i, path);
		fprintf(file, "%s %" PRId64 " %" PRId64 "\n", path->str, a, b);
	}
	g_string_free(path, TRUE);
}
