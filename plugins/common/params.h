/* SPDX-License-Identifier: MIT */
/*
 * Validated component parameters.
 *
 * Every getter checks the type and range of one parameter and, on a bad
 * value, appends an error cause to the current thread naming the component
 * class, the parameter, the expected form and the value received.  Absent
 * parameters take the given default.
 */
#ifndef DEEPSPAN_COMMON_PARAMS_H
#define DEEPSPAN_COMMON_PARAMS_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

enum ds_param_status {
	DS_PARAM_STATUS_OK = 0,
	DS_PARAM_STATUS_ERROR = -1,
};

struct ds_params {
	bt_self_component *self_comp;	/* borrowed; receives error causes */
	const bt_value *map;		/* borrowed; NULL or a map value */
	const char *class_name;		/* borrowed; e.g. "filter.deepspan.sync" */
};

/* Makes a `struct ds_params`; `map` may be NULL (no parameters). */
struct ds_params ds_params_make(bt_self_component *self_comp,
		const bt_value *map, const char *class_name);

/* Fails when `map` is not a map or holds a name absent from `known` (NULL-terminated). */
enum ds_param_status ds_params_check_names(const struct ds_params *params,
		const char *const *known);

/* The raw value of `name`, or NULL when absent. */
const bt_value *ds_params_borrow(const struct ds_params *params, const char *name);

enum ds_param_status ds_params_get_bool(const struct ds_params *params,
		const char *name, bool default_value, bool *out);

/* Accepts unsigned integers and non-negative signed ones, within [min, max]. */
enum ds_param_status ds_params_get_uint(const struct ds_params *params,
		const char *name, uint64_t default_value, uint64_t min,
		uint64_t max, uint64_t *out);

/* Accepts signed and unsigned integers within [min, max]. */
enum ds_param_status ds_params_get_int(const struct ds_params *params,
		const char *name, int64_t default_value, int64_t min,
		int64_t max, int64_t *out);

/* Accepts reals and integers within [min, max]. */
enum ds_param_status ds_params_get_double(const struct ds_params *params,
		const char *name, double default_value, double min, double max,
		double *out);

/* `*out` is borrowed from the parameters (or is `default_value`). */
enum ds_param_status ds_params_get_string(const struct ds_params *params,
		const char *name, const char *default_value, const char **out);

/* A string that must be given and not be empty; the error says what it is for (`purpose`). */
enum ds_param_status ds_params_get_required_string(const struct ds_params *params,
		const char *name, const char *purpose, const char **out);

/* A string that must be one of `choices` (NULL-terminated); `*out` = its index. */
enum ds_param_status ds_params_get_choice(const struct ds_params *params,
		const char *name, const char *const *choices,
		unsigned int default_index, unsigned int *out);

/*
 * A duration: an integer (nanoseconds) or a string with a unit
 * (`250us`, `12ms`, `1.5s`, `800ns`, `2m`), from 0 to DS_DURATION_MAX_NS.
 * Negative durations and durations that do not fit in 64-bit signed
 * nanoseconds are refused (the error names the accepted range).
 */
enum ds_param_status ds_params_get_duration(const struct ds_params *params,
		const char *name, int64_t default_ns, int64_t *out_ns);

/* The largest duration accepted: 2^63 - 1 ns (about 292 years). */
#define DS_DURATION_MAX_NS INT64_MAX

enum ds_duration_status {
	DS_DURATION_OK = 0,
	DS_DURATION_INVALID,		/* not a duration (syntax, unit, negative) */
	DS_DURATION_OUT_OF_RANGE,	/* a duration above DS_DURATION_MAX_NS */
};

/* Parses a duration string as above. */
enum ds_duration_status ds_parse_duration_status(const char *text, int64_t *out_ns);

/* Parses a duration string as above; returns false when it is not one or is out of range. */
bool ds_parse_duration(const char *text, int64_t *out_ns);

/* Writes a short human description of `value` ("string \"abc\"", "unsigned integer 42"). */
void ds_describe_value(const bt_value *value, char *buf, size_t size);

#endif /* DEEPSPAN_COMMON_PARAMS_H */
