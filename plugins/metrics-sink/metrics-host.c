/* SPDX-License-Identifier: MIT */
/* sink.deepspan.metrics by="host": the host context table (doc/metrics.md, "By host"; doc/host-context.md). */
#include "metrics-build.h"

#include "span-consumer/host-context.h"

bool ds_metrics_write_host_rows(struct ds_metrics_acc *acc, struct ds_table *table)
{
	bool overflow = false;
	GArray *rows;
	guint i;

	ds_select_groups(acc->strings, acc->records, acc->truncated_requests,
		&acc->groups[0], &acc->groups[1], false, &acc->selection);
	acc->selected = true;
	rows = ds_host_rows(&acc->host, acc->strings, &acc->selection, &overflow);
	for (i = 0; i < rows->len; i++) {
		const struct ds_host_row *row = &g_array_index(rows, struct ds_host_row, i);
		const char *name = ds_strings_get(acc->strings, row->name);
		const char *device = ds_strings_get(acc->strings, row->device);

		ds_table_string(table, ds_strings_get(acc->strings, row->host));
		ds_table_string(table, ds_host_kind_tag(row->kind));
		ds_table_string(table, name[0] ? name : DS_SPAN_NONE);
		ds_table_int(table, row->pid);
		ds_table_string(table, device[0] ? device : DS_SPAN_NONE);
		ds_table_string(table, row->kind == DS_HOST_DISK ? "B/s" : "ns/s");
		ds_table_real(table, row->rate[1]);
		ds_table_real(table, row->rate[0]);
		ds_table_real(table, row->diff);
		ds_table_uint(table, row->total[1]);
		ds_table_uint(table, row->total[0]);
		ds_table_uint(table, row->window[1]);
		ds_table_uint(table, row->window[0]);
	}
	g_array_free(rows, TRUE);
	if (overflow) {
		acc->overflow = true;
		g_free(acc->overflow_row);
		acc->overflow_row = g_strdup("host context");
	}
	return !acc->overflow;
}
