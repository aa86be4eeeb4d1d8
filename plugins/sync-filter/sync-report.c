/*
 * filter.deepspan.sync: the reference host, the JSON report, and formulas
 * (a saved report applied in one pass).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json-writer.h"
#include "log.h"
#include "sync.h"

static struct sync_host *host_at(struct sync_iter *it, guint i)
{
	return g_ptr_array_index(it->hosts, i);
}

int sync_choose_reference(struct sync_iter *it)
{
	guint i;

	it->reference = 0;
	if (it->comp->reference) {
		GString *names = g_string_new(NULL);

		for (i = 0; i < it->hosts->len; i++) {
			if (strcmp(host_at(it, i)->name, it->comp->reference) == 0) {
				it->reference = i;
				g_string_free(names, TRUE);
				return 0;
			}
			g_string_append_printf(names, "%s`%s`", i ? ", " : "", host_at(it, i)->name);
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `reference`: no host named `%s` in the traces; "
			"hosts found: %s.", SYNC_CLASS_NAME, it->comp->reference,
			names->len ? names->str : "(none)");
		g_string_free(names, TRUE);
		return -1;
	}
	/* as Trace Compass does: the host whose clock UUID sorts first */
	for (i = 1; i < it->hosts->len; i++) {
		if (sync_host_sorts_before(host_at(it, i), host_at(it, it->reference))) {
			it->reference = i;
		}
	}
	return 0;
}

bool sync_host_sorts_before(const struct sync_host *a, const struct sync_host *b)
{
	return a->uuid[0] && (!b->uuid[0] || strcmp(a->uuid, b->uuid) < 0);
}

void sync_host_ranks(struct sync_iter *it, unsigned int *rank)
{
	guint i, j;

	/* rank = number of hosts sorting before; ties (no UUID) by index */
	for (i = 0; i < it->hosts->len; i++) {
		rank[i] = 0;
		for (j = 0; j < it->hosts->len; j++) {
			const struct sync_host *a = host_at(it, j), *b = host_at(it, i);

			if (sync_host_sorts_before(a, b) ||
					(j < i && !sync_host_sorts_before(b, a))) {
				rank[i]++;
			}
		}
	}
}

/* ---- formula ---- */

static int formula_error(struct sync_iter *it, size_t index, const char *what)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		"%s: parameter `formula`: \"%s\": host #%zu: %s.", SYNC_CLASS_NAME,
		it->comp->formula_path, index, what);
	return -1;
}

static int formula_host(struct sync_iter *it, const struct ds_json_value *jh, size_t index)
{
	const struct ds_json_value *tf = ds_json_get(jh, "transform");
	const char *name = ds_json_get_string(jh, "name");
	const char *uuid = ds_json_get_string(jh, "clock_uuid");
	const char *quality = ds_json_get_string(jh, "quality");
	const char *clock_name = ds_json_get_string(jh, "clock_name");
	const struct ds_json_value *epoch = ds_json_get(jh, "origin_is_unix_epoch");
	struct sync_host *h;
	int64_t accuracy;

	if (!name) {
		return formula_error(it, index, "missing string member `name`");
	}
	if (!tf || !ds_json_get_int(tf, "x0", &(int64_t){0}) ||
			!ds_json_get_int(tf, "y0", &(int64_t){0}) ||
			!ds_json_get_double(tf, "slope", &(double){0})) {
		return formula_error(it, index,
			"missing or invalid `transform` (want {\"x0\": int, \"y0\": int, \"slope\": number})");
	}
	h = g_new0(struct sync_host, 1);
	h->name = g_strdup(name);
	g_strlcpy(h->uuid, uuid && strlen(uuid) == 36 ? uuid : "", sizeof(h->uuid));
	h->clock_name = clock_name ? g_strdup(clock_name) : NULL;
	h->origin_is_unix_epoch = !epoch || epoch->type != DS_JSON_BOOL || epoch->boolean;
	h->in_formula = true;
	ds_json_get_int(tf, "x0", &h->result.to_ref.x0);
	ds_json_get_int(tf, "y0", &h->result.to_ref.y0);
	ds_json_get_double(tf, "slope", &h->result.to_ref.slope);
	if (!(h->result.to_ref.slope > 0)) {
		sync_host_destroy(h);
		return formula_error(it, index, "`transform.slope` must be positive");
	}
	h->result.parent = -1;
	h->result.quality = DS_SYNC_QUALITY_ABSENT;
	if (quality && !ds_sync_quality_from_name(quality, &h->result.quality)) {
		sync_host_destroy(h);
		return formula_error(it, index, "unknown `quality` (want ACCURATE, APPROXIMATE, "
			"INCOMPLETE, ABSENT or FAIL)");
	}
	h->result.accuracy_ns = ds_json_get_int(jh, "accuracy_ns", &accuracy) ? accuracy : -1;
	g_ptr_array_add(it->hosts, h);
	return 0;
}

/* Without a saved window: the largest correction difference between the formula's hosts. */
static int64_t formula_window(struct sync_iter *it)
{
	const struct ds_json_value *hosts = ds_json_get(it->comp->formula, "hosts");
	int64_t lo = 0, hi = 0;
	bool any = false;
	size_t i;
	int end;

	for (i = 0; i < hosts->count; i++) {
		const struct ds_transform *tf = &host_at(it, (guint) i)->result.to_ref;
		int64_t t[2];

		if (!ds_json_get_int(hosts->items[i], "first_ns", &t[0]) ||
				!ds_json_get_int(hosts->items[i], "last_ns", &t[1])) {
			continue;
		}
		for (end = 0; end < 2; end++) {
			int64_t corr = ds_transform_apply(tf, t[end]) - t[end];

			lo = any && lo < corr ? lo : corr;
			hi = any && hi > corr ? hi : corr;
			any = true;
		}
	}
	return any ? hi - lo + 1 : 0;
}

int sync_apply_formula(struct sync_iter *it)
{
	const struct ds_json_value *hosts = ds_json_get(it->comp->formula, "hosts");
	const char *reference = ds_json_get_string(it->comp->formula, "reference");
	int64_t window = 0;
	size_t i;
	unsigned int k;

	for (i = 0; i < hosts->count; i++) {
		if (formula_host(it, hosts->items[i], i)) {
			return -1;
		}
		if (reference && strcmp(host_at(it, (guint) i)->name, reference) == 0) {
			it->reference = (unsigned int) i;
		}
	}
	if (it->comp->reference && (!reference || strcmp(reference, it->comp->reference))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `reference`: `%s` differs from the reference of formula "
			"\"%s\" (`%s`); drop `reference` or write a new report with it.",
			SYNC_CLASS_NAME, it->comp->reference, it->comp->formula_path,
			reference ? reference : "(none)");
		return -1;
	}
	if (!ds_json_get_int(ds_json_get(it->comp->formula, "reorder"), "window_ns", &window)) {
		window = formula_window(it);
	}
	for (k = 0; k < it->input_count; k++) {
		it->inputs[k].window = window;
	}
	it->window_max = window;
	return 0;
}

/* ---- report ---- */

static void write_transform(struct ds_json_writer *w, const char *key,
		const struct ds_transform *tf)
{
	ds_json_begin_object(w, key);
	ds_json_int(w, "x0", tf->x0);
	ds_json_int(w, "y0", tf->y0);
	ds_json_double(w, "slope", tf->slope);
	ds_json_end_object(w);
}

static void write_host(struct sync_iter *it, struct ds_json_writer *w, guint i)
{
	struct sync_host *h = host_at(it, i);
	const struct ds_sync_host_result *r = &h->result;
	int64_t at = h->has_range ? h->first_ns : r->to_ref.x0;
	int k, cur;

	ds_json_begin_object(w, NULL);
	ds_json_string(w, "name", h->name);
	ds_json_string(w, "clock_uuid", h->uuid);
	if (h->clock_name) {
		ds_json_string(w, "clock_name", h->clock_name);
	}
	ds_json_bool(w, "origin_is_unix_epoch", h->origin_is_unix_epoch);
	ds_json_bool(w, "reference", i == it->reference);
	ds_json_string(w, "quality", ds_sync_quality_name(r->quality));
	ds_json_bool(w, "fail_kept_last_good", r->fail_on_path);
	ds_json_double(w, "slope", r->to_ref.slope);
	ds_json_int(w, "offset_ns", ds_transform_apply(&r->to_ref, at) - at);
	ds_json_int(w, "offset_at_ns", at);
	write_transform(w, "transform", &r->to_ref);
	/* Trace Compass's TmfTimestampTransformLinear: t' = slope t + offset */
	ds_json_begin_object(w, "linear");
	ds_json_double(w, "slope", r->to_ref.slope);
	ds_json_double(w, "offset_ns", ds_transform_offset_at_zero(&r->to_ref));
	ds_json_end_object(w);
	if (r->accuracy_ns >= 0) {
		ds_json_int(w, "accuracy_ns", r->accuracy_ns);
	} else {
		ds_json_null(w, "accuracy_ns");
	}
	ds_json_begin_array(w, "bounds");
	for (k = 0; r->parent >= 0 && r->bounded && k < 2; k++) {
		ds_json_begin_object(w, NULL);
		ds_json_int(w, "at", r->at[k]);
		ds_json_int(w, "lo", r->lo[k]);
		ds_json_int(w, "hi", r->hi[k]);
		ds_json_end_object(w);
	}
	ds_json_end_array(w);
	ds_json_begin_array(w, "path");
	for (cur = (int) i; cur >= 0 && (r->parent >= 0 || cur == (int) i);
			cur = host_at(it, (guint) cur)->result.parent) {
		ds_json_string(w, NULL, host_at(it, (guint) cur)->name);
	}
	ds_json_end_array(w);
	ds_json_uint(w, "hops", r->hops);
	ds_json_begin_object(w, "pairs");
	for (k = 0; k < SYNC_PAIR_KIND_COUNT; k++) {
		ds_json_uint(w, sync_pair_kind_names[k], h->pairs[k]);
	}
	ds_json_end_object(w);
	ds_json_uint(w, "rejected_pairs", h->rejected);
	if (h->has_range) {
		ds_json_int(w, "first_ns", h->first_ns);
		ds_json_int(w, "last_ns", h->last_ns);
	}
	ds_json_end_object(w);
}

static void write_host_pairs(struct sync_iter *it, struct ds_json_writer *w)
{
	guint i, j;

	ds_json_begin_array(w, "host_pairs");
	for (i = 0; it->solver_ready && i < it->hosts->len; i++) {
		for (j = 0; j < it->hosts->len; j++) {
			const struct ds_sync_pair *pair;
			struct ds_sync_fit fit;

			if (i == j || !ds_sync_solver_is_x(&it->solver, i, j)) {
				continue;
			}
			pair = ds_sync_solver_pair(&it->solver, i, j);
			if (pair->count_above + pair->count_below + pair->rejected == 0) {
				continue;
			}
			ds_sync_pair_fit(pair, &fit);
			ds_json_begin_object(w, NULL);
			ds_json_string(w, "a", host_at(it, i)->name);
			ds_json_string(w, "b", host_at(it, j)->name);
			ds_json_string(w, "quality", ds_sync_quality_name(fit.quality));
			ds_json_uint(w, "a_to_b", pair->count_above);
			ds_json_uint(w, "b_to_a", pair->count_below);
			ds_json_uint(w, "rejected", pair->rejected);
			if (fit.has_min) {
				ds_json_double(w, "slope_min", fit.slope_min);
			}
			if (fit.has_max) {
				ds_json_double(w, "slope_max", fit.slope_max);
			}
			if (fit.quality_of_kept != DS_SYNC_QUALITY_ABSENT) {
				/* Trace Compass's form of the central line: t_b = alpha t_a + beta */
				ds_json_double(w, "alpha", fit.central.slope);
				ds_json_double(w, "beta_ns", ds_transform_offset_at_zero(&fit.central));
			}
			if (fit.accuracy_ns >= 0) {
				ds_json_int(w, "accuracy_ns", fit.accuracy_ns);
			} else {
				ds_json_null(w, "accuracy_ns");
			}
			ds_json_uint(w, "hull_points", pair->above.len + pair->below.len);
			ds_json_end_object(w);
		}
	}
	ds_json_end_array(w);
}

int sync_write_report(struct sync_iter *it, bool final)
{
	struct ds_json_writer w;
	FILE *f;
	guint i;
	int k;

	if (!it->comp->report_path) {
		return 0;
	}
	f = fopen(it->comp->report_path, "w");
	if (!f) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `report`: cannot write \"%s\": %s.", SYNC_CLASS_NAME,
			it->comp->report_path, strerror(errno));
		return -1;
	}
	ds_json_init(&w, f, true);
	ds_json_begin_object(&w, NULL);
	ds_json_string(&w, "generator", SYNC_CLASS_NAME);
	ds_json_string(&w, "mode", it->comp->formula ? "formula" : "two-pass");
	if (it->hosts->len) {
		ds_json_string(&w, "reference", host_at(it, it->reference)->name);
	}
	ds_json_begin_array(&w, "match");
	for (k = 0; k < SYNC_PAIR_KIND_COUNT; k++) {
		if (it->comp->match[k]) {
			ds_json_string(&w, NULL, sync_pair_kind_names[k]);
		}
	}
	ds_json_end_array(&w);
	ds_json_begin_object(&w, "pairs");
	ds_json_uint(&w, "tcp", it->tcp_pairs);
	ds_json_uint(&w, "spans", it->span_pairs);
	ds_json_uint(&w, "http", it->http_pairs);
	ds_json_uint(&w, "same_host_tcp_ignored", it->same_host_pairs);
	ds_json_uint(&w, "tcp_expired", it->tcp_expired);
	ds_json_uint(&w, "spans_expired", it->spans_expired);
	ds_json_int(&w, "expiry_ns", it->comp->pair_expiry_ns);
	ds_json_end_object(&w);
	ds_json_begin_object(&w, "reorder");
	ds_json_int(&w, "window_ns", it->window_max);
	if (final) {
		ds_json_uint(&w, "high_water_mark_messages", it->heap_high_water);
		ds_json_uint(&w, "late_messages", it->late);
	} else {
		ds_json_null(&w, "high_water_mark_messages");
		ds_json_null(&w, "late_messages");
	}
	ds_json_end_object(&w);
	ds_json_begin_array(&w, "hosts");
	for (i = 0; i < it->hosts->len; i++) {
		write_host(it, &w, i);
	}
	ds_json_end_array(&w);
	write_host_pairs(it, &w);
	ds_json_end_object(&w);
	fputc('\n', f);
	if (fclose(f)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `report`: cannot write \"%s\": %s.", SYNC_CLASS_NAME,
			it->comp->report_path, strerror(errno));
		return -1;
	}
	return 0;
}
