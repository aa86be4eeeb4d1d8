/* SPDX-License-Identifier: MIT */
/*
 * What sink.deepspan.diff keeps of each complete request (the on_request
 * callback of its request stream): a record for the groups and histograms,
 * and in the spill file its attribution recorded in the chosen mode and its
 * spans for the waterfalls.
 */
#ifndef DEEPSPAN_DIFF_DIFF_COLLECT_H
#define DEEPSPAN_DIFF_DIFF_COLLECT_H

#include <stdbool.h>
#include <glib.h>

#include "span-consumer/attribution.h"
#include "span-consumer/host-context.h"
#include "span-consumer/request-spill.h"
#include "span-consumer/request-tree.h"

struct ds_diff_collector {
	enum ds_mode mode;
	GArray *records;	/* owned: struct ds_request_record, in completion order */
	GArray *entries;	/* owned: scratch struct ds_attribution_entry */
	struct ds_spill spill;
	struct ds_host_acc host;	/* host context sums, one run per record (doc/host-context.md) */
};

/* Opens the spill in `dir`; false with errno set when it cannot be created. */
bool ds_diff_collector_init(struct ds_diff_collector *collector, enum ds_mode mode,
		const char *dir);
void ds_diff_collector_fini(struct ds_diff_collector *collector);

/* ds_request_done_fn: `data` is the collector. */
void ds_diff_collect_request(void *data, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index);

#endif /* DEEPSPAN_DIFF_DIFF_COLLECT_H */
