/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: the reference host, the JSON report, and formulas
 * (a saved report applied in one pass).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
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

#define REGENERATE "re-run filter.deepspan.sync with `report=` on these traces to regenerate it " \
	"(doc/sync.md, \"Formula\")"

static int formula_fail(struct sync_iter *it, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static int formula_fail(struct sync_iter *it, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		"%s: parameter `%s`: \"%s\": %s.", it->comp->class_name,
		it->comp->formula_param, it->comp->formula_path, what);
	g_free(what);
	return -1;
}

/* A JSON value shown in an error: numbers as written (integers exactly), others by type. */
static void describe_json(const struct ds_json_value *v, char *out, size_t size)
{
	static const char *const types[] = {
		[DS_JSON_NULL] = "null", [DS_JSON_BOOL] = "a boolean",
		[DS_JSON_NUMBER] = "a number", [DS_JSON_STRING] = "a string",
		[DS_JSON_ARRAY] = "an array", [DS_JSON_OBJECT] = "an object",
	};

	if (!v) {
		snprintf(out, size, "nothing");
	} else if (v->type == DS_JSON_NUMBER && v->is_integer) {
		snprintf(out, size, "%" PRId64, v->integer);
	} else if (v->type == DS_JSON_NUMBER) {
		snprintf(out, size, "%.17g", v->number);
	} else {
		snprintf(out, size, "%s", types[v->type]);
	}
}

/*
 * Member `key` of `obj` as an int64 in [lo, hi]; absent (or null, when
 * `optional`) leaves *out and *present false.  -1 with the cause appended
 * otherwise.
 */
static int formula_int(struct sync_iter *it, const char *where, const char *parent,
		const struct ds_json_value *obj, const char *key, bool optional,
		int64_t lo, int64_t hi, int64_t *out, bool *present)
{
	const struct ds_json_value *v = ds_json_get(obj, key);
	char got[64];

	*present = false;
	if (optional && (!v || v->type == DS_JSON_NULL)) {
		return 0;
	}
	if (v && v->type == DS_JSON_NUMBER && v->is_integer && v->integer >= lo &&
			v->integer <= hi) {
		*out = v->integer;
		*present = true;
		return 0;
	}
	describe_json(v, got, sizeof(got));
	return formula_fail(it, "%s`%s%s` must be an integer (ns) in [%" PRId64 ", %" PRId64
		"], got %s; " REGENERATE, where, parent, key, lo, hi, got);
}

static bool is_uuid_text(const char *s)
{
	size_t i;

	if (strlen(s) != 36) {
		return false;
	}
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !g_ascii_isxdigit(s[i])) {
			return false;
		}
	}
	return true;
}

/* The optional string member `key`: NULL when absent; -1 when of another type. */
static int formula_string(struct sync_iter *it, const char *where,
		const struct ds_json_value *obj, const char *key, const char **out)
{
	const struct ds_json_value *v = ds_json_get(obj, key);
	char got[64];

	*out = NULL;
	if (!v || v->type == DS_JSON_NULL) {
		return 0;
	}
	if (v->type == DS_JSON_STRING) {
		*out = v->string;
		return 0;
	}
	describe_json(v, got, sizeof(got));
	return formula_fail(it, "%s`%s` must be a string, got %s; " REGENERATE, where, key, got);
}

static int formula_transform(struct sync_iter *it, const char *where,
		const struct ds_json_value *jh, struct ds_transform *tf)
{
	const struct ds_json_value *jt = ds_json_get(jh, "transform");
	const struct ds_json_value *slope = ds_json_get(jt, "slope");
	bool present;
	char got[64];

	if (!jt || jt->type != DS_JSON_OBJECT || !ds_json_get(jt, "x0") ||
			!ds_json_get(jt, "y0") || !slope) {
		return formula_fail(it, "%smissing or invalid `transform` (want {\"x0\": int, "
			"\"y0\": int, \"slope\": number})", where);
	}
	if (formula_int(it, where, "transform.", jt, "x0", false, 0, INT64_MAX, &tf->x0,
				&present) ||
			formula_int(it, where, "transform.", jt, "y0", false, 0, INT64_MAX, &tf->y0,
				&present)) {
		return -1;
	}
	if (slope->type != DS_JSON_NUMBER || !isfinite(slope->number) ||
			fabs(slope->number - 1.0) > SYNC_MAX_SLOPE_DEVIATION) {
		describe_json(slope, got, sizeof(got));
		return formula_fail(it, "%s`transform.slope` must be a number within %.0f ppm of 1 "
			"([%.3f, %.3f]: no real clock drifts more), got %s; " REGENERATE, where,
			SYNC_MAX_SLOPE_DEVIATION * 1e6, 1.0 - SYNC_MAX_SLOPE_DEVIATION,
			1.0 + SYNC_MAX_SLOPE_DEVIATION, got);
	}
	tf->slope = slope->number;
	return 0;
}

/* first_ns / last_ns: optional, ordered, and mapped into the int64 range. */
static int formula_range(struct sync_iter *it, const char *where,
		const struct ds_json_value *jh, const struct ds_transform *tf)
{
	int64_t t[2], out;
	bool present[2];
	int k;

	if (formula_int(it, where, "", jh, "first_ns", true, 0, INT64_MAX, &t[0], &present[0]) ||
			formula_int(it, where, "", jh, "last_ns", true, 0, INT64_MAX, &t[1],
				&present[1])) {
		return -1;
	}
	if (present[0] && present[1] && t[0] > t[1]) {
		return formula_fail(it, "%s`first_ns` (%" PRId64 ") is after `last_ns` (%" PRId64
			"); " REGENERATE, where, t[0], t[1]);
	}
	for (k = 0; k < 2; k++) {
		if (present[k] && !ds_transform_apply_checked(tf, t[k], &out)) {
			return formula_fail(it, "%s`transform` maps `%s` (%" PRId64 " ns) outside the "
				"int64 nanosecond range; " REGENERATE, where,
				k ? "last_ns" : "first_ns", t[k]);
		}
	}
	return 0;
}

static int formula_host(struct sync_iter *it, const struct ds_json_value *jh, size_t index)
{
	const struct ds_json_value *epoch = ds_json_get(jh, "origin_is_unix_epoch");
	const char *name, *uuid, *quality, *clock_name;
	struct sync_host *h = NULL;
	struct ds_transform tf;
	int64_t accuracy = -1;
	bool present = false;
	char where[128];
	int ret = -1;

	snprintf(where, sizeof(where), "host #%zu: ", index);
	if (!jh || jh->type != DS_JSON_OBJECT) {
		return formula_fail(it, "%snot an object; " REGENERATE, where);
	}
	name = ds_json_get_string(jh, "name");
	if (!name || !name[0]) {
		return formula_fail(it, "%smissing string member `name`", where);
	}
	snprintf(where, sizeof(where), "host #%zu (`%.64s`): ", index, name);
	if (formula_string(it, where, jh, "clock_uuid", &uuid) ||
			formula_string(it, where, jh, "quality", &quality) ||
			formula_string(it, where, jh, "clock_name", &clock_name) ||
			formula_transform(it, where, jh, &tf) ||
			formula_range(it, where, jh, &tf) ||
			formula_int(it, where, "", jh, "accuracy_ns", true, 0, INT64_MAX, &accuracy,
				&present)) {
		goto end;
	}
	if (uuid && uuid[0] && !is_uuid_text(uuid)) {
		formula_fail(it, "%s`clock_uuid` \"%.40s\" is not a UUID (want 8-4-4-4-12 hex "
			"digits, or \"\" for a clock without one); " REGENERATE, where, uuid);
		goto end;
	}
	if (epoch && epoch->type != DS_JSON_BOOL) {
		formula_fail(it, "%s`origin_is_unix_epoch` must be true or false; " REGENERATE, where);
		goto end;
	}
	h = g_new0(struct sync_host, 1);
	h->name = g_strdup(name);
	g_strlcpy(h->uuid, uuid ? uuid : "", sizeof(h->uuid));
	{
		char *lower = g_ascii_strdown(h->uuid, -1);

		g_strlcpy(h->uuid, lower, sizeof(h->uuid));
		g_free(lower);
	}
	h->clock_name = clock_name ? g_strdup(clock_name) : NULL;
	h->origin_is_unix_epoch = !epoch || epoch->boolean;
	h->in_formula = true;
	h->result.to_ref = tf;
	h->result.parent = -1;
	h->result.quality = DS_SYNC_QUALITY_ABSENT;
	h->result.accuracy_ns = present ? accuracy : -1;
	if (quality && !ds_sync_quality_from_name(quality, &h->result.quality)) {
		formula_fail(it, "%sunknown `quality` (want ACCURATE, APPROXIMATE, "
			"INCOMPLETE, ABSENT or FAIL)", where);
		goto end;
	}
	g_ptr_array_add(it->hosts, h);
	h = NULL;
	ret = 0;
end:
	sync_host_destroy(h);
	return ret;
}

/* No two hosts of the formula share a name or a clock UUID. */
static int formula_unique(struct sync_iter *it)
{
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTable *uuids = g_hash_table_new(g_str_hash, g_str_equal);
	int ret = 0;
	guint i;

	for (i = 0; ret == 0 && i < it->hosts->len; i++) {
		struct sync_host *h = host_at(it, i);
		gpointer other;

		if ((other = g_hash_table_lookup(names, h->name))) {
			ret = formula_fail(it, "hosts #%u and #%u are both named `%s`; " REGENERATE,
				GPOINTER_TO_UINT(other) - 1, i, h->name);
		} else if (h->uuid[0] && (other = g_hash_table_lookup(uuids, h->uuid))) {
			ret = formula_fail(it, "hosts #%u and #%u have the same `clock_uuid` %s; "
				REGENERATE, GPOINTER_TO_UINT(other) - 1, i, h->uuid);
		}
		g_hash_table_insert(names, h->name, GUINT_TO_POINTER(i + 1));
		if (h->uuid[0]) {
			g_hash_table_insert(uuids, h->uuid, GUINT_TO_POINTER(i + 1));
		}
	}
	g_hash_table_destroy(names);
	g_hash_table_destroy(uuids);
	return ret;
}

/* `name`s of the formula's hosts, for errors. */
static char *formula_host_names(struct sync_iter *it)
{
	GString *names = g_string_new(NULL);
	guint i;

	for (i = 0; i < it->hosts->len; i++) {
		if (host_at(it, i)->in_formula) {
			g_string_append_printf(names, "%s`%s`", names->len ? ", " : "",
				host_at(it, i)->name);
		}
	}
	if (!names->len) {
		g_string_append(names, "(none)");
	}
	return g_string_free(names, FALSE);
}

/* Without a saved window: the largest correction difference between the formula's hosts. */
static int64_t formula_window(struct sync_iter *it)
{
	const struct ds_json_value *hosts = ds_json_get(it->comp->formula, "hosts");
	int64_t lo = 0, hi = 0, spread;
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
			int64_t corr = ds_sat_sub(ds_transform_apply(tf, t[end]), t[end]);

			lo = any && lo < corr ? lo : corr;
			hi = any && hi > corr ? hi : corr;
			any = true;
		}
	}
	spread = ds_sat_sub(hi, lo);
	return !any ? 0 : spread < INT64_MAX ? spread + 1 : spread;
}

/* What to do about a bad `applies_to` (written by deepspan-report's per-host analysis, doc/sync.md). */
#define APPLIES_TO_HINT "drop `applies_to` or list in it names of the formula's `hosts` (doc/sync.md, \"Formula\")"

/* The optional `applies_to`: an array of names of the formula's hosts; -1 (cause appended) otherwise. */
static int formula_applies_to(struct sync_iter *it)
{
	const struct ds_json_value *only = ds_json_get(it->comp->formula, "applies_to");
	char got[64];
	size_t i;

	if (!only || only->type == DS_JSON_NULL) {
		return 0;
	}
	if (only->type != DS_JSON_ARRAY) {
		describe_json(only, got, sizeof(got));
		return formula_fail(it, "`applies_to` must be an array of host names, got %s; " APPLIES_TO_HINT, got);
	}
	for (i = 0; i < only->count; i++) {
		const struct ds_json_value *v = ds_json_at(only, i);
		guint k;

		if (!v || v->type != DS_JSON_STRING) {
			describe_json(v, got, sizeof(got));
			return formula_fail(it, "`applies_to` #%zu must be a host name (a string), got %s; "
				APPLIES_TO_HINT, i, got);
		}
		for (k = 0; k < it->hosts->len; k++) {
			if (host_at(it, k)->in_formula && strcmp(host_at(it, k)->name, v->string) == 0) {
				break;
			}
		}
		if (k == it->hosts->len) {
			char *names = formula_host_names(it);

			formula_fail(it, "`applies_to` #%zu `%s` names none of its hosts (%s); " APPLIES_TO_HINT, i,
				v->string, names);
			g_free(names);
			return -1;
		}
	}
	return 0;
}

int sync_apply_formula(struct sync_iter *it)
{
	const struct ds_json_value *formula = it->comp->formula;
	const struct ds_json_value *hosts = ds_json_get(formula, "hosts");
	const struct ds_json_value *reorder = ds_json_get(formula, "reorder");
	const char *reference;
	int64_t window = 0;
	bool has_window = false, found = false;
	size_t i;
	unsigned int k;

	if (formula_string(it, "", formula, "reference", &reference)) {
		return -1;
	}
	for (i = 0; i < hosts->count; i++) {
		if (formula_host(it, hosts->items[i], i)) {
			return -1;
		}
		if (reference && strcmp(host_at(it, (guint) i)->name, reference) == 0) {
			it->reference = (unsigned int) i;
			found = true;
		}
	}
	if (formula_unique(it)) {
		return -1;
	}
	if (reference && !found) {
		char *names = formula_host_names(it);

		formula_fail(it, "`reference` `%s` names none of its hosts (%s); " REGENERATE,
			reference, names);
		g_free(names);
		return -1;
	}
	if (it->comp->reference && (!reference || strcmp(reference, it->comp->reference))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
			"%s: parameter `reference`: `%s` differs from the reference of formula "
			"\"%s\" (`%s`); drop `reference` or write a new report with it.",
			SYNC_CLASS_NAME, it->comp->reference, it->comp->formula_path,
			reference ? reference : "(none)");
		return -1;
	}
	if (formula_applies_to(it)) {
		return -1;
	}
	if (reorder && reorder->type != DS_JSON_NULL && reorder->type != DS_JSON_OBJECT) {
		return formula_fail(it, "`reorder` must be an object; " REGENERATE);
	}
	if (formula_int(it, "", "reorder.", reorder, "window_ns", true, 0, SYNC_MAX_WINDOW_NS,
			&window, &has_window)) {
		return -1;
	}
	if (!has_window) {
		window = formula_window(it);
	}
	for (k = 0; k < it->input_count; k++) {
		it->inputs[k].window = window;
	}
	it->window_max = window;
	sync_limiting_forget(it);
	return 0;
}

int sync_formula_unknown_host(struct sync_iter *it, const char *name, const char *uuid)
{
	char *names;
	guint i;

	for (i = 0; i < it->hosts->len; i++) {
		struct sync_host *h = host_at(it, i);

		if (h->in_formula && strcmp(h->name, name) == 0) {
			return formula_fail(it, "host `%s` has clock %s in the input but %s in the "
				"formula: the formula was computed on other traces; " REGENERATE, name,
				uuid[0] ? uuid : "without UUID", h->uuid[0] ? h->uuid : "none");
		}
	}
	names = formula_host_names(it);
	formula_fail(it, "host `%s` (clock %s) of the input is not in the formula (its hosts: "
		"%s): the formula was computed on other traces; " REGENERATE, name,
		uuid[0] ? uuid : "without UUID", names);
	g_free(names);
	return -1;
}

/*
 * A formula applied to some hosts' traces only (deepspan-report's per-host analysis, doc/scale.md) names them
 * in `applies_to`: the other hosts' transforms are expected to stay unused.
 */
static bool formula_expects(const struct sync_iter *it, const char *name)
{
	const struct ds_json_value *only = ds_json_get(it->comp->formula, "applies_to");
	size_t i;

	if (!only || only->type != DS_JSON_ARRAY) {
		return true;
	}
	for (i = 0; i < only->count; i++) {
		const struct ds_json_value *v = ds_json_at(only, i);

		if (v && v->type == DS_JSON_STRING && strcmp(v->string, name) == 0) {
			return true;
		}
	}
	return false;
}

void sync_formula_warn_unused(struct sync_iter *it)
{
	GString *unused = g_string_new(NULL);
	guint i, n = 0;

	for (i = 0; i < it->hosts->len; i++) {
		struct sync_host *h = host_at(it, i);

		if (h->in_formula && !h->seen && formula_expects(it, h->name)) {
			g_string_append_printf(unused, "%s`%s` (clock %s)", n++ ? ", " : "", h->name,
				h->uuid[0] ? h->uuid : "without UUID");
		}
	}
	if (n) {
		DS_LOG_WARN(it->comp->self_comp, it->comp->class_name,
			"formula \"%s\": %u host%s of the formula did not appear in the input, "
			"%s transform%s unused: %s", it->comp->formula_path, n, n > 1 ? "s" : "",
			n > 1 ? "their" : "its", n > 1 ? "s were" : " was", unused->str);
	}
	g_string_free(unused, TRUE);
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
	ds_json_int(w, "offset_ns", ds_sat_sub(ds_transform_apply(&r->to_ref, at), at));
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
			if (pair->count_above + pair->count_below + pair->rejected +
					pair->out_of_range == 0) {
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
			ds_json_uint(w, "out_of_range", pair->out_of_range);
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
	ds_json_string(&w, "mode", it->comp->formula ? "formula" : it->comp->report_only ? "report-only" : "two-pass");
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
