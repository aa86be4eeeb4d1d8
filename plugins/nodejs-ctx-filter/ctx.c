/* SPDX-License-Identifier: MIT */
/*
 * Node.js async-context reconstruction: see ctx.h.
 *
 * Requests live in one table keyed by a serial number; resources refer to
 * their request by serial, so a finished request can be freed while stale
 * resources still name it (the lookup then simply fails).  A request whose
 * trace id is not known yet (a server request waiting for its caller, and
 * everything that descends from it) keeps its operations in `deferred` and
 * cannot be freed; resolving it flushes them and resolves its dependents.
 */
#include "ctx-internal.h"

#include <inttypes.h>
#include <string.h>

/* Smallest size of a process's resource table at which it is swept. */
#define NCTX_OWNERS_SWEEP_MIN 4096


static void request_free(gpointer data)
{
	struct nctx_request *request = data;

	g_free(request->service);
	g_free(request->operation);
	if (request->dependents) {
		g_ptr_array_free(request->dependents, TRUE);
	}
	if (request->deferred) {
		g_array_free(request->deferred, TRUE);
	}
	g_free(request);
}

static void process_free(gpointer data)
{
	struct nctx_process *process = data;

	g_hash_table_destroy(process->owners);
	g_hash_table_destroy(process->client_parsers);
	g_array_free(process->busy, TRUE);
	g_array_free(process->stack, TRUE);
	g_ptr_array_free(process->open_servers, TRUE);
	g_ptr_array_free(process->open_clients, TRUE);
	g_free(process);
}

struct nctx_engine *nctx_engine_create(const struct nctx_config *config,
		nctx_emit_fn emit, void *user)
{
	struct nctx_engine *engine = g_new0(struct nctx_engine, 1);

	engine->config = *config;
	engine->emit = emit;
	engine->user = user;
	engine->processes = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, process_free);
	engine->requests = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, request_free);
	engine->open_clients = g_ptr_array_new();
	engine->pending_servers = g_ptr_array_new();
	engine->open_parsers = g_ptr_array_new_with_free_func(g_free);
	engine->labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	nctx_busy_init(engine);
	engine->next_serial = 1;
	engine->next_span_id = 1;
	engine->next_trace_low = 1;
	return engine;
}

void nctx_engine_destroy(struct nctx_engine *engine)
{
	if (!engine) {
		return;
	}
	g_ptr_array_free(engine->pending_servers, TRUE);
	g_ptr_array_free(engine->open_parsers, TRUE);
	nctx_busy_fini(engine);
	g_hash_table_destroy(engine->labels);
	g_ptr_array_free(engine->open_clients, TRUE);
	g_hash_table_destroy(engine->requests);
	g_hash_table_destroy(engine->processes);
	g_free(engine);
}

const struct nctx_stats *nctx_engine_stats(const struct nctx_engine *engine)
{
	return &engine->stats;
}

int64_t nctx_engine_horizon(const struct nctx_engine *engine)
{
	int64_t horizon = INT64_MAX;

	if (engine->pending_servers->len > 0) {
		horizon = ((const struct nctx_request *)
			g_ptr_array_index(engine->pending_servers, 0))->start_ts;
	}
	if (engine->open_parsers->len > 0) {
		const struct nctx_parser *parser = g_ptr_array_index(engine->open_parsers, 0);

		horizon = MIN(horizon, parser->at.ts);
	}
	return MIN(horizon, nctx_busy_horizon(engine));
}

static struct nctx_process *process_get(struct nctx_engine *engine,
		const struct nctx_origin *origin)
{
	uint64_t key = ((uint64_t) origin->host << 40) ^ (uint64_t) origin->vpid;
	struct nctx_process *process = g_hash_table_lookup(engine->processes,
		NCTX_KEY(key));

	if (!process) {
		process = g_new0(struct nctx_process, 1);
		process->host = origin->host;
		process->vpid = origin->vpid;
		process->owners = g_hash_table_new(g_direct_hash, g_direct_equal);
		process->owners_sweep_at = NCTX_OWNERS_SWEEP_MIN;
		process->stack = g_array_new(FALSE, FALSE, sizeof(struct nctx_frame));
		process->client_parsers = g_hash_table_new(g_direct_hash, g_direct_equal);
		process->busy = g_array_new(FALSE, FALSE, sizeof(struct nctx_busy));
		process->open_servers = g_ptr_array_new();
		process->open_clients = g_ptr_array_new();
		g_hash_table_insert(engine->processes, NCTX_KEY(key), process);
	}
	return process;
}

/* The open request of serial `serial`, or NULL. */
static struct nctx_request *open_request(struct nctx_engine *engine, uint64_t serial)
{
	struct nctx_request *request;

	if (serial == 0) {
		return NULL;
	}
	request = g_hash_table_lookup(engine->requests, NCTX_KEY(serial));
	return request && !request->ended ? request : NULL;
}

static gboolean owner_is_gone(gpointer key, gpointer value, gpointer user)
{
	const struct nctx_engine *engine = user;

	(void) key;
	return !g_hash_table_contains(engine->requests, value);
}

/*
 * Records that resource `id` belongs to request `owner`.  The recorder reports no destroy
 * (doc/nodejs.md: its cost), so entries whose request is gone are swept whenever the table
 * doubles: amortised O(1), memory bounded by the resources of live requests.
 */
static void resource_set_owner(struct nctx_engine *engine, struct nctx_process *process,
		int64_t id, uint64_t owner)
{
	g_hash_table_insert(process->owners, NCTX_KEY(id), NCTX_KEY(owner));
	if (g_hash_table_size(process->owners) > process->owners_sweep_at) {
		g_hash_table_foreach_remove(process->owners, owner_is_gone, engine);
		process->owners_sweep_at = MAX(NCTX_OWNERS_SWEEP_MIN,
			2 * g_hash_table_size(process->owners));
	}
}

static uint64_t resource_owner(struct nctx_process *process, int64_t id)
{
	return NCTX_VALUE(g_hash_table_lookup(process->owners, NCTX_KEY(id)));
}

/* Forgets `parser` (NULL: nothing to do). */
static void parser_close(struct nctx_engine *engine, struct nctx_parser *parser)
{
	if (parser) {
		g_hash_table_remove(parser->process->client_parsers, NCTX_KEY(parser->id));
		g_ptr_array_remove(engine->open_parsers, parser);
	}
}

/* Frees `request` once nothing can refer to it any more. */
void nctx_request_release_if_done(struct nctx_engine *engine,
		struct nctx_request *request)
{
	if (request->ended && request->known && !request->pending &&
			request->dependents->len == 0) {
		g_hash_table_remove(engine->requests, NCTX_KEY(request->serial));
	}
}

static void op_fill_ids(const struct nctx_request *request, struct nctx_op *op)
{
	op->trace_id_low = request->trace_id_low;
	op->span_id = request->span_id;
	op->parent_span_id = request->parent_span_id;
	op->service = request->service;
	op->operation = request->operation;
	op->span_kind = request->span_kind;
	op->host = request->process->host;
	op->vpid = request->process->vpid;
	op->procname = request->service;
}

/* Emits (or defers) one operation of `request` at `ts`. */
void nctx_request_op(struct nctx_engine *engine, struct nctx_request *request,
		enum nctx_op_kind kind, const struct nctx_origin *at, int64_t vtid,
		uint8_t status)
{
	struct nctx_op op = {
		.kind = kind,
		.ts = at->ts,
		.cycles = at->cycles,
		.vtid = vtid,
		.status = status,
		.trace_id_high = engine->config.trace_id_high,
	};

	if (kind == NCTX_OP_SPAN_ACTIVATE) {
		engine->stats.activations++;
	}
	if (!request->known) {
		g_array_append_val(request->deferred, op);
		return;
	}
	op_fill_ids(request, &op);
	engine->emit(&op, engine->user);
}

static void request_resolve(struct nctx_engine *engine,
		struct nctx_request *request);

/* `dependent` takes its trace id from `from` (now or once `from` is known). */
void nctx_request_depend(struct nctx_engine *engine,
		struct nctx_request *from, struct nctx_request *dependent)
{
	dependent->parent_span_id = from->span_id;
	if (from->known) {
		dependent->trace_id_low = from->trace_id_low;
		request_resolve(engine, dependent);
	} else {
		g_ptr_array_add(from->dependents, dependent);
	}
}

static void request_make_root(struct nctx_engine *engine,
		struct nctx_request *request)
{
	engine->stats.roots++;
	request->parent_span_id = 0;
	request->trace_id_low = engine->next_trace_low++;
	request_resolve(engine, request);
}

/* The trace id of `request` is decided: flush its operations and its dependents'. */
static void request_resolve(struct nctx_engine *engine,
		struct nctx_request *request)
{
	GPtrArray *dependents = request->dependents;
	guint i;

	request->known = true;
	for (i = 0; i < request->deferred->len; i++) {
		struct nctx_op *op = &g_array_index(request->deferred, struct nctx_op, i);

		op_fill_ids(request, op);
		engine->emit(op, engine->user);
	}
	g_array_set_size(request->deferred, 0);
	request->dependents = g_ptr_array_new();
	for (i = 0; i < dependents->len; i++) {
		struct nctx_request *dependent = g_ptr_array_index(dependents, i);

		dependent->trace_id_low = request->trace_id_low;
		request_resolve(engine, dependent);
	}
	g_ptr_array_free(dependents, TRUE);
	nctx_request_release_if_done(engine, request);
}

/* Makes `serial` the request running on the process's loop, emitting the transitions. */
static void process_set_active(struct nctx_engine *engine,
		struct nctx_process *process, uint64_t serial, const struct nctx_origin *at)
{
	struct nctx_request *old_request, *new_request;

	if (serial == process->active) {
		return;
	}
	if (engine->config.activations) {
		old_request = open_request(engine, process->active);
		new_request = open_request(engine, serial);
		if (old_request) {
			nctx_request_op(engine, old_request, NCTX_OP_SPAN_DEACTIVATE, at, at->vtid, 0);
			nctx_busy_record(engine, process, old_request, at);
		}
		if (new_request) {
			nctx_request_op(engine, new_request, NCTX_OP_SPAN_ACTIVATE, at, at->vtid, 0);
		}
	}
	process->active = serial;
	process->active_since = *at;
	process->active_since.procname = NULL;
}

static uint64_t process_top_owner(const struct nctx_process *process)
{
	if (process->stack->len == 0) {
		return 0;
	}
	return g_array_index(process->stack, struct nctx_frame,
		process->stack->len - 1).owner;
}

static void parser_open(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, int64_t id)
{
	struct nctx_parser *parser = g_new0(struct nctx_parser, 1);

	parser->process = process;
	parser->id = id;
	parser->at = *origin;
	parser->at.procname = NULL;
	parser_close(engine, g_hash_table_lookup(process->client_parsers, NCTX_KEY(id)));
	g_hash_table_insert(process->client_parsers, NCTX_KEY(id), parser);
	g_ptr_array_add(engine->open_parsers, parser);
}

/* `before` of resource `id`: its owner's code runs, inside the current callback. */
static void frame_enter(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, int64_t id)
{
	struct nctx_frame frame;

	frame.id = id;
	frame.owner = resource_owner(process, id);
	g_array_append_val(process->stack, frame);
	process_set_active(engine, process, frame.owner, origin);
}

/* `after` of resource `id`: pops up to its `before` (an unmatched `after` changes nothing). */
static void frame_leave(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, int64_t id)
{
	guint i;

	for (i = process->stack->len; i > 0; i--) {
		if (g_array_index(process->stack, struct nctx_frame, i - 1).id == id) {
			g_array_set_size(process->stack, i - 1);
			process_set_active(engine, process, process_top_owner(process), origin);
			break;
		}
	}
}

/*
 * An HTTP event's `runs_id` (doc/nodejs.md, "What is recorded"): the recorder's
 * switchTo(running, runs_id) folded into the event, applied after it: `after`
 * of the innermost frame, if any, then `before` of `runs_id`.
 */
static void runs_after_event(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, int64_t runs_id)
{
	if (process->stack->len > 0) {
		frame_leave(engine, process, origin,
			g_array_index(process->stack, struct nctx_frame, process->stack->len - 1).id);
	}
	frame_enter(engine, process, origin, runs_id);
}

void nctx_async_context(struct nctx_engine *engine,
		const struct nctx_origin *origin, enum nctx_phase phase,
		int64_t id, int64_t trigger_id, const char *type)
{
	struct nctx_process *process = process_get(engine, origin);
	uint64_t owner;

	engine->stats.vnode_events++;
	switch (phase) {
	case NCTX_PHASE_CONSTRUCTOR:
		owner = resource_owner(process, trigger_id);
		if (!open_request(engine, owner)) {
			owner = process_top_owner(process);
		}
		if (open_request(engine, owner)) {
			resource_set_owner(engine, process, id, owner);
		}
		if (type && ((type[0] == 'H' && strcmp(type, "HTTPCLIENTREQUEST") == 0) ||
				(type[0] == 'D' && strcmp(type, "DEEPSPAN_CLIENT") == 0))) {
			parser_open(engine, process, origin, id);
		}
		break;
	case NCTX_PHASE_BEFORE:
		frame_enter(engine, process, origin, id);
		break;
	case NCTX_PHASE_AFTER:
		frame_leave(engine, process, origin, id);
		break;
	case NCTX_PHASE_DESTROY:
		g_hash_table_remove(process->owners, NCTX_KEY(id));
		parser_close(engine, g_hash_table_lookup(process->client_parsers, NCTX_KEY(id)));
		break;
	}
}

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Is the path segment `seg` (`len` bytes) an id (doc/nodejs.md, "Operation
 * names"): all decimal digits, a UUID (8-4-4-4-12 hex digits), or at least
 * 8 hex digits of which one at least is a decimal digit?
 */
static bool segment_is_id(const char *seg, size_t len)
{
	size_t i, digits = 0, hex = 0;

	if (len == 36 && seg[8] == '-' && seg[13] == '-' && seg[18] == '-' && seg[23] == '-') {
		for (i = 0; i < len; i++) {
			if (seg[i] != '-' && !is_hex_digit(seg[i])) {
				return false;
			}
		}
		return true;
	}
	for (i = 0; i < len; i++) {
		digits += seg[i] >= '0' && seg[i] <= '9';
		hex += is_hex_digit(seg[i]);
	}
	return len > 0 && hex == len && (digits == len || (len >= 8 && digits > 0));
}

/* Appends the first `len` bytes of the path `url`, each id segment replaced by `:id`. */
static void append_normalized_path(GString *out, const char *url, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t seg_len;

		if (url[i] == '/') {
			g_string_append_c(out, '/');
			i++;
			continue;
		}
		seg_len = strcspn(url + i, "/");
		seg_len = MIN(seg_len, len - i);
		if (segment_is_id(url + i, seg_len)) {
			g_string_append(out, ":id");
		} else {
			g_string_append_len(out, url + i, (gssize) seg_len);
		}
		i += seg_len;
	}
}

/*
 * "HTTP GET /path" (query string dropped, ids in the path replaced by `:id`);
 * clients name their callee ("HTTP GET host:port/path", "TCP host:port").
 */
static char *operation_name(bool client, const struct nctx_http *http)
{
	const char *url = http->url ? http->url : "";
	size_t path_len = strcspn(url, "?#");
	GString *name;

	/* A TCP call that is not HTTP (the recorder's method `TCP`): "TCP host:port". */
	if (client && http->method && strcmp(http->method, "TCP") == 0) {
		return g_strdup_printf("TCP %s:%" PRId64, http->address ? http->address : "?",
			http->port);
	}
	name = g_string_new("HTTP ");

	g_string_append(name, http->method ? http->method : "?");
	g_string_append_c(name, ' ');
	if (client) {
		g_string_append_printf(name, "%s:%" PRId64, http->address ? http->address : "?",
			http->port);
	}
	append_normalized_path(name, url, path_len);
	return g_string_free(name, FALSE);
}

/* A port <= 0 is not a port (a socket not connected yet reports 0): unknown, -1. */
static int64_t known_port(int64_t port)
{
	return port > 0 ? port : -1;
}

/* The interned "service: operation" label of a request (lives as long as the engine). */
static const char *intern_label(struct nctx_engine *engine, const char *service,
		const char *operation)
{
	char *label = g_strdup_printf("%s: %s", service, operation);
	char *interned = g_hash_table_lookup(engine->labels, label);

	if (interned) {
		g_free(label);
		return interned;
	}
	g_hash_table_add(engine->labels, label);
	return label;
}

struct nctx_request *nctx_request_alloc(struct nctx_engine *engine,
		struct nctx_process *process, const struct nctx_origin *start,
		enum nctx_span_kind span_kind, const char *service, char *operation)
{
	struct nctx_request *request = g_new0(struct nctx_request, 1);

	request->serial = engine->next_serial++;
	request->client = span_kind == NCTX_SPAN_CLIENT;
	request->span_kind = span_kind;
	request->process = process;
	request->vtid = start->vtid;
	request->start_ts = start->ts;
	request->start_cycles = start->cycles;
	request->service = g_strdup(service);
	request->operation = operation;
	request->label = intern_label(engine, request->service, operation);
	request->span_id = engine->next_span_id++;
	request->dependents = g_ptr_array_new();
	request->deferred = g_array_new(FALSE, FALSE, sizeof(struct nctx_op));
	g_hash_table_insert(engine->requests, NCTX_KEY(request->serial), request);
	return request;
}

static struct nctx_request *request_new(struct nctx_engine *engine,
		struct nctx_process *process, const struct nctx_origin *origin,
		bool client, const struct nctx_http *http)
{
	struct nctx_request *request = nctx_request_alloc(engine, process, origin,
		client ? NCTX_SPAN_CLIENT : NCTX_SPAN_SERVER,
		origin->procname ? origin->procname : "node", operation_name(client, http));

	request->sock_async_id = http->sock_async_id;
	request->resource_id = http->ctx_id;
	request->port = known_port(http->port);
	request->local_port = known_port(http->local_port);
	request->stream_id = http->stream_id > 0 ? http->stream_id : 0;
	return request;
}

/*
 * Could `client` be the caller of `server` (ports, the HTTP/2 stream id: concurrent
 * streams of one connection are distinct calls, and the server starts inside it)?
 */
static bool client_matches(const struct nctx_request *client,
		const struct nctx_request *server)
{
	return client->port == server->local_port && client->stream_id == server->stream_id &&
		client->local_port == server->port && client->local_port >= 0 &&
		client->start_ts <= server->start_ts &&
		(!client->ended || client->end_ts >= server->start_ts);
}

/* Could a client whose local port is still unknown be the caller of `server`? */
static bool client_may_match(const struct nctx_request *client,
		const struct nctx_request *server)
{
	return client->local_port < 0 && client->port == server->local_port &&
		(client->stream_id == 0 || client->stream_id == server->stream_id) &&
		client->start_ts <= server->start_ts && !client->ended;
}

static void pending_remove(struct nctx_engine *engine, struct nctx_request *server)
{
	server->pending = false;
	g_ptr_array_remove(engine->pending_servers, server);
}

static void server_link(struct nctx_engine *engine, struct nctx_request *server,
		struct nctx_request *client)
{
	engine->stats.servers_with_caller++;
	engine->stats.clients_with_callee++;
	server->caller_serial = client->serial;
	client->callee_serial = server->serial;
	if (server->pending) {
		pending_remove(engine, server);
	}
	nctx_busy_spans(engine, server, client);
	/* Last: resolving may free an ended server request. */
	nctx_request_depend(engine, client, server);
}

/* The latest open client request matching `server` by ports, or NULL. */
static struct nctx_request *server_find_caller(struct nctx_engine *engine,
		const struct nctx_request *server, bool *maybe_later)
{
	struct nctx_request *best = NULL;
	guint i;

	*maybe_later = false;
	for (i = 0; i < engine->open_clients->len; i++) {
		struct nctx_request *client = g_ptr_array_index(engine->open_clients, i);

		if (client_matches(client, server)) {
			if (!best || client->start_ts > best->start_ts) {
				best = client;
			}
		} else if (client_may_match(client, server)) {
			*maybe_later = true;
		}
	}
	/* A client request whose event is still to come (see struct nctx_parser). */
	if (!best && engine->open_parsers->len > 0 &&
			((const struct nctx_parser *) g_ptr_array_index(engine->open_parsers, 0))->at.ts <=
				server->start_ts) {
		*maybe_later = true;
	}
	return best;
}

/*
 * Decides pending server requests that can no longer get a caller: no open
 * client with an unknown local port could match, the window expired, or
 * the input ended.
 */
static void pending_review(struct nctx_engine *engine, int64_t now, bool finishing)
{
	guint i = 0;

	while (i < engine->pending_servers->len) {
		struct nctx_request *server = g_ptr_array_index(engine->pending_servers, i);
		bool maybe_later = false;
		struct nctx_request *caller = server_find_caller(engine, server, &maybe_later);

		if (caller) {
			server_link(engine, server, caller);
		} else if (finishing || !maybe_later ||
				now - server->start_ts > engine->config.match_window_ns) {
			pending_remove(engine, server);
			request_make_root(engine, server);
		} else {
			i++;
		}
	}
}

/* A pending server request may be the callee of `client`, now that its ports are known. */
static void link_pending_callee(struct nctx_engine *engine, struct nctx_request *client)
{
	guint i;

	for (i = 0; i < engine->pending_servers->len; i++) {
		struct nctx_request *server = g_ptr_array_index(engine->pending_servers, i);

		if (client_matches(client, server)) {
			server_link(engine, server, client);
			break;
		}
	}
}

static void server_request(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, const struct nctx_http *http)
{
	struct nctx_request *server = request_new(engine, process, origin, false, http);
	struct nctx_request *caller;
	bool maybe_later = false;
	guint top;

	engine->stats.server_requests++;
	g_ptr_array_add(process->open_servers, server);
	resource_set_owner(engine, process, http->ctx_id, server->serial);
	caller = server_find_caller(engine, server, &maybe_later);
	if (caller) {
		server_link(engine, server, caller);
	} else if (maybe_later) {
		engine->stats.deferred_servers++;
		server->pending = true;
		g_ptr_array_add(engine->pending_servers, server);
	} else {
		request_make_root(engine, server);
	}
	nctx_request_op(engine, server, NCTX_OP_SPAN_START, origin, origin->vtid, 0);
	/* The request's handler runs in the current callback: it is now the request's. */
	top = process->stack->len;
	if (top > 0 && g_array_index(process->stack, struct nctx_frame, top - 1).id == http->ctx_id) {
		g_array_index(process->stack, struct nctx_frame, top - 1).owner = server->serial;
		process_set_active(engine, process, server->serial, origin);
	}
}

/*
 * The open client request announced again with the same resource (undici sends a
 * request again on another socket after a reset: a retry), or NULL.
 */
static struct nctx_request *open_client_of_resource(struct nctx_process *process,
		int64_t resource_id)
{
	guint i;

	if (resource_id < 0) {
		return NULL;
	}
	for (i = 0; i < process->open_clients->len; i++) {
		struct nctx_request *client = g_ptr_array_index(process->open_clients, i);

		if (client->resource_id == resource_id) {
			return client;
		}
	}
	return NULL;
}

/* A retried request: the same client span, now on the new socket's ports. */
static void client_retry(struct nctx_engine *engine, struct nctx_request *client,
		const struct nctx_origin *origin, const struct nctx_http *http)
{
	engine->stats.client_retries++;
	client->sock_async_id = http->sock_async_id;
	client->port = known_port(http->port);
	client->local_port = known_port(http->local_port);
	client->stream_id = http->stream_id > 0 ? http->stream_id : 0;
	if (engine->pending_servers->len > 0) {
		link_pending_callee(engine, client);
		pending_review(engine, origin->ts, false);
	}
}

static void client_request(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, const struct nctx_http *http)
{
	struct nctx_request *retried = open_client_of_resource(process, http->ctx_id);
	struct nctx_parser *parser = g_hash_table_lookup(process->client_parsers,
		NCTX_KEY(http->ctx_id));
	struct nctx_origin start = parser ? parser->at : *origin;
	struct nctx_request *client, *parent;

	if (retried) {
		client_retry(engine, retried, origin, http);
		return;
	}
	/* The request was made when its HTTPCLIENTREQUEST resource was constructed. */
	start.procname = origin->procname;
	client = request_new(engine, process, &start, true, http);
	parent = open_request(engine, resource_owner(process, http->ctx_id));
	parser_close(engine, parser);
	engine->stats.client_requests++;
	if (!parent) {
		parent = open_request(engine, process_top_owner(process));
	}
	g_ptr_array_add(process->open_clients, client);
	g_ptr_array_add(engine->open_clients, client);
	nctx_busy_client_waits(engine, client);
	if (parent && !parent->client) {
		engine->stats.clients_with_parent++;
		nctx_request_depend(engine, parent, client);
	} else {
		request_make_root(engine, client);
	}
	nctx_request_op(engine, client, NCTX_OP_SPAN_START, &start, start.vtid, 0);
	/*
	 * A client span is a wait for a remote call: it never runs on the loop itself (its
	 * callbacks are its server request's), so it is deactivated right away.
	 */
	if (engine->config.activations) {
		nctx_request_op(engine, client, NCTX_OP_SPAN_DEACTIVATE, &start, start.vtid, 0);
	}
	if (engine->pending_servers->len > 0) {
		link_pending_callee(engine, client);
		pending_review(engine, origin->ts, false);
	}
}

void nctx_http_request(struct nctx_engine *engine,
		const struct nctx_origin *origin, bool client,
		const struct nctx_http *http)
{
	struct nctx_process *process = process_get(engine, origin);

	engine->stats.vnode_events++;
	if (client) {
		client_request(engine, process, origin, http);
	} else {
		server_request(engine, process, origin, http);
	}
	if (http->runs_id > 0) {
		runs_after_event(engine, process, origin, http->runs_id);
	}
}

/* The open request of `list` answered by `http`, or NULL. */
static struct nctx_request *find_open(struct nctx_process *process, GPtrArray *list,
		const struct nctx_http *http, bool client)
{
	uint64_t owner = resource_owner(process, http->ctx_id);
	guint i;

	/* By the resource the response runs in (client: its HTTPCLIENTREQUEST). */
	for (i = 0; i < list->len; i++) {
		struct nctx_request *request = g_ptr_array_index(list, i);

		if ((client && request->resource_id >= 0 && request->resource_id == http->ctx_id) ||
				(!client && request->serial == owner)) {
			return request;
		}
	}
	/* Else by socket (one exchange at a time on a connection), else by ports. */
	for (i = 0; i < list->len; i++) {
		struct nctx_request *request = g_ptr_array_index(list, i);

		if (http->sock_async_id >= 0 && request->sock_async_id == http->sock_async_id) {
			return request;
		}
	}
	for (i = 0; i < list->len; i++) {
		struct nctx_request *request = g_ptr_array_index(list, i);

		if (http->local_port > 0 && http->port > 0 && request->port == http->port &&
				(request->local_port < 0 || request->local_port == http->local_port)) {
			return request;
		}
	}
	return NULL;
}

static uint8_t span_status(int64_t http_status)
{
	return http_status >= 500 || http_status <= 0 ? 2 : 1;
}

static void request_end(struct nctx_engine *engine, struct nctx_request *request,
		const struct nctx_origin *origin, int64_t http_status)
{
	struct nctx_process *process = request->process;

	request->ended = true;
	request->end_ts = origin->ts;
	if (process->active == request->serial) {
		if (engine->config.activations) {
			nctx_request_op(engine, request, NCTX_OP_SPAN_DEACTIVATE, origin,
				origin->vtid, 0);
			nctx_busy_record(engine, process, request, origin);
		}
		process->active = 0;
	}
	nctx_request_op(engine, request, NCTX_OP_SPAN_END, origin, request->vtid,
		span_status(http_status));
}

static void server_response(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, const struct nctx_http *http)
{
	struct nctx_request *server = find_open(process, process->open_servers, http, false);

	engine->stats.server_responses++;
	if (!server) {
		engine->stats.unmatched_responses++;
		return;
	}
	g_ptr_array_remove(process->open_servers, server);
	if (!server->ended) {
		request_end(engine, server, origin, http->status);
	}
	nctx_request_release_if_done(engine, server);
}

/*
 * `http.server.response.finish` fires once the response is flushed, which
 * can be after the caller parsed it (`http.client.response.finish`): a
 * server span ends at the first of the two, so it never outlives its client
 * span.  It stays in its process's open list until its own finish arrives.
 */
static void server_end_at_caller(struct nctx_engine *engine, struct nctx_request *server,
		const struct nctx_request *client, const struct nctx_origin *origin,
		int64_t http_status)
{
	struct nctx_origin at = *origin;

	at.vtid = server->vtid;
	if (server->process->host != client->process->host) {
		at.cycles = NCTX_CYCLES_FROM_TS;
	}
	engine->stats.servers_ended_by_caller++;
	request_end(engine, server, &at, http_status);
}

static void client_response(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_origin *origin, const struct nctx_http *http)
{
	struct nctx_request *client = find_open(process, process->open_clients, http, true);
	struct nctx_request *callee;

	engine->stats.client_responses++;
	if (!client) {
		engine->stats.unmatched_responses++;
		return;
	}
	if (client->local_port < 0) {
		client->local_port = known_port(http->local_port);
	}
	if (client->port < 0) {
		client->port = known_port(http->port);
	}
	link_pending_callee(engine, client);
	g_ptr_array_remove(process->open_clients, client);
	g_ptr_array_remove(engine->open_clients, client);
	nctx_busy_client_done(engine, client);
	callee = open_request(engine, client->callee_serial);
	if (callee) {
		server_end_at_caller(engine, callee, client, origin, http->status);
	}
	request_end(engine, client, origin, http->status);
	pending_review(engine, origin->ts, false);
	nctx_request_release_if_done(engine, client);
}

void nctx_http_response(struct nctx_engine *engine,
		const struct nctx_origin *origin, bool client,
		const struct nctx_http *http)
{
	struct nctx_process *process = process_get(engine, origin);

	engine->stats.vnode_events++;
	if (client) {
		client_response(engine, process, origin, http);
	} else {
		server_response(engine, process, origin, http);
	}
	if (http->runs_id > 0) {
		runs_after_event(engine, process, origin, http->runs_id);
	}
}

void nctx_engine_advance(struct nctx_engine *engine, int64_t ts)
{
	int64_t horizon = nctx_engine_horizon(engine);

	if (horizon == INT64_MAX || ts - horizon <= engine->config.match_window_ns) {
		return;
	}
	/* An HTTPCLIENTREQUEST never announced (no subscriber, aborted) stops holding output. */
	while (engine->open_parsers->len > 0) {
		struct nctx_parser *parser = g_ptr_array_index(engine->open_parsers, 0);

		if (ts - parser->at.ts <= engine->config.match_window_ns) {
			break;
		}
		parser_close(engine, parser);
	}
	nctx_busy_expire(engine, ts, false);
	pending_review(engine, ts, false);
}

void nctx_engine_finish(struct nctx_engine *engine)
{
	GHashTableIter iter;
	gpointer value;

	while (engine->open_parsers->len > 0) {
		parser_close(engine, g_ptr_array_index(engine->open_parsers, 0));
	}
	pending_review(engine, INT64_MAX, true);
	nctx_busy_expire(engine, INT64_MAX, true);
	engine->stats.open_at_end = 0;
	g_hash_table_iter_init(&iter, engine->requests);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct nctx_request *request = value;

		if (!request->ended) {
			engine->stats.open_at_end++;
		}
	}
}
