#include "metrics-build.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "attribution.h"
#include "request-tree.h"

#define SKEW_TOLERANCE_NS 5000

const char *const ds_metrics_by_names[] = {
	"operation", "request", "syscall", "thread", NULL,
};

static const char *const operation_columns[] = {
	"service", "operation", "count", "mean", "p50", "p95", "p99", "max",
	"user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown", NULL,
};

static const char *const request_columns[] = {
	"trace_id", "root", "spans", "latency", "truncated",
	"user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown", NULL,
};

static const char *const syscall_columns[] = {
	"service", "operation", "syscall", "count", "total", "mean", "max_per_span", NULL,
};

static const char *const thread_columns[] = {
	"host", "pid", "tid", "spans", "span_time",
	"user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown", NULL,
};

int64_t ds_percentile(const int64_t *values, uint32_t n, double p)
{
	double rank = ceil(p / 100.0 * (double) n);
	uint32_t index = rank < 1 ? 0 : (uint32_t) rank - 1;

	if (n == 0) {
		return 0;
	}
	return values[index < n ? index : n - 1];
}

/* One row of a keyed accumulation. */
struct bucket {
	uint32_t first_span;	/* a representative span (names) */
	uint32_t name;		/* syscall name id */
	uint64_t count;
	int64_t total;
	int64_t max;
	uint64_t states[DS_STATE_COUNT];
	GArray *durations;	/* owned (operation table): int64_t */
};

static void free_bucket(gpointer data)
{
	struct bucket *bucket = data;

	if (bucket->durations) {
		g_array_free(bucket->durations, TRUE);
	}
	g_free(bucket);
}

static struct bucket *bucket_for(GHashTable *buckets, char *key, uint32_t span)
{
	struct bucket *bucket = g_hash_table_lookup(buckets, key);

	if (bucket) {
		g_free(key);
		return bucket;
	}
	bucket = g_new0(struct bucket, 1);
	bucket->first_span = span;
	g_hash_table_insert(buckets, key, bucket);
	return bucket;
}

static gint compare_keys(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static gint compare_int64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* Keys of `buckets` sorted (they sort the rows). */
static GPtrArray *sorted_keys(GHashTable *buckets)
{
	GPtrArray *keys = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, buckets);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		g_ptr_array_add(keys, key);
	}
	g_ptr_array_sort(keys, compare_keys);
	return keys;
}

static void state_means(struct ds_table *table, const uint64_t *states, uint64_t count)
{
	unsigned int s;

	for (s = 0; s < DS_STATE_COUNT; s++) {
		ds_table_real(table, count ? (double) states[s] / (double) count : 0.0);
	}
}

static void by_operation(struct ds_span_store *store, struct ds_table *table)
{
	GHashTable *buckets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_bucket);
	GPtrArray *keys;
	uint32_t i;

	ds_table_init(table, operation_columns);
	for (i = 0; i < store->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, i);
		struct bucket *b = bucket_for(buckets, g_strdup_printf("%s\x1f%s",
			ds_store_string(store, span->service),
			ds_store_string(store, span->operation)), i);
		int64_t duration = span->end - span->begin;
		unsigned int s;

		if (!b->durations) {
			b->durations = g_array_new(FALSE, FALSE, sizeof(int64_t));
		}
		g_array_append_val(b->durations, duration);
		b->count++;
		b->total += duration;
		for (s = 0; s < DS_STATE_COUNT; s++) {
			b->states[s] += span->states[s];
		}
	}
	keys = sorted_keys(buckets);
	for (i = 0; i < keys->len; i++) {
		struct bucket *b = g_hash_table_lookup(buckets, g_ptr_array_index(keys, i));
		const struct ds_span *span = ds_store_span(store, b->first_span);
		const int64_t *d = (const int64_t *) b->durations->data;

		g_array_sort(b->durations, compare_int64);
		ds_table_string(table, ds_store_string(store, span->service));
		ds_table_string(table, ds_store_string(store, span->operation));
		ds_table_uint(table, b->count);
		ds_table_real(table, (double) b->total / (double) b->count);
		ds_table_int(table, ds_percentile(d, b->durations->len, 50));
		ds_table_int(table, ds_percentile(d, b->durations->len, 95));
		ds_table_int(table, ds_percentile(d, b->durations->len, 99));
		ds_table_int(table, d[b->durations->len - 1]);
		state_means(table, b->states, b->count);
	}
	g_ptr_array_free(keys, TRUE);
	g_hash_table_destroy(buckets);
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

static void by_request(struct ds_span_store *store, struct ds_table *table)
{
	struct ds_requests requests;
	uint32_t i;

	ds_table_init(table, request_columns);
	ds_requests_build(&requests, store, SKEW_TOLERANCE_NS);
	for (i = 0; i < requests.requests->len; i++) {
		const struct ds_request *r = ds_request_at(&requests, i);
		const struct ds_span *root = ds_store_span(store, r->root);
		uint64_t states[DS_STATE_COUNT] = { 0 };
		const struct ds_visitor visitor = { sum_enter, sum_value, sum_leaf, states };
		char *text;
		unsigned int s;

		ds_attribute_request(store, &requests, i, DS_MODE_CRITICAL_PATH, &visitor);
		text = g_strdup_printf("0x%016" PRIx64 "%016" PRIx64, r->trace_id_high,
			r->trace_id_low);
		ds_table_string(table, text);
		g_free(text);
		text = g_strdup_printf("%s: %s", ds_store_string(store, root->service),
			ds_store_string(store, root->operation));
		ds_table_string(table, text);
		g_free(text);
		ds_table_uint(table, r->span_count);
		ds_table_int(table, r->latency);
		ds_table_bool(table, r->truncated);
		for (s = 0; s < DS_STATE_COUNT; s++) {
			ds_table_uint(table, states[s]);
		}
	}
	ds_requests_fini(&requests);
}

static void by_syscall(struct ds_span_store *store, struct ds_table *table)
{
	GHashTable *buckets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_bucket);
	GPtrArray *keys;
	uint32_t i, k;

	ds_table_init(table, syscall_columns);
	for (i = 0; i < store->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, i);
		const struct ds_syscall_total *calls = ds_store_syscalls(store, span);

		for (k = 0; k < span->syscall_count; k++) {
			struct bucket *b = bucket_for(buckets, g_strdup_printf("%s\x1f%s\x1f%s",
				ds_store_string(store, span->service),
				ds_store_string(store, span->operation),
				ds_store_string(store, calls[k].name)), i);

			b->name = calls[k].name;
			b->count += calls[k].count;
			b->total += (int64_t) calls[k].duration;
			b->max = MAX(b->max, (int64_t) calls[k].duration);
		}
	}
	keys = sorted_keys(buckets);
	for (i = 0; i < keys->len; i++) {
		struct bucket *b = g_hash_table_lookup(buckets, g_ptr_array_index(keys, i));
		const struct ds_span *span = ds_store_span(store, b->first_span);

		ds_table_string(table, ds_store_string(store, span->service));
		ds_table_string(table, ds_store_string(store, span->operation));
		ds_table_string(table, ds_store_string(store, b->name));
		ds_table_uint(table, b->count);
		ds_table_int(table, b->total);
		ds_table_real(table, b->count ? (double) b->total / (double) b->count : 0.0);
		ds_table_int(table, b->max);
	}
	g_ptr_array_free(keys, TRUE);
	g_hash_table_destroy(buckets);
}

static void by_thread(struct ds_span_store *store, struct ds_table *table)
{
	GHashTable *buckets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_bucket);
	GPtrArray *keys;
	uint32_t i;

	ds_table_init(table, thread_columns);
	for (i = 0; i < store->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, i);
		/* Zero-padded so that the key order is the numeric order. */
		struct bucket *b = bucket_for(buckets, g_strdup_printf("%s\x1f%020" PRId64
			"\x1f%020" PRId64, ds_store_string(store, span->host),
			span->pid + INT64_MAX / 2, span->tid + INT64_MAX / 2), i);
		unsigned int s;

		b->count++;
		b->total += span->end - span->begin;
		for (s = 0; s < DS_STATE_COUNT; s++) {
			b->states[s] += span->states[s];
		}
	}
	keys = sorted_keys(buckets);
	for (i = 0; i < keys->len; i++) {
		struct bucket *b = g_hash_table_lookup(buckets, g_ptr_array_index(keys, i));
		const struct ds_span *span = ds_store_span(store, b->first_span);
		unsigned int s;

		ds_table_string(table, ds_store_string(store, span->host));
		ds_table_int(table, span->pid);
		ds_table_int(table, span->tid);
		ds_table_uint(table, b->count);
		ds_table_int(table, b->total);
		for (s = 0; s < DS_STATE_COUNT; s++) {
			ds_table_uint(table, b->states[s]);
		}
	}
	g_ptr_array_free(keys, TRUE);
	g_hash_table_destroy(buckets);
}

void ds_metrics_build(struct ds_span_store *store, enum ds_metrics_by by,
		struct ds_table *table)
{
	switch (by) {
	case DS_METRICS_BY_OPERATION:
		by_operation(store, table);
		break;
	case DS_METRICS_BY_REQUEST:
		by_request(store, table);
		break;
	case DS_METRICS_BY_SYSCALL:
		by_syscall(store, table);
		break;
	case DS_METRICS_BY_THREAD:
		by_thread(store, table);
		break;
	}
}
