/* SPDX-License-Identifier: MIT */
#include "svg-number.h"

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

/*
 * value = m * 2^-s exactly (m < 2^53, from the IEEE 754 bits); value *
 * 10^decimals = m * 10^decimals * 2^-s with m * 10^decimals < 2^63: the integer part and the remainder are
 * exact, so the rounding is printf's (nearest, ties to even).
 */
char *ds_svg_fixed(char *out, double value, int decimals)
{
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	uint64_t bits, m, n, q, rem, half;
	int biased, s, i;

	memcpy(&bits, &value, sizeof(bits));
	biased = (int) (bits >> 52 & 0x7ff);
	/* negative (also -0.0: "-0.00"), NaN, infinite, 2^20 and more, below 2^-10: printf's own bytes */
	if ((bits >> 63) || decimals < 0 || decimals > 3 || biased >= 1023 + 20 ||
			(biased < 1023 - 10 && (bits << 1) != 0)) {
		goto slow;
	}
	if (biased == 0) {
		m = 0;		/* +0.0 (subnormals are below 2^-10) */
		s = 0;
	} else {
		m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;	/* value = m * 2^(biased - 1075) */
		s = 1075 - biased;	/* 33..62 in this range */
	}
	n = m * scale[decimals];	/* < 2^53 * 2^10 */
	if (s == 0) {
		q = n;			/* zero */
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
