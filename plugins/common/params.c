/* SPDX-License-Identifier: MIT */
#include "params.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIPTION_SIZE 96

struct ds_params ds_params_make(bt_self_component *self_comp,
		const bt_value *map, const char *class_name)
{
	struct ds_params params = {
		.self_comp = self_comp,
		.map = map,
		.class_name = class_name,
	};

	return params;
}

void ds_describe_value(const bt_value *value, char *buf, size_t size)
{
	switch (bt_value_get_type(value)) {
	case BT_VALUE_TYPE_NULL:
		snprintf(buf, size, "null");
		break;
	case BT_VALUE_TYPE_BOOL:
		snprintf(buf, size, "boolean %s",
			bt_value_bool_get(value) ? "true" : "false");
		break;
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		snprintf(buf, size, "unsigned integer %" PRIu64,
			bt_value_integer_unsigned_get(value));
		break;
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		snprintf(buf, size, "signed integer %" PRId64,
			bt_value_integer_signed_get(value));
		break;
	case BT_VALUE_TYPE_REAL:
		snprintf(buf, size, "real %g", bt_value_real_get(value));
		break;
	case BT_VALUE_TYPE_STRING:
		snprintf(buf, size, "string \"%s\"", bt_value_string_get(value));
		break;
	case BT_VALUE_TYPE_ARRAY:
		snprintf(buf, size, "array of %" PRIu64 " elements",
			bt_value_array_get_length(value));
		break;
	case BT_VALUE_TYPE_MAP:
		snprintf(buf, size, "map of %" PRIu64 " entries",
			bt_value_map_get_size(value));
		break;
	default:
		snprintf(buf, size, "value of unknown type");
		break;
	}
}

static enum ds_param_status report_bad_value(const struct ds_params *params,
		const char *name, const char *expected, const bt_value *value)
{
	char description[DESCRIPTION_SIZE];

	ds_describe_value(value, description, sizeof(description));
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(params->self_comp,
		"%s: parameter `%s`: expected %s, got %s.",
		params->class_name, name, expected, description);
	return DS_PARAM_STATUS_ERROR;
}

struct known_names_check {
	const struct ds_params *params;
	const char *const *known;
	const char *unknown;	/* borrowed: first unknown key found */
};

static bt_value_map_foreach_entry_const_func_status check_one_name(
		const char *key, const bt_value *value, void *data)
{
	struct known_names_check *check = data;
	const char *const *name;

	(void) value;
	for (name = check->known; *name; name++) {
		if (strcmp(*name, key) == 0) {
			return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
		}
	}
	check->unknown = key;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_INTERRUPT;
}

enum ds_param_status ds_params_check_names(const struct ds_params *params,
		const char *const *known)
{
	struct known_names_check check = { .params = params, .known = known };
	GString *list;
	const char *const *name;

	if (!params->map) {
		return DS_PARAM_STATUS_OK;
	}
	if (!bt_value_is_map(params->map)) {
		return report_bad_value(params, "(parameters)", "a map", params->map);
	}
	(void) bt_value_map_foreach_entry_const(params->map, check_one_name, &check);
	if (!check.unknown) {
		return DS_PARAM_STATUS_OK;
	}
	list = g_string_new(NULL);
	for (name = known; *name; name++) {
		g_string_append_printf(list, "%s`%s`", name == known ? "" : ", ", *name);
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(params->self_comp,
		"%s: unknown parameter `%s`; known parameters: %s "
		"(see `babeltrace2 help %s`).",
		params->class_name, check.unknown, list->str, params->class_name);
	g_string_free(list, TRUE);
	return DS_PARAM_STATUS_ERROR;
}

const bt_value *ds_params_borrow(const struct ds_params *params, const char *name)
{
	if (!params->map || !bt_value_is_map(params->map)) {
		return NULL;
	}
	return bt_value_map_borrow_entry_value_const(params->map, name);
}

enum ds_param_status ds_params_get_bool(const struct ds_params *params,
		const char *name, bool default_value, bool *out)
{
	const bt_value *value = ds_params_borrow(params, name);

	if (!value) {
		*out = default_value;
		return DS_PARAM_STATUS_OK;
	}
	if (!bt_value_is_bool(value)) {
		return report_bad_value(params, name, "a boolean (true or false)", value);
	}
	*out = bt_value_bool_get(value);
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_uint(const struct ds_params *params,
		const char *name, uint64_t default_value, uint64_t min,
		uint64_t max, uint64_t *out)
{
	const bt_value *value = ds_params_borrow(params, name);
	char expected[DESCRIPTION_SIZE];
	uint64_t result;

	snprintf(expected, sizeof(expected),
		"an unsigned integer in [%" PRIu64 ", %" PRIu64 "]", min, max);
	if (!value) {
		*out = default_value;
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_unsigned_integer(value)) {
		result = bt_value_integer_unsigned_get(value);
	} else if (bt_value_is_signed_integer(value) &&
			bt_value_integer_signed_get(value) >= 0) {
		result = (uint64_t) bt_value_integer_signed_get(value);
	} else {
		return report_bad_value(params, name, expected, value);
	}
	if (result < min || result > max) {
		return report_bad_value(params, name, expected, value);
	}
	*out = result;
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_int(const struct ds_params *params,
		const char *name, int64_t default_value, int64_t min,
		int64_t max, int64_t *out)
{
	const bt_value *value = ds_params_borrow(params, name);
	char expected[DESCRIPTION_SIZE];
	int64_t result;

	snprintf(expected, sizeof(expected),
		"an integer in [%" PRId64 ", %" PRId64 "]", min, max);
	if (!value) {
		*out = default_value;
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_signed_integer(value)) {
		result = bt_value_integer_signed_get(value);
	} else if (bt_value_is_unsigned_integer(value) &&
			bt_value_integer_unsigned_get(value) <= INT64_MAX) {
		result = (int64_t) bt_value_integer_unsigned_get(value);
	} else {
		return report_bad_value(params, name, expected, value);
	}
	if (result < min || result > max) {
		return report_bad_value(params, name, expected, value);
	}
	*out = result;
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_double(const struct ds_params *params,
		const char *name, double default_value, double min, double max,
		double *out)
{
	const bt_value *value = ds_params_borrow(params, name);
	char expected[DESCRIPTION_SIZE];
	double result;

	snprintf(expected, sizeof(expected), "a number in [%g, %g]", min, max);
	if (!value) {
		*out = default_value;
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_real(value)) {
		result = bt_value_real_get(value);
	} else if (bt_value_is_signed_integer(value)) {
		result = (double) bt_value_integer_signed_get(value);
	} else if (bt_value_is_unsigned_integer(value)) {
		result = (double) bt_value_integer_unsigned_get(value);
	} else {
		return report_bad_value(params, name, expected, value);
	}
	if (isnan(result) || result < min || result > max) {
		return report_bad_value(params, name, expected, value);
	}
	*out = result;
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_string(const struct ds_params *params,
		const char *name, const char *default_value, const char **out)
{
	const bt_value *value = ds_params_borrow(params, name);

	if (!value) {
		*out = default_value;
		return DS_PARAM_STATUS_OK;
	}
	if (!bt_value_is_string(value)) {
		return report_bad_value(params, name, "a string", value);
	}
	*out = bt_value_string_get(value);
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_required_string(const struct ds_params *params,
		const char *name, const char *purpose, const char **out)
{
	if (ds_params_get_string(params, name, NULL, out)) {
		return DS_PARAM_STATUS_ERROR;
	}
	if (!*out || !**out) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(params->self_comp,
			"%s: parameter `%s` is required: %s.", params->class_name, name, purpose);
		return DS_PARAM_STATUS_ERROR;
	}
	return DS_PARAM_STATUS_OK;
}

enum ds_param_status ds_params_get_choice(const struct ds_params *params,
		const char *name, const char *const *choices,
		unsigned int default_index, unsigned int *out)
{
	const bt_value *value = ds_params_borrow(params, name);
	GString *expected;
	enum ds_param_status status = DS_PARAM_STATUS_OK;
	unsigned int index;

	if (!value) {
		*out = default_index;
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_string(value)) {
		for (index = 0; choices[index]; index++) {
			if (strcmp(choices[index], bt_value_string_get(value)) == 0) {
				*out = index;
				return DS_PARAM_STATUS_OK;
			}
		}
	}
	expected = g_string_new("one of the strings ");
	for (index = 0; choices[index]; index++) {
		g_string_append_printf(expected, "%s\"%s\"",
			index ? ", " : "", choices[index]);
	}
	status = report_bad_value(params, name, expected->str, value);
	g_string_free(expected, TRUE);
	return status;
}

/* `text` is only decimal digits (with leading spaces and `+`, as strtoull takes them). */
static bool all_digits(const char *text, const char *end)
{
	const char *p = text;

	while (*p == ' ') {
		p++;
	}
	if (*p == '+') {
		p++;
	}
	if (p == end) {
		return false;
	}
	for (; p < end; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
	}
	return true;
}

/* `number` (ns, finite, >= 0) rounded, when it fits. */
static enum ds_duration_status round_ns(double ns, int64_t *out_ns)
{
	/* 0x1p63 = 2^63: every double below it rounds to an int64 (the largest is 2^63 - 1024). */
	if (!(ns < 0x1p63)) {
		return DS_DURATION_OUT_OF_RANGE;
	}
	*out_ns = (int64_t) llround(ns);
	return DS_DURATION_OK;
}

enum ds_duration_status ds_parse_duration_status(const char *text, int64_t *out_ns)
{
	static const struct { const char *suffix; double ns; } units[] = {
		{ "ns", 1.0 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end = NULL;
	const char *unit;
	double number;
	size_t index;

	if (!text || !*text) {
		return DS_DURATION_INVALID;
	}
	errno = 0;
	number = strtod(text, &end);
	if (end == text || isnan(number) || number < 0 || (errno && errno != ERANGE)) {
		return DS_DURATION_INVALID;
	}
	if (errno == ERANGE && number != 0) {
		/* HUGE_VAL: "1e999". (An underflow to 0 is 0 ns.) */
		number = INFINITY;
	}
	unit = end;
	while (*unit == ' ') {
		unit++;
	}
	for (index = 0; index < sizeof(units) / sizeof(units[0]); index++) {
		if (*unit == '\0' || strcmp(unit, units[index].suffix) == 0) {
			break;
		}
	}
	if (index == sizeof(units) / sizeof(units[0])) {
		return DS_DURATION_INVALID;
	}
	if ((*unit == '\0' || index == 0) && all_digits(text, end)) {
		/* Whole nanoseconds: exact up to 2^63 - 1, which a double cannot hold. */
		unsigned long long whole;

		errno = 0;
		whole = strtoull(text, NULL, 10);
		if (errno == ERANGE || whole > (unsigned long long) DS_DURATION_MAX_NS) {
			return DS_DURATION_OUT_OF_RANGE;
		}
		*out_ns = (int64_t) whole;
		return DS_DURATION_OK;
	}
	if (isinf(number)) {
		return DS_DURATION_OUT_OF_RANGE;
	}
	return round_ns(*unit == '\0' ? number : number * units[index].ns, out_ns);
}

bool ds_parse_duration(const char *text, int64_t *out_ns)
{
	return ds_parse_duration_status(text, out_ns) == DS_DURATION_OK;
}

enum ds_param_status ds_params_get_duration(const struct ds_params *params,
		const char *name, int64_t default_ns, int64_t *out_ns)
{
	static const char expected[] =
		"a duration from 0 to 9223372036854775807 ns (2^63 - 1, about 292 years): "
		"nanoseconds as an integer, or a string such as "
		"\"800ns\", \"250us\", \"12ms\", \"1.5s\"";
	static const char out_of_range[] =
		"a duration of at most 9223372036854775807 ns (2^63 - 1, about 292 years; "
		"the accepted range is 0 to 9223372036854775807 ns)";
	const bt_value *value = ds_params_borrow(params, name);
	enum ds_duration_status parsed;

	if (!value) {
		*out_ns = default_ns;
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_unsigned_integer(value) &&
			bt_value_integer_unsigned_get(value) <= INT64_MAX) {
		*out_ns = (int64_t) bt_value_integer_unsigned_get(value);
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_signed_integer(value) &&
			bt_value_integer_signed_get(value) >= 0) {
		*out_ns = bt_value_integer_signed_get(value);
		return DS_PARAM_STATUS_OK;
	}
	if (bt_value_is_unsigned_integer(value)) {
		return report_bad_value(params, name, out_of_range, value);
	}
	if (!bt_value_is_string(value)) {
		return report_bad_value(params, name, expected, value);
	}
	parsed = ds_parse_duration_status(bt_value_string_get(value), out_ns);
	if (parsed == DS_DURATION_OK) {
		return DS_PARAM_STATUS_OK;
	}
	return report_bad_value(params, name,
		parsed == DS_DURATION_OUT_OF_RANGE ? out_of_range : expected, value);
}
