/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the parameter validators of plugins/common/params.c.
 *
 * The input is decoded into a bt_value map (a small byte code: each value is a
 * type byte, then its contents), then every getter reads every name of the
 * map's vocabulary.  Checked: a getter that succeeds returns a value of the
 * requested form within its bounds (or the default when the name is absent);
 * a getter that fails leaves an error cause naming the parameter; nothing is
 * left on the thread after a success.
 */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 4
#define MAX_ITEMS 8

/* The names the map may use; the last ones are unknown to ds_params_check_names(). */
static const char *const names[] = {
	"output-dir", "mode", "top", "grace", "summary", "white-band", "offset", "choice",
	"group-a", "", "unknown-name", NULL,
};
static const char *const known[] = {
	"output-dir", "mode", "top", "grace", "summary", "white-band", "offset", "choice", NULL,
};
static const char *const choices[] = { "critical-path", "inclusive", "self", NULL };

static bt_value *decode_value(struct fuzz_bytes *in, int depth);

static bt_value *decode_container(struct fuzz_bytes *in, int depth, bool map)
{
	bt_value *value = map ? bt_value_map_create() : bt_value_array_create();
	unsigned int count = fuzz_u8(in) % (MAX_ITEMS + 1), i;

	for (i = 0; value && i < count && !fuzz_done(in); i++) {
		bt_value *item = decode_value(in, depth + 1);
		char *key = NULL;
		bool added;

		if (map) {
			uint8_t pick = fuzz_u8(in);

			key = pick < 0xf0 ? g_strdup(names[pick % (G_N_ELEMENTS(names) - 1)]) : fuzz_string(in, 16);
			added = bt_value_map_insert_entry(value, key, item) ==
				BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK;
		} else {
			added = bt_value_array_append_element(value, item) ==
				BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK;
		}
		bt_value_put_ref(item);
		g_free(key);
		if (!added) {
			abort();
		}
	}
	return value;
}

static bt_value *decode_value(struct fuzz_bytes *in, int depth)
{
	uint8_t type = fuzz_u8(in) % (depth < MAX_DEPTH ? 8 : 6);
	bt_value *value = NULL;
	char *text;
	union { uint64_t u; double d; } bits;

	switch (type) {
	case 0:
		bt_value_get_ref(bt_value_null);
		return bt_value_null;
	case 1:
		value = bt_value_bool_create_init(fuzz_u8(in) & 1);
		break;
	case 2:
		value = bt_value_integer_unsigned_create_init(fuzz_u64(in));
		break;
	case 3:
		value = bt_value_integer_signed_create_init((int64_t) fuzz_u64(in));
		break;
	case 4:
		bits.u = fuzz_u64(in);
		value = bt_value_real_create_init(bits.d);
		break;
	case 5:
		text = fuzz_string(in, 40);
		value = bt_value_string_create_init(text);
		g_free(text);
		break;
	case 6:
		value = decode_container(in, depth, false);
		break;
	default:
		value = decode_container(in, depth, true);
		break;
	}
	if (!value) {
		abort();
	}
	return value;
}

static void fail(const char *name, const char *what)
{
	fprintf(stderr, "fuzz_params: parameter `%s`: %s\n", name, what);
	abort();
}

/*
 * After a getter: checks the thread's error against the status and releases
 * it; a failure's first cause must name `name` (unless NULL).
 */
static void check_error(const char *name, enum ds_param_status status)
{
	const bt_error *error = bt_current_thread_take_error();
	char quoted[64];

	if (status == DS_PARAM_STATUS_OK) {
		if (error) {
			fail(name, "success left an error cause on the thread");
		}
		return;
	}
	if (!error) {
		fail(name, "failure without an error cause");
	}
	if (name) {
		snprintf(quoted, sizeof(quoted), "`%s`", name);
		if (!strstr(bt_error_cause_get_message(
				bt_error_borrow_cause_by_index(error, 0)), quoted)) {
			fail(name, "the error cause does not name the parameter");
		}
	}
	bt_error_release(error);
}

static void read_everything(const struct ds_params *params, const char *name,
		struct fuzz_bytes *in)
{
	bool present = ds_params_borrow(params, name) != NULL;
	bool b;
	uint64_t u, umin = fuzz_u64(in), umax = fuzz_u64(in);
	int64_t i, imin = (int64_t) fuzz_u64(in), imax = (int64_t) fuzz_u64(in);
	double d;
	const char *s;
	unsigned int c;
	enum ds_param_status status;

	if (umin > umax) {
		u = umin, umin = umax, umax = u;
	}
	if (imin > imax) {
		i = imin, imin = imax, imax = i;
	}
	status = ds_params_get_bool(params, name, true, &b);
	check_error(name, status);
	status = ds_params_get_uint(params, name, umin, umin, umax, &u);
	if (status == DS_PARAM_STATUS_OK && (u < umin || u > umax)) {
		fail(name, "unsigned integer out of its bounds");
	}
	check_error(name, status);
	status = ds_params_get_int(params, name, imin, imin, imax, &i);
	if (status == DS_PARAM_STATUS_OK && (i < imin || i > imax)) {
		fail(name, "integer out of its bounds");
	}
	check_error(name, status);
	status = ds_params_get_double(params, name, 0.5, 0.0, 10.0, &d);
	if (status == DS_PARAM_STATUS_OK && !(d >= 0.0 && d <= 10.0)) {
		fail(name, "number out of its bounds");
	}
	check_error(name, status);
	status = ds_params_get_string(params, name, "default", &s);
	if (status == DS_PARAM_STATUS_OK && (!s || (!present && strcmp(s, "default") != 0))) {
		fail(name, "string: wrong default");
	}
	check_error(name, status);
	status = ds_params_get_choice(params, name, choices, 1, &c);
	if (status == DS_PARAM_STATUS_OK && c >= G_N_ELEMENTS(choices) - 1) {
		fail(name, "choice index out of the choices");
	}
	check_error(name, status);
	status = ds_params_get_duration(params, name, 3, &i);
	if (status == DS_PARAM_STATUS_OK && i < 0) {
		char description[96];

		ds_describe_value(ds_params_borrow(params, name), description, sizeof(description));
		fprintf(stderr, "fuzz_params: %s read as the duration %" PRId64 "\n", description, i);
		fail(name, "negative duration accepted");
	}
	check_error(name, status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_bytes in = { .data = data, .size = size };
	bt_value *root = decode_value(&in, MAX_DEPTH - 2);
	struct ds_params params = ds_params_make(fuzz_self_component(), root,
		"sink.deepspan.fuzz");
	char description[96];
	size_t n;

	ds_describe_value(root, description, sizeof(description));
	if (!memchr(description, '\0', sizeof(description))) {
		fail("(describe)", "description not terminated");
	}
	/* the cause names the parameters as a whole or the unknown name: not checked */
	check_error(NULL, ds_params_check_names(&params, known));
	for (n = 0; n < G_N_ELEMENTS(names) - 1; n++) {
		read_everything(&params, names[n], &in);
	}
	bt_value_put_ref(root);
	return 0;
}
