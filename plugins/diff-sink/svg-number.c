/* SPDX-License-Identifier: MIT */
#include "svg-number.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *ds_svg_int(char *out, int64_t value)
{
	char digits[20];
	uint64_t u = value < 0 ? 0 - (uint64_t) value : (uint64_t) value;
	int n = 0;

	if (value < 0) {
		*out++ = '-';
	}
	do {
		digits[n++] = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	while (n) {
		*out++ = digits[--n];
	}
	return out;
}

char *ds_svg_text(char *out, const char *text)
{
	size_t n = strlen(text);

	memcpy(out, text, n);
	return out + n;
}

/*
 * value = m * 2^-s exactly (m < 2^53); value * 10^decimals = m * 10^decimals
 * * 2^-s with m * 10^decimals < 2^63: the integer part and the remainder are
 * exact, so the rounding is printf's (nearest, ties to even).
 */
char *ds_svg_fixed(char *out, double value, int decimals)
{
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	uint64_t m, n, q, rem, half;
	int exp, s, i;
	double f;

	if (!(value >= 0.0) || signbit(value) || value >= 1e6 || decimals < 0 || decimals > 3) {
		goto slow;	/* negative (also -0.0: "-0.00"), NaN, large: printf's own bytes */
	}
	if (value == 0.0) {
		m = 0;
		s = 0;
	} else {
		f = frexp(value, &exp);	/* value = f * 2^exp, 0.5 <= f < 1 */
		m = (uint64_t) ldexp(f, 53);	/* exact */
		s = 53 - exp;
		if (s > 63) {
			goto slow;	/* below 2^-10: keep it simple */
		}
	}
	n = m * scale[decimals];	/* < 2^53 * 2^10 */
	if (s <= 0) {
		q = n << -s;		/* value < 1e6 < 2^53: s > 0 always; kept for clarity */
	} else {
		q = n >> s;
		rem = n & ((UINT64_C(1) << s) - 1);
		half = UINT64_C(1) << (s - 1);
		if (rem > half || (rem == half && (q & 1))) {
			q++;
		}
	}
	out = ds_svg_int(out, (int64_t) (q / scale[decimals]));
	if (decimals > 0) {
		uint64_t frac = q % scale[decimals];

		*out++ = '.';
		for (i = decimals - 1; i >= 0; i--) {
			out[i] = (char) ('0' + frac % 10);
			frac /= 10;
		}
		out += decimals;
	}
	return out;

slow:
	return out + snprintf(out, DS_SVG_NUMBER_MAX, "%.*f", decimals, value);
}
