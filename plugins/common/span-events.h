/* SPDX-License-Identifier: MIT */
/*
 * Span events of LTTng-UST (doc/instrumentation.md): `jaeger_ust:start_span`/`end_span` and
 * `deepspan_ust:span_start`/`span_end`/`span_activate`/`span_deactivate`.
 *
 * Use:
 *   struct ds_span_events *cache = ds_span_events_create();
 *   const struct ds_span_class *cls = ds_span_events_resolve(cache, event_class);  (once per class, cached)
 *   if (cls->kind != DS_SPAN_EVENT_NONE && !cls->missing) {
 *           struct ds_span_event ev;
 *           ds_span_event_decode(cls, event, &ev);            (no allocation, no string compare)
 *   }
 *   ds_span_events_destroy(cache);
 *
 * Fields are found in the payload, then the specific context, then the common context
 * (`vpid`, `vtid`, `procname` are contexts added with `lttng add-context -u`).
 */
#ifndef DEEPSPAN_COMMON_SPAN_EVENTS_H
#define DEEPSPAN_COMMON_SPAN_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "event-fields.h"

enum ds_span_event_kind {
	DS_SPAN_EVENT_NONE = 0,		/* not a span event */
	DS_SPAN_EVENT_START,		/* start_span / span_start */
	DS_SPAN_EVENT_END,		/* end_span / span_end */
	DS_SPAN_EVENT_ACTIVATE,		/* span_activate: the span runs on this thread from now */
	DS_SPAN_EVENT_DEACTIVATE,	/* span_deactivate: the span stops running on this thread */
};

enum ds_span_schema {
	DS_SPAN_SCHEMA_NONE = 0,
	DS_SPAN_SCHEMA_JAEGER,		/* provider jaeger_ust */
	DS_SPAN_SCHEMA_DEEPSPAN,	/* provider deepspan_ust */
};

/* `kind` field of deepspan_ust:span_start. */
enum ds_span_kind {
	DS_SPAN_KIND_INTERNAL = 0,
	DS_SPAN_KIND_SERVER = 1,
	DS_SPAN_KIND_CLIENT = 2,
	DS_SPAN_KIND_PRODUCER = 3,
	DS_SPAN_KIND_CONSUMER = 4,
};

/* What one event class is, resolved once. */
struct ds_span_class {
	enum ds_span_event_kind kind;
	enum ds_span_schema schema;
	/*
	 * NULL when every required field is present with the right type; else the name of
	 * the first missing or mistyped field (static string): the class must not be decoded.
	 */
	const char *missing;
	struct ds_field_ref trace_id_high, trace_id_low, span_id, parent_span_id;
	struct ds_field_ref service, operation;	/* jaeger: operation = op_name, no service */
	struct ds_field_ref span_kind, status;	/* deepspan only */
	struct ds_field_ref start_time, duration;	/* jaeger only */
	struct ds_field_ref vpid, vtid, procname;	/* contexts, optional */
};

/* One decoded span event.  Strings are borrowed from the event (valid while it lives). */
struct ds_span_event {
	enum ds_span_event_kind kind;
	enum ds_span_schema schema;
	uint64_t trace_id_high, trace_id_low, span_id;
	uint64_t parent_span_id;	/* 0 = root; 0 for non-start events */
	const char *service;		/* NULL when the schema has none (jaeger) */
	const char *operation;		/* NULL for non-start events */
	const char *procname;		/* NULL without the procname context */
	int span_kind;			/* enum ds_span_kind; -1 unknown (jaeger) */
	int status;			/* span_end status; -1 unknown */
	int64_t start_time;		/* jaeger start_span only; else 0 */
	int64_t duration;		/* jaeger end_span only; else 0 */
	int64_t vpid, vtid;		/* -1 without the contexts */
};

/* Pure: the kind and schema of an event named `name` ("provider:event"). */
enum ds_span_event_kind ds_span_event_kind_from_name(const char *name,
		enum ds_span_schema *schema);

struct ds_span_events;

/* A cache of resolved classes keyed by `const bt_event_class *`; NULL on allocation failure. */
struct ds_span_events *ds_span_events_create(void);
void ds_span_events_destroy(struct ds_span_events *cache);

/*
 * The resolved description of `ec` (owned by the cache, valid until it is destroyed);
 * kind NONE for every non-span class.  NULL only on allocation failure.
 */
const struct ds_span_class *ds_span_events_resolve(struct ds_span_events *cache,
		const bt_event_class *ec);

/* Drops the cached description of `ec` (call it when its trace class is destroyed). */
void ds_span_events_forget(struct ds_span_events *cache, const bt_event_class *ec);

/* Resolves `ec` without a cache into `*out` (the cache calls this). */
void ds_span_class_init(struct ds_span_class *out, const bt_event_class *ec);

/* Decodes `event` of a class resolved with kind != NONE and missing == NULL. */
void ds_span_event_decode(const struct ds_span_class *cls, const bt_event *event,
		struct ds_span_event *out);

/* "server", "client", … for a ds_span_kind value; "unknown" otherwise. */
const char *ds_span_kind_name(int span_kind);

#endif /* DEEPSPAN_COMMON_SPAN_EVENTS_H */
