/* SPDX-License-Identifier: MIT */
/*
 * Node.js async-context reconstruction (Vnode's state machine), pure C.
 *
 * Fed with the `vnode` events of every recorded Node.js process (doc/nodejs.md)
 * in non-decreasing time order, the engine rebuilds per process the
 * async-resource tree, assigns every resource to the HTTP server request
 * whose code created it, links each outgoing client request to the incoming
 * server request that is its ancestor, and matches client requests with the
 * server requests of other processes by ports.  It produces span operations
 * (start, end, activate, deactivate) through a callback.
 *
 * Operations of a server request whose caller is not known yet (its client's
 * local port is still unknown) are deferred until the match is decided;
 * `nctx_engine_horizon()` tells the caller the oldest timestamp that may
 * still be produced, so it can keep its output in time order.
 */
#ifndef DEEPSPAN_NODEJS_CTX_H
#define DEEPSPAN_NODEJS_CTX_H

#include <stdbool.h>
#include <stdint.h>

enum nctx_phase {
	NCTX_PHASE_CONSTRUCTOR,
	NCTX_PHASE_BEFORE,
	NCTX_PHASE_AFTER,
	NCTX_PHASE_DESTROY,
};

/* Where and when an event happened. */
struct nctx_origin {
	uint32_t host;		/* caller's index of the host (trace) */
	int64_t vpid;
	int64_t vtid;
	const char *procname;	/* borrowed; the service name */
	int64_t ts;		/* ns from the clock origin */
	uint64_t cycles;	/* the same instant in the host clock's cycles */
};

/* `cycles` value meaning "compute it from `ts` with the host's clock". */
#define NCTX_CYCLES_FROM_TS UINT64_MAX

/* `vnode:http_*_request` and `vnode:http_*_response` payloads. */
struct nctx_http {
	int64_t sockid;
	int64_t sock_async_id;
	int64_t ctx_id;
	const char *method;	/* borrowed; requests only */
	const char *url;	/* borrowed; requests only */
	const char *address;	/* borrowed */
	int64_t status;		/* responses only */
	int64_t port;		/* remote port (<= 0: unknown) */
	int64_t local_port;	/* (<= 0: unknown) */
	int64_t stream_id;	/* requests: HTTP/2 stream id on the connection, 0 HTTP/1 or TCP */
	int64_t runs_id;	/* > 0: the resource whose request's code runs from this event on
				 * (`runs_id`, a switchTo folded into the event); 0 none */
};

enum nctx_op_kind {
	NCTX_OP_SPAN_START,
	NCTX_OP_SPAN_END,
	NCTX_OP_SPAN_ACTIVATE,
	NCTX_OP_SPAN_DEACTIVATE,
};

enum nctx_span_kind {
	NCTX_SPAN_INTERNAL = 0,	/* deepspan_ust `kind` values */
	NCTX_SPAN_SERVER = 1,
	NCTX_SPAN_CLIENT = 2,
};

/* One span operation; strings are borrowed for the duration of the callback. */
struct nctx_op {
	enum nctx_op_kind kind;
	int64_t ts;			/* ns from origin, of the event that caused it */
	uint64_t cycles;		/* that event's clock value, or NCTX_CYCLES_FROM_TS */
	uint32_t host;
	int64_t vpid;
	int64_t vtid;
	const char *procname;
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint64_t span_id;
	uint64_t parent_span_id;	/* SPAN_START only */
	const char *service;		/* SPAN_START only */
	const char *operation;		/* SPAN_START only */
	enum nctx_span_kind span_kind;
	uint8_t status;			/* SPAN_END: 1 ok (< 500), 2 error */
};

typedef void (*nctx_emit_fn)(const struct nctx_op *op, void *user);

struct nctx_config {
	/* A server request whose caller is undecided for this long becomes a root. */
	int64_t match_window_ns;
	/* High 64 bits of every trace id this engine makes (low = a counter). */
	uint64_t trace_id_high;
	/* Emit span_activate / span_deactivate around the request's callbacks. */
	bool activations;
	/*
	 * Emit "event loop busy" spans: the time a client request waited while its
	 * callee's loop ran other requests' callbacks (needs activations).
	 */
	bool busy_spans;
	/* Busy stretches shorter than this are not reported. */
	int64_t busy_min_ns;
};

/* Counters, for the end-of-stream report and the tests. */
struct nctx_stats {
	uint64_t vnode_events;
	uint64_t server_requests;
	uint64_t server_responses;
	uint64_t client_requests;
	uint64_t client_responses;
	uint64_t client_retries;	/* a client request announced again (new socket) */
	uint64_t roots;			/* server or client requests starting a trace */
	uint64_t clients_with_parent;	/* client request linked to its server request */
	uint64_t clients_with_callee;	/* client request matched to a server request */
	uint64_t servers_with_caller;	/* server request matched to a client request */
	uint64_t deferred_servers;	/* server requests that waited for a match */
	uint64_t servers_ended_by_caller;	/* caller got the response before the server's finish */
	uint64_t unmatched_responses;	/* response without an open request */
	uint64_t activations;
	uint64_t busy_spans;		/* event-loop-busy spans emitted */
	uint64_t open_at_end;		/* requests never answered */
};

struct nctx_engine;

struct nctx_engine *nctx_engine_create(const struct nctx_config *config,
		nctx_emit_fn emit, void *user);
void nctx_engine_destroy(struct nctx_engine *engine);

void nctx_async_context(struct nctx_engine *engine,
		const struct nctx_origin *origin, enum nctx_phase phase,
		int64_t id, int64_t trigger_id, const char *type);
void nctx_http_request(struct nctx_engine *engine,
		const struct nctx_origin *origin, bool client,
		const struct nctx_http *http);
void nctx_http_response(struct nctx_engine *engine,
		const struct nctx_origin *origin, bool client,
		const struct nctx_http *http);

/* Time has reached `ts` (any upstream message): decides expired matches. */
void nctx_engine_advance(struct nctx_engine *engine, int64_t ts);

/* End of input: decides every pending match (open requests stay unended). */
void nctx_engine_finish(struct nctx_engine *engine);

/*
 * Oldest timestamp an operation may still be produced at (INT64_MAX when
 * nothing is deferred): everything older can be released downstream.
 */
int64_t nctx_engine_horizon(const struct nctx_engine *engine);

const struct nctx_stats *nctx_engine_stats(const struct nctx_engine *engine);

#endif /* DEEPSPAN_NODEJS_CTX_H */
