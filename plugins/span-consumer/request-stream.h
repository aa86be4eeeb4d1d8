/* SPDX-License-Identifier: MIT */
/*
 * Streaming request assembly for the diff and metrics sinks: spans are
 * stored as they are read and handed out, request by request, as soon as
 * their request is complete, so memory holds only the requests still open.
 *
 * Spans reach a sink ordered by their end (span-attrib emits a span when it
 * ends).  A request (input port, 128-bit trace id) is complete when the
 * input's stream clock (the largest span end read on it) has passed the end
 * of the request's latest span by more than `grace`; at the end of the input
 * every request is complete.  A span of a request already complete is late:
 * it is counted and left out (raise `grace` to keep such async children).
 *
 * Complete requests are built (request-tree.h) in batches (by stored spans, or
 * by stored chain entries: request-stream.c) and given to the
 * `on_request` callback with their tree; then the store is emptied (its
 * memory kept for the next spans) and the spans of open requests are copied
 * back into it.  Without `build_requests`,
 * every span is given to `on_span` at each batch (tables that need no tree).
 */
#ifndef DEEPSPAN_DIFF_REQUEST_STREAM_H
#define DEEPSPAN_DIFF_REQUEST_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "request-tree.h"
#include "span-store.h"

#define DS_STREAM_INPUTS 2

typedef void (*ds_request_done_fn)(void *data, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index);
typedef void (*ds_span_done_fn)(void *data, const struct ds_span_store *store,
		const struct ds_span *span);

struct ds_request_stream_config {
	int64_t grace;			/* ns of stream time after a request's last span */
	int64_t skew_tolerance;		/* ns, for the cross-host skew facts */
	bool build_requests;		/* false: on_span per span, no trees */
	ds_request_done_fn on_request;
	ds_span_done_fn on_span;
	void *data;			/* borrowed: given to the callbacks */
};

struct ds_request_stream {
	struct ds_request_stream_config config;
	struct ds_strings strings;	/* owned: shared by every store below */
	struct ds_span_store store;	/* owned: spans not handed out yet */
	struct ds_span_store aside;	/* owned: holds the open spans during a batch (memory reused) */
	GHashTable *open;		/* owned: set of owned struct ds_open_trace * */
	GPtrArray *slots;		/* owned array of pointers borrowed from `open`: slot -> trace */
	/*
	 * Owned: set of 64-bit hashes (XXH3) of the keys of complete requests,
	 * 8 bytes each instead of the 20-byte key: two keys sharing a hash (odds
	 * about n^2 / 2^64, 5e-8 for a million requests) would count the later
	 * request's spans as late, never merge two requests.
	 */
	GHashTable *done;
	int64_t clock[DS_STREAM_INPUTS];	/* largest span end read per input */
	uint32_t flush_at;		/* stored spans that trigger a batch */
	uint64_t chain_flush_at;	/* or stored chain entries */
	/* Facts, over every request handed out. */
	uint64_t spans;
	uint64_t requests;
	uint64_t truncated_requests;
	uint64_t invalid_requests;
	uint64_t cycle_spans;
	uint64_t cycle_requests;
	uint64_t deep_requests;
	uint64_t folded_spans;
	uint64_t duplicate_spans;
	uint64_t late_spans;
	uint64_t skewed_children;
	int64_t worst_skew;		/* ns, 0 = none beyond the tolerance */
	char *worst_skew_where;		/* owned: "service: operation on host H, trace 0x…" or NULL */
	uint32_t peak_spans;		/* most spans held at once */
	uint32_t batches;
};

void ds_request_stream_init(struct ds_request_stream *stream,
		const struct ds_request_stream_config *config);
void ds_request_stream_fini(struct ds_request_stream *stream);

/* Notes the span just appended to stream->store (from input `input`). */
void ds_request_stream_note(struct ds_request_stream *stream, uint32_t input);

/* Hands out the complete requests when enough spans are stored. */
void ds_request_stream_maybe_flush(struct ds_request_stream *stream);

/* End of every input: hands out everything left. */
void ds_request_stream_finish(struct ds_request_stream *stream);

#endif /* DEEPSPAN_DIFF_REQUEST_STREAM_H */
