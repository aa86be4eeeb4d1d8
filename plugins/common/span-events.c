/* SPDX-License-Identifier: MIT */
#include "span-events.h"

#include <glib.h>
#include <string.h>

struct ds_span_events {
	GHashTable *by_class;	/* owned; const bt_event_class * (borrowed) -> struct ds_span_class * (owned) */
};

struct name_entry {
	const char *name;
	enum ds_span_event_kind kind;
	enum ds_span_schema schema;
};

static const struct name_entry span_event_names[] = {
	{ "jaeger_ust:start_span", DS_SPAN_EVENT_START, DS_SPAN_SCHEMA_JAEGER },
	{ "jaeger_ust:end_span", DS_SPAN_EVENT_END, DS_SPAN_SCHEMA_JAEGER },
	{ "deepspan_ust:span_start", DS_SPAN_EVENT_START, DS_SPAN_SCHEMA_DEEPSPAN },
	{ "deepspan_ust:span_end", DS_SPAN_EVENT_END, DS_SPAN_SCHEMA_DEEPSPAN },
	{ "deepspan_ust:span_activate", DS_SPAN_EVENT_ACTIVATE, DS_SPAN_SCHEMA_DEEPSPAN },
	{ "deepspan_ust:span_deactivate", DS_SPAN_EVENT_DEACTIVATE, DS_SPAN_SCHEMA_DEEPSPAN },
};

enum ds_span_event_kind ds_span_event_kind_from_name(const char *name,
		enum ds_span_schema *schema)
{
	size_t i;

	*schema = DS_SPAN_SCHEMA_NONE;
	if (!name) {
		return DS_SPAN_EVENT_NONE;
	}
	for (i = 0; i < G_N_ELEMENTS(span_event_names); i++) {
		if (strcmp(name, span_event_names[i].name) == 0) {
			*schema = span_event_names[i].schema;
			return span_event_names[i].kind;
		}
	}
	return DS_SPAN_EVENT_NONE;
}

const char *ds_span_kind_name(int span_kind)
{
	static const char *const names[] = { "internal", "server", "client", "producer", "consumer" };

	if (span_kind >= 0 && span_kind < (int) G_N_ELEMENTS(names)) {
		return names[span_kind];
	}
	return "unknown";
}

/* Requires an integer field: records its name in `missing` otherwise. */
static void require_int(struct ds_span_class *cls, struct ds_field_ref ref, const char *name)
{
	if (!cls->missing && !ds_field_ref_is_int(ref)) {
		cls->missing = name;
	}
}

static void require_string(struct ds_span_class *cls, struct ds_field_ref ref, const char *name)
{
	if (!cls->missing && ref.kind != DS_FIELD_KIND_STRING) {
		cls->missing = name;
	}
}

/* Optional fields of the wrong type are ignored (treated as absent). */
static struct ds_field_ref optional(struct ds_field_ref ref, enum ds_field_kind want)
{
	bool ok = want == DS_FIELD_KIND_STRING ? ref.kind == DS_FIELD_KIND_STRING : ds_field_ref_is_int(ref);

	if (!ok) {
		ref.scope = DS_FIELD_SCOPE_NONE;
		ref.kind = DS_FIELD_KIND_NONE;
	}
	return ref;
}

void ds_span_class_init(struct ds_span_class *cls, const bt_event_class *ec)
{
	memset(cls, 0, sizeof(*cls));
	cls->kind = ds_span_event_kind_from_name(bt_event_class_get_name(ec), &cls->schema);
	if (cls->kind == DS_SPAN_EVENT_NONE) {
		return;
	}
	cls->trace_id_high = ds_field_ref_find_any(ec, "trace_id_high");
	cls->trace_id_low = ds_field_ref_find_any(ec, "trace_id_low");
	cls->span_id = ds_field_ref_find_any(ec, "span_id");
	require_int(cls, cls->trace_id_high, "trace_id_high");
	require_int(cls, cls->trace_id_low, "trace_id_low");
	require_int(cls, cls->span_id, "span_id");
	if (cls->kind == DS_SPAN_EVENT_START) {
		cls->parent_span_id = ds_field_ref_find_any(ec, "parent_span_id");
		require_int(cls, cls->parent_span_id, "parent_span_id");
		if (cls->schema == DS_SPAN_SCHEMA_JAEGER) {
			cls->operation = ds_field_ref_find_any(ec, "op_name");
			require_string(cls, cls->operation, "op_name");
			cls->start_time = optional(ds_field_ref_find_any(ec, "start_time"), DS_FIELD_KIND_SIGNED);
		} else {
			cls->service = ds_field_ref_find_any(ec, "service");
			cls->operation = ds_field_ref_find_any(ec, "operation");
			require_string(cls, cls->service, "service");
			require_string(cls, cls->operation, "operation");
			cls->span_kind = optional(ds_field_ref_find_any(ec, "kind"), DS_FIELD_KIND_UNSIGNED);
		}
	} else if (cls->kind == DS_SPAN_EVENT_END) {
		if (cls->schema == DS_SPAN_SCHEMA_JAEGER) {
			cls->duration = optional(ds_field_ref_find_any(ec, "duration"), DS_FIELD_KIND_SIGNED);
		} else {
			cls->status = optional(ds_field_ref_find_any(ec, "status"), DS_FIELD_KIND_UNSIGNED);
		}
	}
	cls->vpid = optional(ds_field_ref_find_any(ec, "vpid"), DS_FIELD_KIND_SIGNED);
	cls->vtid = optional(ds_field_ref_find_any(ec, "vtid"), DS_FIELD_KIND_SIGNED);
	cls->procname = optional(ds_field_ref_find_any(ec, "procname"), DS_FIELD_KIND_STRING);
}

void ds_span_event_decode(const struct ds_span_class *cls, const bt_event *event,
		struct ds_span_event *out)
{
	struct ds_event_scopes scopes;

	ds_event_scopes_init(&scopes, event);
	out->kind = cls->kind;
	out->schema = cls->schema;
	out->trace_id_high = ds_scoped_read_uint(&scopes, cls->trace_id_high, 0);
	out->trace_id_low = ds_scoped_read_uint(&scopes, cls->trace_id_low, 0);
	out->span_id = ds_scoped_read_uint(&scopes, cls->span_id, 0);
	out->parent_span_id = ds_scoped_read_uint(&scopes, cls->parent_span_id, 0);
	out->service = ds_scoped_read_string(&scopes, cls->service, NULL);
	out->operation = ds_scoped_read_string(&scopes, cls->operation, NULL);
	out->procname = ds_scoped_read_string(&scopes, cls->procname, NULL);
	out->span_kind = (int) ds_scoped_read_int(&scopes, cls->span_kind, -1);
	out->status = (int) ds_scoped_read_int(&scopes, cls->status, -1);
	out->start_time = ds_scoped_read_int(&scopes, cls->start_time, 0);
	out->duration = ds_scoped_read_int(&scopes, cls->duration, 0);
	out->vpid = ds_scoped_read_int(&scopes, cls->vpid, -1);
	out->vtid = ds_scoped_read_int(&scopes, cls->vtid, -1);
}

struct ds_span_events *ds_span_events_create(void)
{
	struct ds_span_events *cache = g_new0(struct ds_span_events, 1);

	cache->by_class = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	return cache;
}

void ds_span_events_destroy(struct ds_span_events *cache)
{
	if (!cache) {
		return;
	}
	g_hash_table_destroy(cache->by_class);
	g_free(cache);
}

const struct ds_span_class *ds_span_events_resolve(struct ds_span_events *cache,
		const bt_event_class *ec)
{
	struct ds_span_class *cls = g_hash_table_lookup(cache->by_class, ec);

	if (!cls) {
		cls = g_new(struct ds_span_class, 1);
		ds_span_class_init(cls, ec);
		g_hash_table_insert(cache->by_class, (gpointer) ec, cls);
	}
	return cls;
}

void ds_span_events_forget(struct ds_span_events *cache, const bt_event_class *ec)
{
	g_hash_table_remove(cache->by_class, ec);
}
