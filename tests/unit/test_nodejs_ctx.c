/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the Node.js context state machine (plugins/nodejs-ctx-filter/ctx.c)
 * with hand-written vnode event sequences shaped like Node 20's: fresh socket,
 * keep-alive reuse, concurrent requests interleaved on one loop, a request that
 * never gets a response, a client whose local port is unknown at request time.
 */
#include "unit.h"
#include "ctx.h"

#include <glib.h>
#include <stdlib.h>

#define GATEWAY 100
#define USERS 200
#define WINDOW_NS 1000

/* The operations produced, with their strings copied. */
struct recorder {
	GArray *ops;		/* struct nctx_op */
	GPtrArray *strings;	/* owned copies */
	int64_t last_event_ts;	/* timestamp of the last event fed */
	unsigned int deferred;	/* operations produced older than the last event */
};

static void record_op(const struct nctx_op *op, void *user)
{
	struct recorder *rec = user;
	struct nctx_op copy = *op;

	copy.service = op->service ? g_strdup(op->service) : NULL;
	copy.operation = op->operation ? g_strdup(op->operation) : NULL;
	copy.procname = NULL;
	g_ptr_array_add(rec->strings, (gpointer) copy.service);
	g_ptr_array_add(rec->strings, (gpointer) copy.operation);
	if (op->ts < rec->last_event_ts) {
		rec->deferred++;
	}
	g_array_append_val(rec->ops, copy);
}

struct fixture {
	struct recorder rec;
	struct nctx_engine *engine;
};

static void fixture_init_busy(struct fixture *fx, bool activations, bool busy_spans)
{
	struct nctx_config config = {
		.match_window_ns = WINDOW_NS,
		.trace_id_high = 0x6e6f6465,
		.activations = activations,
		.busy_spans = busy_spans,
		.busy_min_ns = 5,
	};

	fx->rec.ops = g_array_new(FALSE, FALSE, sizeof(struct nctx_op));
	fx->rec.strings = g_ptr_array_new_with_free_func(g_free);
	fx->rec.last_event_ts = 0;
	fx->rec.deferred = 0;
	fx->engine = nctx_engine_create(&config, record_op, &fx->rec);
}

static void fixture_init(struct fixture *fx, bool activations)
{
	fixture_init_busy(fx, activations, false);
}

static void fixture_fini(struct fixture *fx)
{
	nctx_engine_destroy(fx->engine);
	g_array_free(fx->rec.ops, TRUE);
	g_ptr_array_free(fx->rec.strings, TRUE);
}

static struct nctx_origin origin(struct fixture *fx, int64_t vpid, int64_t ts)
{
	struct nctx_origin o = {
		.host = 0, .vpid = vpid, .vtid = vpid, .ts = ts,
		.procname = vpid == GATEWAY ? "gateway" : "users",
	};

	fx->rec.last_event_ts = ts;
	return o;
}

static void ac(struct fixture *fx, int64_t vpid, int64_t ts, enum nctx_phase phase,
		int64_t id, int64_t trigger, const char *type)
{
	struct nctx_origin o = origin(fx, vpid, ts);

	nctx_async_context(fx->engine, &o, phase, id, trigger, type ? type : "-");
}

static void construct(struct fixture *fx, int64_t vpid, int64_t ts, int64_t id,
		int64_t trigger, int64_t exec, const char *type)
{
	(void) exec;	/* the event's exec_id: recorded by the tracer, not used by the engine */
	ac(fx, vpid, ts, NCTX_PHASE_CONSTRUCTOR, id, trigger, type);
}

static void before(struct fixture *fx, int64_t vpid, int64_t ts, int64_t id)
{
	ac(fx, vpid, ts, NCTX_PHASE_BEFORE, id, -1, NULL);
}

static void after(struct fixture *fx, int64_t vpid, int64_t ts, int64_t id)
{
	ac(fx, vpid, ts, NCTX_PHASE_AFTER, id, -1, NULL);
}

static void http_status(struct fixture *fx, int64_t vpid, int64_t ts, bool client, bool request,
		int64_t ctx, int64_t sock, int64_t port, int64_t local_port, const char *url,
		int64_t status)
{
	struct nctx_origin o = origin(fx, vpid, ts);
	struct nctx_http h = {
		.sockid = 20, .sock_async_id = sock, .ctx_id = ctx, .method = "GET",
		.url = url, .address = "127.0.0.1", .status = status, .port = port,
		.local_port = local_port,
	};

	if (request) {
		nctx_http_request(fx->engine, &o, client, &h);
	} else {
		nctx_http_response(fx->engine, &o, client, &h);
	}
}

/* An HTTP/2 request: stream `stream` of the connection (ports). */
static void http2_request(struct fixture *fx, int64_t vpid, int64_t ts, bool client, int64_t ctx,
		int64_t port, int64_t local_port, int64_t stream, const char *url)
{
	struct nctx_origin o = origin(fx, vpid, ts);
	struct nctx_http h = {
		.sockid = 20, .sock_async_id = 77, .ctx_id = ctx, .method = "POST",
		.url = url, .address = "127.0.0.1", .port = port, .local_port = local_port,
		.stream_id = stream,
	};

	nctx_http_request(fx->engine, &o, client, &h);
}

static void http(struct fixture *fx, int64_t vpid, int64_t ts, bool client, bool request,
		int64_t ctx, int64_t sock, int64_t port, int64_t local_port, const char *url)
{
	http_status(fx, vpid, ts, client, request, ctx, sock, port, local_port, url, 200);
}

/* The n-th (0-based) SPAN_START of `operation`, or NULL. */
static const struct nctx_op *find_start(const struct fixture *fx, const char *operation,
		unsigned int n)
{
	guint i;

	for (i = 0; i < fx->rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx->rec.ops, struct nctx_op, i);

		if (op->kind == NCTX_OP_SPAN_START && strcmp(op->operation, operation) == 0 &&
				n-- == 0) {
			return op;
		}
	}
	return NULL;
}

static unsigned int count_ops(const struct fixture *fx, enum nctx_op_kind kind,
		uint64_t span_id)
{
	unsigned int count = 0;
	guint i;

	for (i = 0; i < fx->rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx->rec.ops, struct nctx_op, i);

		count += op->kind == kind && (span_id == 0 || op->span_id == span_id);
	}
	return count;
}

static bool ops_in_time_order(const struct fixture *fx)
{
	guint i;

	for (i = 1; i < fx->rec.ops->len; i++) {
		if (g_array_index(fx->rec.ops, struct nctx_op, i).ts <
				g_array_index(fx->rec.ops, struct nctx_op, i - 1).ts) {
			return false;
		}
	}
	return true;
}

/*
 * Activations of one process never overlap: activate/deactivate of server spans
 * alternate per vpid (client spans are only deactivated, at their start).
 */
static bool activations_alternate(const struct fixture *fx, int64_t vpid)
{
	uint64_t active = 0;
	guint i;

	for (i = 0; i < fx->rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx->rec.ops, struct nctx_op, i);

		if (op->vpid != vpid) {
			continue;
		}
		if (op->span_kind == NCTX_SPAN_CLIENT) {
			if (op->kind == NCTX_OP_SPAN_ACTIVATE) {
				return false;
			}
			continue;
		}
		if (op->kind == NCTX_OP_SPAN_ACTIVATE) {
			if (active != 0) {
				return false;
			}
			active = op->span_id;
		} else if (op->kind == NCTX_OP_SPAN_DEACTIVATE) {
			if (active != op->span_id) {
				return false;
			}
			active = 0;
		}
	}
	return active == 0;
}

/*
 * gateway's incoming request (connection resource ids conn/msg) calls users on a
 * socket (ports 40000 -> 8081); users answers from a timer.  Ids of the second
 * exchange on the same connections differ as asyncReset gives new ids.
 */
static void exchange(struct fixture *fx, int64_t t, int64_t base, bool fresh,
		int64_t gw_msg, int64_t users_msg)
{
	if (fresh) {
		construct(fx, GATEWAY, t + 1, 5, 4, 0, "TCPWRAP");
		construct(fx, GATEWAY, t + 2, gw_msg, 5, 4, "HTTPINCOMINGMESSAGE");
	}
	before(fx, GATEWAY, t + 3, gw_msg);
	http(fx, GATEWAY, t + 4, false, true, gw_msg, 5, 50000, 8080, "/api?id=1");
	construct(fx, GATEWAY, t + 5, base + 1, gw_msg, gw_msg, "TCPWRAP");
	construct(fx, GATEWAY, t + 6, base + 2, gw_msg, gw_msg, "TickObject");
	after(fx, GATEWAY, t + 7, gw_msg);
	before(fx, GATEWAY, t + 8, base + 2);
	construct(fx, GATEWAY, t + 9, base + 3, base + 2, base + 2, "HTTPCLIENTREQUEST");
	http(fx, GATEWAY, t + 10, true, true, base + 3, base + 1, 8081, 40000, "/users");
	after(fx, GATEWAY, t + 11, base + 2);

	if (fresh) {
		construct(fx, USERS, t + 20, 3, 2, 0, "TCPWRAP");
		construct(fx, USERS, t + 21, users_msg, 3, 2, "HTTPINCOMINGMESSAGE");
	}
	before(fx, USERS, t + 22, users_msg);
	http(fx, USERS, t + 23, false, true, users_msg, 3, 40000, 8081, "/users");
	construct(fx, USERS, t + 24, base + 50, users_msg, users_msg, "Timeout");
	after(fx, USERS, t + 25, users_msg);
	before(fx, USERS, t + 30, base + 50);
	http(fx, USERS, t + 31, false, false, base + 50, 3, 40000, 8081, NULL);
	after(fx, USERS, t + 32, base + 50);

	before(fx, GATEWAY, t + 40, base + 3);
	http(fx, GATEWAY, t + 41, true, false, base + 3, base + 1, 8081, 40000, NULL);
	construct(fx, GATEWAY, t + 42, base + 4, base + 3, base + 3, "TickObject");
	after(fx, GATEWAY, t + 43, base + 3);
	before(fx, GATEWAY, t + 44, base + 4);
	http(fx, GATEWAY, t + 45, false, false, base + 4, 5, 50000, 8080, NULL);
	after(fx, GATEWAY, t + 46, base + 4);
}

static void test_fresh_socket(void)
{
	struct fixture fx;
	const struct nctx_op *root, *client, *callee;
	const struct nctx_stats *stats;

	fixture_init(&fx, true);
	exchange(&fx, 0, 10, true, 6, 4);
	nctx_engine_finish(fx.engine);
	stats = nctx_engine_stats(fx.engine);
	root = find_start(&fx, "HTTP GET /api", 0);
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (!UNIT_CHECK(root && client && callee, "fresh: three spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(root->parent_span_id, 0, "fresh: the gateway request is a root");
	UNIT_EQ_INT(root->span_kind, NCTX_SPAN_SERVER, "fresh: root is a server span");
	UNIT_EQ_STR(root->service, "gateway", "fresh: service is the process name");
	UNIT_EQ_UINT(client->parent_span_id, root->span_id, "fresh: client's parent is its server request");
	UNIT_EQ_INT(client->span_kind, NCTX_SPAN_CLIENT, "fresh: client span kind");
	UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "fresh: callee's parent is the client span");
	UNIT_CHECK(root->trace_id_low == client->trace_id_low &&
		client->trace_id_low == callee->trace_id_low && root->trace_id_high == 0x6e6f6465,
		"fresh: one trace id");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_END, 0), 3, "fresh: three spans end");
	UNIT_EQ_UINT(stats->clients_with_parent, 1, "fresh: one client with parent");
	UNIT_EQ_UINT(stats->clients_with_callee, 1, "fresh: one client with callee");
	UNIT_EQ_UINT(stats->roots, 1, "fresh: one root");
	UNIT_EQ_UINT(stats->deferred_servers, 0, "fresh: nothing deferred");
	/* gateway: handler (4-7), client tick (8-11), response (40-43), reply tick (44-45). */
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, root->span_id), 4,
		"fresh: gateway request activated in each of its callbacks");
	/* users: handler (23-25), timer (30-31). */
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, callee->span_id), 2,
		"fresh: users request activated in each of its callbacks");
	UNIT_CHECK(activations_alternate(&fx, GATEWAY) && activations_alternate(&fx, USERS),
		"fresh: activations alternate per loop");
	UNIT_CHECK(ops_in_time_order(&fx), "fresh: operations in time order");
	UNIT_EQ_INT(client->ts, 9, "fresh: client span starts at its HTTPCLIENTREQUEST");
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "fresh: nothing held back");
end:
	fixture_fini(&fx);
}

static void test_keep_alive_reuse(void)
{
	struct fixture fx;
	const struct nctx_op *client0, *client1, *callee0, *callee1, *root0, *root1;

	fixture_init(&fx, true);
	exchange(&fx, 0, 10, true, 6, 4);
	/* Same connections (same ports, same HTTPINCOMINGMESSAGE ids), new socket ids. */
	exchange(&fx, 100, 110, false, 6, 4);
	nctx_engine_finish(fx.engine);
	root0 = find_start(&fx, "HTTP GET /api", 0);
	root1 = find_start(&fx, "HTTP GET /api", 1);
	client0 = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	client1 = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 1);
	callee0 = find_start(&fx, "HTTP GET /users", 0);
	callee1 = find_start(&fx, "HTTP GET /users", 1);
	if (!UNIT_CHECK(root0 && root1 && client0 && client1 && callee0 && callee1,
			"keep-alive: six spans start")) {
		goto end;
	}
	UNIT_CHECK(root0->trace_id_low != root1->trace_id_low, "keep-alive: two traces");
	UNIT_EQ_UINT(client1->parent_span_id, root1->span_id, "keep-alive: second client's parent");
	UNIT_EQ_UINT(callee1->parent_span_id, client1->span_id,
		"keep-alive: second callee matches the second client, not the first");
	UNIT_EQ_UINT(callee1->trace_id_low, root1->trace_id_low, "keep-alive: second callee's trace");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_DEACTIVATE, client1->span_id), 1,
		"keep-alive: the client span is deactivated once, at its start");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->servers_ended_by_caller, 0,
		"keep-alive: servers finished before their clients got the response");
	UNIT_CHECK(activations_alternate(&fx, GATEWAY), "keep-alive: activations alternate");
end:
	fixture_fini(&fx);
}

static void test_concurrent_requests(void)
{
	struct fixture fx;
	const struct nctx_op *a, *b, *ca, *cb, *ua, *ub;

	fixture_init(&fx, true);
	/* Two connections to gateway, both requests start before either call returns. */
	construct(&fx, GATEWAY, 1, 5, 4, 0, "TCPWRAP");
	construct(&fx, GATEWAY, 2, 6, 5, 4, "HTTPINCOMINGMESSAGE");
	construct(&fx, GATEWAY, 3, 7, 4, 0, "TCPWRAP");
	construct(&fx, GATEWAY, 4, 8, 7, 4, "HTTPINCOMINGMESSAGE");
	before(&fx, GATEWAY, 10, 6);
	http(&fx, GATEWAY, 11, false, true, 6, 5, 50000, 8080, "/a");
	construct(&fx, GATEWAY, 12, 20, 6, 6, "TCPWRAP");
	construct(&fx, GATEWAY, 13, 21, 6, 6, "TickObject");
	after(&fx, GATEWAY, 14, 6);
	before(&fx, GATEWAY, 15, 8);
	http(&fx, GATEWAY, 16, false, true, 8, 7, 50001, 8080, "/b");
	construct(&fx, GATEWAY, 17, 30, 8, 8, "TCPWRAP");
	construct(&fx, GATEWAY, 18, 31, 8, 8, "TickObject");
	after(&fx, GATEWAY, 19, 8);
	before(&fx, GATEWAY, 20, 21);
	construct(&fx, GATEWAY, 21, 22, 21, 21, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 22, true, true, 22, 20, 8081, 40000, "/users");
	after(&fx, GATEWAY, 23, 21);
	before(&fx, GATEWAY, 24, 31);
	construct(&fx, GATEWAY, 25, 32, 31, 31, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 26, true, true, 32, 30, 8081, 40001, "/users");
	after(&fx, GATEWAY, 27, 31);
	/* users sees b's call first. */
	before(&fx, USERS, 30, 9);
	http(&fx, USERS, 31, false, true, 9, 3, 40001, 8081, "/users");
	http(&fx, USERS, 32, false, false, 9, 3, 40001, 8081, NULL);
	after(&fx, USERS, 33, 9);
	before(&fx, USERS, 34, 11);
	http(&fx, USERS, 35, false, true, 11, 10, 40000, 8081, "/users");
	http(&fx, USERS, 36, false, false, 11, 10, 40000, 8081, NULL);
	after(&fx, USERS, 37, 11);
	/* Responses in the order b, a. */
	before(&fx, GATEWAY, 40, 32);
	http(&fx, GATEWAY, 41, true, false, 32, 30, 8081, 40001, NULL);
	http(&fx, GATEWAY, 42, false, false, 32, 7, 50001, 8080, NULL);
	after(&fx, GATEWAY, 43, 32);
	before(&fx, GATEWAY, 44, 22);
	http(&fx, GATEWAY, 45, true, false, 22, 20, 8081, 40000, NULL);
	http(&fx, GATEWAY, 46, false, false, 22, 5, 50000, 8080, NULL);
	after(&fx, GATEWAY, 47, 22);
	nctx_engine_finish(fx.engine);

	a = find_start(&fx, "HTTP GET /a", 0);
	b = find_start(&fx, "HTTP GET /b", 0);
	ca = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	cb = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 1);
	ub = find_start(&fx, "HTTP GET /users", 0);
	ua = find_start(&fx, "HTTP GET /users", 1);
	if (!UNIT_CHECK(a && b && ca && cb && ua && ub, "concurrent: six spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(ca->parent_span_id, a->span_id, "concurrent: a's call belongs to a");
	UNIT_EQ_UINT(cb->parent_span_id, b->span_id, "concurrent: b's call belongs to b");
	UNIT_EQ_UINT(ua->parent_span_id, ca->span_id, "concurrent: users' second request is a's call");
	UNIT_EQ_UINT(ub->parent_span_id, cb->span_id, "concurrent: users' first request is b's call");
	UNIT_CHECK(ua->trace_id_low == a->trace_id_low && ub->trace_id_low == b->trace_id_low &&
		a->trace_id_low != b->trace_id_low, "concurrent: one trace per external request");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_END, 0), 6, "concurrent: six spans end");
	UNIT_CHECK(activations_alternate(&fx, GATEWAY) && activations_alternate(&fx, USERS),
		"concurrent: one request active at a time per loop");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, a->span_id), 3,
		"concurrent: a runs in its handler, its tick and its response");
end:
	fixture_fini(&fx);
}

static void test_never_answered(void)
{
	struct fixture fx;
	const struct nctx_stats *stats;

	fixture_init(&fx, true);
	construct(&fx, GATEWAY, 1, 5, 4, 0, "TCPWRAP");
	construct(&fx, GATEWAY, 2, 6, 5, 4, "HTTPINCOMINGMESSAGE");
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/hang");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "HTTPCLIENTREQUEST");
	/* DNS pending: no socket, no local port. */
	http(&fx, GATEWAY, 6, true, true, 7, -1, 8081, -1, "/nowhere");
	after(&fx, GATEWAY, 7, 6);
	/* An answer nobody asked for is counted, not crashed on. */
	http(&fx, GATEWAY, 8, false, false, 99, 98, 1, 2, NULL);
	nctx_engine_finish(fx.engine);
	stats = nctx_engine_stats(fx.engine);
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_START, 0), 2, "hang: both spans start");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_END, 0), 0, "hang: no invented end");
	UNIT_EQ_UINT(stats->open_at_end, 2, "hang: two requests open at the end");
	UNIT_EQ_UINT(stats->unmatched_responses, 1, "hang: stray response counted");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_DEACTIVATE, 0), 2,
		"hang: server deactivated when its callback returns, client at its start");
	fixture_fini(&fx);
}

/* The client's local port is unknown at request time (DNS, then connect). */
static void test_deferred_match(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee;
	const struct nctx_stats *stats;

	fixture_init(&fx, true);
	construct(&fx, GATEWAY, 1, 5, 4, 0, "TCPWRAP");
	construct(&fx, GATEWAY, 2, 6, 5, 4, "HTTPINCOMINGMESSAGE");
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 6, true, true, 7, -1, 8081, -1, "/users");
	after(&fx, GATEWAY, 7, 6);
	before(&fx, USERS, 20, 4);
	http(&fx, USERS, 21, false, true, 4, 3, 40002, 8081, "/users");
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), 21, "deferred: horizon at the undecided request");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_START, 0), 2, "deferred: callee not emitted yet");
	http(&fx, USERS, 22, false, false, 4, 3, 40002, 8081, NULL);
	after(&fx, USERS, 23, 4);
	nctx_engine_advance(fx.engine, 500);
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), 21, "deferred: still undecided inside the window");
	before(&fx, GATEWAY, 600, 7);
	http(&fx, GATEWAY, 601, true, false, 7, 12, 8081, 40002, NULL);
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "deferred: decided at the client's response");
	stats = nctx_engine_stats(fx.engine);
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (UNIT_CHECK(client && callee, "deferred: callee emitted")) {
		UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "deferred: linked by the learnt port");
		UNIT_EQ_UINT(callee->trace_id_low, client->trace_id_low, "deferred: same trace");
		UNIT_EQ_INT(callee->ts, 21, "deferred: emitted at its own time");
	}
	UNIT_EQ_UINT(stats->deferred_servers, 1, "deferred: counted");
	/*
	 * The client's start and deactivation (at its resource, 5, announced at 6) and the
	 * callee's start, activate, deactivate, end.
	 */
	UNIT_EQ_UINT(fx.rec.deferred, 6, "deferred: operations released late, at their own time");
	fixture_fini(&fx);
}

static void test_window_expiry(void)
{
	struct fixture fx;
	const struct nctx_op *callee;

	fixture_init(&fx, false);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	http(&fx, GATEWAY, 6, true, true, 6, -1, 8081, -1, "/users");
	after(&fx, GATEWAY, 7, 6);
	http(&fx, USERS, 21, false, true, 4, 3, 40002, 8081, "/users");
	nctx_engine_advance(fx.engine, 21 + WINDOW_NS + 1);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (UNIT_CHECK(callee != NULL, "window: undecided request released after the window")) {
		UNIT_EQ_UINT(callee->parent_span_id, 0, "window: it becomes a root");
	}
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, 0), 0, "window: activations off");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->roots, 2, "window: two roots");
	fixture_fini(&fx);
}

/* Node 20 publishes the client request once written: the callee may start first. */
static void test_callee_before_client_event(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee;

	fixture_init(&fx, false);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "HTTPCLIENTREQUEST");
	after(&fx, GATEWAY, 6, 6);
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), 5, "early callee: output held at the client's resource");
	http(&fx, USERS, 10, false, true, 4, 3, 40010, 8081, "/users");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_START, 0), 1, "early callee: waits for the client event");
	http(&fx, GATEWAY, 15, true, true, 7, 12, 8081, 40010, "/users");
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (UNIT_CHECK(client && callee, "early callee: both spans emitted at the client event")) {
		UNIT_EQ_INT(client->ts, 5, "early callee: client starts at its resource");
		UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "early callee: linked to its client");
	}
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "early callee: nothing held back");
	fixture_fini(&fx);
}

/* users' loop runs a 59-unit synchronous handler while gateway's call to users waits. */
static void test_event_loop_busy(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee, *slow, *busy, *tiny;
	guint i;
	int64_t busy_end = -1;

	fixture_init_busy(&fx, true, true);
	before(&fx, USERS, 100, 4);
	http(&fx, USERS, 101, false, true, 4, 3, 45000, 8081, "/slow");
	before(&fx, GATEWAY, 105, 6);
	http(&fx, GATEWAY, 106, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 110, 7, 6, 6, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 111, true, true, 7, 12, 8081, 40001, "/user");
	after(&fx, GATEWAY, 112, 6);
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), 110, "busy: output held while the call waits");
	construct(&fx, USERS, 150, 20, 4, 4, "TickObject");
	after(&fx, USERS, 160, 4);
	/* /slow runs again for 1 unit: shorter than busy-min, not reported. */
	before(&fx, USERS, 162, 20);
	after(&fx, USERS, 163, 20);
	before(&fx, USERS, 170, 9);
	http(&fx, USERS, 171, false, true, 9, 8, 40001, 8081, "/user");
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "busy: released once the callee starts");
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/user", 0);
	callee = find_start(&fx, "HTTP GET /user", 0);
	slow = find_start(&fx, "HTTP GET /slow", 0);
	busy = find_start(&fx, "event loop busy: users: HTTP GET /slow", 0);
	tiny = find_start(&fx, "event loop busy: users: HTTP GET /slow", 1);
	if (!UNIT_CHECK(client && callee && slow && busy, "busy: spans emitted")) {
		goto end;
	}
	UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "busy: callee linked");
	UNIT_EQ_UINT(busy->parent_span_id, client->span_id, "busy: child of the waiting client span");
	UNIT_EQ_UINT(busy->trace_id_low, client->trace_id_low, "busy: in the waiting request's trace");
	UNIT_EQ_INT(busy->span_kind, NCTX_SPAN_INTERNAL, "busy: internal span");
	UNIT_EQ_STR(busy->service, "users", "busy: on the callee's service");
	UNIT_EQ_INT(busy->vpid, USERS, "busy: on the callee's process");
	UNIT_EQ_INT(busy->ts, 110, "busy: from the client's start");
	for (i = 0; i < fx.rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx.rec.ops, struct nctx_op, i);

		if (op->kind == NCTX_OP_SPAN_END && op->span_id == busy->span_id) {
			busy_end = op->ts;
		}
	}
	UNIT_EQ_INT(busy_end, 160, "busy: to the end of the other request's callback");
	UNIT_CHECK(tiny == NULL, "busy: stretches under busy-min ignored");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->busy_spans, 1, "busy: counted");
end:
	fixture_fini(&fx);
}

/* Node flushes (finish) after the caller already parsed the response: the callee ends first. */
static void test_caller_gets_response_before_finish(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee;
	int64_t callee_end = -1, client_end = -1;
	guint i;

	fixture_init(&fx, true);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 6, true, true, 7, 12, 8081, 40003, "/user");
	after(&fx, GATEWAY, 7, 6);
	before(&fx, USERS, 10, 4);
	http(&fx, USERS, 11, false, true, 4, 3, 40003, 8081, "/user");
	construct(&fx, USERS, 12, 30, 4, 4, "TickObject");
	after(&fx, USERS, 13, 4);
	before(&fx, GATEWAY, 20, 7);
	http(&fx, GATEWAY, 21, true, false, 7, 12, 8081, 40003, NULL);
	after(&fx, GATEWAY, 22, 7);
	before(&fx, USERS, 25, 30);
	http(&fx, USERS, 26, false, false, 30, 3, 40003, 8081, NULL);
	after(&fx, USERS, 27, 30);
	nctx_engine_finish(fx.engine);
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/user", 0);
	callee = find_start(&fx, "HTTP GET /user", 0);
	if (!UNIT_CHECK(client && callee, "early response: spans start")) {
		goto end;
	}
	for (i = 0; i < fx.rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx.rec.ops, struct nctx_op, i);

		if (op->kind == NCTX_OP_SPAN_END && op->span_id == callee->span_id) {
			callee_end = op->ts;
			UNIT_EQ_INT(op->vpid, USERS, "early response: the callee's end is on its process");
		}
		if (op->kind == NCTX_OP_SPAN_END && op->span_id == client->span_id) {
			client_end = op->ts;
		}
	}
	UNIT_EQ_INT(callee_end, 21, "early response: callee ends when its caller got the response");
	UNIT_EQ_INT(client_end, 21, "early response: client ends then too");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_END, 0), 2, "early response: one end each for callee and client");
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, callee->span_id), 1,
		"early response: the finish callback no longer runs for the ended span");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->servers_ended_by_caller, 1, "early response: counted");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->unmatched_responses, 0,
		"early response: the late finish is not a stray response");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->open_at_end, 1, "early response: only the gateway request is open");
end:
	fixture_fini(&fx);
}

/* The SPAN_END of span `span_id`, or NULL. */
static const struct nctx_op *find_end(const struct fixture *fx, uint64_t span_id)
{
	guint i;

	for (i = 0; i < fx->rec.ops->len; i++) {
		const struct nctx_op *op = &g_array_index(fx->rec.ops, struct nctx_op, i);

		if (op->kind == NCTX_OP_SPAN_END && op->span_id == span_id) {
			return op;
		}
	}
	return NULL;
}

/*
 * fetch() (undici) as the recorder reports it: a DEEPSPAN_CLIENT resource made at
 * `undici:request:create` inside the caller's callback; the request announced at
 * `undici:client:sendHeaders` from a socket callback owned by nobody (ctx_id = that
 * resource), after the callee already started; the response at `undici:request:headers`.
 * Two fetches of one callback run concurrently on two sockets and finish in reverse order.
 */
static void test_undici_interleaved(void)
{
	struct fixture fx;
	const struct nctx_op *root, *client_a, *client_b, *callee_a, *callee_b;

	fixture_init(&fx, true);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "DEEPSPAN_CLIENT");
	construct(&fx, GATEWAY, 6, 8, 6, 6, "DEEPSPAN_CLIENT");
	after(&fx, GATEWAY, 7, 6);
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), 5, "undici: output held from the first fetch's creation");
	/* users reads request b first: it waits for its client's announcement. */
	before(&fx, USERS, 10, 40);
	http(&fx, USERS, 11, false, true, 40, 41, 40021, 8081, "/users/b");
	after(&fx, USERS, 12, 40);
	before(&fx, GATEWAY, 13, 30);
	http(&fx, GATEWAY, 14, true, true, 7, 31, 8081, 40020, "/users/a");
	http(&fx, GATEWAY, 15, true, true, 8, 32, 8081, 40021, "/users/b");
	after(&fx, GATEWAY, 16, 30);
	before(&fx, USERS, 17, 42);
	http(&fx, USERS, 18, false, true, 42, 43, 40020, 8081, "/users/a");
	after(&fx, USERS, 19, 42);
	before(&fx, USERS, 20, 44);
	http(&fx, USERS, 21, false, false, 40, 41, 40021, 8081, NULL);
	http(&fx, USERS, 22, false, false, 42, 43, 40020, 8081, NULL);
	after(&fx, USERS, 23, 44);
	before(&fx, GATEWAY, 30, 33);
	http(&fx, GATEWAY, 31, true, false, 8, 32, 8081, 40021, NULL);
	http(&fx, GATEWAY, 32, true, false, 7, 31, 8081, 40020, NULL);
	after(&fx, GATEWAY, 33, 33);
	nctx_engine_finish(fx.engine);
	root = find_start(&fx, "HTTP GET /api", 0);
	client_a = find_start(&fx, "HTTP GET 127.0.0.1:8081/users/a", 0);
	client_b = find_start(&fx, "HTTP GET 127.0.0.1:8081/users/b", 0);
	callee_a = find_start(&fx, "HTTP GET /users/a", 0);
	callee_b = find_start(&fx, "HTTP GET /users/b", 0);
	if (!UNIT_CHECK(root && client_a && client_b && callee_a && callee_b, "undici: five spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(client_a->parent_span_id, root->span_id, "undici: fetch a's parent is the gateway request");
	UNIT_EQ_UINT(client_b->parent_span_id, root->span_id, "undici: fetch b's parent is the gateway request");
	UNIT_EQ_INT(client_a->ts, 5, "undici: fetch a starts at its creation");
	UNIT_EQ_INT(client_b->ts, 6, "undici: fetch b starts at its creation");
	UNIT_EQ_UINT(callee_a->parent_span_id, client_a->span_id, "undici: callee a linked to fetch a");
	UNIT_EQ_UINT(callee_b->parent_span_id, client_b->span_id, "undici: callee b linked to fetch b");
	UNIT_CHECK(find_end(&fx, client_a->span_id) && find_end(&fx, client_a->span_id)->ts == 32,
		"undici: fetch a ends at its own response");
	UNIT_CHECK(find_end(&fx, client_b->span_id) && find_end(&fx, client_b->span_id)->ts == 31,
		"undici: fetch b ends at its own response");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->roots, 1, "undici: one root");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->unmatched_responses, 0, "undici: every response matched");
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "undici: nothing held back");
end:
	fixture_fini(&fx);
}

/*
 * An aborted fetch: one aborted before its headers were sent (the recorder announces it
 * with no socket, then ends it with status 0), one aborted while its callee runs.
 */
static void test_undici_aborted(void)
{
	struct fixture fx;
	const struct nctx_op *root, *early, *late, *callee;

	fixture_init(&fx, true);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "DEEPSPAN_CLIENT");
	construct(&fx, GATEWAY, 6, 8, 6, 6, "DEEPSPAN_CLIENT");
	after(&fx, GATEWAY, 7, 6);
	before(&fx, GATEWAY, 8, 30);
	http(&fx, GATEWAY, 9, true, true, 8, 31, 8081, 40050, "/late");
	after(&fx, GATEWAY, 10, 30);
	before(&fx, USERS, 11, 40);
	http(&fx, USERS, 12, false, true, 40, 41, 40050, 8081, "/late");
	after(&fx, USERS, 13, 40);
	/* The AbortController fires: undici:request:error for both. */
	before(&fx, GATEWAY, 20, 50);
	http_status(&fx, GATEWAY, 21, true, true, 7, -1, 8081, -1, "/early", 0);
	http_status(&fx, GATEWAY, 21, true, false, 7, -1, 8081, -1, NULL, 0);
	ac(&fx, GATEWAY, 22, NCTX_PHASE_DESTROY, 7, -1, NULL);
	http_status(&fx, GATEWAY, 23, true, false, 8, 31, 8081, 40050, NULL, 0);
	ac(&fx, GATEWAY, 24, NCTX_PHASE_DESTROY, 8, -1, NULL);
	after(&fx, GATEWAY, 25, 50);
	nctx_engine_finish(fx.engine);
	root = find_start(&fx, "HTTP GET /api", 0);
	early = find_start(&fx, "HTTP GET 127.0.0.1:8081/early", 0);
	late = find_start(&fx, "HTTP GET 127.0.0.1:8081/late", 0);
	callee = find_start(&fx, "HTTP GET /late", 0);
	if (!UNIT_CHECK(root && early && late && callee, "aborted: spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(early->parent_span_id, root->span_id, "aborted: the unsent fetch is the request's child");
	UNIT_EQ_INT(early->ts, 5, "aborted: the unsent fetch starts at its creation");
	UNIT_CHECK(find_end(&fx, early->span_id) && find_end(&fx, early->span_id)->status == 2,
		"aborted: the unsent fetch ends in error");
	UNIT_EQ_UINT(callee->parent_span_id, late->span_id, "aborted: the sent fetch keeps its callee");
	UNIT_CHECK(find_end(&fx, late->span_id) && find_end(&fx, late->span_id)->status == 2 &&
		find_end(&fx, late->span_id)->ts == 23, "aborted: the sent fetch ends in error at the abort");
	UNIT_CHECK(find_end(&fx, callee->span_id) && find_end(&fx, callee->span_id)->ts == 23,
		"aborted: its callee ends no later than the caller gave up");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->client_requests, 2, "aborted: two client requests");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->roots, 1, "aborted: one root");
	UNIT_EQ_INT(nctx_engine_horizon(fx.engine), INT64_MAX, "aborted: nothing held back");
end:
	fixture_fini(&fx);
}

/*
 * A retried request: undici sends it on a kept-alive socket the server had closed
 * (never read there), then again on a new connection.  One client span, linked to the
 * callee that read it.
 */
static void test_undici_retry(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee;

	fixture_init(&fx, true);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "DEEPSPAN_CLIENT");
	after(&fx, GATEWAY, 6, 6);
	before(&fx, GATEWAY, 7, 30);
	http(&fx, GATEWAY, 8, true, true, 7, 31, 8081, 40060, "/users");
	after(&fx, GATEWAY, 9, 30);
	before(&fx, GATEWAY, 10, 32);
	http(&fx, GATEWAY, 11, true, true, 7, 33, 8081, 40061, "/users");
	after(&fx, GATEWAY, 12, 32);
	before(&fx, USERS, 13, 40);
	http(&fx, USERS, 14, false, true, 40, 41, 40061, 8081, "/users");
	http(&fx, USERS, 15, false, false, 40, 41, 40061, 8081, NULL);
	after(&fx, USERS, 16, 40);
	before(&fx, GATEWAY, 20, 34);
	http(&fx, GATEWAY, 21, true, false, 7, 33, 8081, 40061, NULL);
	after(&fx, GATEWAY, 22, 34);
	nctx_engine_finish(fx.engine);
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (!UNIT_CHECK(client && callee, "retry: spans start")) {
		goto end;
	}
	UNIT_CHECK(find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 1) == NULL, "retry: one client span");
	UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "retry: callee linked through the new socket");
	UNIT_CHECK(find_end(&fx, client->span_id) && find_end(&fx, client->span_id)->ts == 21,
		"retry: the client span ends at the response");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->client_retries, 1, "retry: counted");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->client_requests, 1, "retry: one client request");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->open_at_end, 1, "retry: only the gateway request open");
end:
	fixture_fini(&fx);
}

/* A local port 0 (socket not connected yet) is unknown: the match is deferred, not lost. */
static void test_port_zero_unknown(void)
{
	struct fixture fx;
	const struct nctx_op *client, *callee;

	fixture_init(&fx, false);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "HTTPCLIENTREQUEST");
	http(&fx, GATEWAY, 6, true, true, 7, -1, 8081, 0, "/users");
	after(&fx, GATEWAY, 7, 6);
	http(&fx, USERS, 10, false, true, 4, 3, 40070, 8081, "/users");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->deferred_servers, 1, "port 0: the callee waits for the port");
	http(&fx, USERS, 11, false, false, 4, 3, 40070, 8081, NULL);
	http(&fx, GATEWAY, 12, true, false, 7, 12, 8081, 40070, NULL);
	nctx_engine_finish(fx.engine);
	client = find_start(&fx, "HTTP GET 127.0.0.1:8081/users", 0);
	callee = find_start(&fx, "HTTP GET /users", 0);
	if (UNIT_CHECK(client && callee, "port 0: spans start")) {
		UNIT_EQ_UINT(callee->parent_span_id, client->span_id, "port 0: linked once the port is known");
	}
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->roots, 1, "port 0: one root");
	fixture_fini(&fx);
}

/* Ids in paths become `:id` (numbers, UUIDs, hex ids); words and versions stay. */
static void test_operation_names(void)
{
	struct fixture fx;

	fixture_init(&fx, false);
	http(&fx, USERS, 1, false, true, 4, 3, 40080, 8081, "/data/17?x=1");
	http(&fx, USERS, 2, false, true, 5, 3, 40081, 8081,
		"/u/550e8400-e29b-41d4-a716-446655440000/orders/5f2b9c1e0a/");
	http(&fx, USERS, 3, false, true, 6, 3, 40082, 8081, "/v2/static/facade/deadbeef/2024#top");
	http(&fx, USERS, 4, false, true, 7, 3, 40083, 8081, "/shop.Users/GetUser");
	http(&fx, GATEWAY, 5, true, true, 8, 5, 8081, 40084, "/data/18");
	UNIT_CHECK(find_start(&fx, "HTTP GET /data/:id", 0) != NULL, "names: a number is an id");
	UNIT_CHECK(find_start(&fx, "HTTP GET /u/:id/orders/:id/", 0) != NULL, "names: a UUID and a hex id");
	UNIT_CHECK(find_start(&fx, "HTTP GET /v2/static/facade/deadbeef/:id", 0) != NULL,
		"names: words and hex words without digits stay");
	UNIT_CHECK(find_start(&fx, "HTTP GET /shop.Users/GetUser", 0) != NULL, "names: a gRPC method stays");
	UNIT_CHECK(find_start(&fx, "HTTP GET 127.0.0.1:8081/data/:id", 0) != NULL, "names: clients too");
	fixture_fini(&fx);
}


/*
 * Two gRPC calls on one HTTP/2 session (same ports, streams 1 and 3): the server reads
 * stream 3 first; each server stream is linked to the client stream of its id, not to the
 * latest client on the connection.
 */
static void test_http2_interleaved_streams(void)
{
	struct fixture fx;
	const struct nctx_op *client1, *client3, *server1, *server3;

	fixture_init(&fx, true);
	before(&fx, GATEWAY, 3, 6);
	http(&fx, GATEWAY, 4, false, true, 6, 5, 50000, 8080, "/api");
	construct(&fx, GATEWAY, 5, 7, 6, 6, "DEEPSPAN_CLIENT");
	construct(&fx, GATEWAY, 6, 8, 6, 6, "DEEPSPAN_CLIENT");
	after(&fx, GATEWAY, 7, 6);
	before(&fx, GATEWAY, 8, 30);
	http2_request(&fx, GATEWAY, 9, true, 7, 8081, 40090, 1, "/demo.Users/GetUser");
	http2_request(&fx, GATEWAY, 10, true, 8, 8081, 40090, 3, "/demo.Users/ListUsers");
	after(&fx, GATEWAY, 11, 30);
	before(&fx, USERS, 12, 40);
	http2_request(&fx, USERS, 13, false, 41, 40090, 8081, 3, "/demo.Users/ListUsers");
	http2_request(&fx, USERS, 14, false, 42, 40090, 8081, 1, "/demo.Users/GetUser");
	after(&fx, USERS, 15, 40);
	before(&fx, USERS, 20, 43);
	http(&fx, USERS, 21, false, false, 42, 77, 40090, 8081, NULL);
	http(&fx, USERS, 22, false, false, 41, 77, 40090, 8081, NULL);
	after(&fx, USERS, 23, 43);
	before(&fx, GATEWAY, 30, 31);
	http(&fx, GATEWAY, 31, true, false, 7, 77, 8081, 40090, NULL);
	http(&fx, GATEWAY, 32, true, false, 8, 77, 8081, 40090, NULL);
	after(&fx, GATEWAY, 33, 31);
	nctx_engine_finish(fx.engine);
	client1 = find_start(&fx, "HTTP POST 127.0.0.1:8081/demo.Users/GetUser", 0);
	client3 = find_start(&fx, "HTTP POST 127.0.0.1:8081/demo.Users/ListUsers", 0);
	server1 = find_start(&fx, "HTTP POST /demo.Users/GetUser", 0);
	server3 = find_start(&fx, "HTTP POST /demo.Users/ListUsers", 0);
	if (!UNIT_CHECK(client1 && client3 && server1 && server3, "http2: four spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(server1->parent_span_id, client1->span_id, "http2: stream 1 linked to client stream 1");
	UNIT_EQ_UINT(server3->parent_span_id, client3->span_id, "http2: stream 3 linked to client stream 3");
	UNIT_CHECK(find_end(&fx, server1->span_id) && find_end(&fx, server1->span_id)->ts == 21,
		"http2: server stream 1 ends at its own response");
	UNIT_CHECK(find_end(&fx, client3->span_id) && find_end(&fx, client3->span_id)->ts == 32,
		"http2: client stream 3 ends at its own response");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->clients_with_callee, 2, "http2: two calls matched");
	UNIT_EQ_UINT(nctx_engine_stats(fx.engine)->roots, 1, "http2: one root");
end:
	fixture_fini(&fx);
}

/*
 * The recorder reports no destroy: the table of resource owners is swept when it grows.
 * A sweep keeps the resources of live requests and drops those of finished ones.
 */
static void test_owner_sweep(void)
{
	struct fixture fx;
	const struct nctx_op *first, *second;
	int64_t id;

	fixture_init(&fx, true);
	before(&fx, USERS, 1, 4);
	http(&fx, USERS, 2, false, true, 4, 3, 40100, 8081, "/first");
	for (id = 1000; id < 6000; id++) {
		construct(&fx, USERS, 3, id, 4, 4, "PROMISE");
	}
	after(&fx, USERS, 4, 4);
	http(&fx, USERS, 5, false, true, 5, 3, 40101, 8081, "/second");
	for (id = 10000; id < 20000; id++) {
		construct(&fx, USERS, 6, id, 5, 5, "PROMISE");
	}
	/* Resource 1000, made 15000 resources ago, still belongs to the live /first. */
	before(&fx, USERS, 7, 1000);
	after(&fx, USERS, 8, 1000);
	http(&fx, USERS, 9, false, false, 1000, 3, 40100, 8081, NULL);
	first = find_start(&fx, "HTTP GET /first", 0);
	second = find_start(&fx, "HTTP GET /second", 0);
	if (!UNIT_CHECK(first && second, "sweep: spans start")) {
		goto end;
	}
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, first->span_id), 2,
		"sweep: an old resource of a live request still activates it");
	UNIT_CHECK(find_end(&fx, first->span_id) != NULL, "sweep: its response still finds it");
	/* After /first ended, its resources run for nobody. */
	for (id = 20000; id < 30000; id++) {
		construct(&fx, USERS, 10, id, 5, 5, "PROMISE");
	}
	before(&fx, USERS, 11, 1001);
	after(&fx, USERS, 12, 1001);
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, first->span_id), 2,
		"sweep: a finished request's resource activates nothing");
	before(&fx, USERS, 13, 10001);
	after(&fx, USERS, 14, 10001);
	UNIT_EQ_UINT(count_ops(&fx, NCTX_OP_SPAN_ACTIVATE, second->span_id), 1,
		"sweep: the live request keeps its resources");
end:
	fixture_fini(&fx);
}

/*
 * A store-mode exchange (synthetic ids, doc/nodejs.md "Cost"), gateway -> users, two requests
 * interleaved.  folded: the `before` that follows a server request and a client response is the
 * event's `runs_id` (applied after it, as the `after` of the running request then `before` of
 * it); else the events the recorder wrote before folding.  Both must give the same operations.
 */
static void store_mode_exchange(struct fixture *fx, bool folded)
{
	struct nctx_origin o;
	int k;

	for (k = 0; k < 2; k++) {
		const int64_t request = 1000 + 10 * k, call = request + 1, callee = 5000 + 10 * k;
		const int64_t t = 10 + 3 * k;
		struct nctx_http gw_request = {
			.sockid = 20, .sock_async_id = 3 + k, .ctx_id = request, .method = "GET",
			.url = "/api", .address = "127.0.0.1", .port = 40100 + k, .local_port = 8080,
			.runs_id = folded ? request : 0,
		};
		struct nctx_http users_request = {
			.sockid = 21, .sock_async_id = 9 + k, .ctx_id = callee, .method = "GET",
			.url = "/user", .address = "127.0.0.1", .port = 50100 + k, .local_port = 8081,
			.runs_id = folded ? callee : 0,
		};

		o = origin(fx, GATEWAY, t);
		nctx_http_request(fx->engine, &o, false, &gw_request);
		if (!folded) {
			/* switchTo(running, request): request 0 still runs when request 1 starts. */
			if (k == 1) {
				after(fx, GATEWAY, t, 1000);
			}
			before(fx, GATEWAY, t, request);
		}
		construct(fx, GATEWAY, t + 1, call, request, request, "DEEPSPAN_CLIENT");
		http(fx, GATEWAY, t + 1, true, true, call, 30 + k, 8081, 50100 + k, "/user");
		o = origin(fx, USERS, t + 20);
		nctx_http_request(fx->engine, &o, false, &users_request);
		if (!folded) {
			before(fx, USERS, t + 20, callee);
		}
		after(fx, USERS, t + 21, callee);
	}
	after(fx, GATEWAY, 30, 1010);
	for (k = 0; k < 2; k++) {
		const int64_t request = 1000 + 10 * k, call = request + 1, callee = 5000 + 10 * k;
		const int64_t t = 40 + 10 * k;
		struct nctx_http users_response = {
			.sockid = 21, .sock_async_id = 9 + k, .ctx_id = callee, .address = "127.0.0.1",
			.status = 200, .port = 50100 + k, .local_port = 8081,
		};
		struct nctx_http gw_response = {
			.sockid = 20, .sock_async_id = 30 + k, .ctx_id = call, .address = "127.0.0.1",
			.status = 200, .port = 8081, .local_port = 50100 + k, .runs_id = folded ? request : 0,
		};
		struct nctx_http gw_server_response = {
			.sockid = 20, .sock_async_id = 3 + k, .ctx_id = request, .address = "127.0.0.1",
			.status = 200, .port = 40100 + k, .local_port = 8080,
		};

		o = origin(fx, USERS, t);
		nctx_http_response(fx->engine, &o, false, &users_response);
		o = origin(fx, GATEWAY, t + 2);
		nctx_http_response(fx->engine, &o, true, &gw_response);
		if (!folded) {
			before(fx, GATEWAY, t + 2, request);
		}
		o = origin(fx, GATEWAY, t + 3);
		nctx_http_response(fx->engine, &o, false, &gw_server_response);
		after(fx, GATEWAY, t + 4, request);
	}
	nctx_engine_finish(fx->engine);
}

static void test_store_mode_folded_switches(void)
{
	struct fixture folded, unfolded;
	guint i, same = 0;

	fixture_init(&folded, true);
	fixture_init(&unfolded, true);
	store_mode_exchange(&folded, true);
	store_mode_exchange(&unfolded, false);
	UNIT_EQ_UINT(folded.rec.ops->len, unfolded.rec.ops->len, "folded: as many operations");
	for (i = 0; i < folded.rec.ops->len && i < unfolded.rec.ops->len; i++) {
		const struct nctx_op *a = &g_array_index(folded.rec.ops, struct nctx_op, i);
		const struct nctx_op *b = &g_array_index(unfolded.rec.ops, struct nctx_op, i);

		same += a->kind == b->kind && a->ts == b->ts && a->vpid == b->vpid &&
			a->span_id == b->span_id && a->parent_span_id == b->parent_span_id &&
			a->trace_id_low == b->trace_id_low && a->span_kind == b->span_kind &&
			a->status == b->status;
	}
	UNIT_EQ_UINT(same, unfolded.rec.ops->len, "folded: the same operations, in the same order");
	UNIT_EQ_UINT(count_ops(&folded, NCTX_OP_SPAN_START, 0), 6, "folded: 2 x (2 servers, 1 client)");
	UNIT_EQ_UINT(count_ops(&folded, NCTX_OP_SPAN_ACTIVATE, 0), 6,
		"folded: the 4 server requests and the 2 client responses activate their request");
	UNIT_CHECK(activations_alternate(&folded, GATEWAY) && activations_alternate(&folded, USERS),
		"folded: at most one span active per process");
	fixture_fini(&folded);
	fixture_fini(&unfolded);
}

int main(void)
{
	test_fresh_socket();
	test_keep_alive_reuse();
	test_concurrent_requests();
	test_never_answered();
	test_deferred_match();
	test_window_expiry();
	test_callee_before_client_event();
	test_event_loop_busy();
	test_caller_gets_response_before_finish();
	test_undici_interleaved();
	test_undici_aborted();
	test_undici_retry();
	test_port_zero_unknown();
	test_operation_names();
	test_http2_interleaved_streams();
	test_owner_sweep();
	test_store_mode_folded_switches();
	return unit_finish();
}
