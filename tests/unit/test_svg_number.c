/* SPDX-License-Identifier: MIT */
/*
 * The SVG number writers (plugins/diff-sink/svg-number.h) give printf's exact
 * bytes: "%.Nf" (round to nearest, ties to even on the exact binary value) and
 * "%" PRId64, on chosen edge cases and on pseudo-random waterfall coordinates.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

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

static void test_plain(void)
{
	UNIT_CHECK(ds_svg_plain("mysqld/1289 futex ← x") == false, "ds_svg_plain: non-ASCII is not plain");
	UNIT_CHECK(ds_svg_plain("in flight frontend → driver") == false, "ds_svg_plain: arrow is not plain");
	UNIT_CHECK(ds_svg_plain("nanosleep, 2 ms"), "ds_svg_plain: printable ASCII is plain");
	UNIT_CHECK(!ds_svg_plain("a&b") && !ds_svg_plain("<") && !ds_svg_plain(">") && !ds_svg_plain("\"") &&
		!ds_svg_plain("'") && !ds_svg_plain("a\tb") && !ds_svg_plain("\x7f"),
		"ds_svg_plain: XML specials and controls are not plain");
	UNIT_CHECK(ds_svg_plain(""), "ds_svg_plain: the empty text is plain");
}

int main(void)
{
	test_edges();
	test_random();
	test_plain();
	return unit_finish();
}
