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
	test_json_writer();
	return unit_finish();
}
