/* SPDX-License-Identifier: MIT */
/*
 * Self-contained interactive SVG flame graphs of an aggregate: the
 * differential graph (width = W_B, colour = d) and each group's own graph.
 * The embedded script zooms on click, resets, searches and shows details;
 * every frame's <title> carries A, B, d, counts and per-state times.
 */
#ifndef DEEPSPAN_DIFF_FLAMEGRAPH_SVG_H
#define DEEPSPAN_DIFF_FLAMEGRAPH_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "aggregate.h"

enum ds_flamegraph_kind {
	DS_FLAMEGRAPH_DIFF = 0,	/* width W_B, colour by d */
	DS_FLAMEGRAPH_A,	/* width W_A, colour by state / label */
	DS_FLAMEGRAPH_B,	/* width W_B, colour by state / label */
};

struct ds_flamegraph_options {
	enum ds_flamegraph_kind kind;
	const char *id;		/* borrowed: unique element id ("fg-diff") */
	const char *title;	/* borrowed */
	const char *subtitle;	/* borrowed, may be NULL */
	double white_band;
	double saturation;
	bool standalone;	/* write the XML prolog (a file of its own) */
};

void ds_write_flamegraph_svg(FILE *file, const struct ds_aggregate *agg,
		const struct ds_flamegraph_options *options);

#endif /* DEEPSPAN_DIFF_FLAMEGRAPH_SVG_H */
