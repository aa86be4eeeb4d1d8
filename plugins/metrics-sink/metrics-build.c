/* SPDX-License-Identifier: MIT */
#include "metrics-build.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "span-consumer/attribution.h"
#include "duration-list.h"
#include "span-consumer/request-record.h"
#include "span-consumer/request-tree.h"
#include "span-consumer/sanitize.h"

const char *const ds_metrics_by_names[] = {
	"operation", "request", "syscall", "thread", "culprit", "disk", "host", NULL,
};

static const char *const operation_columns[] = {
	"service", "operation", "count", "mean", "p50", "p95", "p99", "max",
	DS_STATE_NAMES, NULL,
};

/* With the page-cache members (span-attrib layers, doc/storage-network.md). */
static const char *const operation_cache_columns[] = {
	"service", "operation", "count", "mean", "p50", "p95", "p99", "max",
	DS_STATE_NAMES, "cache_hits", "cache_misses", "cache_hit_mean", "cache_miss_mean", NULL,
};

static const char *const request_columns[] = {
	"trace_id", "root", "spans", "latency", "truncated",
	DS_STATE_NAMES, NULL,
};

/* With the page-cache members: the sums over the request's spans. */
static const char *const request_cache_columns[] = {
	"trace_id", "root", "spans", "latency", "truncated",
	DS_STATE_NAMES, "cache_hits", "cache_misses", "cache_miss_time", NULL,
};

static const char *const syscall_columns[] = {
	"service", "operation", "syscall", "count", "total", "mean", "max_per_span", NULL,
};

static const char *const thread_columns[] = {
	"host", "pid", "tid", "spans", "span_time",
	DS_STATE_NAMES, NULL,
};

static const char *const host_columns[] = {
	"host", "kind", "name", "pid", "device", "unit", "b_rate", "a_rate", "b_minus_a",
	"b_total", "a_total", "b_window", "a_window", NULL,
};

int64_t ds_percentile(const int64_t *values, uint32_t n, double p)
{
	return n == 0 ? 0 : values[ds_nearest_rank(n, p)];
}

/* What identifies a row: the ids of its names, and pid and tid (unused: 0). */
struct bucket_key {
	uint32_t service;
	uint32_t operation;
	uint32_t name;		/* syscall name id */
	uint32_t host;
	int64_t pid;
	int64_t tid;
};

/* One row of a keyed accumulation. */
struct bucket {
	struct bucket_key key;
	uint64_t count;
	int64_t total;
	int64_t max;
	uint64_t states[DS_STATE_COUNT];
	uint64_t cache[4];	/* operation table: sums of the spans' page-cache members */
	struct ds_duration_list *durations;	/* owned (operation table): span durations */
	char *sort_key;		/* owned: the row order (set when writing) */
};

/* One row of the request table. */
struct request_row {
	struct ds_request_record record;
	uint64_t states[DS_STATE_COUNT];	/* critical-path time per state */
	uint64_t cache[4];	/* sums of the spans' page-cache members (span-store.h) */
};

static guint hash_key(gconstpointer p)
{
	return (guint) XXH3_64bits(p, sizeof(struct bucket_key));
}

static gboolean equal_key(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct bucket_key)) == 0;
}

static void free_bucket(gpointer data)
{
	struct bucket *bucket = data;

	if (bucket->durations) {
		ds_duration_list_fini(bucket->durations);
		g_free(bucket->durations);
	}
	g_free(bucket->sort_key);
	g_free(bucket);
}

bool ds_metrics_acc_init(struct ds_metrics_acc *acc, enum ds_metrics_by by,
		const struct ds_strings *strings, const char *spill_dir)
{
	memset(acc, 0, sizeof(*acc));
	acc->spill.fd = -1;
	acc->by = by;
	acc->strings = strings;
	/* The bucket's key is its first member: the table owns the buckets through it. */
	acc->buckets = g_hash_table_new_full(hash_key, equal_key, free_bucket, NULL);
	acc->rows = g_array_new(FALSE, FALSE, sizeof(struct request_row));
	acc->records = g_array_new(FALSE, FALSE, sizeof(struct ds_request_record));
	if (by == DS_METRICS_BY_CULPRIT) {
		acc->culprit = ds_culprit_table_create();
	}
	ds_host_acc_init(&acc->host);
	return by != DS_METRICS_BY_OPERATION || ds_spill_open(&acc->spill, spill_dir);
}

void ds_metrics_acc_fini(struct ds_metrics_acc *acc)
{
	if (acc->buckets) {
		g_hash_table_destroy(acc->buckets);
	}
	if (acc->rows) {
		g_array_free(acc->rows, TRUE);
	}
	if (acc->records) {
		g_array_free(acc->records, TRUE);
		ds_host_acc_fini(&acc->host);
	}
	ds_culprit_table_destroy(acc->culprit);
	if (acc->selected) {
		ds_selection_fini(&acc->selection);
	}
	if (acc->spill.buffer) {
		ds_spill_close(&acc->spill);
	}
	g_free(acc->overflow_row);
	memset(acc, 0, sizeof(*acc));
}

static struct bucket *bucket_for(struct ds_metrics_acc *acc, const struct bucket_key *key)
{
	struct bucket *bucket = g_hash_table_lookup(acc->buckets, key);

	if (!bucket) {
		bucket = g_new0(struct bucket, 1);
		bucket->key = *key;
		g_hash_table_add(acc->buckets, bucket);
	}
	return bucket;
}

/* Notes the first row whose totals overflow (the table then fails, naming it). */
static void note_overflow(struct ds_metrics_acc *acc, const struct ds_span *span)
{
	GString *row;

	if (acc->overflow) {
		return;
	}
	row = g_string_new(NULL);
	acc->overflow = true;
	ds_sanitize_text(row, ds_strings_get(acc->strings, span->service));
	g_string_append(row, ": ");
	ds_sanitize_text(row, ds_strings_get(acc->strings, span->operation));
	acc->overflow_row = g_string_free(row, FALSE);
}

static void add_total(struct ds_metrics_acc *acc, const struct ds_span *span, int64_t *sum,
		int64_t value)
{
	if (__builtin_add_overflow(*sum, value, sum)) {
		*sum = INT64_MAX;
		note_overflow(acc, span);
	}
}

static void add_states(struct ds_metrics_acc *acc, const struct ds_span *span, uint64_t *sums)
{
	unsigned int s;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		if (__builtin_add_overflow(sums[s], span->states[s], &sums[s])) {
			sums[s] = UINT64_MAX;
			note_overflow(acc, span);
		}
	}
}

static void add_operation(struct ds_metrics_acc *acc, const struct ds_span *span)
{
	const struct bucket_key key = { .service = span->service, .operation = span->operation };
	struct bucket *b = bucket_for(acc, &key);
	int64_t duration = span->end - span->begin;

	if (!b->durations) {
		b->durations = g_new(struct ds_duration_list, 1);
		ds_duration_list_init(b->durations, &acc->spill);
	}
	ds_duration_list_add(b->durations, duration);
	b->count++;
	add_total(acc, span, &b->total, duration);
	add_states(acc, span, b->states);
	if (span->has_cache) {
		unsigned int i;

		acc->has_cache = true;
		for (i = 0; i < 4; i++) {
			/* counts and ns of one span's reads: their sums stay far below 2^64 */
			b->cache[i] += span->cache[i];
		}
	}
}

static void add_syscalls(struct ds_metrics_acc *acc, const struct ds_span *span)
{
	uint32_t k;

	for (k = 0; k < span->syscall_count; k++) {
		const struct ds_syscall_total *call = &span->syscalls[k];
		const struct bucket_key key = {
			.service = span->service,
			.operation = span->operation,
			.name = call->name,
		};
		struct bucket *b = bucket_for(acc, &key);

		/* The reader made every duration <= the span's length (< 2^63). */
		if (__builtin_add_overflow(b->count, call->count, &b->count)) {
			b->count = UINT64_MAX;
			note_overflow(acc, span);
		}
		add_total(acc, span, &b->total, (int64_t) call->duration);
		b->max = MAX(b->max, (int64_t) call->duration);
	}
}

static void add_thread(struct ds_metrics_acc *acc, const struct ds_span *span)
{
	const struct bucket_key key = { .host = span->host, .pid = span->pid, .tid = span->tid };
	struct bucket *b = bucket_for(acc, &key);

	b->count++;
	add_total(acc, span, &b->total, span->end - span->begin);
	add_states(acc, span, b->states);
}

void ds_metrics_add_span(void *data, const struct ds_span_store *store,
		const struct ds_span *span)
{
	struct ds_metrics_acc *acc = data;

	(void) store;
	if (span->invalid) {
		acc->invalid_spans++;
		return;
	}
	switch (acc->by) {
	case DS_METRICS_BY_OPERATION:
		add_operation(acc, span);
		break;
	case DS_METRICS_BY_SYSCALL:
		add_syscalls(acc, span);
		break;
	case DS_METRICS_BY_THREAD:
		add_thread(acc, span);
		break;
	case DS_METRICS_BY_REQUEST:
	case DS_METRICS_BY_CULPRIT:
	case DS_METRICS_BY_DISK:
	case DS_METRICS_BY_HOST:
		break;
	}
}

static uint32_t sum_enter(void *data, uint32_t parent_handle, const struct ds_span *span)
{
	(void) data;
	(void) span;
	return parent_handle;
}

static void sum_value(void *data, uint32_t handle, int64_t width)
{
	(void) data;
	(void) handle;
	(void) width;
}

static void sum_leaf(void *data, uint32_t handle, unsigned int state, uint32_t detail,
		int64_t width)
{
	uint64_t *states = data;

	(void) handle;
	(void) detail;
	states[state] += (uint64_t) width;
}

static void add_culprit_request(struct ds_metrics_acc *acc, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index)
{
	struct ds_request_record record;

	ds_request_record_make(store, requests, index, &record);
	ds_culprit_table_add_request(acc->culprit, store, requests, index, !record.truncated && !record.invalid);
	acc->truncated_requests += record.truncated;
	acc->invalid_requests += record.invalid;
	g_array_append_val(acc->records, record);
}

/* Sums the page-cache members of every span of request `index` into `cache`. */
static void add_request_cache(struct ds_metrics_acc *acc, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, uint64_t *cache)
{
	const struct ds_request *request = ds_request_at(requests, index);
	uint32_t i;
	unsigned int k;

	for (i = 0; i < request->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, g_array_index(requests->spans, uint32_t,
			request->first_span + i));

		if (!span->has_cache) {
			continue;
		}
		acc->has_cache = true;
		for (k = 0; k < 4; k++) {
			/* counts and ns of reads within one request: far below 2^64 */
			cache[k] += span->cache[k];
		}
	}
}

void ds_metrics_add_request(void *data, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index)
{
	struct ds_metrics_acc *acc = data;
	struct request_row row = { 0 };
	const struct ds_visitor visitor = { sum_enter, sum_value, sum_leaf, row.states, NULL, NULL };

	if (acc->by == DS_METRICS_BY_CULPRIT) {
		add_culprit_request(acc, store, requests, index);
		return;
	}
	if (acc->by == DS_METRICS_BY_DISK) {
		ds_request_record_make(store, requests, index, &row.record);
		acc->truncated_requests += row.record.truncated;
		acc->invalid_requests += row.record.invalid;
		g_array_append_val(acc->records, row.record);
		ds_disk_table_add_request(acc->disk, store, requests, index);
		return;
	}
	if (acc->by == DS_METRICS_BY_HOST) {
		ds_request_record_make(store, requests, index, &row.record);
		acc->truncated_requests += row.record.truncated;
		acc->invalid_requests += row.record.invalid;
		g_array_append_val(acc->records, row.record);
		ds_host_acc_add_request(&acc->host, store, requests, index);
		return;
	}
	ds_request_record_make(store, requests, index, &row.record);
	if (row.record.invalid) {
		acc->invalid_requests++;
		return;
	}
	ds_attribute_request(store, requests, index, DS_MODE_CRITICAL_PATH, &visitor);
	add_request_cache(acc, store, requests, index, row.cache);
	g_array_append_val(acc->rows, row);
}

static gint compare_buckets(gconstpointer a, gconstpointer b)
{
	const struct bucket *x = *(struct bucket *const *) a;
	const struct bucket *y = *(struct bucket *const *) b;

	return strcmp(x->sort_key, y->sort_key);
}

/* The rows' order: by names (and numerically by pid and tid). */
static char *sort_key(const struct ds_metrics_acc *acc, const struct bucket_key *key)
{
	const struct ds_strings *s = acc->strings;

	switch (acc->by) {
	case DS_METRICS_BY_SYSCALL:
		return g_strdup_printf("%s\x1f%s\x1f%s", ds_strings_get(s, key->service),
			ds_strings_get(s, key->operation), ds_strings_get(s, key->name));
	case DS_METRICS_BY_THREAD:
		/*
		 * Zero-padded so that the key order is the numeric order; the sign bit
		 * flipped maps int64 order onto uint64 order without overflow (any pid).
		 */
		return g_strdup_printf("%s\x1f%020" PRIu64 "\x1f%020" PRIu64,
			ds_strings_get(s, key->host), (uint64_t) key->pid ^ (UINT64_C(1) << 63),
			(uint64_t) key->tid ^ (UINT64_C(1) << 63));
	default:
		return g_strdup_printf("%s\x1f%s", ds_strings_get(s, key->service),
			ds_strings_get(s, key->operation));
	}
}

/* The buckets sorted by their names. */
static GPtrArray *sorted_buckets(const struct ds_metrics_acc *acc)
{
	GPtrArray *buckets = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, acc->buckets);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		struct bucket *b = key;

		g_free(b->sort_key);
		b->sort_key = sort_key(acc, &b->key);
		g_ptr_array_add(buckets, b);
	}
	g_ptr_array_sort(buckets, compare_buckets);
	return buckets;
}

static void state_means(struct ds_table *table, const uint64_t *states, uint64_t count)
{
	unsigned int s;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		ds_table_real(table, count ? (double) states[s] / (double) count : 0.0);
	}
}

static void write_operation_row(const struct ds_metrics_acc *acc, struct bucket *b,
		struct ds_table *table)
{
	static const double percentiles[] = { 50, 95, 99 };
	unsigned int i;

	ds_table_string(table, ds_strings_get(acc->strings, b->key.service));
	ds_table_string(table, ds_strings_get(acc->strings, b->key.operation));
	ds_table_uint(table, b->count);
	ds_table_real(table, (double) b->total / (double) b->count);
	for (i = 0; i < G_N_ELEMENTS(percentiles); i++) {
		int64_t value;

		/* A read error of the spill is reported by ds_metrics_write's caller. */
		(void) ds_duration_list_percentile(b->durations, percentiles[i], &value);
		ds_table_int(table, value);
	}
	ds_table_int(table, b->durations->max);
	state_means(table, b->states, b->count);
	if (acc->has_cache) {
		ds_table_uint(table, b->cache[0]);
		ds_table_uint(table, b->cache[1]);
		ds_table_real(table, b->cache[0] ? (double) b->cache[2] / (double) b->cache[0] : 0.0);
		ds_table_real(table, b->cache[1] ? (double) b->cache[3] / (double) b->cache[1] : 0.0);
	}
}

static void write_syscall_row(const struct ds_metrics_acc *acc, const struct bucket *b,
		struct ds_table *table)
{
	ds_table_string(table, ds_strings_get(acc->strings, b->key.service));
	ds_table_string(table, ds_strings_get(acc->strings, b->key.operation));
	ds_table_string(table, ds_strings_get(acc->strings, b->key.name));
	ds_table_uint(table, b->count);
	ds_table_int(table, b->total);
	ds_table_real(table, b->count ? (double) b->total / (double) b->count : 0.0);
	ds_table_int(table, b->max);
}

static void write_thread_row(const struct ds_metrics_acc *acc, const struct bucket *b,
		struct ds_table *table)
{
	unsigned int s;

	ds_table_string(table, ds_strings_get(acc->strings, b->key.host));
	ds_table_int(table, b->key.pid);
	ds_table_int(table, b->key.tid);
	ds_table_uint(table, b->count);
	ds_table_int(table, b->total);
	for (s = 0; s < DS_STATE_COUNT; s++) {
		ds_table_uint(table, b->states[s]);
	}
}

static void write_request_rows(const struct ds_metrics_acc *acc, struct ds_table *table)
{
	uint32_t i;

	/* Rows by (input, trace id), whatever order the requests completed in. */
	g_array_sort(acc->rows, ds_record_compare_trace);
	for (i = 0; i < acc->rows->len; i++) {
		const struct request_row *row = &g_array_index(acc->rows, struct request_row, i);
		const struct ds_request_record *r = &row->record;
		char *text;
		unsigned int s;

		text = g_strdup_printf("0x%016" PRIx64 "%016" PRIx64, r->trace_id_high,
			r->trace_id_low);
		ds_table_string(table, text);
		g_free(text);
		text = g_strdup_printf("%s: %s", ds_strings_get(acc->strings, r->root_service),
			ds_strings_get(acc->strings, r->root_operation));
		ds_table_string(table, text);
		g_free(text);
		ds_table_uint(table, r->span_count);
		ds_table_int(table, r->latency);
		ds_table_bool(table, r->truncated);
		for (s = 0; s < DS_STATE_COUNT; s++) {
			ds_table_uint(table, row->states[s]);
		}
		if (acc->has_cache) {
			ds_table_uint(table, row->cache[0]);
			ds_table_uint(table, row->cache[1]);
			ds_table_uint(table, row->cache[3]);
		}
	}
}

static bool write_culprit_rows(struct ds_metrics_acc *acc, struct ds_table *table)
{
	ds_metrics_select_groups(acc);
	if (!ds_culprit_table_write(acc->culprit, acc->strings, &acc->selection, table, &acc->overflow_row)) {
		acc->overflow = true;
	}
	return !acc->overflow;
}

void ds_metrics_select_groups(struct ds_metrics_acc *acc)
{
	if (!acc->selected) {
		ds_select_groups(acc->strings, acc->records, acc->truncated_requests,
			&acc->groups[0], &acc->groups[1], false, &acc->selection);
		acc->selected = true;
	}
}

const struct ds_selection *ds_metrics_selection(const struct ds_metrics_acc *acc)
{
	return acc->selected ? &acc->selection : NULL;
}

static const char *const *columns_of(const struct ds_metrics_acc *acc)
{
	switch (acc->by) {
	case DS_METRICS_BY_REQUEST:
		return acc->has_cache ? request_cache_columns : request_columns;
	case DS_METRICS_BY_SYSCALL:
		return syscall_columns;
	case DS_METRICS_BY_THREAD:
		return thread_columns;
	case DS_METRICS_BY_CULPRIT:
		return ds_culprit_table_columns;
	case DS_METRICS_BY_HOST:
		return host_columns;
	default:
		return acc->has_cache ? operation_cache_columns : operation_columns;
	}
}

bool ds_metrics_write(struct ds_metrics_acc *acc, struct ds_table *table)
{
	GPtrArray *buckets;
	uint32_t i;

	ds_table_init(table, columns_of(acc));
	if (acc->by == DS_METRICS_BY_REQUEST) {
		write_request_rows(acc, table);
		return !acc->overflow;
	}
	if (acc->by == DS_METRICS_BY_CULPRIT) {
		return write_culprit_rows(acc, table);
	}
	if (acc->by == DS_METRICS_BY_HOST) {
		return ds_metrics_write_host_rows(acc, table);
	}
	buckets = sorted_buckets(acc);
	for (i = 0; i < buckets->len; i++) {
		struct bucket *b = g_ptr_array_index(buckets, i);

		if (acc->by == DS_METRICS_BY_OPERATION) {
			write_operation_row(acc, b, table);
		} else if (acc->by == DS_METRICS_BY_SYSCALL) {
			write_syscall_row(acc, b, table);
		} else {
			write_thread_row(acc, b, table);
		}
	}
	g_ptr_array_free(buckets, TRUE);
	return acc->spill.error == 0 && !acc->overflow;
}
