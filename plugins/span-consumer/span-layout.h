/* SPDX-License-Identifier: MIT */
/*
 * The payload layout of a `deepspan:span` event class (doc/span-attrib.md, "Output: deepspan:span"), private
 * to the span reader (span-reader.c, chain-reader.c): the index and signedness of each payload member and of
 * each member of the array elements, and the tables mapping enumeration values to states and kinds.  Resolved
 * once per event class (span-layout.c); the field readers below are inlined into every read.
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_SPAN_LAYOUT_H
#define DEEPSPAN_SPAN_CONSUMER_SPAN_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "span-reader.h"

#define NO_MEMBER UINT64_MAX

/* The payload members of a `deepspan:span` event. */
enum span_member {
	M_TRACE_HIGH, M_TRACE_LOW, M_SPAN_ID, M_PARENT_SPAN_ID,
	M_HOST, M_SERVICE, M_OPERATION, M_PID, M_TID, M_BEGIN, M_END,
	M_USER, M_SYSCALL, M_BLOCKED, M_WAIT_CPU, M_INTERRUPTED, M_UNKNOWN,
	M_SYSCALLS, M_SEGMENTS, M_TRUNCATED, M_CHAIN,
	M_CHAIN_PACKED,		/* the chain in one string (doc/critical-path.md, "Encoding"); read before `chain` */
	M_CACHE_HITS, M_CACHE_MISSES, M_CACHE_HIT_TIME, M_CACHE_MISS_TIME,	/* layers (doc/storage-network.md) */
	M_HOST_WINDOW, M_HOST_CONTEXT,	/* doc/host-context.md */
	M_CACHE_READS,	/* layers, per read (doc/storage-network.md, "Page cache") */
	M_COUNT,
};

/* Members of one array element structure (by the SC_, SEG_, CH_, HC_ slots below). */
struct element_layout {
	uint64_t index[16];
	bool is_signed[16];
};

/* The members of an element of `syscalls`, `segments`, `chain`, `host_context`. */
enum { SC_NAME, SC_COUNT, SC_DURATION };
enum { SEG_BEGIN, SEG_END, SEG_STATE, SEG_DETAIL };
enum {
	CH_SEGMENT, CH_PARENT, CH_DEPTH, CH_BEGIN, CH_END, CH_HOST, CH_TID,
	CH_COMM, CH_PROCESS, CH_CPU, CH_STATE, CH_KIND, CH_DETAIL, CH_COUNT,
	CH_BYTES = CH_COUNT,	/* optional (layers): NO_MEMBER in older traces */
};
enum { HC_KIND, HC_PID, HC_NAME, HC_DEVICE, HC_VALUE, HC_COUNT };

struct ds_span_layout {
	uint64_t index[M_COUNT];	/* member index or NO_MEMBER */
	bool is_signed[M_COUNT];
	bool truncated_is_bool;
	struct element_layout syscall;
	struct element_layout segment;
	struct element_layout chain;
	bool chain_standard;		/* every chain integer of span-attrib's signedness (read_entry) */
	uint8_t state_of_value[256];	/* segment `state` value -> enum ds_state */
	uint8_t chain_state_of_value[256];	/* chain `state` value -> enum ds_state */
	uint8_t kind_of_value[256];	/* chain `kind` value -> enum ds_chain_kind */
	struct element_layout host_item;
	uint8_t host_kind_of_value[256];	/* host_context `kind` value -> enum ds_host_kind */
	struct element_layout read;	/* cache_reads: begin, end, miss */
};

/*
 * The layout of `event_class`, resolved on first sight and cached by the reader; NULL when it is not a span
 * event class, or with `*error` set (cause appended) when it is one with a malformed payload.
 */
struct ds_span_layout *ds_span_layout_of(struct ds_span_reader *reader,
		const bt_event_class *event_class, bool *error);

/* Frees a layout of ds_span_layout_of (the destroy function of the reader's `layouts`). */
void ds_span_layout_free(gpointer layout);

static inline const bt_field *member_at(const bt_field *structure, uint64_t index)
{
	return bt_field_structure_borrow_member_field_by_index_const(structure, index);
}

static inline int64_t read_int(const bt_field *field, bool is_signed)
{
	return is_signed ? bt_field_integer_signed_get_value(field) :
		(int64_t) bt_field_integer_unsigned_get_value(field);
}

static inline uint64_t read_uint(const bt_field *field, bool is_signed)
{
	return is_signed ? (uint64_t) bt_field_integer_signed_get_value(field) :
		bt_field_integer_unsigned_get_value(field);
}

#endif /* DEEPSPAN_SPAN_CONSUMER_SPAN_LAYOUT_H */
