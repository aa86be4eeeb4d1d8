/* SPDX-License-Identifier: MIT */
/* Recognising and decoding `vnode` events: see vnode-input.h. */
#include "vnode-input.h"

#include <string.h>

#include "event-fields.h"

#define NODEJS_CTX_CLASS "filter.deepspan.nodejs-ctx"

static const char *const vnode_field_names[VF_COUNT] = {
	[VF_ID] = "id", [VF_CTX_ID] = "ctx_id", [VF_EXEC_ID] = "exec_id",
	[VF_TYPE] = "type", [VF_PHASE] = "phase", [VF_SOCKID] = "sockid",
	[VF_SOCK_ASYNC_ID] = "sock_async_id", [VF_METHOD] = "method",
	[VF_URL] = "url", [VF_ADDRESS] = "address", [VF_STATUS] = "status",
	[VF_PORT] = "port", [VF_LOCAL_PORT] = "local_port", [VF_STREAM_ID] = "stream_id",
	[VF_RUNS_ID] = "runs_id",
};

static const bool vnode_field_is_string[VF_COUNT] = {
	[VF_TYPE] = true, [VF_PHASE] = true, [VF_METHOD] = true, [VF_URL] = true,
	[VF_ADDRESS] = true,
};

/* The fields each event kind needs (doc/nodejs.md, "What is recorded"). */
static const enum vnode_field async_fields[] = {
	VF_ID, VF_CTX_ID, VF_EXEC_ID, VF_TYPE, VF_PHASE, VF_COUNT,
};
static const enum vnode_field request_fields[] = {
	VF_SOCKID, VF_SOCK_ASYNC_ID, VF_CTX_ID, VF_METHOD, VF_URL, VF_ADDRESS,
	VF_PORT, VF_LOCAL_PORT, VF_COUNT,
};
static const enum vnode_field response_fields[] = {
	VF_SOCKID, VF_SOCK_ASYNC_ID, VF_CTX_ID, VF_STATUS, VF_PORT, VF_LOCAL_PORT,
	VF_COUNT,
};

static const struct {
	const char *name;
	enum vnode_kind kind;
	const enum vnode_field *fields;
} vnode_events[] = {
	{ "vnode:async_context", VNODE_ASYNC_CONTEXT, async_fields },
	{ "vnode:http_server_request", VNODE_SERVER_REQUEST, request_fields },
	{ "vnode:http_server_response", VNODE_SERVER_RESPONSE, response_fields },
	{ "vnode:http_client_request", VNODE_CLIENT_REQUEST, request_fields },
	{ "vnode:http_client_response", VNODE_CLIENT_RESPONSE, response_fields },
};

void vnode_classes_init(struct vnode_classes *classes)
{
	classes->by_class = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, g_free);
	classes->last_class = NULL;
	classes->last_info = NULL;
	classes->by_stream_class = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, g_free);
	classes->last_stream_class = NULL;
	classes->last_scan = NULL;
}

void vnode_classes_fini(struct vnode_classes *classes)
{
	if (classes->by_class) {
		g_hash_table_destroy(classes->by_class);
		classes->by_class = NULL;
	}
	if (classes->by_stream_class) {
		g_hash_table_destroy(classes->by_stream_class);
		classes->by_stream_class = NULL;
	}
}

static void scan_stream_class(const bt_stream_class *sc, struct vnode_stream_scan *scan)
{
	uint64_t i;

	scan->event_class_count = bt_stream_class_get_event_class_count(sc);
	scan->has_vnode = false;
	for (i = 0; i < scan->event_class_count && !scan->has_vnode; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(sc, i));

		scan->has_vnode = name && strncmp(name, "vnode:", 6) == 0;
	}
}

bool vnode_event_may_be_vnode(struct vnode_classes *classes, const bt_event *event)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(
		bt_event_borrow_class_const(event));
	struct vnode_stream_scan *scan = classes->last_scan;

	if (sc != classes->last_stream_class) {
		scan = g_hash_table_lookup(classes->by_stream_class, sc);
		if (!scan) {
			scan = g_new0(struct vnode_stream_scan, 1);
			scan_stream_class(sc, scan);
			g_hash_table_insert(classes->by_stream_class, (gpointer) sc, scan);
		}
		classes->last_stream_class = sc;
		classes->last_scan = scan;
	}
	if (!scan->has_vnode && bt_stream_class_get_event_class_count(sc) != scan->event_class_count) {
		scan_stream_class(sc, scan);
	}
	return scan->has_vnode;
}

/*
 * Index of member `name` in `fc` (a structure or NULL) when it has the wanted type (string, or
 * integer/enumeration), else VNODE_NO_FIELD.
 */
static uint64_t member_index(const bt_field_class *fc, const char *name,
		bool want_string)
{
	struct ds_field_ref ref = ds_field_ref_find(fc, DS_FIELD_SCOPE_PAYLOAD, name);
	bool wanted = want_string ? ref.kind == DS_FIELD_KIND_STRING : ds_field_ref_is_int(ref);

	return wanted ? ref.index : VNODE_NO_FIELD;
}

static bool classify_vnode(struct vnode_class *info, const bt_event_class *event_class,
		const enum vnode_field *needed, bt_self_component *self_comp)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(event_class);
	const bt_field_class *context = bt_stream_class_borrow_event_common_context_field_class_const(
		bt_event_class_borrow_stream_class_const(event_class));
	const char *name = bt_event_class_get_name(event_class);
	bool ok = true;

	for (; *needed != VF_COUNT; needed++) {
		info->fields[*needed] = member_index(payload, vnode_field_names[*needed],
			vnode_field_is_string[*needed]);
		if (info->fields[*needed] == VNODE_NO_FIELD) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
				"%s: event `%s` has no %s payload field `%s` (doc/nodejs.md, \"What is recorded\"): "
				"record it with instrumentation/nodejs/deepspan-vnode.js",
				NODEJS_CTX_CLASS, name,
				vnode_field_is_string[*needed] ? "string" : "integer",
				vnode_field_names[*needed]);
			ok = false;
			goto end;
		}
	}
	/* Optional (requests; traces recorded before HTTP/2 support lack it): 0 then. */
	info->fields[VF_STREAM_ID] = member_index(payload, vnode_field_names[VF_STREAM_ID], false);
	info->fields[VF_RUNS_ID] = member_index(payload, vnode_field_names[VF_RUNS_ID], false);
	info->vpid_index = member_index(context, "vpid", false);
	info->vtid_index = member_index(context, "vtid", false);
	info->procname_index = member_index(context, "procname", true);
	if (info->vpid_index == VNODE_NO_FIELD || info->vtid_index == VNODE_NO_FIELD) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: event `%s` lacks the integer `vpid` and `vtid` contexts: record with "
			"`lttng add-context -u -t vpid -t vtid -t procname`",
			NODEJS_CTX_CLASS, name);
		ok = false;
	}
end:
	return ok;
}

struct vnode_class *vnode_classify(struct vnode_classes *classes,
		const bt_event_class *event_class, bt_self_component *self_comp)
{
	struct vnode_class *info;
	const char *name;
	size_t i;

	if (event_class == classes->last_class) {
		return classes->last_info;
	}
	info = g_hash_table_lookup(classes->by_class, event_class);
	if (info) {
		goto found;
	}
	info = g_new0(struct vnode_class, 1);
	info->kind = VNODE_NONE;
	info->host = -1;
	for (i = 0; i < VF_COUNT; i++) {
		info->fields[i] = VNODE_NO_FIELD;
	}
	name = bt_event_class_get_name(event_class);
	if (name && strncmp(name, "vnode:", 6) == 0) {
		for (i = 0; i < G_N_ELEMENTS(vnode_events); i++) {
			if (strcmp(name, vnode_events[i].name) != 0) {
				continue;
			}
			info->kind = vnode_events[i].kind;
			if (!classify_vnode(info, event_class, vnode_events[i].fields, self_comp)) {
				g_free(info);
				return NULL;
			}
			break;
		}
	}
	g_hash_table_insert(classes->by_class, (gpointer) event_class, info);
found:
	classes->last_class = event_class;
	classes->last_info = info;
	return info;
}

static int64_t read_int(const bt_field *structure, uint64_t index)
{
	const bt_field *field;

	if (index == VNODE_NO_FIELD) {
		return -1;
	}
	field = bt_field_structure_borrow_member_field_by_index_const(structure, index);
	if (bt_field_class_type_is(bt_field_get_class_type(field),
			BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return bt_field_integer_signed_get_value(field);
	}
	return (int64_t) bt_field_integer_unsigned_get_value(field);
}

static const char *read_string(const bt_field *structure, uint64_t index)
{
	if (index == VNODE_NO_FIELD) {
		return NULL;
	}
	return bt_field_string_get_value(
		bt_field_structure_borrow_member_field_by_index_const(structure, index));
}

/* "constructor", "before", "after", "destroy": the first letter decides. */
static bool decode_phase(const char *text, enum nctx_phase *out)
{
	switch (text ? text[0] : '\0') {
	case 'c': *out = NCTX_PHASE_CONSTRUCTOR; return true;
	case 'b': *out = NCTX_PHASE_BEFORE; return true;
	case 'a': *out = NCTX_PHASE_AFTER; return true;
	case 'd': *out = NCTX_PHASE_DESTROY; return true;
	default: return false;
	}
}

bool vnode_decode(const struct vnode_class *info, const bt_event *event,
		struct vnode_event *out, bt_self_component *self_comp)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const bt_field *context = bt_event_borrow_common_context_field_const(event);
	const char *phase;

	out->origin.vpid = read_int(context, info->vpid_index);
	out->origin.vtid = read_int(context, info->vtid_index);
	out->origin.procname = read_string(context, info->procname_index);
	out->ctx_id = read_int(payload, info->fields[VF_CTX_ID]);
	if (info->kind == VNODE_ASYNC_CONTEXT) {
		out->id = read_int(payload, info->fields[VF_ID]);
		out->exec_id = read_int(payload, info->fields[VF_EXEC_ID]);
		out->type = read_string(payload, info->fields[VF_TYPE]);
		phase = read_string(payload, info->fields[VF_PHASE]);
		if (!decode_phase(phase, &out->phase)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
				"%s: vnode:async_context event with phase \"%s\": expected "
				"constructor, before, after or destroy", NODEJS_CTX_CLASS, phase);
			return false;
		}
		return true;
	}
	out->http.sockid = read_int(payload, info->fields[VF_SOCKID]);
	out->http.sock_async_id = read_int(payload, info->fields[VF_SOCK_ASYNC_ID]);
	out->http.ctx_id = out->ctx_id;
	out->http.method = read_string(payload, info->fields[VF_METHOD]);
	out->http.url = read_string(payload, info->fields[VF_URL]);
	out->http.address = read_string(payload, info->fields[VF_ADDRESS]);
	out->http.status = read_int(payload, info->fields[VF_STATUS]);
	out->http.port = read_int(payload, info->fields[VF_PORT]);
	out->http.local_port = read_int(payload, info->fields[VF_LOCAL_PORT]);
	out->http.stream_id = info->fields[VF_STREAM_ID] == VNODE_NO_FIELD ? 0 :
		read_int(payload, info->fields[VF_STREAM_ID]);
	out->http.runs_id = info->fields[VF_RUNS_ID] == VNODE_NO_FIELD ? 0 :
		read_int(payload, info->fields[VF_RUNS_ID]);
	if (out->http.runs_id < 0) {
		out->http.runs_id = 0;
	}
	return true;
}
