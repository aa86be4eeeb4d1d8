/* SPDX-License-Identifier: MIT */
/*
 * deepspan_vnode: the N-API addon of the Node.js recorder.  It defines the
 * LTTng-UST provider `vnode` (vnode-tp.h) and exposes one function per event
 * to deepspan-vnode.js.  Every function returns early when its tracepoint is
 * disabled (the script calls none while no session records).  Built against
 * Node-API only: one build loads in Node 18, 20 and 22 (doc/nodejs.md, "Node
 * versions").
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "vnode-tp.h"

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Longest string copied into an event (longer ones are truncated). */
#define VNODE_STRING_MAX 512

/*
 * Written instead of an empty string: lttng-ust 2.13.5 records an empty
 * string field without its terminating NUL, so readers see stale bytes.
 */
#define VNODE_EMPTY_STRING "-"

/* Resource type names registered by registerType(index, name); owned, never freed. */
#define VNODE_TYPES_MAX 1024
static char *vnode_types[VNODE_TYPES_MAX];

/* The async_hooks phases, indexed by the first argument of asyncContext(). */
static const char *const vnode_phase_names[] = {
	"constructor", "before", "after", "destroy",
};

static int64_t vnode_arg_int64(napi_env env, napi_value value)
{
	int64_t out = -1;

	if (napi_get_value_int64(env, value, &out) != napi_ok) {
		out = -1;
	}
	return out;
}

static int vnode_arg_int(napi_env env, napi_value value)
{
	int32_t out = -1;

	if (napi_get_value_int32(env, value, &out) != napi_ok) {
		out = -1;
	}
	return out;
}

/* Copies a JS string into `buf`; anything else or "" becomes VNODE_EMPTY_STRING. */
static const char *vnode_arg_string(napi_env env, napi_value value, char *buf,
		size_t size)
{
	size_t len = 0;

	if (napi_get_value_string_utf8(env, value, buf, size, &len) != napi_ok ||
			len == 0) {
		return VNODE_EMPTY_STRING;
	}
	return buf;
}

/* Fetches up to `max` arguments; missing ones are `undefined`. */
static size_t vnode_args(napi_env env, napi_callback_info info, napi_value *argv,
		size_t max)
{
	size_t argc = max;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
		return 0;
	}
	return argc;
}

/* registerType(index, name): names the resource type `index` of later asyncContext() calls. */
static napi_value vnode_register_type(napi_env env, napi_callback_info info)
{
	napi_value argv[2];
	char name[VNODE_STRING_MAX];
	int index;

	if (vnode_args(env, info, argv, 2) < 2) {
		goto end;
	}
	index = vnode_arg_int(env, argv[0]);
	if (index < 0 || index >= VNODE_TYPES_MAX || vnode_types[index]) {
		goto end;
	}
	vnode_types[index] = strdup(vnode_arg_string(env, argv[1], name, sizeof(name)));
end:
	return NULL;
}

/* The type argument of asyncContext(): a registered index, or a string. */
static const char *vnode_arg_type(napi_env env, napi_value value, char *buf, size_t size)
{
	napi_valuetype kind = napi_undefined;
	int32_t index = -1;

	if (napi_typeof(env, value, &kind) == napi_ok && kind == napi_number &&
			napi_get_value_int32(env, value, &index) == napi_ok) {
		return index >= 0 && index < VNODE_TYPES_MAX && vnode_types[index] ?
			vnode_types[index] : VNODE_EMPTY_STRING;
	}
	return vnode_arg_string(env, value, buf, size);
}

/* asyncContext(phase, id, triggerId, execId[, type: registered index or name]) */
static napi_value vnode_async_context(napi_env env, napi_callback_info info)
{
	napi_value argv[5];
	char type_buf[VNODE_STRING_MAX];
	const char *type = VNODE_EMPTY_STRING;
	int phase;

	if (!lttng_ust_tracepoint_enabled(vnode, async_context)) {
		goto end;
	}
	if (vnode_args(env, info, argv, 5) < 4) {
		goto end;
	}
	phase = vnode_arg_int(env, argv[0]);
	if (phase < 0 || phase > 3) {
		goto end;
	}
	if (phase == 0) {
		type = vnode_arg_type(env, argv[4], type_buf, sizeof(type_buf));
	}
	lttng_ust_do_tracepoint(vnode, async_context, vnode_arg_int64(env, argv[1]),
		vnode_arg_int64(env, argv[2]), vnode_arg_int64(env, argv[3]),
		type, vnode_phase_names[phase]);
end:
	return NULL;
}

/*
 * switchTo(oldId, newId): the code of another request runs now: `after` of the
 * old request's id and `before` of the new one's (each only when >= 0), in one
 * native call (the recorder calls it only when the running request changes).
 */
static napi_value vnode_switch_to(napi_env env, napi_callback_info info)
{
	napi_value argv[2];
	int64_t old_id, new_id;

	if (!lttng_ust_tracepoint_enabled(vnode, async_context)) {
		goto end;
	}
	if (vnode_args(env, info, argv, 2) < 2) {
		goto end;
	}
	old_id = vnode_arg_int64(env, argv[0]);
	new_id = vnode_arg_int64(env, argv[1]);
	if (old_id >= 0) {
		lttng_ust_do_tracepoint(vnode, async_context, old_id, old_id, old_id,
			VNODE_EMPTY_STRING, vnode_phase_names[2]);
	}
	if (new_id >= 0) {
		lttng_ust_do_tracepoint(vnode, async_context, new_id, new_id, new_id,
			VNODE_EMPTY_STRING, vnode_phase_names[1]);
	}
end:
	return NULL;
}

/* The optional `runsId` argument at argv[index] (-1 when absent or negative). */
static int64_t vnode_arg_runs_id(napi_env env, napi_value *argv, size_t argc, size_t index)
{
	int64_t id = argc > index ? vnode_arg_int64(env, argv[index]) : -1;

	return id < 0 ? -1 : id;
}

/*
 * httpRequest(isClient, sockid, sockAsyncId, ctxId, method, url, address, port, localPort
 * [, streamId[, runsId]])
 */
static napi_value vnode_http_request(napi_env env, napi_callback_info info)
{
	napi_value argv[11];
	char method[32], url[VNODE_STRING_MAX], address[64];
	bool is_client = false;
	size_t argc = vnode_args(env, info, argv, 11);
	int stream_id = 0;
	int64_t runs_id;

	if (argc < 9) {
		goto end;
	}
	if (napi_get_value_bool(env, argv[0], &is_client) != napi_ok) {
		goto end;
	}
	if (is_client ? !lttng_ust_tracepoint_enabled(vnode, http_client_request)
			: !lttng_ust_tracepoint_enabled(vnode, http_server_request)) {
		goto end;
	}
	if (argc > 9 && (stream_id = vnode_arg_int(env, argv[9])) < 0) {
		stream_id = 0;
	}
	runs_id = vnode_arg_runs_id(env, argv, argc, 10);
	if (is_client) {
		lttng_ust_do_tracepoint(vnode, http_client_request,
			vnode_arg_int(env, argv[1]), vnode_arg_int64(env, argv[2]),
			vnode_arg_int64(env, argv[3]),
			vnode_arg_string(env, argv[4], method, sizeof(method)),
			vnode_arg_string(env, argv[5], url, sizeof(url)),
			vnode_arg_string(env, argv[6], address, sizeof(address)),
			vnode_arg_int(env, argv[7]), vnode_arg_int(env, argv[8]), stream_id, runs_id);
	} else {
		lttng_ust_do_tracepoint(vnode, http_server_request,
			vnode_arg_int(env, argv[1]), vnode_arg_int64(env, argv[2]),
			vnode_arg_int64(env, argv[3]),
			vnode_arg_string(env, argv[4], method, sizeof(method)),
			vnode_arg_string(env, argv[5], url, sizeof(url)),
			vnode_arg_string(env, argv[6], address, sizeof(address)),
			vnode_arg_int(env, argv[7]), vnode_arg_int(env, argv[8]), stream_id, runs_id);
	}
end:
	return NULL;
}

/* httpResponse(isClient, sockid, sockAsyncId, ctxId, status, address, port, localPort[, runsId]) */
static napi_value vnode_http_response(napi_env env, napi_callback_info info)
{
	napi_value argv[9];
	char address[64];
	bool is_client = false;
	size_t argc = vnode_args(env, info, argv, 9);
	int64_t runs_id;

	if (argc < 8) {
		goto end;
	}
	if (napi_get_value_bool(env, argv[0], &is_client) != napi_ok) {
		goto end;
	}
	if (is_client ? !lttng_ust_tracepoint_enabled(vnode, http_client_response)
			: !lttng_ust_tracepoint_enabled(vnode, http_server_response)) {
		goto end;
	}
	runs_id = vnode_arg_runs_id(env, argv, argc, 8);
	if (is_client) {
		lttng_ust_do_tracepoint(vnode, http_client_response,
			vnode_arg_int(env, argv[1]), vnode_arg_int64(env, argv[2]),
			vnode_arg_int64(env, argv[3]), vnode_arg_int(env, argv[4]),
			vnode_arg_string(env, argv[5], address, sizeof(address)),
			vnode_arg_int(env, argv[6]), vnode_arg_int(env, argv[7]), runs_id);
	} else {
		lttng_ust_do_tracepoint(vnode, http_server_response,
			vnode_arg_int(env, argv[1]), vnode_arg_int64(env, argv[2]),
			vnode_arg_int64(env, argv[3]), vnode_arg_int(env, argv[4]),
			vnode_arg_string(env, argv[5], address, sizeof(address)),
			vnode_arg_int(env, argv[6]), vnode_arg_int(env, argv[7]), runs_id);
	}
end:
	return NULL;
}

/* tracing(): whether a session records vnode:async_context now. */
static napi_value vnode_tracing(napi_env env, napi_callback_info info)
{
	napi_value result = NULL;

	if (napi_get_boolean(env, lttng_ust_tracepoint_enabled(vnode, async_context),
			&result) != napi_ok) {
		result = NULL;
	}
	return result;
}

static napi_value vnode_init(napi_env env, napi_value exports)
{
	const napi_property_descriptor functions[] = {
		{ "tracing", NULL, vnode_tracing, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "registerType", NULL, vnode_register_type, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "asyncContext", NULL, vnode_async_context, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "switchTo", NULL, vnode_switch_to, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "httpRequest", NULL, vnode_http_request, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "httpResponse", NULL, vnode_http_response, NULL, NULL, NULL, napi_enumerable, NULL },
	};

	if (napi_define_properties(env, exports,
			sizeof(functions) / sizeof(functions[0]), functions) != napi_ok) {
		napi_throw_error(env, NULL, "deepspan_vnode: cannot define the addon's functions");
	}
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, vnode_init)
