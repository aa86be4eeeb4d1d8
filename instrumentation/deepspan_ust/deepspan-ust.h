/* SPDX-License-Identifier: MIT */
/*
 * deepspan-ust: record request spans with LTTng-UST for deepspan.
 *
 * A span is one timed operation of one service (an HTTP handler, an outgoing call, a query).
 * deepspan_span_start() emits `deepspan_ust:span_start` and deepspan_span_end() emits
 * `deepspan_ust:span_end` (DESIGN.md §3.2); babeltrace2's filter.deepspan.span-attrib joins
 * them with the kernel trace. When no LTTng session enables these events, each call costs
 * an id generation and one predictable branch (the tracepoint guard).
 *
 * Ids follow W3C Trace Context: a 128-bit trace id (one per request, shared by all its
 * spans) and a 64-bit span id; deepspan_traceparent_format()/_parse() carry them between
 * processes in a `traceparent` header (or any text field of any protocol).
 *
 * Link with `pkg-config --cflags --libs deepspan-ust`. Thread-safe; fork-safe (a child
 * process never repeats its parent's ids).
 */
#ifndef DEEPSPAN_UST_H
#define DEEPSPAN_UST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length of a version-00 traceparent value ("00-" 32 hex "-" 16 hex "-" 2 hex), and its buffer size. */
#define DEEPSPAN_TRACEPARENT_LEN 55
#define DEEPSPAN_TRACEPARENT_SIZE (DEEPSPAN_TRACEPARENT_LEN + 1)

/* W3C trace-flags bit: the caller records this trace. */
#define DEEPSPAN_TRACE_FLAG_SAMPLED 0x01

/* The `kind` field of span_start (OpenTelemetry's span kinds). */
enum deepspan_span_kind {
	DEEPSPAN_KIND_INTERNAL = 0,
	DEEPSPAN_KIND_SERVER = 1,	/* handles a request from another process */
	DEEPSPAN_KIND_CLIENT = 2,	/* calls another process and waits for its answer */
	DEEPSPAN_KIND_PRODUCER = 3,
	DEEPSPAN_KIND_CONSUMER = 4,
};

/* The `status` field of span_end. */
enum deepspan_span_status {
	DEEPSPAN_STATUS_UNSET = 0,
	DEEPSPAN_STATUS_OK = 1,
	DEEPSPAN_STATUS_ERROR = 2,
};

/* Result of the traceparent functions. */
enum deepspan_result {
	DEEPSPAN_OK = 0,
	DEEPSPAN_ERROR_INVALID = -1,	/* malformed input, or an all-zero id */
	DEEPSPAN_ERROR_TOO_SMALL = -2,	/* output buffer smaller than DEEPSPAN_TRACEPARENT_SIZE */
};

/* What crosses a process boundary: the trace, the span to be the parent, the flags. */
struct deepspan_context {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint64_t span_id;
	uint8_t trace_flags;
};

/* A started span: its own context (trace id + its span id) and its parent's span id (0: root). */
struct deepspan_span {
	struct deepspan_context context;
	uint64_t parent_span_id;
};

/*
 * Starts a span on the calling thread (the thread deepspan attributes it to) and emits
 * `deepspan_ust:span_start`. `parent` NULL (or with a zero trace id) starts a new trace:
 * a fresh random trace id, parent 0. Otherwise the span joins the parent's trace with the
 * parent's span id as its parent. `service` and `operation` are copied into the event
 * (NULL records ""). The span gets a fresh random non-zero span id.
 */
void deepspan_span_start(struct deepspan_span *span, const struct deepspan_context *parent,
		const char *service, const char *operation, enum deepspan_span_kind kind);

/* Ends `span`: emits `deepspan_ust:span_end` with `status`. */
void deepspan_span_end(const struct deepspan_span *span, enum deepspan_span_status status);

/*
 * For asynchronous runtimes: the span starts (activate) or stops (deactivate) running on the
 * calling thread. Emits `deepspan_ust:span_activate` / `span_deactivate`.
 */
void deepspan_span_activate(const struct deepspan_span *span);
void deepspan_span_deactivate(const struct deepspan_span *span);

/* True when an LTTng session records `deepspan_ust:span_start` for this process right now. */
bool deepspan_tracing_enabled(void);

/* Fresh random ids (never zero; per-thread generator seeded from the kernel's entropy). */
void deepspan_new_trace_id(uint64_t *high, uint64_t *low);
uint64_t deepspan_new_span_id(void);

/*
 * Writes `ctx` as a version-00 traceparent ("00-<trace id>-<span id>-<flags>", lowercase hex)
 * with a terminating NUL into `buf` (`size` >= DEEPSPAN_TRACEPARENT_SIZE).
 * DEEPSPAN_ERROR_INVALID when the trace id or span id is zero (W3C forbids them).
 */
enum deepspan_result deepspan_traceparent_format(const struct deepspan_context *ctx,
		char *buf, size_t size);

/*
 * Parses the `length` bytes of `text` (a traceparent header value; surrounding spaces and tabs
 * are ignored) into `ctx`. Accepts version 00 exactly, and higher versions (except ff) with the
 * W3C forward-compatibility rule (the first four fields, then nothing or '-' and more).
 * DEEPSPAN_ERROR_INVALID on anything else, including uppercase hex and all-zero ids; `ctx` is
 * then left untouched.
 */
enum deepspan_result deepspan_traceparent_parse(const char *text, size_t length,
		struct deepspan_context *ctx);

/* The context to send downstream for a call made inside `span`: the span is the parent. */
static inline struct deepspan_context deepspan_span_context(const struct deepspan_span *span)
{
	return span->context;
}

#ifdef __cplusplus
}
#endif

#endif /* DEEPSPAN_UST_H */
