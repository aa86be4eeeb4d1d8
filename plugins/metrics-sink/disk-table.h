/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics by="disk" (doc/metrics.md, "By disk"): the `deepspan:disk` events of
 * filter.deepspan.span-attrib's layers summed per host, device and submitter.
 */
#ifndef DEEPSPAN_METRICS_DISK_TABLE_H
#define DEEPSPAN_METRICS_DISK_TABLE_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "span-consumer/groups.h"
#include "span-consumer/request-tree.h"
#include "span-consumer/span-store.h"
#include "table.h"

struct ds_disk_table;

struct ds_disk_table *ds_disk_table_create(void);
void ds_disk_table_destroy(struct ds_disk_table *table);

/* Adds the deepspan:disk events among `messages`; false (cause appended for `self_comp`) on a malformed one. */
bool ds_disk_table_read(struct ds_disk_table *table, bt_self_component *self_comp, const char *class_name,
		const bt_message *const *messages, uint64_t count);

/*
 * Records the disk entries of the chains of request `index` (doc/metrics.md, "By disk"): call it for
 * every request, in the order of the records `selection` is made of.
 */
void ds_disk_table_add_request(struct ds_disk_table *table, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index);

/*
 * The rows, most queue + device time first, with the sums over the chains of the requests of groups B
 * and A of `selection`; `out` is initialized here.
 */
void ds_disk_table_write(struct ds_disk_table *table, const struct ds_selection *selection,
		struct ds_table *out);

/* Events read (0: the input had no deepspan:disk event). */
uint64_t ds_disk_table_events(const struct ds_disk_table *table);

#endif /* DEEPSPAN_METRICS_DISK_TABLE_H */
