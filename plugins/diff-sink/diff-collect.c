/* SPDX-License-Identifier: MIT */
#include "diff-collect.h"

#include <string.h>

#include "span-consumer/attribution-record.h"
#include "span-consumer/request-record.h"

bool ds_diff_collector_init(struct ds_diff_collector *collector, enum ds_mode mode,
		const char *dir)
{
	memset(collector, 0, sizeof(*collector));
	collector->mode = mode;
	collector->records = g_array_new(FALSE, FALSE, sizeof(struct ds_request_record));
	collector->entries = g_array_new(FALSE, FALSE, sizeof(struct ds_attribution_entry));
	ds_host_acc_init(&collector->host);
	return ds_spill_open(&collector->spill, dir);
}

void ds_diff_collector_fini(struct ds_diff_collector *collector)
{
	if (collector->records) {
		g_array_free(collector->records, TRUE);
	}
	if (collector->entries) {
		g_array_free(collector->entries, TRUE);
	}
	if (collector->spill.buffer) {
		ds_spill_close(&collector->spill);
	}
	ds_host_acc_fini(&collector->host);
	memset(collector, 0, sizeof(*collector));
}

void ds_diff_collect_request(void *data, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index)
{
	struct ds_diff_collector *collector = data;
	struct ds_request_record record;

	ds_request_record_make(store, requests, index, &record);
	if (!record.truncated && !record.invalid) {
		/* Truncated and invalid requests are in no group: nothing to replay or draw. */
		g_array_set_size(collector->entries, 0);
		ds_attribution_record(store, requests, index, collector->mode,
			collector->entries);
		ds_spill_write_request(&collector->spill, store, requests, index,
			collector->entries, &record);
	}
	g_array_append_val(collector->records, record);
	ds_host_acc_add_request(&collector->host, store, requests, index);
}
