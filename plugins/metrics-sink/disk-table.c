/* SPDX-License-Identifier: MIT */
/*
 * sink.deepspan.metrics by="disk": see disk-table.h.
 */
#include "disk-table.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

static const char *const disk_columns[] = {
	"host", "device", "submitter", "tid", "requests", "writes", "bytes", "queue", "device_time",
	"queue_mean", "device_mean", NULL,
};

enum { V_REQUESTS, V_WRITES, V_BYTES, V_QUEUE, V_DEVICE, V_COUNT };

static const char *const value_names[V_COUNT] = { "requests", "writes", "bytes", "queue", "device_time" };

struct disk_row {
	char *host, *device, *submitter;	/* owned */
	int64_t tid;
	uint64_t values[V_COUNT];
};

struct ds_disk_table {
	GHashTable *rows;	/* owned; "host\x1f" "device\x1f" "submitter\x1f" "tid" (owned) -> struct disk_row * (owned) */
	uint64_t events;
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
	return table;
}

void ds_disk_table_destroy(struct ds_disk_table *table)
{
	if (table) {
		g_hash_table_destroy(table->rows);
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

void ds_disk_table_write(const struct ds_disk_table *table, struct ds_table *out)
{
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;
	guint i;

	ds_table_init(out, disk_columns);
	g_hash_table_iter_init(&iter, table->rows);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(rows, value);
	}
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
	}
	g_ptr_array_free(rows, TRUE);
}
