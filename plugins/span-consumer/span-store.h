/* SPDX-License-Identifier: MIT */
/*
 * In-memory store of `deepspan:span` records (doc/span-attrib.md) for the diff and
 * metrics sinks: compact span structs, their segments and syscall totals in
 * flat arrays, and interned strings (host, service, operation, details).
 */
#ifndef DEEPSPAN_DIFF_SPAN_STORE_H
#define DEEPSPAN_DIFF_SPAN_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "chain-kinds.h"
#include "states.h"

#define DS_NO_SPAN UINT32_MAX

#define DS_STRINGS_CACHE 1024

/* Interned strings: id 0 is always the empty string. */
struct ds_strings {
	GHashTable *ids;	/* owned: char * (owned by `texts`) -> id + 1 */
	GPtrArray *texts;	/* owned: id -> owned char * */
	/* id + 1 of a text interned recently, by a slot of its length and first and last 8 bytes (0: none);
	 * checked against the text before use, cheaper than hashing the whole string */
	uint32_t cache[DS_STRINGS_CACHE];
};

/*
 * One state segment of a span, packed in 16 bytes: begin and end as 48-bit
 * offsets from the span's begin (segments are clipped to the span when
 * stored: every consumer clips them to it anyway), the state in 3 bits and
 * the interned detail id in 29 bits.  Read with the accessors below.
 */
struct ds_segment {
	uint32_t begin_low;
	uint32_t end_low;
	uint16_t begin_high;
	uint16_t end_high;
	uint32_t detail_state;	/* detail << 3 | state */
};

#define DS_SEGMENT_MAX_OFFSET ((INT64_C(1) << 48) - 1)
#define DS_SEGMENT_MAX_DETAIL ((UINT32_C(1) << 29) - 1)

/* A segment as read, before packing. */
struct ds_wide_segment {
	int64_t begin;
	int64_t end;
	uint32_t detail;	/* interned string id, 0 = none */
	uint8_t state;		/* enum ds_state */
	uint32_t index;		/* position as read (chains name segments by it) */
};

struct ds_syscall_total {
	uint32_t name;		/* interned string id */
	uint64_t count;
	uint64_t duration;
};

/* Deeper chains are invalid (span-attrib's `chain-depth` is at most DS_CHAIN_MAX_DEPTH). */
#define DS_CHAIN_MAX_READ_DEPTH 128u

/*
 * One entry of a span's chain (doc/critical-path.md, "Reading chains"), as
 * read and checked by chain-reader.c: entries are depth-first, a parent before
 * its children, and the children of an entry partition it exactly.
 */
struct ds_stored_chain_entry {
	int64_t begin;		/* ns, absolute (not clipped to the span) */
	int64_t end;
	int64_t tid;		/* -1 unknown */
	int32_t parent;		/* chain index of the entry it explains, -1 = the segment */
	uint32_t segment;	/* index in the span's stored segments */
	uint32_t frame;		/* interned: frame label without tids ("[Waited blocked] futex ← mysqld", "mysqld [Waited CPU]") */
	uint32_t step;		/* interned: second frame under `frame` (depth > 0: the detail without tids), 0 = none */
	uint32_t detail;	/* interned: the detail as written (with tids) */
	uint32_t note;		/* interned: the entry's clause for explain.txt (chain-reader.c) */
	uint32_t ran_comm;	/* wait-cpu: interned comm of `ran instead: comm/tid` ("idle"); in-flight: the
				 * network path `in flight A → B` / `retransmission wait A → B`; else 0 */
	int64_t ran_tid;	/* wait-cpu: its tid, -1 when none (idle) */
	uint32_t host;		/* interned */
	uint32_t process;	/* interned */
	uint32_t comm;		/* interned */
	int32_t cpu;		/* -1 none */
	uint16_t depth;
	uint8_t state;		/* enum ds_state of this entry's thread */
	uint8_t kind;		/* enum ds_chain_kind */
	bool leaf;		/* no entry's parent */
	uint64_t bytes;		/* the entry's exact `bytes` (disk entries, doc/critical-path.md "Encoding"),
				 * DS_CHAIN_BYTES_UNKNOWN when the trace has no such member */
};

#define DS_CHAIN_BYTES_UNKNOWN UINT64_MAX

/* One `host_context` entry of a span (doc/host-context.md, "Encoding"). */
struct ds_host_item {
	uint32_t name;		/* interned: process or handler name */
	uint32_t device;	/* interned: "M:N" (disk) or "-" */
	int64_t pid;		/* -1 for handlers */
	uint64_t value;		/* ns, or bytes for disk */
	uint8_t kind;		/* enum ds_host_kind (host-context.h) */
};

/* One read-family syscall of a span (`cache_reads`, doc/storage-network.md "Page cache"). */
struct ds_cache_read {
	int64_t begin, end;	/* ns, entry to exit clipped to the time the span was attached */
	bool miss;		/* a page-cache miss */
};

struct ds_span {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint64_t span_id;
	uint64_t parent_span_id;
	uint32_t host;		/* interned */
	uint32_t service;	/* interned */
	uint32_t operation;	/* interned */
	uint32_t input;		/* input port index (0 = `a`, 1 = `b`) */
	int64_t pid;
	int64_t tid;
	int64_t begin;
	int64_t end;
	uint64_t states[DS_STATE_COUNT];
	const struct ds_segment *segments;	/* borrowed from ds_span_store.segments */
	const struct ds_syscall_total *syscalls;	/* borrowed from ds_span_store.syscalls */
	const struct ds_stored_chain_entry *chain;	/* borrowed from ds_span_store.chains; NULL = no chain */
	const struct ds_host_item *host_items;	/* borrowed from ds_span_store.host_items; NULL = none */
	uint32_t host_item_count;
	uint64_t host_window;	/* ns its host context covers; 0 = it carries none */
	uint32_t segment_count;
	uint32_t syscall_count;
	uint32_t chain_count;
	bool truncated;
	/* layers (doc/storage-network.md, "Page cache"): the cache_* members were present */
	bool has_cache;
	uint64_t cache[4];	/* cache_hits, cache_misses, cache_hit_time, cache_miss_time */
	const struct ds_cache_read *reads;	/* borrowed from ds_span_store.reads, in time order; NULL = none */
	uint32_t read_count;
	uint32_t read_base;	/* id of reads[0]: unique among the store's reads until it is reset */
	/*
	 * Bounds out of range (begin < 0, end < begin, state or syscall totals
	 * that do not fit in end - begin): begin and end were reset to a safe
	 * empty interval by the reader; the span is in no table and its request
	 * in no group.
	 */
	bool invalid;
	/* Tree links, set by ds_requests_build(). */
	uint32_t parent;	/* span index or DS_NO_SPAN */
	uint32_t first_child;	/* index into ds_requests.children */
	uint32_t child_count;
	uint32_t request;	/* request index or DS_NO_SPAN */
};

/*
 * An append-only arena of fixed-size elements in blocks that never move:
 * one run of n elements is contiguous, nothing is zeroed or copied when the
 * arena grows (a growing flat array reallocates, copies and zeroes; with
 * millions of segments that was most of the sink's reading time).
 */
struct ds_arena {
	GPtrArray *blocks;	/* owned: owned blocks (free()) of the standard size, in use */
	GPtrArray *spare;	/* owned: owned standard blocks free for reuse (after a reset) */
	GPtrArray *own_runs;	/* owned: owned blocks of one run larger than a block */
	size_t element_size;
	char *next;		/* borrowed: free space of the last block */
	size_t left;		/* elements left in the last block */
	uint64_t used;		/* elements handed out */
};

#define DS_SPAN_CHUNK_SHIFT 14
#define DS_SPAN_CHUNK (1u << DS_SPAN_CHUNK_SHIFT)

struct ds_span_store {
	GPtrArray *span_chunks;	/* owned: owned (free()) arrays of DS_SPAN_CHUNK struct ds_span */
	uint32_t span_count;
	struct ds_arena segments;	/* struct ds_segment runs, one per span */
	struct ds_arena syscalls;	/* struct ds_syscall_total runs, one per span */
	struct ds_arena chains;		/* struct ds_stored_chain_entry runs, one per span with a chain */
	struct ds_arena host_items;	/* struct ds_host_item runs, one per span with host context */
	struct ds_arena reads;		/* struct ds_cache_read runs, one per span with `cache_reads` */
	struct ds_strings *strings;	/* borrowed: shared by the stores of a sink */
};

void ds_strings_init(struct ds_strings *strings);
void ds_strings_fini(struct ds_strings *strings);
uint32_t ds_strings_intern(struct ds_strings *strings, const char *text);
const char *ds_strings_get(const struct ds_strings *strings, uint32_t id);
/* The id of `text` or UINT32_MAX when it was never interned. */
uint32_t ds_strings_find(const struct ds_strings *strings, const char *text);

void ds_arena_init(struct ds_arena *arena, size_t element_size);
void ds_arena_fini(struct ds_arena *arena);
/* `count` contiguous uninitialized elements (NULL when count is 0). */
void *ds_arena_alloc(struct ds_arena *arena, size_t count);
/* Forgets every element; the standard blocks are kept for reuse. */
void ds_arena_reset(struct ds_arena *arena);

/* A store interning into `strings` (borrowed: must outlive the store). */
void ds_span_store_init(struct ds_span_store *store, struct ds_strings *strings);
void ds_span_store_fini(struct ds_span_store *store);
/* Appends a copy of `span`; returns its index. */
uint32_t ds_store_append_span(struct ds_span_store *store, const struct ds_span *span);
/*
 * Appends a copy of `span` with copies of its segments, syscall totals and chain
 * (in `store`'s arenas); the two stores share their strings.  Returns its index.
 */
uint32_t ds_store_copy_span(struct ds_span_store *store, const struct ds_span *span);
/* Forgets every span, keeping the memory for the next ones (no fresh pages to fault in). */
void ds_span_store_reset(struct ds_span_store *store);
/* Forgets the last appended span (its segment runs stay allocated). */
void ds_store_drop_last_span(struct ds_span_store *store);

static inline struct ds_span *ds_store_span(const struct ds_span_store *store,
		uint32_t index)
{
	return (struct ds_span *) g_ptr_array_index(store->span_chunks,
		index >> DS_SPAN_CHUNK_SHIFT) + (index & (DS_SPAN_CHUNK - 1));
}

static inline const struct ds_segment *ds_store_segments(
		const struct ds_span_store *store, const struct ds_span *span)
{
	(void) store;
	return span->segments;
}

static inline const struct ds_syscall_total *ds_store_syscalls(
		const struct ds_span_store *store, const struct ds_span *span)
{
	(void) store;
	return span->syscalls;
}

/* Index of the first chain entry of segment `segment` (chain_count when none). */
static inline uint32_t ds_chain_first_of_segment(const struct ds_span *span,
		uint32_t segment)
{
	uint32_t lo = 0, hi = span->chain_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (span->chain[mid].segment < segment) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

static inline const char *ds_store_string(const struct ds_span_store *store,
		uint32_t id)
{
	return ds_strings_get(store->strings, id);
}

/* Packs `wide` (clipped to [span_begin, span_end]) into `out`. */
void ds_segment_pack(int64_t span_begin, int64_t span_end,
		const struct ds_wide_segment *wide, struct ds_segment *out);

static inline int64_t ds_segment_begin(const struct ds_span *span,
		const struct ds_segment *segment)
{
	return span->begin + (int64_t) (((uint64_t) segment->begin_high << 32) |
		segment->begin_low);
}

static inline int64_t ds_segment_end(const struct ds_span *span,
		const struct ds_segment *segment)
{
	return span->begin + (int64_t) (((uint64_t) segment->end_high << 32) |
		segment->end_low);
}

static inline unsigned int ds_segment_state(const struct ds_segment *segment)
{
	return segment->detail_state & 7u;
}

static inline uint32_t ds_segment_detail(const struct ds_segment *segment)
{
	return segment->detail_state >> 3;
}


#endif /* DEEPSPAN_DIFF_SPAN_STORE_H */
