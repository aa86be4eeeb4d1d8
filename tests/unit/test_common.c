/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/common: durations, the JSON writer and the packed chain integers. */
#include "unit.h"
#include "params.h"
#include "json-writer.h"
#include "chain-packed.h"

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

/* Reads `text` as one unsigned integer; `*bad`: not of the format; `*rest`: characters left after it. */
static uint64_t packed_read(const char *text, bool *bad, size_t *rest)
{
	struct ds_packed_cursor cur = { text, text + strlen(text), false };
	uint64_t value = ds_packed_get_uint(&cur);

	*bad = cur.bad;
	*rest = (size_t) (cur.end - cur.at);
	return value;
}

/* The integers of doc/critical-path.md, "Encoding": digits, limits, ZigZag, and what is not an integer. */
static void test_packed_integers(void)
{
	static const uint64_t values[] = { 0, 1, 31, 32, 1000, 1023, 1024, UINT64_C(1) << 35, INT64_MAX,
		UINT64_MAX - 1, UINT64_MAX };
	static const int64_t signed_values[] = { 0, -1, 1, -2, 2, INT64_MIN, INT64_MAX, -1000000007 };
	char out[DS_PACKED_UINT_MAX + 1];
	bool bad;
	size_t rest, i, n;

	n = ds_packed_put_uint(out, 0);
	UNIT_CHECK(n == 1 && out[0] == '0', "0 is \"0\"");
	n = ds_packed_put_uint(out, 31);
	UNIT_CHECK(n == 1 && out[0] == 'O', "31 is \"O\"");
	n = ds_packed_put_uint(out, 32);
	UNIT_CHECK(n == 2 && memcmp(out, "P1", 2) == 0, "32 is \"P1\"");
	n = ds_packed_put_uint(out, 1000);
	UNIT_CHECK(n == 2 && memcmp(out, "XO", 2) == 0, "1000 is \"XO\" (8, then 31)");
	n = ds_packed_put_uint(out, UINT64_MAX);
	UNIT_CHECK(n == DS_PACKED_UINT_MAX && out[n - 1] == '?', "2^64 - 1: 13 digits, the last 15");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		n = ds_packed_put_uint(out, values[i]);
		out[n] = '\0';
		UNIT_CHECK(packed_read(out, &bad, &rest) == values[i] && !bad && rest == 0, "unsigned round trip");
	}
	for (i = 0; i < sizeof(signed_values) / sizeof(signed_values[0]); i++) {
		UNIT_CHECK(ds_packed_unzigzag(ds_packed_zigzag(signed_values[i])) == signed_values[i],
			"ZigZag round trip");
	}
	UNIT_CHECK(ds_packed_zigzag(-1) == 1 && ds_packed_zigzag(1) == 2 && ds_packed_zigzag(-2) == 3,
		"ZigZag order 0, -1, 1, -2");
	UNIT_CHECK(packed_read("5Z", &bad, &rest) == 5 && !bad && rest == 1, "an integer ends at its last digit");
	packed_read("PPP", &bad, &rest);
	UNIT_CHECK(bad, "continuing digits without a last one: not an integer");
	packed_read("", &bad, &rest);
	UNIT_CHECK(bad, "nothing: not an integer");
	packed_read("p", &bad, &rest);
	UNIT_CHECK(bad, "a character outside both alphabets: not an integer");
	packed_read("oooooooooooo@", &bad, &rest);
	UNIT_CHECK(bad, "a 13th digit above 15 exceeds 64 bits");
	packed_read("oooooooooooooO", &bad, &rest);
	UNIT_CHECK(bad, "14 digits exceed 64 bits");
}

int main(void)
{
	test_durations();
	test_duration_limits();
	test_json_writer();
	test_packed_integers();
	return unit_finish();
}
