/* SPDX-License-Identifier: MIT */
/* sink.deepspan.metrics by="culprit" (culprit-table.h, doc/metrics.md "By culprit"). */
#include "culprit-table.h"

#include <inttypes.h>
#include <string.h>
#include <xxhash.h>

#include "span-consumer/attribution.h"

const char *const ds_culprit_table_columns[] = {
	"host", "process", "comm", "tid", "state", "kind", "b_mean", "a_mean", "b_minus_a", NULL,
};

/* A thread time is charged to (doc/metrics.md, "By culprit"). */
struct ds_culprit {
	uint32_t host;		/* interned */
	uint32_t process;	/* interned */
	uint32_t comm;		/* interned */
	uint32_t pad;
	int64_t tid;
};

/* Time of one request charged to one culprit in one state and kind. */
struct ds_culprit_time {
	uint32_t culprit;	/* id */
	uint8_t state;		/* enum ds_state */
	uint8_t kind;		/* enum ds_chain_kind; DS_CHAIN_KIND_COUNT = not in a chain ("-") */
	int64_t ns;
};

/* The run of a request's contributions in the table's contributions. */
struct ds_culprit_request {
	uint32_t first;
	uint32_t count;
};

struct ds_culprit_table {
	GArray *charged;		/* owned: struct ds_culprit_request, one per request recorded */
	GArray *contributions;		/* owned: struct ds_culprit_time, runs of the requests */
	GHashTable *culprit_ids;	/* owned: owned struct ds_culprit -> id + 1 */
	GPtrArray *culprits;		/* borrowed from culprit_ids' keys: id -> struct ds_culprit */
	GHashTable *request_times;	/* owned: one request's (culprit, state, kind) -> contribution + 1 */
	GPtrArray *visited;		/* owned: the spans entered while attributing one request (borrowed) */
};

/* One row of the table: exact sums per group. */
struct culprit_row {
	uint32_t culprit;
	uint8_t state;
	uint8_t kind;
	int64_t sum[2];		/* ns per group (A = 0, B = 1) */
	char *sort_key;		/* owned */
};

/* What the rows are written with. */
struct culprit_rows {
	const struct ds_culprit_table *t;
	const struct ds_strings *strings;	/* borrowed: names of the ids */
	uint64_t n_a, n_b;			/* requests in groups A and B */
};

static guint hash_culprit(gconstpointer p)
{
	return (guint) XXH3_64bits(p, sizeof(struct ds_culprit));
}

static gboolean equal_culprit(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct ds_culprit)) == 0;
}

struct ds_culprit_table *ds_culprit_table_create(void)
{
	struct ds_culprit_table *t = g_new0(struct ds_culprit_table, 1);

	t->charged = g_array_new(FALSE, FALSE, sizeof(struct ds_culprit_request));
	t->contributions = g_array_new(FALSE, FALSE, sizeof(struct ds_culprit_time));
	t->culprit_ids = g_hash_table_new_full(hash_culprit, equal_culprit, g_free, NULL);
	t->culprits = g_ptr_array_new();
	t->request_times = g_hash_table_new(g_direct_hash, g_direct_equal);
	t->visited = g_ptr_array_new();
	return t;
}

void ds_culprit_table_destroy(struct ds_culprit_table *t)
{
	if (!t) {
		return;
	}
	g_array_free(t->charged, TRUE);
	g_array_free(t->contributions, TRUE);
	g_ptr_array_free(t->culprits, TRUE);
	g_hash_table_destroy(t->culprit_ids);
	g_hash_table_destroy(t->request_times);
	g_ptr_array_free(t->visited, TRUE);
	g_free(t);
}

static void no_value(void *data, uint32_t handle, int64_t width)
{
	(void) data;
	(void) handle;
	(void) width;
}

/* The id of culprit (host, process, comm, tid). */
static uint32_t culprit_id(struct ds_culprit_table *t, uint32_t host, uint32_t process,
		uint32_t comm, int64_t tid)
{
	struct ds_culprit key = { host, process, comm, 0, tid };
	gpointer found = g_hash_table_lookup(t->culprit_ids, &key);
	struct ds_culprit *copy;

	if (found) {
		return GPOINTER_TO_UINT(found) - 1;
	}
	copy = g_memdup2(&key, sizeof(key));
	g_ptr_array_add(t->culprits, copy);
	g_hash_table_insert(t->culprit_ids, copy, GUINT_TO_POINTER(t->culprits->len));
	return t->culprits->len - 1;
}

/* Adds `ns` of the request being attributed to (culprit, state, kind). */
static void charge(struct ds_culprit_table *t, uint32_t culprit, unsigned int state,
		unsigned int kind, int64_t ns)
{
	gpointer key = GUINT_TO_POINTER((guint) (culprit << 8 | state << 4 | kind));
	gpointer found;
	struct ds_culprit_time time = { culprit, (uint8_t) state, (uint8_t) kind, ns };

	if (culprit >= (UINT32_C(1) << 24)) {
		g_array_append_val(t->contributions, time);	/* not merged: still exact */
		return;
	}
	found = g_hash_table_lookup(t->request_times, key);
	if (found) {
		g_array_index(t->contributions, struct ds_culprit_time,
			GPOINTER_TO_UINT(found) - 1).ns += ns;
		return;
	}
	g_array_append_val(t->contributions, time);
	g_hash_table_insert(t->request_times, key,
		GUINT_TO_POINTER(t->contributions->len));
}

static uint32_t culprit_enter(void *data, uint32_t parent_handle, const struct ds_span *span)
{
	struct ds_culprit_table *t = data;

	(void) parent_handle;
	g_ptr_array_add(t->visited, (gpointer) span);
	return t->visited->len;
}

/* Time outside chains: the span's own thread (named by its chain when it has one). */
static void culprit_leaf(void *data, uint32_t handle, unsigned int state, uint32_t detail,
		int64_t width)
{
	struct ds_culprit_table *t = data;
	const struct ds_span *span = g_ptr_array_index(t->visited, handle - 1);
	uint32_t process = span->chain_count ? span->chain[0].process : span->service;
	uint32_t comm = span->chain_count ? span->chain[0].comm : 0;

	(void) detail;
	charge(t, culprit_id(t, span->host, process, comm, span->tid), state,
		DS_CHAIN_KIND_COUNT, width);
}

/*
 * A chain leaf: its thread, except a wait-cpu leaf, charged to the thread
 * that ran instead on that CPU (`ran instead: comm/tid`, process unknown).
 */
static uint32_t culprit_chain(void *data, uint32_t handle, unsigned int state,
		uint32_t label, uint32_t note, int64_t width, bool leaf,
		const struct ds_stored_chain_entry *entry)
{
	struct ds_culprit_table *t = data;
	uint32_t culprit;

	(void) state;
	(void) label;
	(void) note;
	if (!leaf || !entry) {
		return handle;
	}
	culprit = culprit_id(t, entry->host, entry->process, entry->comm, entry->tid);
	if (entry->kind == DS_CHAIN_WAIT_CPU && entry->ran_comm) {
		culprit = culprit_id(t, entry->host, 0, entry->ran_comm, entry->ran_tid);
	} else if (entry->kind == DS_CHAIN_IN_FLIGHT && entry->ran_comm) {
		/* the network path (doc/storage-network.md, "Network") */
		culprit = culprit_id(t, entry->host, 0, entry->ran_comm, -1);
	}
	charge(t, culprit, entry->state, entry->kind, width);
	return handle;
}

void ds_culprit_table_add_request(struct ds_culprit_table *t, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, bool attribute)
{
	struct ds_culprit_request run = { t->contributions->len, 0 };
	const struct ds_visitor visitor = {
		.enter = culprit_enter,
		.value = no_value,
		.leaf = culprit_leaf,
		.data = t,
		.chain = culprit_chain,
	};

	if (attribute) {
		g_ptr_array_set_size(t->visited, 0);
		g_hash_table_remove_all(t->request_times);
		ds_attribute_request(store, requests, index, DS_MODE_CRITICAL_PATH, &visitor);
		g_ptr_array_set_size(t->visited, 0);
	}
	run.count = t->contributions->len - run.first;
	g_array_append_val(t->charged, run);
}

static __int128 row_delta(const struct culprit_rows *w, const struct culprit_row *r)
{
	return (__int128) r->sum[1] * (__int128) w->n_a - (__int128) r->sum[0] * (__int128) w->n_b;
}

/* Largest B - A first, then by host, process, comm, tid, state and kind; `data` is the struct culprit_rows. */
static gint compare_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct culprit_rows *w = data;
	const struct culprit_row *x = *(struct culprit_row *const *) a;
	const struct culprit_row *y = *(struct culprit_row *const *) b;
	__int128 dx = row_delta(w, x), dy = row_delta(w, y);

	if (dx != dy) {
		return dx > dy ? -1 : 1;
	}
	return strcmp(x->sort_key, y->sort_key);
}

/* A name, "-" when unknown (id 0, the empty string). */
static const char *name_or_none(const struct culprit_rows *w, uint32_t id)
{
	const char *text = ds_strings_get(w->strings, id);

	return text[0] ? text : DS_SPAN_NONE;
}

static double mean_of(int64_t sum, uint64_t n)
{
	return n ? (double) sum / (double) n : 0.0;
}

/* The row's name in an error: "host: comm/tid (process), state, kind". */
static char *row_name(const struct culprit_rows *w, const struct culprit_row *row)
{
	const struct ds_culprit *c = g_ptr_array_index(w->t->culprits, row->culprit);

	return g_strdup_printf("%s: %s/%" PRId64 " (%s), %s, %s", name_or_none(w, c->host), name_or_none(w, c->comm),
		c->tid, name_or_none(w, c->process), ds_state_name(row->state),
		row->kind < DS_CHAIN_KIND_COUNT ? ds_chain_kind_name(row->kind) : DS_SPAN_NONE);
}

/*
 * Sums the selected requests' times into `rows` by (culprit, state, kind); keys live in `keys`.  False when a
 * sum leaves int64 (`*overflow_row`: the first such row).
 */
static bool sum_rows(const struct culprit_rows *w, const struct ds_selection *selection, GHashTable *rows,
		GArray *keys, char **overflow_row)
{
	const struct ds_culprit_table *t = w->t;
	bool ok = true;
	unsigned int g;
	uint32_t i, j;

	for (g = 0; g < 2; g++) {
		const GArray *members = selection->members[g];

		for (i = 0; i < members->len; i++) {
			const struct ds_culprit_request *run = &g_array_index(t->charged,
				struct ds_culprit_request, g_array_index(members, uint32_t, i));

			for (j = 0; j < run->count; j++) {
				const struct ds_culprit_time *time = &g_array_index(t->contributions,
					struct ds_culprit_time, run->first + j);
				gint64 key = (gint64) ((uint64_t) time->culprit << 16 |
					(uint64_t) time->state << 8 | time->kind);
				struct culprit_row *row = g_hash_table_lookup(rows, &key);

				if (!row) {
					row = g_new0(struct culprit_row, 1);
					row->culprit = time->culprit;
					row->state = time->state;
					row->kind = time->kind;
					g_array_append_val(keys, key);
					g_hash_table_insert(rows, &g_array_index(keys, gint64,
						keys->len - 1), row);
				}
				if (__builtin_add_overflow(row->sum[g], time->ns, &row->sum[g])) {
					if (ok && overflow_row && !*overflow_row) {
						*overflow_row = row_name(w, row);
					}
					ok = false;
				}
			}
		}
	}
	return ok;
}

/* The rows in the table's order (compare_rows), each with its sort key. */
static GPtrArray *sort_rows(const struct culprit_rows *w, GHashTable *rows)
{
	GPtrArray *sorted = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, rows);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct culprit_row *row = value;
		const struct ds_culprit *c = g_ptr_array_index(w->t->culprits, row->culprit);

		row->sort_key = g_strdup_printf("%s\x1f%s\x1f%s\x1f%020" PRIu64 "\x1f%u\x1f%u",
			ds_strings_get(w->strings, c->host), ds_strings_get(w->strings, c->process),
			ds_strings_get(w->strings, c->comm), (uint64_t) c->tid ^ (UINT64_C(1) << 63),
			row->state, row->kind);
		g_ptr_array_add(sorted, row);
	}
	g_ptr_array_sort_with_data(sorted, compare_rows, (gpointer) w);
	return sorted;
}

bool ds_culprit_table_write(struct ds_culprit_table *t, const struct ds_strings *strings,
		const struct ds_selection *selection, struct ds_table *out, char **overflow_row)
{
	struct culprit_rows w = { t, strings, selection->members[0]->len, selection->members[1]->len };
	GHashTable *rows = g_hash_table_new(g_int64_hash, g_int64_equal);
	/* Keys live in `keys`, sized up front so that they never move (rows <= contributions). */
	GArray *keys = g_array_sized_new(FALSE, FALSE, sizeof(gint64), t->contributions->len + 1);
	bool ok = sum_rows(&w, selection, rows, keys, overflow_row);
	GPtrArray *sorted = sort_rows(&w, rows);
	uint32_t i;

	for (i = 0; i < sorted->len; i++) {
		struct culprit_row *row = g_ptr_array_index(sorted, i);
		const struct ds_culprit *c = g_ptr_array_index(t->culprits, row->culprit);

		ds_table_string(out, name_or_none(&w, c->host));
		ds_table_string(out, name_or_none(&w, c->process));
		ds_table_string(out, name_or_none(&w, c->comm));
		ds_table_int(out, c->tid);
		ds_table_string(out, ds_state_name(row->state));
		ds_table_string(out, row->kind < DS_CHAIN_KIND_COUNT ? ds_chain_kind_name(row->kind) : DS_SPAN_NONE);
		ds_table_real(out, mean_of(row->sum[1], w.n_b));
		ds_table_real(out, mean_of(row->sum[0], w.n_a));
		ds_table_real(out, mean_of(row->sum[1], w.n_b) - mean_of(row->sum[0], w.n_a));
		g_free(row->sort_key);
		g_free(row);
	}
	g_ptr_array_free(sorted, TRUE);
	g_hash_table_destroy(rows);
	g_array_free(keys, TRUE);
	return ok;
}
