/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/sync-filter/json-reader.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "sync-filter/json-reader.h"

static struct ds_json_value *parse(const char *text, char *err, size_t size)
{
	return ds_json_parse(text, strlen(text), err, size);
}

/* Parses exactly `len` bytes from a heap copy (no terminator: ASan sees any overread). */
static struct ds_json_value *parse_exact(const char *text, size_t len, char *err, size_t size)
{
	char *copy = malloc(len ? len : 1);
	struct ds_json_value *v;

	memcpy(copy, text, len);
	err[0] = '\0';
	v = ds_json_parse(copy, len, err, size);
	free(copy);
	return v;
}

static bool refused_with(const char *text, const char *what)
{
	char err[256];
	struct ds_json_value *v = parse_exact(text, strlen(text), err, sizeof(err));

	if (v) {
		ds_json_free(v);
		return false;
	}
	return strstr(err, what) != NULL;
}

static char *repeat(const char *a, size_t n, const char *mid, const char *b)
{
	size_t la = strlen(a), lm = strlen(mid), lb = strlen(b), i;
	char *s = malloc(n * (la + lb) + lm + 1), *p = s;

	for (i = 0; i < n; i++, p += la) {
		memcpy(p, a, la);
	}
	memcpy(p, mid, lm);
	p += lm;
	for (i = 0; i < n; i++, p += lb) {
		memcpy(p, b, lb);
	}
	*p = '\0';
	return s;
}

static void test_limits(void)
{
	char err[256];
	struct ds_json_value *v;
	char *s;
	size_t i, n = DS_JSON_MAX_VALUES;

	s = repeat("[", DS_JSON_MAX_DEPTH, "0", "]");
	v = parse_exact(s, strlen(s), err, sizeof(err));
	UNIT_CHECK(v != NULL, "64 nested arrays parse");
	ds_json_free(v);
	free(s);
	s = repeat("[", DS_JSON_MAX_DEPTH + 1, "0", "]");
	UNIT_CHECK(refused_with(s, "nesting too deep (more than 64 levels) at line 1, column 65"),
		"65 nested arrays refused, place named");
	free(s);
	s = repeat("{\"a\":", 100000, "1", "}");
	UNIT_CHECK(refused_with(s, "nesting too deep"), "100000 nested objects refused, no stack overflow");
	free(s);

	/* n values in an array of n - 1 items: at the limit; one more is refused */
	s = malloc(2 * n + 2);
	s[0] = '[';
	for (i = 0; i < n - 1; i++) {
		s[1 + 2 * i] = '0';
		s[2 + 2 * i] = ',';
	}
	s[2 * (n - 1)] = ']';
	v = parse_exact(s, 2 * (n - 1) + 1, err, sizeof(err));
	UNIT_CHECK(v != NULL && v->count == n - 1, "an array of 999999 items parses (grows geometrically)");
	ds_json_free(v);
	s[2 * (n - 1)] = ',';
	s[2 * n - 1] = '0';
	s[2 * n] = ']';
	UNIT_CHECK(parse_exact(s, 2 * n + 1, err, sizeof(err)) == NULL &&
		strstr(err, "too many values (more than 1000000)") != NULL, "1000001 values refused");
	free(s);
}

static void test_numbers(void)
{
	static const char *const bad[] = { "01", "-01", "1.", ".5", "1e", "1e+", "-", "+1", "0x10",
		"1.e5", "--1", "1-2", "Infinity", "NaN", "1ee2" };
	char err[256];
	struct ds_json_value *v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = parse_exact(bad[i], strlen(bad[i]), err, sizeof(err));
		UNIT_CHECK(v == NULL && err[0], bad[i]);
		ds_json_free(v);
	}
	UNIT_CHECK(refused_with("[0, 012]", "malformed number (no leading zero allowed) at line 1, column 6"),
		"leading zero named");
	UNIT_CHECK(refused_with("[1e400]", "number out of range (beyond a double) at line 1, column 2"),
		"1e400 refused");
	UNIT_CHECK(refused_with("-1e400", "number out of range"), "-1e400 refused");
	UNIT_CHECK(refused_with("1234567890123456789012345678901234567890123456789012345678901234",
		"number too long"), "64-digit number refused");
	static const char good[] = "[-0, 1E+2, 0.5e-3, 9223372036854775807, -9223372036854775808, "
		"9223372036854775808, 1e-400]";

	v = parse_exact(good, strlen(good), err, sizeof(err));
	UNIT_CHECK(v != NULL, "valid numbers parse");
	if (v) {
		UNIT_CHECK(ds_json_at(v, 0)->is_integer && ds_json_at(v, 0)->integer == 0, "-0");
		UNIT_CHECK(!ds_json_at(v, 1)->is_integer && ds_json_at(v, 1)->number == 100.0, "1E+2");
		UNIT_CHECK(ds_json_at(v, 3)->is_integer && ds_json_at(v, 3)->integer == INT64_MAX,
			"INT64_MAX exact");
		UNIT_CHECK(ds_json_at(v, 4)->is_integer && ds_json_at(v, 4)->integer == INT64_MIN,
			"INT64_MIN exact");
		UNIT_CHECK(!ds_json_at(v, 5)->is_integer, "2^63 is not an int64");
		UNIT_CHECK(ds_json_at(v, 6)->number == 0.0, "an underflow reads as 0");
	}
	ds_json_free(v);
}

static void test_strings(void)
{
	char err[256];
	struct ds_json_value *v;

	UNIT_CHECK(refused_with("\"a\\u0000b\"", "invalid escape in a string"), "\\u0000 refused");
	UNIT_CHECK(refused_with("\"\\udc00\"", "invalid escape"), "lone low surrogate refused");
	UNIT_CHECK(refused_with("\"\\ud800\"", "invalid escape"), "lone high surrogate refused");
	UNIT_CHECK(refused_with("\"\\ud800\\u0041\"", "invalid escape"), "high surrogate + non-low refused");
	UNIT_CHECK(refused_with("\"\\u12\"", "invalid escape"), "short \\u refused");
	UNIT_CHECK(refused_with("\"\\x\"", "invalid escape"), "unknown escape refused");
	UNIT_CHECK(refused_with("\"\xff\"", "invalid UTF-8 in a string at line 1, column 2"),
		"byte 0xff refused");
	UNIT_CHECK(refused_with("\"\xc0\xaf\"", "invalid UTF-8"), "overlong '/' refused");
	UNIT_CHECK(refused_with("\"\xed\xa0\x80\"", "invalid UTF-8"), "encoded surrogate refused");
	UNIT_CHECK(refused_with("\"\xf4\x90\x80\x80\"", "invalid UTF-8"), "beyond U+10FFFF refused");
	UNIT_CHECK(refused_with("\"\xe2\x82", "invalid UTF-8"), "sequence cut by the end refused");
	UNIT_CHECK(refused_with("\"a\nb\"", "control character"), "raw newline in a string refused");
	UNIT_CHECK(refused_with("{\"a\" 1}", "expected ':'"), "missing colon");
	UNIT_CHECK(refused_with("", "unexpected end of input"), "empty input");
	UNIT_CHECK(refused_with("\xef\xbb\xbf{}", "expected a value"), "byte-order mark refused");
	static const char text[] = "\"\\ud83d\\ude00 \xe2\x82\xac \xf0\x9f\x98\x80\"";

	v = parse_exact(text, strlen(text), err, sizeof(err));
	UNIT_CHECK(v != NULL, "surrogate pair and multi-byte UTF-8 parse");
	if (v) {
		UNIT_EQ_STR(v->string, "\xf0\x9f\x98\x80 \xe2\x82\xac \xf0\x9f\x98\x80",
			"surrogate pair decoded to U+1F600");
	}
	ds_json_free(v);
}

/* Every prefix and 20000 seeded byte mutations of a report: no crash, an error or a tree. */
static void test_truncations_and_mutations(void)
{
	static const char doc[] = "{\"generator\": \"filter.deepspan.sync\", \"reference\": \"VM3\","
		" \"reorder\": {\"window_ns\": 1700}, \"hosts\": [{\"name\": \"VM1\", \"clock_uuid\":"
		" \"74715693-28c1-4d0d-bee9-24790a4942b0\", \"transform\": {\"x0\": 1361214092915325958,"
		" \"y0\": 1361214092834760756, \"slope\": 0.99994137837031390}, \"accuracy_ns\": null,"
		" \"bounds\": [], \"s\": \"\\u00e9\\ud83d\\ude00\\n\", \"ok\": true}]}";
	static const char alphabet[] = "{}[]\",:\\u0123456789eE+-.tfn \xff\xc3\xa9";
	char err[256], buf[sizeof(doc)];
	size_t len = sizeof(doc) - 1, i, errors = 0, parsed = 0;
	uint64_t rng = 0x9e3779b97f4a7c15u;
	struct ds_json_value *v;

	v = parse_exact(doc, len, err, sizeof(err));
	UNIT_CHECK(v != NULL, "the mutation seed parses");
	ds_json_free(v);
	for (i = 0; i < len; i++) {
		v = parse_exact(doc, i, err, sizeof(err));
		errors += v == NULL && err[0];
		ds_json_free(v);
	}
	UNIT_EQ_UINT(errors, len, "every strict prefix is refused with a message");
	errors = 0;
	for (i = 0; i < 20000; i++) {
		size_t k, flips = 1 + i % 4, cut = len;

		memcpy(buf, doc, len);
		for (k = 0; k < flips; k++) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			if ((rng >> 60) < 8) {
				buf[(rng >> 16) % len] = alphabet[(rng >> 40) % (sizeof(alphabet) - 1)];
			} else if ((rng >> 60) < 12) {
				buf[(rng >> 16) % len] ^= (char) (1u << ((rng >> 40) % 8));
			} else {
				cut = (size_t) ((rng >> 16) % len);
			}
		}
		v = parse_exact(buf, cut, err, sizeof(err));
		if (v) {
			parsed++;
		} else {
			errors += err[0] != '\0';
		}
		ds_json_free(v);
	}
	UNIT_EQ_UINT(parsed + errors, 20000, "every mutation parses or is refused with a message");
}

static void test_files(void)
{
	char err[512], path[] = "/tmp/deepspan-json-XXXXXX";
	struct ds_json_value *v;
	int fd;

	v = ds_json_parse_file("/tmp", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "\"/tmp\" is not a regular file") != NULL,
		"a directory is refused");
	v = ds_json_parse_file("/dev/zero", err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "\"/dev/zero\" is not a regular file") != NULL,
		"an endless device is refused");
	fd = mkstemp(path);
	UNIT_CHECK(fd >= 0, "temporary file");
	if (fd < 0) {
		return;
	}
	v = ds_json_parse_file(path, err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "is not valid JSON: unexpected end of input") != NULL,
		"an empty file is refused");
	UNIT_CHECK(ftruncate(fd, (off_t) DS_JSON_MAX_FILE_SIZE + 1) == 0, "sparse 16 MiB + 1 file");
	v = ds_json_parse_file(path, err, sizeof(err));
	UNIT_CHECK(v == NULL && strstr(err, "is larger than 16 MiB (16777217 bytes)") != NULL,
		"a file over 16 MiB is refused before reading");
	close(fd);
	unlink(path);
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
	test_limits();
	test_numbers();
	test_strings();
	test_truncations_and_mutations();
	test_files();
	return unit_finish();
}
