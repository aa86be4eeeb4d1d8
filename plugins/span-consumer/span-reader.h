/* SPDX-License-Identifier: MIT */
/*
 * Reads `deepspan:span` events (doc/span-attrib.md, "Output: deepspan:span") into a ds_span_store.
 *
 * The payload layout of each event class is resolved once (member indices,
 * integer signedness, the state enumeration's labels; span-layout.c) and
 * cached by class pointer; other event classes are remembered as "not a
 * span".  Reading an event then costs no string comparison.  A span's chain
 * is read by chain-reader.c.
 */
#ifndef DEEPSPAN_DIFF_SPAN_READER_H
#define DEEPSPAN_DIFF_SPAN_READER_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "chain-strings.h"
#include "progress.h"
#include "request-stream.h"
#include "span-store.h"

enum ds_span_read_status {
	DS_SPAN_READ_OK = 0,		/* a span was appended */
	DS_SPAN_READ_NOT_SPAN = 1,	/* another event class: ignored */
	DS_SPAN_READ_ERROR = -1,	/* malformed class: error cause appended */
};

struct ds_span_layout;

#define DS_SPAN_READER_CACHE 8

/* Slots of the reader's chain string cache (a power of 2). */
#define DS_SPAN_READER_STRINGS 1024

struct ds_span_reader {
	bt_self_component *self_comp;	/* borrowed: receives error causes */
	const char *class_name;		/* borrowed: "sink.deepspan.diff" */
	GHashTable *layouts;		/* owned: const bt_event_class * -> owned layout (NULL value = not a span) */
	/* A small cache in front of `layouts` (kernel events of many classes pass by). */
	const bt_event_class *recent_class[DS_SPAN_READER_CACHE];	/* borrowed keys */
	struct ds_span_layout *recent_layout[DS_SPAN_READER_CACHE];	/* borrowed from `layouts` */
	unsigned int recent_next;					/* next slot to replace */
	GString *scratch;			/* owned: joins blocked details */
	GArray *wide;				/* owned: struct ds_wide_segment, one span's segments before packing */
	uint32_t recent_detail[DS_STATE_COUNT];	/* last detail id interned per state */
	bool keep_segments;			/* false: segments are not read (metrics tables without them) */
	bool keep_syscalls;			/* false: syscall totals are not read (only by=syscall uses them) */
	bool keep_chains;			/* false: chains are not read (default: keep_segments; needs segments) */
	GByteArray *chain_scratch;		/* owned: one chain being read and checked */
	GArray *packed_strings;			/* owned: a packed chain's table of strings (chain-reader.c) */
	struct ds_chain_string_slot last_chain_string[16];	/* last string per chain member (span-layout.h's CH_*) */
	const void *chain_strings_of;		/* borrowed: the ds_strings those ids are of (another: forgotten) */
	struct ds_chain_string_slot chain_strings[DS_SPAN_READER_STRINGS];	/* chain strings by a hash of their key */
	struct ds_chain_label_cache *label_cache;	/* owned: labels of chain entries by what they depend on */
	uint64_t spans_read;
	uint64_t reversed_spans;		/* end before begin (counted in invalid_spans too) */
	uint64_t invalid_spans;			/* spans with bounds out of range: marked `invalid` */
	uint64_t chains_read;			/* spans with a valid chain */
	/*
	 * Where chains end at the end of the trace (doc/critical-path.md): store
	 * string id of a `deadlock: …` leaf's detail, and of an `unknown: still
	 * blocked at end of trace in …` leaf's detail of a truncated span, -> the
	 * number of spans whose chain has it (GUINT_TO_POINTER).
	 */
	GHashTable *deadlocks;			/* owned */
	GHashTable *stuck;			/* owned */
	uint64_t invalid_chains;		/* chains breaking doc/critical-path.md's invariants: ignored */
};

void ds_span_reader_init(struct ds_span_reader *reader,
		bt_self_component *self_comp, const char *class_name, bool keep_segments,
		bool keep_syscalls);
void ds_span_reader_fini(struct ds_span_reader *reader);

/* Appends the span of `event` (from input port `input`) to `store`. */
enum ds_span_read_status ds_span_reader_read(struct ds_span_reader *reader,
		const bt_event *event, uint32_t input,
		struct ds_span_store *store);

/*
 * Reads the spans of a batch of `count` messages from input port `input`
 * into `stream` (each noted), counting events in `progress`, and puts every message's
 * reference (the batch is consumed).  After a read error the remaining
 * messages are only released.  Returns false after an error (cause appended).
 */
bool ds_span_reader_read_batch(struct ds_span_reader *reader,
		bt_message_array_const messages, uint64_t count, uint32_t input,
		struct ds_request_stream *stream, struct ds_progress *progress);

#endif /* DEEPSPAN_DIFF_SPAN_READER_H */
