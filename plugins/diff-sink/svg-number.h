/* SPDX-License-Identifier: MIT */
/*
 * Numbers of the SVG drawings written without printf (the waterfall draws a
 * rectangle per chain entry, doc/performance.md "Chains"): the same bytes as
 * printf's "%.Nf" and "%" PRId64, several times cheaper.
 */
#ifndef DEEPSPAN_DIFF_SINK_SVG_NUMBER_H
#define DEEPSPAN_DIFF_SINK_SVG_NUMBER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room for any number written below (a double outside the fast range goes through snprintf). */
#define DS_SVG_NUMBER_MAX 352

/*
 * Writes `value` as printf("%.*f", decimals, value) would (round to nearest,
 * ties to even, on the exact binary value), 0 <= decimals <= 3, at `out`
 * (DS_SVG_NUMBER_MAX bytes free); returns the end (no NUL written).
 */
char *ds_svg_fixed(char *out, double value, int decimals);

/* Writes `value` as printf("%" PRId64) would; returns the end (no NUL written). */
char *ds_svg_int(char *out, int64_t value);

/* Copies the NUL-terminated `text` (without its NUL); returns the end. */
static inline char *ds_svg_text(char *out, const char *text)
{
	size_t n = strlen(text);	/* folded for literals */

	memcpy(out, text, n);
	return out + n;
}

#endif /* DEEPSPAN_DIFF_SINK_SVG_NUMBER_H */
