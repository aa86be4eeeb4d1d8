/* SPDX-License-Identifier: MIT */
#include "groups.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

static const char *const group_keys[] = {
	"min-duration", "max-duration", "min-self", "max-self", "percentiles",
	"begin", "end", "root", "trace-id", NULL,
};

static enum ds_param_status get_limit(const struct ds_params *params,
		const char *name, int64_t *out)
{
	*out = DS_NO_LIMIT;
	if (!ds_params_borrow(params, name)) {
		return DS_PARAM_STATUS_OK;
	}
	return ds_params_get_duration(params, name, 0, out);
}

static enum ds_param_status bad(const struct ds_params *params, const char *name,
		const char *expected, const bt_value *value)
{
	char description[96];

	ds_describe_value(value, description, sizeof(description));
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(params->self_comp,
		"%s: parameter `%s`: expected %s, got %s.", params->class_name,
		name, expected, description);
	return DS_PARAM_STATUS_ERROR;
}

static bool number_of(const bt_value *value, double *out)
{
	switch (bt_value_get_type(value)) {
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		*out = (double) bt_value_integer_unsigned_get(value);
		return true;
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		*out = (double) bt_value_integer_signed_get(value);
		return true;
	case BT_VALUE_TYPE_REAL:
		*out = bt_value_real_get(value);
		return true;
	default:
		return false;
	}
}

static enum ds_param_status get_percentiles(const struct ds_params *params,
		struct ds_group_spec *spec)
{
	static const char expected[] =
		"an array of two numbers [lo, hi] with 0 <= lo <= hi <= 100";
	const bt_value *value = ds_params_borrow(params, "percentiles");

	if (!value) {
		return DS_PARAM_STATUS_OK;
	}
	if (!bt_value_is_array(value) || bt_value_array_get_length(value) != 2 ||
			!number_of(bt_value_array_borrow_element_by_index_const(value, 0),
				&spec->percentile_lo) ||
			!number_of(bt_value_array_borrow_element_by_index_const(value, 1),
				&spec->percentile_hi) ||
			spec->percentile_lo < 0 || spec->percentile_hi > 100 ||
			spec->percentile_lo > spec->percentile_hi) {
		return bad(params, "percentiles", expected, value);
	}
	spec->has_percentiles = true;
	return DS_PARAM_STATUS_OK;
}

/* `0x1f`, `1f` (hex, up to 32 digits = high and low halves) or an integer (low half). */
static enum ds_param_status get_trace_id(const struct ds_params *params,
		struct ds_group_spec *spec)
{
	static const char expected[] =
		"a trace id: an unsigned integer or up to 32 hexadecimal digits (\"0x2a\")";
	const bt_value *value = ds_params_borrow(params, "trace-id");
	const char *text, *digits;
	size_t len, i;

	if (!value) {
		return DS_PARAM_STATUS_OK;
	}
	spec->has_trace_id = true;
	if (bt_value_is_unsigned_integer(value)) {
		spec->trace_id_low = bt_value_integer_unsigned_get(value);
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_signed_integer(value) && bt_value_integer_signed_get(value) >= 0) {
		spec->trace_id_low = (uint64_t) bt_value_integer_signed_get(value);
		return DS_PARAM_STATUS_OK;
	}
	if (!bt_value_is_string(value)) {
		return bad(params, "trace-id", expected, value);
	}
	text = bt_value_string_get(value);
	digits = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? text + 2 : text;
	len = strlen(digits);
	if (len == 0 || len > 32 || strspn(digits, "0123456789abcdefABCDEF") != len) {
		return bad(params, "trace-id", expected, value);
	}
	for (i = 0; i < len; i++) {
		char c = digits[i];
		unsigned int nibble = c <= '9' ? (unsigned int) (c - '0') :
			(unsigned int) ((c | 0x20) - 'a' + 10);

		spec->trace_id_high = (spec->trace_id_high << 4) | (spec->trace_id_low >> 60);
		spec->trace_id_low = (spec->trace_id_low << 4) | nibble;
	}
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_group_spec_parse(const struct ds_params *params,
		const char *name, struct ds_group_spec *spec)
{
	const bt_value *map = ds_params_borrow(params, name);
	char *class_name = NULL;
	struct ds_params sub;
	enum ds_param_status status = DS_PARAM_STATUS_OK;

	memset(spec, 0, sizeof(*spec));
	spec->min_duration = spec->max_duration = DS_NO_LIMIT;
	spec->min_self = spec->max_self = DS_NO_LIMIT;
	spec->begin = spec->end = DS_NO_LIMIT;
	if (!map) {
		goto end;
	}
	if (!bt_value_is_map(map)) {
		status = bad(params, name,
			"a map such as {percentiles=[0, 50], root=\"frontend: GET /dispatch\"}",
			map);
		goto end;
	}
	spec->given = true;
	class_name = g_strdup_printf("%s: `%s`", params->class_name, name);
	sub = ds_params_make(params->self_comp, map, class_name);
	if (ds_params_check_names(&sub, group_keys) ||
			get_limit(&sub, "min-duration", &spec->min_duration) ||
			get_limit(&sub, "max-duration", &spec->max_duration) ||
			get_limit(&sub, "min-self", &spec->min_self) ||
			get_limit(&sub, "max-self", &spec->max_self) ||
			get_limit(&sub, "begin", &spec->begin) ||
			get_limit(&sub, "end", &spec->end) ||
			get_percentiles(&sub, spec) ||
			ds_params_get_string(&sub, "root", NULL, &spec->root) ||
			get_trace_id(&sub, spec)) {
		status = DS_PARAM_STATUS_ERROR;
	}
end:
	g_free(class_name);
	return status;
}

char *ds_request_root_label(const struct ds_strings *strings,
		const struct ds_request_record *record)
{
	return g_strdup_printf("%s: %s", ds_strings_get(strings, record->root_service),
		ds_strings_get(strings, record->root_operation));
}

static bool root_matches(const struct ds_strings *strings,
		const struct ds_request_record *record, const char *wanted)
{
	const char *service = ds_strings_get(strings, record->root_service);
	const char *operation = ds_strings_get(strings, record->root_operation);
	size_t service_len = strlen(service);

	if (strcmp(wanted, operation) == 0) {
		return true;
	}
	return strncmp(wanted, service, service_len) == 0 &&
		strncmp(wanted + service_len, ": ", 2) == 0 &&
		strcmp(wanted + service_len + 2, operation) == 0;
}

/* The most frequent root label among complete requests (ties: smallest label). */
static char *most_frequent_root(const struct ds_strings *strings, const GArray *records)
{
	GHashTable *counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GHashTableIter iter;
	gpointer key, value;
	char *best = NULL;
	guint best_count = 0;
	uint32_t i;

	for (i = 0; i < records->len; i++) {
		char *label;
		guint count;

		if (ds_record_at(records, i)->truncated || ds_record_at(records, i)->invalid) {
			continue;
		}
		label = ds_request_root_label(strings, ds_record_at(records, i));
		count = GPOINTER_TO_UINT(g_hash_table_lookup(counts, label)) + 1;
		g_hash_table_replace(counts, label, GUINT_TO_POINTER(count));
	}
	g_hash_table_iter_init(&iter, counts);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		guint count = GPOINTER_TO_UINT(value);

		if (count > best_count || (count == best_count && strcmp(key, best) < 0)) {
			best_count = count;
			best = key;
		}
	}
	best = g_strdup(best);
	g_hash_table_destroy(counts);
	return best;
}

static gint compare_latency(gconstpointer a, gconstpointer b, gpointer data)
{
	const GArray *records = data;
	const struct ds_request_record *x = ds_record_at(records, *(const uint32_t *) a);
	const struct ds_request_record *y = ds_record_at(records, *(const uint32_t *) b);

	if (x->latency != y->latency) {
		return x->latency < y->latency ? -1 : 1;
	}
	if (x->trace_id_high != y->trace_id_high) {
		return x->trace_id_high < y->trace_id_high ? -1 : 1;
	}
	return x->trace_id_low < y->trace_id_low ? -1 : x->trace_id_low > y->trace_id_low;
}

static bool within(int64_t value, int64_t min, int64_t max)
{
	return (min == DS_NO_LIMIT || value >= min) && (max == DS_NO_LIMIT || value <= max);
}

static void describe(GString *text, const struct ds_group_spec *spec,
		const char *root, bool percentiles_default, double lo, double hi)
{
	g_string_append(text, "root ");
	/* The description reaches the terminal and every output: made safe (sanitize.h). */
	ds_sanitize_text(text, root ? root : "(any)");
	if (spec->has_trace_id) {
		g_string_append_printf(text, ", trace id 0x%016" PRIx64 "%016" PRIx64,
			spec->trace_id_high, spec->trace_id_low);
	}
	if (spec->has_percentiles || percentiles_default) {
		g_string_append_printf(text, ", latency percentiles [%g, %g]%s", lo, hi,
			percentiles_default ? " (default)" : "");
	}
#define LIMIT(field, what) if (spec->field != DS_NO_LIMIT) \
	g_string_append_printf(text, ", " what " %" PRId64 " ns", spec->field)
	LIMIT(min_duration, "latency >=");
	LIMIT(max_duration, "latency <=");
	LIMIT(min_self, "root self time >=");
	LIMIT(max_self, "root self time <=");
	LIMIT(begin, "begins at or after");
	LIMIT(end, "ends at or before");
#undef LIMIT
}

static void select_group(const struct ds_strings *strings,
		const GArray *records, const struct ds_group_spec *spec,
		unsigned int group, bool two_inputs, const char *root,
		struct ds_selection *selection)
{
	GArray *pool = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *members = selection->members[group];
	bool default_pct = !two_inputs && !spec->given;
	double lo = spec->has_percentiles ? spec->percentile_lo : (group ? 99 : 0);
	double hi = spec->has_percentiles ? spec->percentile_hi : (group ? 100 : 50);
	bool use_pct = spec->has_percentiles || default_pct;
	GString *text = g_string_new(NULL);
	uint32_t i, n;

	for (i = 0; i < records->len; i++) {
		const struct ds_request_record *r = ds_record_at(records, i);

		if (r->truncated || r->invalid || (two_inputs && r->input != group) ||
				(root && !root_matches(strings, r, root)) ||
				(spec->begin != DS_NO_LIMIT && r->root_begin < spec->begin) ||
				(spec->end != DS_NO_LIMIT && r->root_begin + r->latency > spec->end)) {
			continue;
		}
		g_array_append_val(pool, i);
	}
	g_qsort_with_data(pool->data, pool->len, sizeof(uint32_t), compare_latency,
		(gpointer) records);
	n = pool->len;
	selection->pool[group] = n;
	for (i = 0; i < n; i++) {
		uint32_t index = g_array_index(pool, uint32_t, i);
		const struct ds_request_record *r = ds_record_at(records, index);

		if (use_pct && !((double) i * 100.0 < hi * n &&
				(double) (i + 1) * 100.0 > lo * n)) {
			continue;
		}
		if (!within(r->latency, spec->min_duration, spec->max_duration) ||
				!within(r->self_time, spec->min_self, spec->max_self)) {
			continue;
		}
		if (spec->has_trace_id && (r->trace_id_high != spec->trace_id_high ||
				r->trace_id_low != spec->trace_id_low)) {
			continue;
		}
		g_array_append_val(members, index);
	}
	describe(text, spec, root, default_pct, lo, hi);
	selection->description[group] = g_string_free(text, FALSE);
	selection->root[group] = g_strdup(root);
	g_array_free(pool, TRUE);
}

void ds_select_groups(const struct ds_strings *strings,
		const GArray *records, uint64_t truncated, const struct ds_group_spec *spec_a,
		const struct ds_group_spec *spec_b, bool two_inputs,
		struct ds_selection *selection)
{
	const struct ds_group_spec *specs[2] = { spec_a, spec_b };
	char *frequent = most_frequent_root(strings, records);
	unsigned int g;
	uint32_t i;

	memset(selection, 0, sizeof(*selection));
	selection->truncated = truncated;
	for (i = 0; i < records->len; i++) {
		selection->invalid += ds_record_at(records, i)->invalid;
	}
	for (g = 0; g < 2; g++) {
		const char *root = specs[g]->root ? specs[g]->root :
			(specs[g]->has_trace_id ? NULL : frequent);

		selection->members[g] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		select_group(strings, records, specs[g], g, two_inputs, root, selection);
	}
	g_free(frequent);
}

void ds_selection_fini(struct ds_selection *selection)
{
	unsigned int g;

	for (g = 0; g < 2; g++) {
		if (selection->members[g]) {
			g_array_free(selection->members[g], TRUE);
		}
		g_free(selection->root[g]);
		g_free(selection->description[g]);
	}
	memset(selection, 0, sizeof(*selection));
}
