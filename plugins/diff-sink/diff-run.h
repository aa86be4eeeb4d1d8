/* SPDX-License-Identifier: MIT */
/*
 * The analysis of sink.deepspan.diff once every request is complete: groups,
 * aggregation of the recorded attributions, explanation, and every output
 * file.
 */
#ifndef DEEPSPAN_DIFF_DIFF_RUN_H
#define DEEPSPAN_DIFF_DIFF_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "span-consumer/attribution.h"
#include "diff-collect.h"
#include "span-consumer/groups.h"
#include "span-consumer/request-stream.h"
#include "span-consumer/span-store.h"
#include "span-consumer/span-upstream.h"

struct ds_diff_config {
	const char *output_dir;		/* borrowed */
	enum ds_mode mode;
	struct ds_group_spec groups[2];	/* `root` strings borrowed */
	double white_band;
	double saturation;
	unsigned int top;
	unsigned int waterfalls;	/* slowest B requests drawn */
	int64_t skew_tolerance;		/* ns */
	int64_t grace;			/* ns: a request is complete this long after its last span */
	bool two_inputs;
	bool summary;			/* print the summary on stdout */
	uint64_t reversed_spans;	/* from the reader: spans ending before they begin */
	uint64_t invalid_spans;		/* from the reader: bounds out of range (reversed included) */
	uint64_t invalid_chains;	/* from the reader: chains breaking their invariants, ignored */
	GHashTable *deadlocks;		/* borrowed from the reader: deadlock detail id -> spans */
	GHashTable *stuck;		/* borrowed from the reader: still-blocked detail id -> spans */
	struct ds_span_upstream upstream;	/* what feeds this sink (the no-spans error says why) */
};

extern const char *const ds_mode_names[];

/*
 * Runs the analysis once `stream` is finished (every request handed to
 * `collector`); false with an error cause appended on failure.
 */
bool ds_diff_run(const struct ds_diff_config *config, struct ds_diff_collector *collector,
		struct ds_request_stream *stream, bt_self_component *self_comp,
		const char *class_name);

#endif /* DEEPSPAN_DIFF_DIFF_RUN_H */
