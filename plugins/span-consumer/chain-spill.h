/* SPDX-License-Identifier: MIT */
/*
 * The compact form of a span's chain entries in the spill file (request-spill.c): each entry against the
 * one before it where that pays, in LEB128 varints (ZigZag for signed values), instead of the 96-byte struct.
 *
 * An entry is a head byte, then:
 *   [begin - previous end]  ZigZag, only when the head's begin mode is DS_CHAIN_SPILL_BEGIN_GIVEN
 *   end - begin             varint (mod 2^64)
 *   parent                  ZigZag of the difference with the previous entry's
 *   segment, frame, step, detail, note, ran_comm   varints (interned ids are small)
 *   ran_tid                 ZigZag (-1, none, is one byte)
 *   [host, process, comm]   varints, [tid] ZigZag of the difference with the previous entry's: only
 *                           without DS_CHAIN_SPILL_SAME_THREAD
 *   cpu                     ZigZag; depth: varint
 *   state | kind << 4       one byte with DS_CHAIN_SPILL_PACKED_KIND, else state, kind: two bytes
 *   bytes + 1               varint (mod 2^64: DS_CHAIN_BYTES_UNKNOWN is one byte)
 * The previous entry of the first one is all zero with begin and end at `base` (the span's begin).
 * Every value of every member round-trips exactly (tests/unit/test_chain_spill.c).
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_CHAIN_SPILL_H
#define DEEPSPAN_SPAN_CONSUMER_CHAIN_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "span-store.h"

/* The head byte. */
#define DS_CHAIN_SPILL_BEGIN_MASK 3u
#define DS_CHAIN_SPILL_BEGIN_AT_END 0u		/* begin = the previous entry's end */
#define DS_CHAIN_SPILL_BEGIN_AT_BEGIN 1u	/* begin = the previous entry's begin */
#define DS_CHAIN_SPILL_BEGIN_GIVEN 2u		/* begin - the previous entry's end follows */
#define DS_CHAIN_SPILL_LEAF 4u
#define DS_CHAIN_SPILL_SAME_THREAD 8u		/* host, process, comm and tid of the previous entry */
#define DS_CHAIN_SPILL_PACKED_KIND 16u		/* state and kind both < 16, in one byte */

/* At most this many bytes per entry: the head, 17 varints of up to 10 bytes, state and kind. */
#define DS_CHAIN_SPILL_MAX_ENTRY (1u + 17u * 10u + 2u)

/* Writes the `count` entries at `out` (room for count * DS_CHAIN_SPILL_MAX_ENTRY); returns the end. */
uint8_t *ds_chain_spill_encode(const struct ds_stored_chain_entry *entries, uint32_t count, int64_t base,
		uint8_t *out);
/*
 * Writes entries [from, to) of the chain at `out` (room for (to - from) * DS_CHAIN_SPILL_MAX_ENTRY); returns
 * the end.  The parts [0, a), [a, b), ... written one after the other are the bytes of the whole chain.
 */
uint8_t *ds_chain_spill_encode_part(const struct ds_stored_chain_entry *entries, uint32_t from, uint32_t to,
		int64_t base, uint8_t *out);

/*
 * Reads `count` entries from [in, end) into `out` (padding zeroed); returns the first byte after them,
 * NULL when the bytes end before them or a varint is longer than 10 bytes.
 */
const uint8_t *ds_chain_spill_decode(const uint8_t *in, const uint8_t *end, uint32_t count, int64_t base,
		struct ds_stored_chain_entry *out);

#endif /* DEEPSPAN_SPAN_CONSUMER_CHAIN_SPILL_H */
