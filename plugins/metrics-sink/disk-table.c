/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics by="disk": see disk-table.h.
 */
#include "disk-table.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "span-consumer/request-tree.h"

static const char *const disk_columns[] = {
	"host", "device", "submitter", "tid", "requests", "writes", "bytes", "queue", "device_time",
	"queue_mean", "device_mean", "b_requests", "a_requests", "b_queue", "a_queue", "b_device_time",
	"a_device_time", "b_bytes", "a_bytes", "b_ahead_bytes", "a_ahead_bytes", NULL,
};

/* An empty table (no deepspan:disk event, no disk chain entry: layers off) keeps the header of before. */
static const char *const plain_columns[] = {
	"host", "device", "submitter", "tid", "requests", "writes", "bytes", "queue", "device_time",
	"queue_mean", "device_mean", "b_requests", "a_requests", "b_queue", "a_queue", "b_device_time",
	"a_device_time", NULL,
};

/* What the chains of the groups' requests give a row (doc/metrics.md, "By disk"). */
enum {
	G_REQUESTS, G_QUEUE, G_DEVICE,
	G_BYTES,		/* of the device-time leaves: the requests' exact bytes */
	G_AHEAD_BYTES,		/* of the queue leaves: the top submitter's bytes served ahead */
	G_UNKNOWN_BYTES,	/* leaves without exact bytes (a trace written before the chain member `bytes`) */
	G_COUNT,
	G_TIMES = G_BYTES,	/* the columns written as before: requests, queue, device time */
};

/* One request's chain time on one row. */
struct disk_contribution {
	uint32_t key;		/* id in ds_disk_table.key_names */
	uint32_t pad;
	uint64_t values[G_COUNT];
};

/* The run of one request's contributions. */
struct disk_run {
	uint32_t first;
	uint32_t count;
};

enum { V_REQUESTS, V_WRITES, V_BYTES, V_QUEUE, V_DEVICE, V_COUNT };

static const char *const value_names[V_COUNT] = { "requests", "writes", "bytes", "queue", "device_time" };

struct disk_row {
	char *host, *device, *submitter;	/* owned */
	int64_t tid;
	uint64_t values[V_COUNT];
	uint64_t groups[2][G_COUNT];	/* sums over the chains of group A (0) and B (1) */
};

struct ds_disk_table {
	GHashTable *rows;	/* owned; "host\x1f" "device\x1f" "submitter\x1f" "tid" (owned) -> struct disk_row * (owned) */
	uint64_t events;
	/* Groups B and A: the chain disk entries of each request (ds_disk_table_add_request()). */
	GHashTable *key_ids;	/* owned: row key (owned, as `rows`) -> id + 1 */
	GPtrArray *key_names;	/* borrowed from key_ids' keys: id -> row key */
	GArray *runs;		/* owned: struct disk_run, one per request added */
	GArray *contributions;	/* owned: struct disk_contribution */
	GHashTable *seen;	/* owned: scratch, the leaves already counted for the request being added (owned keys) */
};

static void row_free(gpointer data)
{
	struct disk_row *row = data;

	g_free(row->host);
	g_free(row->device);
	g_free(row->submitter);
	g_free(row);
}

struct ds_disk_table *ds_disk_table_create(void)
{
	struct ds_disk_table *table = g_new0(struct ds_disk_table, 1);

	table->rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, row_free);
	table->key_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	table->key_names = g_ptr_array_new();
	table->runs = g_array_new(FALSE, FALSE, sizeof(struct disk_run));
	table->contributions = g_array_new(FALSE, FALSE, sizeof(struct disk_contribution));
	table->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return table;
}

void ds_disk_table_destroy(struct ds_disk_table *table)
{
	if (table) {
		g_hash_table_destroy(table->rows);
		g_ptr_array_free(table->key_names, TRUE);
		g_hash_table_destroy(table->key_ids);
		g_array_free(table->runs, TRUE);
		g_array_free(table->contributions, TRUE);
		g_hash_table_destroy(table->seen);
		g_free(table);
	}
}

uint64_t ds_disk_table_events(const struct ds_disk_table *table)
{
	return table->events;
}

/* Member `name` of `payload` when it has `type`, else NULL. */
static const bt_field *member(const bt_field *payload, const char *name, bt_field_class_type type)
{
	const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(payload, name);

	return f && bt_field_class_type_is(bt_field_get_class_type(f), type) ? f : NULL;
}

bool ds_disk_table_read(struct ds_disk_table *table, bt_self_component *self_comp, const char *class_name,
		const bt_message *const *messages, uint64_t count)
{
	uint64_t i;
	unsigned int v;

	for (i = 0; i < count; i++) {
		const bt_event *event;
		const bt_field *payload, *host, *device, *submitter, *tid, *values[V_COUNT];
		const char *name;
		struct disk_row *row;
		char *key;

		if (bt_message_get_type(messages[i]) != BT_MESSAGE_TYPE_EVENT) {
			continue;
		}
		event = bt_message_event_borrow_event_const(messages[i]);
		name = bt_event_class_get_name(bt_event_borrow_class_const(event));
		if (!name || strcmp(name, "deepspan:disk") != 0) {
			continue;
		}
		payload = bt_event_borrow_payload_field_const(event);
		host = payload ? member(payload, "host", BT_FIELD_CLASS_TYPE_STRING) : NULL;
		device = payload ? member(payload, "device", BT_FIELD_CLASS_TYPE_STRING) : NULL;
		submitter = payload ? member(payload, "submitter", BT_FIELD_CLASS_TYPE_STRING) : NULL;
		tid = payload ? member(payload, "tid", BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) : NULL;
		for (v = 0; v < V_COUNT; v++) {
			values[v] = payload ? member(payload, value_names[v], BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER) : NULL;
			if (!values[v]) {
				host = NULL;
			}
		}
		if (!host || !device || !submitter || !tid) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
				"%s: event `deepspan:disk` lacks one of the members host, device, submitter (strings), "
				"tid (signed), requests, writes, bytes, queue, device_time (unsigned) "
				"(doc/storage-network.md, \"Storage\"); is the producer filter.deepspan.span-attrib?",
				class_name);
			return false;
		}
		key = g_strdup_printf("%s\x1f%s\x1f%s\x1f%" PRId64, bt_field_string_get_value(host),
			bt_field_string_get_value(device), bt_field_string_get_value(submitter),
			bt_field_integer_signed_get_value(tid));
		row = g_hash_table_lookup(table->rows, key);
		if (!row) {
			row = g_new0(struct disk_row, 1);
			row->host = g_strdup(bt_field_string_get_value(host));
			row->device = g_strdup(bt_field_string_get_value(device));
			row->submitter = g_strdup(bt_field_string_get_value(submitter));
			row->tid = bt_field_integer_signed_get_value(tid);
			g_hash_table_insert(table->rows, key, row);
		} else {
			g_free(key);
		}
		for (v = 0; v < V_COUNT; v++) {
			row->values[v] += bt_field_integer_unsigned_get_value(values[v]);
		}
		table->events++;
	}
	return true;
}

/*
 * The device of a disk entry's detail `<syscall> ← disk DEVICE read|write SIZE at sector N`
 * (span-attrib's chain-walk.c) as a new string, NULL when the detail is not of that form.
 */
static char *disk_entry_device(const char *detail)
{
	static const char marker[] = "\u2190 disk ";
	const char *start = strstr(detail, marker), *end, *rw;

	if (!start) {
		return NULL;
	}
	start += sizeof(marker) - 1;
	end = g_strrstr(start, " at sector ");
	if (!end) {
		return NULL;
	}
	rw = g_strrstr_len(start, end - start, " write ");
	if (!rw) {
		rw = g_strrstr_len(start, end - start, " read ");
	}
	return rw && rw > start ? g_strndup(start, rw - start) : NULL;
}

/* The id of row key `key` (taken). */
static uint32_t key_id(struct ds_disk_table *table, char *key)
{
	gpointer found = g_hash_table_lookup(table->key_ids, key);

	if (found) {
		g_free(key);
		return GPOINTER_TO_UINT(found) - 1;
	}
	g_ptr_array_add(table->key_names, key);
	g_hash_table_insert(table->key_ids, key, GUINT_TO_POINTER(table->key_names->len));
	return table->key_names->len - 1;
}

/* Adds `values` of row `key` to the request's run starting at `first`, merging with the same row. */
static void contribute(struct ds_disk_table *table, uint32_t first, uint32_t key, const uint64_t *values)
{
	struct disk_contribution c = { .key = key };
	guint i;
	unsigned int v;

	for (i = first; i < table->contributions->len; i++) {
		struct disk_contribution *old = &g_array_index(table->contributions, struct disk_contribution, i);

		if (old->key == key) {
			for (v = 0; v < G_COUNT; v++) {
				old->values[v] += values[v];
			}
			return;
		}
	}
	memcpy(c.values, values, sizeof(c.values));
	g_array_append_val(table->contributions, c);
}

void ds_disk_table_add_request(struct ds_disk_table *table, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index)
{
	const struct ds_request *request = ds_request_at(requests, index);
	struct disk_run run = { table->contributions->len, 0 };
	uint32_t i, k;

	for (i = 0; i < request->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, g_array_index(requests->spans, uint32_t,
			request->first_span + i));

		for (k = 0; k < span->chain_count; k++) {
			const struct ds_stored_chain_entry *e = &span->chain[k], *parent;
			const char *detail;
			uint64_t values[G_COUNT] = { 0 };
			char *device, *leaf;

			/* only the children of a disk entry, and only then the strings */
			if (e->kind != DS_CHAIN_DISK || e->parent < 0 || (uint32_t) e->parent >= span->chain_count ||
					span->chain[e->parent].kind != DS_CHAIN_DISK) {
				continue;
			}
			parent = &span->chain[e->parent];
			detail = ds_store_string(store, e->detail);
			if (g_str_has_prefix(detail, "device ")) {
				values[G_REQUESTS] = 1;
				values[G_DEVICE] = (uint64_t) (e->end - e->begin);
				values[G_BYTES] = e->bytes;
			} else if (g_str_has_prefix(detail, "queued ")) {
				values[G_QUEUE] = (uint64_t) (e->end - e->begin);
				values[G_AHEAD_BYTES] = e->bytes;
			} else {
				continue;
			}
			if (e->bytes == DS_CHAIN_BYTES_UNKNOWN) {
				values[G_BYTES] = values[G_AHEAD_BYTES] = 0;
				values[G_UNKNOWN_BYTES] = 1;
			}
			/* the same wait shows in the chains of the spans waiting on it: counted once */
			leaf = g_strdup_printf("%u\x1f%" PRId64 "\x1f%" PRId64 "\x1f%" PRId64 "\x1f%c", parent->host,
				parent->tid, e->begin, e->end, detail[0]);
			if (!g_hash_table_add(table->seen, leaf)) {
				continue;
			}
			device = disk_entry_device(ds_store_string(store, parent->detail));
			if (!device) {
				continue;
			}
			contribute(table, run.first, key_id(table, g_strdup_printf("%s\x1f%s\x1f%s\x1f%" PRId64,
				ds_store_string(store, parent->host), device, ds_store_string(store, parent->comm),
				parent->tid)), values);
			g_free(device);
		}
	}
	g_hash_table_remove_all(table->seen);
	run.count = table->contributions->len - run.first;
	g_array_append_val(table->runs, run);
}

/* The row of `key` ("host\x1f" "device\x1f" "submitter\x1f" "tid"), created empty when the events had none. */
static struct disk_row *row_of_key(struct ds_disk_table *table, const char *key)
{
	struct disk_row *row = g_hash_table_lookup(table->rows, key);
	gchar **parts;

	if (row) {
		return row;
	}
	parts = g_strsplit(key, "\x1f", 4);
	row = g_new0(struct disk_row, 1);
	row->host = g_strdup(parts[0]);
	row->device = g_strdup(parts[1]);
	row->submitter = g_strdup(parts[2]);
	row->tid = g_ascii_strtoll(parts[3], NULL, 10);
	g_strfreev(parts);
	g_hash_table_insert(table->rows, g_strdup(key), row);
	return row;
}

static gint row_order(gconstpointer a, gconstpointer b)
{
	const struct disk_row *x = *(const struct disk_row *const *) a, *y = *(const struct disk_row *const *) b;
	uint64_t tx = x->values[V_QUEUE] + x->values[V_DEVICE], ty = y->values[V_QUEUE] + y->values[V_DEVICE];
	int c;

	if (tx != ty) {
		return tx > ty ? -1 : 1;
	}
	if ((c = strcmp(x->host, y->host)) || (c = strcmp(x->device, y->device)) ||
			(c = strcmp(x->submitter, y->submitter))) {
		return c;
	}
	return x->tid < y->tid ? -1 : (x->tid > y->tid ? 1 : 0);
}

void ds_disk_table_write(struct ds_disk_table *table, const struct ds_selection *selection,
		struct ds_table *out)
{
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;
	guint i, j, g;

	for (g = 0; g < 2; g++) {
		const GArray *members = selection->members[g];

		for (i = 0; i < members->len; i++) {
			uint32_t request = g_array_index(members, uint32_t, i);
			const struct disk_run *run;

			if (request >= table->runs->len) {
				continue;
			}
			run = &g_array_index(table->runs, struct disk_run, request);
			for (j = 0; j < run->count; j++) {
				const struct disk_contribution *c = &g_array_index(table->contributions,
					struct disk_contribution, run->first + j);
				struct disk_row *row = row_of_key(table, g_ptr_array_index(table->key_names, c->key));
				unsigned int v;

				for (v = 0; v < G_COUNT; v++) {
					/* ns of chain entries within the requests: far below 2^64 */
					row->groups[g][v] += c->values[v];
				}
			}
		}
	}
	g_hash_table_iter_init(&iter, table->rows);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(rows, value);
	}
	ds_table_init(out, rows->len || table->events ? disk_columns : plain_columns);
	g_ptr_array_sort(rows, row_order);
	for (i = 0; i < rows->len; i++) {
		const struct disk_row *row = g_ptr_array_index(rows, i);
		uint64_t n = row->values[V_REQUESTS];
		unsigned int v;

		ds_table_string(out, row->host);
		ds_table_string(out, row->device);
		ds_table_string(out, row->submitter);
		ds_table_int(out, row->tid);
		for (v = 0; v < V_COUNT; v++) {
			ds_table_uint(out, row->values[v]);
		}
		ds_table_real(out, n ? (double) row->values[V_QUEUE] / (double) n : 0.0);
		ds_table_real(out, n ? (double) row->values[V_DEVICE] / (double) n : 0.0);
		for (v = 0; v < G_TIMES; v++) {
			ds_table_uint(out, row->groups[1][v]);
			ds_table_uint(out, row->groups[0][v]);
		}
		for (v = G_BYTES; v <= G_AHEAD_BYTES; v++) {
			for (g = 2; g-- > 0;) {
				if (row->groups[g][G_UNKNOWN_BYTES]) {
					ds_table_string(out, "unknown");
				} else {
					ds_table_uint(out, row->groups[g][v]);
				}
			}
		}
	}
	g_ptr_array_free(rows, TRUE);
}
