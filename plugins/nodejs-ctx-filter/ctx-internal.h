/* SPDX-License-Identifier: MIT */
/*
 * Internals of the Node.js context engine shared by ctx.c (requests, resources,
 * matching) and ctx-busy.c (event-loop-busy spans).  Not a public interface.
 */
#ifndef DEEPSPAN_NODEJS_CTX_INTERNAL_H
#define DEEPSPAN_NODEJS_CTX_INTERNAL_H

#include <glib.h>

#include "ctx.h"

struct nctx_process;

struct nctx_request {
	uint64_t serial;
	bool client;
	enum nctx_span_kind span_kind;
	struct nctx_process *process;	/* borrowed */
	int64_t vtid;
	int64_t start_ts;
	uint64_t start_cycles;
	int64_t end_ts;
	bool ended;
	int64_t sock_async_id;
	int64_t resource_id;		/* server: ctx_id; client: its HTTPCLIENTREQUEST */
	int64_t port;			/* remote */
	int64_t local_port;
	int64_t stream_id;		/* HTTP/2 stream on the connection, 0 none */
	char *service;			/* owned */
	char *operation;		/* owned */
	const char *label;		/* borrowed, interned: "service: operation" */
	uint64_t span_id;
	uint64_t parent_span_id;
	uint64_t trace_id_low;
	uint64_t caller_serial;		/* server: the matched client request, 0 none */
	uint64_t callee_serial;		/* client: the matched server request, 0 none */
	bool known;			/* trace id decided */
	bool pending;			/* server: in engine->pending_servers */
	GPtrArray *dependents;		/* owned array, borrowed requests waiting for our trace id */
	GArray *deferred;		/* owned; struct nctx_op to emit once known */
};

/*
 * An HTTPCLIENTREQUEST resource not yet announced by its client request
 * event: Node 20 publishes `http.client.request.start` only once the request
 * is written (possibly after the server got it), so the client span starts
 * at this constructor.
 */
struct nctx_parser {
	struct nctx_process *process;	/* borrowed */
	int64_t id;
	struct nctx_origin at;		/* the constructor; procname not kept */
};

/* A stretch of time a process's loop ran one request's callbacks. */
struct nctx_busy {
	struct nctx_origin begin, end;	/* procname unset */
	uint64_t serial;		/* the request that ran */
	const char *label;		/* borrowed, interned */
};

/* One frame of a process's callback stack (before ... after). */
struct nctx_frame {
	int64_t id;
	uint64_t owner;			/* request serial, 0 none */
};

struct nctx_process {
	uint32_t host;
	int64_t vpid;
	GHashTable *owners;		/* owned; async id -> request serial (packed) */
	guint owners_sweep_at;		/* sweep `owners` when it grows past this size */
	GArray *stack;			/* owned; struct nctx_frame */
	uint64_t active;		/* serial of the active request, 0 none */
	GHashTable *client_parsers;	/* owned; HTTPCLIENTREQUEST id -> struct nctx_parser (borrowed) */
	GPtrArray *open_servers;	/* owned array, borrowed requests */
	GPtrArray *open_clients;	/* owned array, borrowed requests */
	struct nctx_origin active_since;	/* when `active` became active (procname unset) */
	GArray *busy;			/* owned; struct nctx_busy, oldest first */
};

struct nctx_engine {
	struct nctx_config config;
	nctx_emit_fn emit;
	void *user;
	GHashTable *processes;		/* owned; (host, vpid) key -> process (owned) */
	GHashTable *requests;		/* owned; serial -> request (owned) */
	GPtrArray *open_clients;	/* owned array, borrowed: every open client request */
	GPtrArray *pending_servers;	/* owned array, borrowed: by start time */
	GPtrArray *open_parsers;	/* owned; struct nctx_parser (owned), by time */
	GPtrArray *waiting_clients;	/* owned array, borrowed: clients whose callee is unknown, by start */
	GHashTable *labels;		/* owned; interned "service: operation" strings */
	uint64_t next_serial;
	uint64_t next_span_id;
	uint64_t next_trace_low;
	struct nctx_stats stats;
};

#define NCTX_KEY(v) ((gpointer) (uintptr_t) (v))
#define NCTX_VALUE(p) ((uint64_t) (uintptr_t) (p))

/* Emits (or defers until its trace id is known) one operation of `request`. */
void nctx_request_op(struct nctx_engine *engine, struct nctx_request *request,
		enum nctx_op_kind kind, const struct nctx_origin *at, int64_t vtid,
		uint8_t status);

/* `dependent` is a child of `from`: takes its trace id now or once `from` is known. */
void nctx_request_depend(struct nctx_engine *engine, struct nctx_request *from,
		struct nctx_request *dependent);

/* Frees `request` once nothing can refer to it any more. */
void nctx_request_release_if_done(struct nctx_engine *engine,
		struct nctx_request *request);

/* A new request of `process` starting at `start`; `operation` is taken over. */
struct nctx_request *nctx_request_alloc(struct nctx_engine *engine,
		struct nctx_process *process, const struct nctx_origin *start,
		enum nctx_span_kind span_kind, const char *service, char *operation);

/* ctx-busy.c */
void nctx_busy_init(struct nctx_engine *engine);
void nctx_busy_fini(struct nctx_engine *engine);
/* `request` stops running on its process's loop at `at`. */
void nctx_busy_record(struct nctx_engine *engine, struct nctx_process *process,
		const struct nctx_request *request, const struct nctx_origin *at);
void nctx_busy_client_waits(struct nctx_engine *engine, struct nctx_request *client);
void nctx_busy_client_done(struct nctx_engine *engine, struct nctx_request *client);
/* Spans for the time `client` waited while `server`'s loop ran other requests. */
void nctx_busy_spans(struct nctx_engine *engine, struct nctx_request *server,
		struct nctx_request *client);
int64_t nctx_busy_horizon(const struct nctx_engine *engine);
/* Stops waiting for callees of clients older than the match window (all: every client). */
void nctx_busy_expire(struct nctx_engine *engine, int64_t now, bool all);

#endif /* DEEPSPAN_NODEJS_CTX_INTERNAL_H */
