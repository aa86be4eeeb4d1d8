/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics by="disk" (doc/metrics.md, "By disk"): the `deepspan:disk` events of
 * filter.deepspan.span-attrib's layers summed per host, device and submitter.
 */
#ifndef DEEPSPAN_METRICS_DISK_TABLE_H
#define DEEPSPAN_METRICS_DISK_TABLE_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "table.h"

struct ds_disk_table;

struct ds_disk_table *ds_disk_table_create(void);
void ds_disk_table_destroy(struct ds_disk_table *table);

/* Adds the deepspan:disk events among `messages`; false (cause appended for `self_comp`) on a malformed one. */
bool ds_disk_table_read(struct ds_disk_table *table, bt_self_component *self_comp, const char *class_name,
		const bt_message *const *messages, uint64_t count);

/* The rows, most queue + device time first; `out` is initialized here. */
void ds_disk_table_write(const struct ds_disk_table *table, struct ds_table *out);

/* Events read (0: the input had no deepspan:disk event). */
uint64_t ds_disk_table_events(const struct ds_disk_table *table);

#endif /* DEEPSPAN_METRICS_DISK_TABLE_H */
