/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: duration strings (plugins/common/params.c).
 *
 * The input is the text of a duration parameter.  It goes through
 * ds_parse_duration() and through ds_params_get_duration() as a string value.
 * Checked: an accepted duration is never negative (params.h: negative durations
 * are refused) and both paths agree; a refused one leaves exactly one error
 * cause naming the parameter.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *) data, size);
	bt_value *map = bt_value_map_create();
	struct ds_params params;
	int64_t parsed = -1, got = -1;
	bool ok;
	enum ds_param_status status;
	const bt_error *error;

	if (!map || bt_value_map_insert_string_entry(map, "grace", text) !=
			BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		abort();
	}
	params = ds_params_make(fuzz_self_component(), map, "sink.deepspan.fuzz");
	ok = ds_parse_duration(text, &parsed);
	status = ds_params_get_duration(&params, "grace", 7, &got);
	if (ok && parsed < 0) {
		fprintf(stderr, "fuzz_duration: \"%s\" accepted as a negative duration %" G_GINT64_FORMAT "\n",
			text, parsed);
		abort();
	}
	if (ok != (status == DS_PARAM_STATUS_OK) || (ok && parsed != got)) {
		fprintf(stderr, "fuzz_duration: \"%s\": the parser and the getter disagree\n", text);
		abort();
	}
	error = bt_current_thread_take_error();
	if (ok == (error != NULL)) {
		fprintf(stderr, "fuzz_duration: \"%s\": %s\n", text,
			ok ? "accepted but an error cause was left on the thread" :
			"refused without an error cause");
		abort();
	}
	if (error) {
		const bt_error_cause *cause = bt_error_borrow_cause_by_index(error, 0);

		if (!strstr(bt_error_cause_get_message(cause), "`grace`")) {
			fprintf(stderr, "fuzz_duration: error cause does not name the parameter: %s\n",
				bt_error_cause_get_message(cause));
			abort();
		}
		bt_error_release(error);
	}
	bt_value_put_ref(map);
	g_free(text);
	return 0;
}
