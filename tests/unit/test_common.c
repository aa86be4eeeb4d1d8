/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/common: durations and the JSON writer. */
#include "unit.h"
#include "params.h"
#include "json-writer.h"

#include <stdlib.h>

static void test_durations(void)
{
	int64_t ns = -1;

	UNIT_CHECK(ds_parse_duration("250us", &ns) && ns == 250000, "250us");
	UNIT_CHECK(ds_parse_duration("12ms", &ns) && ns == 12000000, "12ms");
	UNIT_CHECK(ds_parse_duration("1.5s", &ns) && ns == 1500000000, "1.5s");
	UNIT_CHECK(ds_parse_duration("800ns", &ns) && ns == 800, "800ns");
	UNIT_CHECK(ds_parse_duration("42", &ns) && ns == 42, "bare number is ns");
	UNIT_CHECK(ds_parse_duration("2min", &ns) && ns == 120000000000LL, "2min");
	UNIT_CHECK(!ds_parse_duration("-3ms", &ns), "negative refused");
	UNIT_CHECK(!ds_parse_duration("3 parsecs", &ns), "unknown unit refused");
	UNIT_CHECK(!ds_parse_duration("", &ns), "empty refused");
	UNIT_CHECK(!ds_parse_duration("ms", &ns), "unit alone refused");
	UNIT_CHECK(!ds_parse_duration("1e300s", &ns), "overflow refused");
}

/* Durations at and beyond 2^63 ns are out of range, never wrapped to a negative value. */
static void test_duration_limits(void)
{
	int64_t ns = -1;

	UNIT_CHECK(ds_parse_duration_status("9223372036854775807", &ns) == DS_DURATION_OK &&
		ns == INT64_MAX, "2^63 - 1 ns is the largest duration, parsed exactly");
	UNIT_CHECK(ds_parse_duration_status("9223372036854775807ns", &ns) == DS_DURATION_OK &&
		ns == INT64_MAX, "2^63 - 1 with the ns unit, parsed exactly");
	ns = -1;
	UNIT_CHECK(ds_parse_duration_status("9223372036854775808", &ns) ==
		DS_DURATION_OUT_OF_RANGE && ns == -1, "exactly 2^63 ns is out of range");
	UNIT_CHECK(ds_parse_duration_status("9223372036854775808ns", &ns) ==
		DS_DURATION_OUT_OF_RANGE, "exactly 2^63 ns with a unit is out of range");
	UNIT_CHECK(ds_parse_duration_status("99999999999999999999999", &ns) ==
		DS_DURATION_OUT_OF_RANGE, "beyond 2^64 ns is out of range");
	UNIT_CHECK(ds_parse_duration_status("9.3e18", &ns) == DS_DURATION_OUT_OF_RANGE,
		"9.3e18 ns is out of range");
	UNIT_CHECK(ds_parse_duration_status("1e30", &ns) == DS_DURATION_OUT_OF_RANGE,
		"1e30 ns is out of range");
	UNIT_CHECK(ds_parse_duration_status("9223372036.854775808s", &ns) ==
		DS_DURATION_OUT_OF_RANGE, "2^63 ns written in seconds is out of range");
	UNIT_CHECK(ds_parse_duration_status("1e999", &ns) == DS_DURATION_OUT_OF_RANGE,
		"a number beyond a double is out of range");
	UNIT_CHECK(ds_parse_duration_status("2562047h", &ns) == DS_DURATION_OK &&
		ns == INT64_C(2562047) * 3600 * 1000000000, "2562047 h fits");
	UNIT_CHECK(ds_parse_duration_status("2562048h", &ns) == DS_DURATION_OUT_OF_RANGE,
		"2562048 h does not fit");
	UNIT_CHECK(ds_parse_duration_status("9.2e18", &ns) == DS_DURATION_OK && ns > 0,
		"9.2e18 ns fits and stays positive");
	UNIT_CHECK(ds_parse_duration_status("-1e30", &ns) == DS_DURATION_INVALID,
		"a negative duration is invalid, not out of range");
	UNIT_CHECK(ds_parse_duration_status("nan", &ns) == DS_DURATION_INVALID, "nan is invalid");
	UNIT_CHECK(!ds_parse_duration("9.3e18", &ns), "the boolean form refuses 9.3e18");
}

static void test_json_writer(void)
{
	struct ds_json_writer writer;
	char *text = NULL;
	size_t size = 0;
	FILE *file = open_memstream(&text, &size);

	ds_json_init(&writer, file, false);
	ds_json_begin_object(&writer, NULL);
	ds_json_string(&writer, "name", "a \"quoted\"\n\tname\x01");
	ds_json_int(&writer, "negative", -5);
	ds_json_uint(&writer, "big", UINT64_MAX);
	ds_json_begin_array(&writer, "list");
	ds_json_double(&writer, NULL, 0.5);
	ds_json_bool(&writer, NULL, true);
	ds_json_null(&writer, NULL);
	ds_json_begin_object(&writer, NULL);
	ds_json_end_object(&writer);
	ds_json_end_array(&writer);
	ds_json_end_object(&writer);
	fclose(file);
	UNIT_EQ_STR(text,
		"{\"name\":\"a \\\"quoted\\\"\\n\\tname\\u0001\",\"negative\":-5,"
		"\"big\":18446744073709551615,\"list\":[0.5,true,null,{}]}",
		"compact JSON document");
	free(text);
}

int main(void)
{
	test_durations();
	test_duration_limits();
	test_json_writer();
	return unit_finish();
}
