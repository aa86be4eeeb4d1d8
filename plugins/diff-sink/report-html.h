/* SPDX-License-Identifier: MIT */
/*
 * report.html: the three flame graphs inline, group definitions and sizes,
 * latency histograms of both groups, the explanation, frame tables, and
 * waterfalls of the slowest B requests and a typical A request (one bar per
 * span across hosts on the common time axis, coloured by thread state).
 */
#ifndef DEEPSPAN_DIFF_REPORT_HTML_H
#define DEEPSPAN_DIFF_REPORT_HTML_H

#include <stdio.h>

#include "aggregate.h"
#include "explain.h"
#include "span-consumer/groups.h"
#include "span-consumer/request-spill.h"
#include "span-consumer/request-tree.h"

struct ds_report {
	struct ds_strings *strings;		/* interned ids of the records and spills */
	const GArray *records;			/* struct ds_request_record */
	struct ds_spill *spill;			/* the spans of the waterfalls */
	const struct ds_aggregate *agg;
	const struct ds_explanation *explanation;
	const struct ds_selection *selection;
	const struct ds_input_facts *facts;
	const char *mode_name;
	double white_band;
	double saturation;
	unsigned int top;
	unsigned int waterfalls;
	const GArray *host_rows;		/* struct ds_host_row (span-consumer/host-context.h); NULL: none */
};

void ds_write_report_html(FILE *file, const struct ds_report *report);

/* One request's waterfall as an inline SVG. */
void ds_write_waterfall_svg(FILE *file, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request, const char *title);

#endif /* DEEPSPAN_DIFF_REPORT_HTML_H */
