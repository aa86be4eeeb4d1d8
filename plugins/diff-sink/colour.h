/* SPDX-License-Identifier: MIT */
/*
 * Colours and text helpers shared by the SVG and HTML writers: the
 * differential colour scale, one colour per thread state, a warm palette for
 * span frames, human durations and XML escaping.
 */
#ifndef DEEPSPAN_DIFF_COLOUR_H
#define DEEPSPAN_DIFF_COLOUR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ds_rgb {
	uint8_t r, g, b;
};

/*
 * The colour of relative difference `d`: white within ±`white_band`, then
 * red (slower) or blue (faster) deepening linearly until |d| = `saturation`.
 * A frame only in B (`is_new`) is pure red.
 */
struct ds_rgb ds_diff_colour(double d, bool is_new, double white_band,
		double saturation);

/* A fixed colour per thread state (enum ds_state). */
struct ds_rgb ds_state_colour(unsigned int state);

/* A warm flame-graph colour derived from the label's text (stable per label). */
struct ds_rgb ds_label_colour(const char *label);

/* Writes "12.3 ms" / "850 ns" / "1.25 s" / "4.0 µs" into buf; signed when `sign`. */
void ds_format_duration(double ns, bool sign, char *buf, size_t size);

/* Writes `text` escaped for XML/HTML text and attribute values (ds_sanitize_xml()). */
void ds_xml_escape(FILE *file, const char *text);

#endif /* DEEPSPAN_DIFF_COLOUR_H */
