/* SPDX-License-Identifier: MIT */
/*
 * The SVG number writers (plugins/diff-sink/svg-number.h) give printf's exact
 * bytes: "%.Nf" (round to nearest, ties to even on the exact binary value) and
 * "%" PRId64, on chosen edge cases and on pseudo-random waterfall coordinates.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <glib.h>

#include "span-consumer/sanitize.h"
#include "svg-number.h"
#include "unit.h"

static bool same_fixed(double value, int decimals)
{
	char mine[DS_SVG_NUMBER_MAX + 1], theirs[DS_SVG_NUMBER_MAX + 1];
	char *end = ds_svg_fixed(mine, value, decimals);

	*end = '\0';
	snprintf(theirs, sizeof(theirs), "%.*f", decimals, value);
	if (strcmp(mine, theirs) != 0) {
		printf("#   %.17g with %d decimals: got \"%s\", printf \"%s\"\n", value, decimals, mine, theirs);
		return false;
	}
	return true;
}

static bool same_int(int64_t value)
{
	char mine[32], theirs[32];
	char *end = ds_svg_int(mine, value);

	*end = '\0';
	snprintf(theirs, sizeof(theirs), "%" PRId64, value);
	if (strcmp(mine, theirs) != 0) {
		printf("#   %" PRId64 ": got \"%s\"\n", value, mine);
		return false;
	}
	return true;
}

/* xorshift64*: the same sequence on every run */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

static void test_edges(void)
{
	static const double values[] = {
		0.0, -0.0, 0.005, 0.015, 0.025, 0.125, 0.375, 2.5, 3.5, 0.3, 330.0, 1210.0, 1229.995,
		1229.9950000000001, 0.0049999999999999, 999999.995, 1e6, 1e300, -1.5, -0.001, 1e-5,
		DBL_MIN, 4.35, 0.45, 1.005, 2.675, 123456.785, NAN, INFINITY, -INFINITY,
	};
	static const int64_t ints[] = { 0, 1, -1, 9, 10, 99, 100, 123456789, INT64_MAX, INT64_MIN };
	bool ok = true;
	size_t i;
	int d;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		for (d = 0; d <= 3; d++) {
			ok = same_fixed(values[i], d) && ok;
		}
	}
	UNIT_CHECK(ok, "ds_svg_fixed: edge cases (ties, -0, tiny, large, NaN, inf) as printf");
	ok = true;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		ok = same_int(ints[i]) && ok;
	}
	UNIT_CHECK(ok, "ds_svg_int: as printf, INT64_MIN and INT64_MAX included");
}

static void test_random(void)
{
	uint64_t state = 0x9e3779b97f4a7c15u;
	bool ok = true;
	int i;

	/* waterfall coordinates: 330 + (t - t0) / (t1 - t0) * 880, widths, rows */
	for (i = 0; i < 200000 && ok; i++) {
		int64_t span = (int64_t) (next_random(&state) % 4000000000u) + 1;
		int64_t t = (int64_t) (next_random(&state) % (uint64_t) span);
		double x = 330.0 + (double) t / (double) span * 880.0;
		double w = (double) (next_random(&state) % 100000u) / 997.0;

		ok = same_fixed(x, 2) && same_fixed(w, 2) && same_fixed((double) (i % 300) * 16.0 + 1, 1) &&
			same_fixed(x, 1) && same_fixed(w, 3) && same_fixed(x, 0);
	}
	UNIT_CHECK(ok, "ds_svg_fixed: 200,000 pseudo-random coordinates as printf");
	ok = true;
	for (i = 0; i < 100000 && ok; i++) {
		/* exact ties: k / 2^j with few bits */
		double tie = (double) (next_random(&state) % 100000u) / (double) (1u << (next_random(&state) % 12));

		ok = same_fixed(tie, 0) && same_fixed(tie, 1) && same_fixed(tie, 2) && same_fixed(tie, 3);
	}
	UNIT_CHECK(ok, "ds_svg_fixed: 100,000 dyadic values (exact ties) as printf");
	ok = true;
	for (i = 0; i < 100000 && ok; i++) {
		ok = same_int((int64_t) next_random(&state)) && same_int((int64_t) (next_random(&state) % 100000u));
	}
	UNIT_CHECK(ok, "ds_svg_int: 200,000 pseudo-random integers as printf");
}

/* What write_name() writes without the shortcut: ds_sanitize_text() then ds_sanitize_xml(). */
static bool written_unchanged(const char *text)
{
	GString *clean = g_string_new(NULL);
	char *out = NULL;
	size_t size = 0;
	FILE *file = open_memstream(&out, &size);
	bool same;

	ds_sanitize_text(clean, text);
	ds_sanitize_xml(file, clean->str);
	fclose(file);
	same = strcmp(out, text) == 0;
	free(out);
	g_string_free(clean, TRUE);
	return same;
}

static void test_unchanged(void)
{
	static const char *const texts[] = {
		"", "nanosleep", "futex \xe2\x86\x90 mysqld/1289", "in flight frontend \xe2\x86\x92 driver", "a&b",
		"<", ">", "\"", "'", "a\tb", "a\nb", "\x7f", "\xc2\x80", "\xc2\x9f", "\xc2\xa0", "\xef\xbf\xbd",
		"\xef\xbf\xbe", "\xef\xbf\xbf", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xf4\x90\x80\x80",
		"\xf0\x9f\x98\x80", "\xff", "\xe2\x86", "caf\xc3\xa9", "x\x01y",
	};
	uint64_t state = 12345;
	bool ok = true;
	size_t i;
	int n;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		/* sound: never says unchanged when it is not; only a literal U+FFFD may take the long way */
		if (ds_sanitize_xml_unchanged(texts[i]) ? !written_unchanged(texts[i]) :
				written_unchanged(texts[i]) && strcmp(texts[i], "\xef\xbf\xbd") != 0) {
			printf("#   text %zu: shortcut says %d\n", i, ds_sanitize_xml_unchanged(texts[i]));
			ok = false;
		}
	}
	UNIT_CHECK(ds_sanitize_xml_unchanged("futex \xe2\x86\x90 mysqld/1289") && ds_sanitize_xml_unchanged("caf\xc3\xa9") &&
		ds_sanitize_xml_unchanged("\xf0\x9f\x98\x80"), "ds_sanitize_xml_unchanged: arrows and other UTF-8 take the shortcut");
	UNIT_CHECK(ok, "ds_sanitize_xml_unchanged: chosen texts (arrows, controls, C1, U+FFFD-U+FFFF, bad UTF-8)");
	ok = true;
	for (n = 0; n < 50000 && ok; n++) {
		char text[9];
		int len = (int) (next_random(&state) % 8), k;

		for (k = 0; k < len; k++) {
			uint64_t r = next_random(&state);
			/* mostly printable ASCII, some lead/continuation bytes and specials */
			text[k] = (char) (r % 4 == 0 ? 0x80 + (r >> 8) % 0x80 : r % 4 == 1 ? 0x01 + (r >> 8) % 0x7f :
				0x20 + (r >> 8) % 0x5f);
		}
		text[len] = '\0';
		ok = ds_sanitize_xml_unchanged(text) == written_unchanged(text) ||
			(!ds_sanitize_xml_unchanged(text) && strstr(text, "\xef\xbf\xbd"));
		if (!ok) {
			printf("#   random text %d differs\n", n);
		}
	}
	UNIT_CHECK(ok, "ds_sanitize_xml_unchanged: 50,000 random byte strings agree with the sanitizers");
}

int main(void)
{
	test_edges();
	test_random();
	test_unchanged();
	return unit_finish();
}
