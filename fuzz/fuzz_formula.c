/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a sync formula (`formula=` of filter.deepspan.sync,
 * doc/sync.md) read with the JSON reader and applied with hull.c's transforms.
 *
 * The formula loader itself (sync-report.c: formula_host, formula_window) is
 * not separable: it fills the message iterator's host table and appends its
 * causes through the iterator.  This harness applies the loader's acceptance
 * rules as they stand (a `name` string, a `transform` {x0: int, y0: int,
 * slope: number > 0}), then does the arithmetic the filter does with an
 * accepted formula: the correction window over each host's first_ns/last_ns
 * (formula_window), the inverse and composition the solver uses, and
 * t' = y0 + slope (t - x0) on timestamps near and far from x0.  UBSan turns any
 * signed overflow there into a crash; the loader must refuse what it cannot
 * apply.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hull.h"
#include "json-reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DAY_NS 86400000000000LL

/* As formula_host() accepts a host: false when the filter would refuse it. */
static bool accepted(const struct ds_json_value *host, struct ds_transform *tf)
{
	const struct ds_json_value *t = ds_json_get(host, "transform");

	return ds_json_get_string(host, "name") && t &&
		ds_json_get_int(t, "x0", &tf->x0) && ds_json_get_int(t, "y0", &tf->y0) &&
		ds_json_get_double(t, "slope", &tf->slope) && tf->slope > 0;
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

				/* formula_window (sync-report.c): the correction apply(t) - t */
				if (__builtin_sub_overflow(ds_transform_apply(&tf, t[end]), t[end], &correction)) {
					fprintf(stderr, "fuzz_formula: host #%zu: the correction at %" PRId64
						" overflows (formula_window, sync-report.c)\n", i, t[end]);
					abort();
				}
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
