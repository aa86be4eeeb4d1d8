/* SPDX-License-Identifier: MIT */
/*
 * The chain strings cache key (plugins/common/chain-strings.h): exact up to
 * DS_CHAIN_STRING_EXACT bytes (two different texts never share a key), reads no byte past the text,
 * and the hash stays in its table.
 */
#include "chain-strings.h"
#include "unit.h"

#include <stdlib.h>

static bool same_key(const struct ds_chain_string_key *a, const struct ds_chain_string_key *b)
{
	return a->head == b->head && a->tail == b->tail && a->length == b->length;
}

/* The key of the `length` bytes at the end of a buffer of exactly that size (ASan sees a read past it). */
static struct ds_chain_string_key key_at_end(const char *text, size_t length)
{
	char *copy = malloc(length ? length : 1);
	struct ds_chain_string_key key;

	memcpy(copy, text, length);
	ds_chain_string_key_of(&key, copy, length);
	free(copy);
	return key;
}

int main(void)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789/-_.ABCDEFGHIJ";
	char text[64], other[64];
	size_t length, i;
	bool exact = true, distinct_lengths = true, stable = true, in_table = true, long_shared;
	struct ds_chain_string_key a, b, keys[DS_CHAIN_STRING_EXACT + 1];
	struct ds_chain_string_slot slot = { 0 };

	/* Every one-byte change of a text up to 16 bytes changes its key. */
	for (length = 1; length <= DS_CHAIN_STRING_EXACT; length++) {
		memcpy(text, alphabet, length);
		a = key_at_end(text, length);
		for (i = 0; i < length; i++) {
			memcpy(other, text, length);
			other[i] = other[i] == 'z' ? 'y' : 'z';
			b = key_at_end(other, length);
			exact &= !same_key(&a, &b);
		}
		b = key_at_end(text, length);
		stable &= same_key(&a, &b);
		in_table &= ds_chain_string_hash(&a, 1023) <= 1023;
	}
	UNIT_CHECK(exact, "texts of 1 to 16 bytes differing in any byte have different keys");
	UNIT_CHECK(stable, "a text's key does not depend on where it is in memory");
	UNIT_CHECK(in_table, "the hash is a slot of the table");

	/* A text and its prefixes ("mysqld", "mysql", …): the length tells them apart. */
	memcpy(text, "mysqld-worker-12", DS_CHAIN_STRING_EXACT);
	for (length = 0; length <= DS_CHAIN_STRING_EXACT; length++) {
		keys[length] = key_at_end(text, length);
		for (i = 0; i < length; i++) {
			distinct_lengths &= !same_key(&keys[i], &keys[length]);
		}
	}
	UNIT_CHECK(distinct_lengths, "a text and each of its prefixes have different keys");
	UNIT_EQ_UINT(keys[0].head | keys[0].tail, 0, "the empty text's key is all zero");

	/* The zero-padded bytes up to 8 bytes: "ab" is 'a' | 'b' << 8. */
	a = key_at_end("ab", 2);
	UNIT_EQ_UINT(a.head, (uint64_t) 'a' | (uint64_t) 'b' << 8, "a short text's head is its bytes");
	a = key_at_end("abcde", 5);
	UNIT_EQ_UINT(a.head, UINT64_C(0x6564636261), "a 5-byte text's head is its bytes (overlapping loads)");

	/* Longer texts (details): only the ends are in the key, so the reader compares the bytes. */
	memcpy(text, "futex <- mysqld/1289 here", 25);
	memcpy(other, "futex <- mYsqld/1289 here", 25);
	a = key_at_end(text, 25);
	b = key_at_end(other, 25);
	long_shared = same_key(&a, &b);
	UNIT_CHECK(long_shared, "texts over 16 bytes that differ only in the middle share a key (compared by bytes)");

	slot.key = a;
	UNIT_CHECK(!ds_chain_string_slot_has(&slot, &a), "a free slot (id 0) has no key");
	slot.id = 7;
	UNIT_CHECK(ds_chain_string_slot_has(&slot, &a), "a used slot has its key");
	b = key_at_end(text, 24);
	UNIT_CHECK(!ds_chain_string_slot_has(&slot, &b), "a used slot has no other key");
	return unit_finish();
}
