/* SPDX-License-Identifier: MIT */
/*
 * Chain strings by an exact key (doc/critical-path.md, "Reading chains"): the key of a string (host, comm,
 * process, detail of a chain entry) is its length and its first and last 8 bytes.  span-consumer's
 * chain-reader.c caches interned strings by it, span-attrib's chain-output.c numbers the strings of a
 * packed chain by it.  Up to 16 bytes the key is the whole text (every comm and process, most
 * hosts): a key match is then the string, with no compare of the bytes and no look-up of the stored
 * text; longer texts (details) are checked byte for byte against the stored text.
 */
#ifndef DEEPSPAN_COMMON_CHAIN_STRINGS_H
#define DEEPSPAN_COMMON_CHAIN_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Texts up to this many bytes are whole in their key. */
#define DS_CHAIN_STRING_EXACT 16

struct ds_chain_string_key {
	uint64_t head;		/* the first 8 bytes (fewer: zero-padded) */
	uint64_t tail;		/* the last 8 bytes when longer than 8, else 0 */
	uint64_t length;
};

/* A cached string: its key and its interned id (0: free). */
struct ds_chain_string_slot {
	struct ds_chain_string_key key;
	uint32_t id;
};

/*
 * The key of `text` of `length` bytes, reading only those bytes, with no loop: overlapping loads (the
 * overlapped bytes are the same bytes at the same places, so ORing them changes nothing).
 */
static inline void ds_chain_string_key_of(struct ds_chain_string_key *key, const char *text, uint64_t length)
{
	const unsigned char *bytes = (const unsigned char *) text;
	uint32_t low, high;

	key->length = length;
	key->tail = 0;
	if (length >= sizeof(key->head)) {
		memcpy(&key->head, text, sizeof(key->head));
		memcpy(&key->tail, text + length - sizeof(key->tail), sizeof(key->tail));
	} else if (length >= sizeof(low)) {
		memcpy(&low, text, sizeof(low));
		memcpy(&high, text + length - sizeof(high), sizeof(high));
		key->head = (uint64_t) low | (uint64_t) high << (8 * (length - sizeof(high)));
	} else if (length > 0) {
		key->head = (uint64_t) bytes[0] | (uint64_t) bytes[length / 2] << (8 * (length / 2)) |
			(uint64_t) bytes[length - 1] << (8 * (length - 1));
	} else {
		key->head = 0;
	}
}

/* A slot of a direct-mapped table of `mask` + 1 slots (a power of 2) for `key`. */
static inline uint64_t ds_chain_string_hash(const struct ds_chain_string_key *key, uint64_t mask)
{
	/* the length multiplied too: XORed in as it is, it would sit in the low bits the shift drops */
	return ((key->head * UINT64_C(0x9e3779b97f4a7c15)) ^ (key->tail * UINT64_C(0xc2b2ae3d27d4eb4f)) ^
		(key->length * UINT64_C(0x165667b19e3779f9))) >> 40 & mask;
}

/*
 * Whether `slot` has `key`: then it holds the text when that is at most DS_CHAIN_STRING_EXACT bytes
 * long; a longer one must still be compared with the slot's stored text.
 */
static inline bool ds_chain_string_slot_has(const struct ds_chain_string_slot *slot,
		const struct ds_chain_string_key *key)
{
	return slot->id != 0 && slot->key.head == key->head && slot->key.tail == key->tail &&
		slot->key.length == key->length;
}

#endif /* DEEPSPAN_COMMON_CHAIN_STRINGS_H */
