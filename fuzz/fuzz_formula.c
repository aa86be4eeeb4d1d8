/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a sync formula (`formula=` of filter.deepspan.sync,
 * doc/sync.md) read with the JSON reader and applied with hull.c's transforms.
 *
 * The formula loader itself (sync-report.c: formula_host, formula_window) is
 * not separable: it fills the message iterator's host table and appends its
 * causes through the iterator.  This harness applies the loader's acceptance
 * rules as they stand (doc/sync.md, "Formula": a `name` string, a `transform`
 * {x0, y0: int in [0, 2^63-1], slope: finite, within SYNC_MAX_SLOPE_DEVIATION
 * of 1}, optional first_ns <= last_ns in [0, 2^63-1] that the transform maps
 * into int64), then does the arithmetic the filter does with an accepted
 * formula: the saturated correction window over each host's first_ns/last_ns
 * (formula_window), the inverse and composition the solver uses, and
 * t' = y0 + slope (t - x0) on timestamps near and far from x0.  UBSan turns any
 * signed overflow there into a crash; the loader must refuse what it cannot
 * apply.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hull.h"
#include "json-reader.h"

/* sync.h's bound (sync.h needs babeltrace2): a formula's slope is within this of 1. */
#define SYNC_MAX_SLOPE_DEVIATION 1e-3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DAY_NS 86400000000000LL

/* As formula_transform() and formula_range() (sync-report.c) accept a host: false when the filter refuses it. */
static bool accepted(const struct ds_json_value *host, struct ds_transform *tf)
{
	const struct ds_json_value *t = ds_json_get(host, "transform");
	int64_t range[2], out;
	bool has_first, has_last;

	if (!ds_json_get_string(host, "name") || !t || !ds_json_get_int(t, "x0", &tf->x0) ||
			!ds_json_get_int(t, "y0", &tf->y0) || !ds_json_get_double(t, "slope", &tf->slope) ||
			tf->x0 < 0 || tf->y0 < 0 || !isfinite(tf->slope) ||
			fabs(tf->slope - 1.0) > SYNC_MAX_SLOPE_DEVIATION) {
		return false;
	}
	has_first = ds_json_get_int(host, "first_ns", &range[0]);
	has_last = ds_json_get_int(host, "last_ns", &range[1]);
	if ((has_first && (range[0] < 0 || !ds_transform_apply_checked(tf, range[0], &out))) ||
			(has_last && (range[1] < 0 || !ds_transform_apply_checked(tf, range[1], &out))) ||
			(has_first && has_last && range[0] > range[1])) {
		return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct ds_json_value *doc = ds_json_parse((const char *) data, size, err, sizeof(err));
	const struct ds_json_value *hosts = ds_json_get(doc, "hosts");
	struct ds_transform first = ds_transform_identity();
	volatile uint64_t sink = 0;	/* keeps the results alive */
	size_t i;
	int end;

	if (!hosts || hosts->type != DS_JSON_ARRAY) {
		ds_json_free(doc);
		return 0;
	}
	for (i = 0; i < hosts->count; i++) {
		struct ds_transform tf, inv, both;
		int64_t t[2];

		if (!accepted(hosts->items[i], &tf)) {
			break;	/* the filter stops at the first refused host */
		}
		if (ds_json_get_int(hosts->items[i], "first_ns", &t[0]) &&
				ds_json_get_int(hosts->items[i], "last_ns", &t[1])) {
			for (end = 0; end < 2; end++) {
				int64_t correction;

				/* formula_window (sync-report.c): the correction apply(t) - t, saturated; an
				 * accepted host's first_ns/last_ns map exactly */
				if (!ds_transform_apply_checked(&tf, t[end], &correction)) {
					fprintf(stderr, "fuzz_formula: host #%zu: %" PRId64 " was accepted but does "
						"not map into int64 (formula_range, sync-report.c)\n", i, t[end]);
					abort();
				}
				correction = ds_sat_sub(correction, t[end]);
				sink ^= (uint64_t) correction;
			}
		}
		/* events of the host: at its reference point and a day of ns after (or before) */
		sink ^= (uint64_t) ds_transform_apply(&tf, tf.x0);
		sink ^= (uint64_t) ds_transform_apply(&tf, tf.x0 <= INT64_MAX - DAY_NS ?
			tf.x0 + DAY_NS : tf.x0 - DAY_NS);
		inv = ds_transform_inverse(&tf);
		both = ds_transform_compose(&first, &inv);
		sink ^= (uint64_t) ds_transform_apply(&both, tf.y0);
		if (i == 0) {
			first = tf;
		}
	}
	(void) sink;
	ds_json_free(doc);
	return 0;
}
