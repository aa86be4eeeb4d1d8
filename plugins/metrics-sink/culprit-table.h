/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics by="culprit" (doc/metrics.md, "By culprit"): each complete request's critical-path
 * time charged to the thread a chain ends on (host, process, comm, tid), per state and chain kind, kept per
 * request; the rows sum the requests of groups B and A once they are selected.
 */
#ifndef DEEPSPAN_METRICS_CULPRIT_TABLE_H
#define DEEPSPAN_METRICS_CULPRIT_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "span-consumer/groups.h"
#include "span-consumer/request-tree.h"
#include "span-consumer/span-store.h"
#include "table.h"

struct ds_culprit_table;

extern const char *const ds_culprit_table_columns[];

struct ds_culprit_table *ds_culprit_table_create(void);
void ds_culprit_table_destroy(struct ds_culprit_table *t);

/*
 * Records request `index` (its time charged when `attribute`: a complete, valid request): call it for every
 * request, in the order of the records the selection is made of.
 */
void ds_culprit_table_add_request(struct ds_culprit_table *t, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, bool attribute);

/*
 * The rows, largest B - A mean first, over the requests of groups B and A of `selection`, into `out` (already
 * initialized with ds_culprit_table_columns).  False when a sum leaves int64: then `*overflow_row` (owned by
 * the caller) names the first row that did.
 */
bool ds_culprit_table_write(struct ds_culprit_table *t, const struct ds_strings *strings,
		const struct ds_selection *selection, struct ds_table *out, char **overflow_row);

#endif /* DEEPSPAN_METRICS_CULPRIT_TABLE_H */
