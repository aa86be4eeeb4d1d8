/* SPDX-License-Identifier: MIT */
#include "colour.h"

#include <math.h>
#include <string.h>

#include "span-consumer/sanitize.h"
#include "span-consumer/span-store.h"

struct ds_rgb ds_diff_colour(double d, bool is_new, double white_band,
		double saturation)
{
	struct ds_rgb white = { 255, 255, 255 };
	double t, magnitude = fabs(d);
	uint8_t fade;

	if (is_new) {
		return (struct ds_rgb) { 255, 0, 0 };
	}
	if (!isfinite(d) || magnitude <= white_band) {
		return white;
	}
	t = saturation > white_band ?
		(magnitude - white_band) / (saturation - white_band) : 1.0;
	if (t > 1.0) {
		t = 1.0;
	}
	fade = (uint8_t) lround(255.0 * (1.0 - t));
	return d > 0 ? (struct ds_rgb) { 255, fade, fade } :
		(struct ds_rgb) { fade, fade, 255 };
}

struct ds_rgb ds_state_colour(unsigned int state)
{
	static const struct ds_rgb colours[DS_STATE_COUNT] = {
		[DS_STATE_USER] = { 76, 175, 80 },		/* green */
		[DS_STATE_SYSCALL] = { 33, 150, 243 },		/* blue */
		[DS_STATE_BLOCKED] = { 255, 152, 0 },		/* orange */
		[DS_STATE_WAIT_CPU] = { 229, 57, 53 },		/* red */
		[DS_STATE_INTERRUPTED] = { 156, 39, 176 },	/* purple */
		[DS_STATE_UNKNOWN] = { 158, 158, 158 },		/* grey */
	};

	return colours[state < DS_STATE_COUNT ? state : DS_STATE_UNKNOWN];
}

struct ds_rgb ds_label_colour(const char *label)
{
	uint32_t hash = 2166136261u;

	for (; *label; label++) {
		hash = (hash ^ (uint8_t) *label) * 16777619u;
	}
	return (struct ds_rgb) {
		(uint8_t) (205 + hash % 50),
		(uint8_t) (100 + (hash >> 8) % 110),
		(uint8_t) (40 + (hash >> 16) % 50),
	};
}

void ds_format_duration(double ns, bool sign, char *buf, size_t size)
{
	double magnitude = fabs(ns);
	const char *prefix = sign ? (ns < 0 ? "-" : "+") : (ns < 0 ? "-" : "");

	if (magnitude >= 1e9) {
		snprintf(buf, size, "%s%.2f s", prefix, magnitude / 1e9);
	} else if (magnitude >= 1e6) {
		snprintf(buf, size, "%s%.1f ms", prefix, magnitude / 1e6);
	} else if (magnitude >= 1e3) {
		snprintf(buf, size, "%s%.1f \xc2\xb5s", prefix, magnitude / 1e3);
	} else {
		snprintf(buf, size, "%s%.0f ns", prefix, magnitude);
	}
}

void ds_xml_escape(FILE *file, const char *text)
{
	ds_sanitize_xml(file, text);
}
