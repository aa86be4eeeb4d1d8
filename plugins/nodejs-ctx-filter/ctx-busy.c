/* SPDX-License-Identifier: MIT */
/*
 * "Event loop busy" spans of the Node.js context engine (see ctx-internal.h).
 *
 * A client request waits for its callee's server request to start; when the
 * callee's process was running other requests' callbacks meanwhile, the
 * request sat in the callee's socket because that loop was busy.  While some
 * client still waits for its callee, every stretch of a loop running one
 * request is kept (bounded: stretches older than the oldest waiting client
 * are dropped); once the callee starts, each stretch overlapping the wait
 * becomes an internal span under the client span, on the callee's host and
 * thread, named "event loop busy: <service>: <operation>".  Output is held
 * back from the oldest waiting client's start, so these spans are emitted at
 * their own time.
 */
#include "ctx-internal.h"

#include <string.h>

void nctx_busy_init(struct nctx_engine *engine)
{
	engine->waiting_clients = g_ptr_array_new();
}

void nctx_busy_fini(struct nctx_engine *engine)
{
	g_ptr_array_free(engine->waiting_clients, TRUE);
}

static bool busy_enabled(const struct nctx_engine *engine)
{
	return engine->config.busy_spans && engine->config.activations;
}

int64_t nctx_busy_horizon(const struct nctx_engine *engine)
{
	if (engine->waiting_clients->len == 0) {
		return INT64_MAX;
	}
	return ((const struct nctx_request *) g_ptr_array_index(engine->waiting_clients, 0))->start_ts;
}

void nctx_busy_client_waits(struct nctx_engine *engine, struct nctx_request *client)
{
	if (busy_enabled(engine)) {
		g_ptr_array_add(engine->waiting_clients, client);
	}
}

void nctx_busy_client_done(struct nctx_engine *engine, struct nctx_request *client)
{
	g_ptr_array_remove(engine->waiting_clients, client);
}

void nctx_busy_expire(struct nctx_engine *engine, int64_t now, bool all)
{
	while (engine->waiting_clients->len > 0) {
		const struct nctx_request *client = g_ptr_array_index(engine->waiting_clients, 0);

		if (!all && now - client->start_ts <= engine->config.match_window_ns) {
			break;
		}
		g_ptr_array_remove_index(engine->waiting_clients, 0);
	}
}

void nctx_busy_record(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_request *request, const struct nctx_origin *at)
{
	int64_t oldest = nctx_busy_horizon(engine);
	struct nctx_busy busy;
	guint drop = 0;

	if (!busy_enabled(engine) || oldest == INT64_MAX || at->ts < oldest) {
		g_array_set_size(process->busy, 0);
		return;
	}
	while (drop < process->busy->len &&
			g_array_index(process->busy, struct nctx_busy, drop).end.ts < oldest) {
		drop++;
	}
	g_array_remove_range(process->busy, 0, drop);
	busy.begin = process->active_since;
	busy.end = *at;
	busy.end.procname = NULL;
	busy.serial = request->serial;
	busy.label = request->label;
	g_array_append_val(process->busy, busy);
}

/* One internal span under `client` for [begin, end) of `busy`. */
static void busy_span(struct nctx_engine *engine, struct nctx_request *server,
		struct nctx_request *client, const struct nctx_busy *busy,
		const struct nctx_origin *begin, const struct nctx_origin *end)
{
	struct nctx_request *span = nctx_request_alloc(engine, server->process, begin,
		NCTX_SPAN_INTERNAL, server->service,
		g_strdup_printf("event loop busy: %s", busy->label));

	engine->stats.busy_spans++;
	nctx_request_depend(engine, client, span);
	nctx_request_op(engine, span, NCTX_OP_SPAN_START, begin, begin->vtid, 0);
	nctx_request_op(engine, span, NCTX_OP_SPAN_END, end, end->vtid, 1);
	span->ended = true;
	span->end_ts = end->ts;
	nctx_request_release_if_done(engine, span);
}

void nctx_busy_spans(struct nctx_engine *engine, struct nctx_request *server,
		struct nctx_request *client)
{
	/* The client's start, on the callee's clock (cycles recomputed across hosts). */
	struct nctx_origin wait_begin = {
		.host = server->process->host, .vpid = server->process->vpid,
		.vtid = server->vtid, .ts = client->start_ts,
		.cycles = client->process->host == server->process->host ?
			client->start_cycles : NCTX_CYCLES_FROM_TS,
	};
	struct nctx_origin wait_end = {
		.host = server->process->host, .vpid = server->process->vpid,
		.vtid = server->vtid, .ts = server->start_ts, .cycles = server->start_cycles,
	};
	guint i;

	nctx_busy_client_done(engine, client);
	if (!busy_enabled(engine)) {
		return;
	}
	for (i = 0; i < server->process->busy->len; i++) {
		const struct nctx_busy *busy = &g_array_index(server->process->busy,
			struct nctx_busy, i);
		const struct nctx_origin *begin = busy->begin.ts > wait_begin.ts ?
			&busy->begin : &wait_begin;
		const struct nctx_origin *end = busy->end.ts < wait_end.ts ? &busy->end : &wait_end;

		if (busy->serial == server->serial || busy->serial == client->serial ||
				end->ts - begin->ts < engine->config.busy_min_ns ||
				end->ts <= begin->ts) {
			continue;
		}
		busy_span(engine, server, client, busy, begin, end);
	}
}
