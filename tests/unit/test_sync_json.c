/*
 * Unit tests of plugins/common/json-reader.c.
 */
#include <stdlib.h>

#include "unit.h"
#include "sync-filter/json-reader.h"

static struct ds_json_value *parse(const char *text, char *err, size_t size)
{
	return ds_json_parse(text, strlen(text), err, size);
}

int main(void)
{
	char err[256];
	struct ds_json_value *v;
	int64_t i64;
	double d;

	v = parse("{\"a\": 1700000000123456789, \"b\": -2.5e3, \"s\": \"x\\u00e9\\n\\\"\","
		" \"arr\": [true, false, null, {}], \"neg\": -42}", err, sizeof(err));
	UNIT_CHECK(v != NULL, "valid document parses");
	UNIT_CHECK(ds_json_get_int(v, "a", &i64) && i64 == INT64_C(1700000000123456789),
		"epoch-ns integer kept exactly");
	UNIT_CHECK(ds_json_get_double(v, "b", &d) && d == -2500.0, "real with exponent");
	UNIT_CHECK(!ds_json_get_int(v, "b", &i64), "a real is not an integer");
	UNIT_CHECK(ds_json_get_int(v, "neg", &i64) && i64 == -42, "negative integer");
	UNIT_EQ_STR(ds_json_get_string(v, "s"), "x\xc3\xa9\n\"", "escapes and \\u decoded");
	UNIT_EQ_UINT(ds_json_get(v, "arr")->count, 4, "array length");
	UNIT_CHECK(ds_json_at(ds_json_get(v, "arr"), 0)->boolean, "true");
	UNIT_CHECK(!ds_json_at(ds_json_get(v, "arr"), 1)->boolean, "false");
	UNIT_EQ_INT(ds_json_at(ds_json_get(v, "arr"), 2)->type, DS_JSON_NULL, "null");
	UNIT_CHECK(ds_json_at(ds_json_get(v, "arr"), 4) == NULL, "out of range item is NULL");
	UNIT_CHECK(ds_json_get(v, "missing") == NULL, "missing member is NULL");
	ds_json_free(v);

	v = parse("{\"a\": 1,}", err, sizeof(err));
	UNIT_CHECK(v == NULL, "trailing comma refused");
	UNIT_EQ_STR(err, "expected a member name at line 1, column 9", "error names the place");
	v = parse("[1, 2\n", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "expected ',' or ']'") != NULL, "unterminated array");
	v = parse("{\"a\": tru}", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "expected a value") != NULL, "bad literal");
	v = parse("{} x", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "trailing characters") != NULL, "trailing garbage");
	v = parse("\"abc", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "unterminated string") != NULL, "unterminated string");
	v = ds_json_parse_file("/nonexistent/formula.json", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "cannot open \"/nonexistent/formula.json\"") != NULL,
		"unreadable file named in the error");
	return unit_finish();
}
