/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the JSON reader (plugins/sync-filter/json-reader.c) that reads
 * sync formulas and scenario truth files.
 *
 * The input is a document.  Checked: a refusal comes with a message naming a
 * line and column; an accepted document's tree is walked with every accessor
 * (objects, arrays, typed reads) and its invariants hold: keys and strings are
 * NUL-terminated, an integer read exactly is the double read rounded, counts
 * match the items present.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_json: %s\n", what);
	abort();
}

static size_t walk(const struct ds_json_value *v, int depth)
{
	size_t nodes = 1, i;
	int64_t integer;
	double number;

	if (depth > 200) {
		fail("a tree deeper than the reader's limit");
	}
	switch (v->type) {
	case DS_JSON_NULL:
	case DS_JSON_BOOL:
		break;
	case DS_JSON_NUMBER:
		if (v->is_integer && (double) v->integer != v->number &&
				fabs((double) v->integer - v->number) > fabs(v->number) * 1e-15) {
			fail("an exact integer disagrees with its double");
		}
		break;
	case DS_JSON_STRING:
		if (!v->string) {
			fail("a string value without its text");
		}
		(void) strlen(v->string);
		break;
	case DS_JSON_ARRAY:
		for (i = 0; i < v->count; i++) {
			if (ds_json_at(v, i) != v->items[i]) {
				fail("ds_json_at disagrees with the items");
			}
			nodes += walk(v->items[i], depth + 1);
		}
		if (ds_json_at(v, v->count) != NULL) {
			fail("ds_json_at past the end");
		}
		break;
	case DS_JSON_OBJECT:
		for (i = 0; i < v->count; i++) {
			const struct ds_json_value *first = ds_json_get(v, v->keys[i]);

			if (!first) {
				fail("a member cannot be found by its name");
			}
			(void) ds_json_get_int(v, v->keys[i], &integer);
			(void) ds_json_get_double(v, v->keys[i], &number);
			(void) ds_json_get_string(v, v->keys[i]);
			nodes += walk(v->items[i], depth + 1);
		}
		break;
	default:
		fail("a value of unknown type");
	}
	return nodes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	struct ds_json_value *v = ds_json_parse((const char *) data, size, err, sizeof(err));

	if (!v) {
		if (!strstr(err, " at line ") || !strstr(err, ", column ")) {
			fprintf(stderr, "fuzz_json: error without a position: \"%s\"\n", err);
			abort();
		}
		return 0;
	}
	(void) walk(v, 0);
	/* The accessors a formula reads, on whatever came back. */
	(void) ds_json_get_string(v, "reference");
	(void) ds_json_at(ds_json_get(v, "hosts"), 0);
	ds_json_free(v);
	return 0;
}
