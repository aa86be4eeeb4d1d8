/* SPDX-License-Identifier: MIT */
/*
 * The compact form of chain entries in the spill file (plugins/span-consumer/chain-spill.h): the bytes of
 * hand-encoded entries, exact round trips at every member's bounds and of random chains, and the decoder
 * stopping (NULL) on truncated or malformed bytes without reading past them.
 */
#include "chain-spill.h"
#include "unit.h"

#include <stdlib.h>

/* Sets `e` with its padding zeroed (entries are compared with memcmp). */
static void set_entry(struct ds_stored_chain_entry *e, int64_t begin, int64_t end, int32_t parent, uint16_t depth)
{
	memset(e, 0, sizeof(*e));
	e->begin = begin;
	e->end = end;
	e->parent = parent;
	e->depth = depth;
	e->tid = -1;
	e->ran_tid = -1;
	e->cpu = -1;
	e->bytes = DS_CHAIN_BYTES_UNKNOWN;
}

/* Encodes and decodes `count` entries (decoded from a buffer of exactly the encoded size). */
static bool round_trip(const struct ds_stored_chain_entry *in, uint32_t count, int64_t base, size_t *size)
{
	uint8_t *bytes = malloc((size_t) count * DS_CHAIN_SPILL_MAX_ENTRY + 1);
	struct ds_stored_chain_entry *out = calloc(count + 1, sizeof(*out));
	uint8_t *end = ds_chain_spill_encode(in, count, base, bytes);
	uint8_t *exact = malloc((size_t) (end - bytes) + 1);
	bool ok;

	*size = (size_t) (end - bytes);
	memcpy(exact, bytes, *size);
	ok = ds_chain_spill_decode(exact, exact + *size, count, base, out) == exact + *size &&
		memcmp(in, out, count * sizeof(*out)) == 0;
	free(exact);
	free(out);
	free(bytes);
	return ok;
}

static void hand_vectors(void)
{
	static const uint8_t expected[] = {
		/* entry 0: begin = base (the previous end), not the same thread, state and kind packed */
		0x10, 0xac, 0x02, 0x01, 0x02, 0x05, 0x00, 0x07, 0x09, 0x00, 0x01,
		0x01, 0x02, 0x03, 0x54, 0x02, 0x00, 0x22, 0x00,
		/* entry 1: begin = the previous begin, leaf, the same thread, 4096 bytes */
		0x1d, 0x64, 0x02, 0x02, 0x06, 0x08, 0x0a, 0x0b, 0x00, 0x01, 0x02, 0x01, 0x00, 0x81, 0x20,
	};
	struct ds_stored_chain_entry in[2], out[2];
	uint8_t bytes[2 * DS_CHAIN_SPILL_MAX_ENTRY];
	uint8_t *end;

	set_entry(&in[0], 1000, 1300, -1, 0);
	in[0].segment = 2, in[0].frame = 5, in[0].detail = 7, in[0].note = 9;
	in[0].host = 1, in[0].process = 2, in[0].comm = 3, in[0].tid = 42, in[0].cpu = 1;
	in[0].state = 2, in[0].kind = DS_CHAIN_WAIT;
	memcpy(&in[1], &in[0], sizeof(in[1]));
	in[1].end = 1100, in[1].parent = 0, in[1].depth = 1, in[1].leaf = true;
	in[1].frame = 6, in[1].step = 8, in[1].detail = 10, in[1].note = 11;
	in[1].state = 0, in[1].kind = DS_CHAIN_RUNNING, in[1].bytes = 4096;
	end = ds_chain_spill_encode(in, 2, 1000, bytes);
	UNIT_EQ_UINT(end - bytes, sizeof(expected), "hand vector: its length");
	UNIT_CHECK(memcmp(bytes, expected, sizeof(expected)) == 0, "hand vector: its bytes");
	memset(out, 0xa5, sizeof(out));
	UNIT_CHECK(ds_chain_spill_decode(expected, expected + sizeof(expected), 2, 1000, out) ==
		expected + sizeof(expected), "hand vector: decoded to its end");
	UNIT_CHECK(memcmp(in, out, sizeof(in)) == 0, "hand vector: the entries, padding zeroed");
	UNIT_CHECK(ds_chain_spill_decode(expected, expected, 0, 0, out) == expected,
		"no entries: no bytes read");
}

/* Each member at its bounds, alone and against a previous entry at the other bound. */
static void bounds(void)
{
	static const int64_t wide[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX };
	static const uint8_t small[] = { 0, 1, 15, 16, 255 };
	struct ds_stored_chain_entry in[2];
	size_t i, j, size, largest = 0;
	bool ok = true;

	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		for (j = 0; j < sizeof(wide) / sizeof(wide[0]); j++) {
			set_entry(&in[0], wide[i], wide[j], (int32_t) wide[i], (uint16_t) wide[j]);
			in[0].tid = in[0].ran_tid = wide[j];
			in[0].segment = in[0].frame = in[0].step = in[0].detail = (uint32_t) wide[i];
			in[0].note = in[0].ran_comm = in[0].host = in[0].process = in[0].comm = (uint32_t) wide[j];
			in[0].cpu = (int32_t) wide[j];
			in[0].bytes = (uint64_t) wide[i];
			in[0].state = small[i % 5], in[0].kind = small[j % 5], in[0].leaf = (i + j) & 1;
			set_entry(&in[1], wide[j], wide[i], (int32_t) wide[j], (uint16_t) wide[i]);
			in[1].tid = in[1].ran_tid = wide[i];
			in[1].segment = in[1].frame = in[1].step = in[1].detail = (uint32_t) wide[j];
			in[1].note = in[1].ran_comm = in[1].host = in[1].process = in[1].comm = (uint32_t) wide[i];
			in[1].cpu = (int32_t) wide[i];
			in[1].bytes = (uint64_t) wide[j];
			in[1].state = small[j % 5], in[1].kind = small[i % 5];
			ok &= round_trip(in, 2, wide[(i + j) % 7], &size);
			largest = size > largest ? size : largest;
		}
	}
	UNIT_CHECK(ok, "every member at its bounds round-trips");
	UNIT_CHECK(largest <= 2 * DS_CHAIN_SPILL_MAX_ENTRY, "no entry longer than DS_CHAIN_SPILL_MAX_ENTRY");
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A depth-first chain like span-attrib's (children inside their parent), with some wild members. */
static void random_chains(void)
{
	enum { COUNT = 20000 };
	struct ds_stored_chain_entry *in = calloc(COUNT, sizeof(*in));
	uint64_t state = 0x9e3779b97f4a7c15u;
	size_t size;
	uint32_t i;

	for (i = 0; i < COUNT; i++) {
		uint64_t r = next_random(&state);
		int64_t begin = i == 0 ? 5000 : (r & 1) ? in[i - 1].begin : in[i - 1].end;

		set_entry(&in[i], begin, (int64_t) ((uint64_t) begin + (r >> 40)), i == 0 ? -1 : (int32_t) (i - 1 - (r >> 60)),
			(uint16_t) (r >> 61));
		in[i].tid = (r & 2) && i > 0 ? in[i - 1].tid : (int64_t) (r >> 50);
		in[i].host = (r & 2) && i > 0 ? in[i - 1].host : (uint32_t) (r >> 58);
		in[i].process = (r & 2) && i > 0 ? in[i - 1].process : (uint32_t) (r >> 44);
		in[i].comm = (r & 2) && i > 0 ? in[i - 1].comm : (uint32_t) (r >> 44);
		in[i].frame = (uint32_t) (r >> 32), in[i].step = (uint32_t) r, in[i].detail = (uint32_t) (r >> 16);
		in[i].note = (uint32_t) (r >> 20), in[i].ran_comm = (r & 4) ? (uint32_t) (r >> 48) : 0;
		in[i].ran_tid = (r & 8) ? (int64_t) r : -1, in[i].cpu = (int32_t) (r >> 59) - 1;
		in[i].segment = (uint32_t) (r >> 62), in[i].state = (uint8_t) (r >> 5), in[i].kind = (uint8_t) (r >> 9);
		in[i].leaf = (r >> 3) & 1, in[i].bytes = (r & 16) ? r >> 30 : DS_CHAIN_BYTES_UNKNOWN;
		if ((r & 0xf00) == 0) {
			in[i].begin = (int64_t) next_random(&state);	/* far from the previous entry */
		}
	}
	UNIT_CHECK(round_trip(in, COUNT, 5000, &size), "20,000 random entries round-trip");
	free(in);
}

/* Every truncation of valid bytes, an 11-byte varint and the unused begin mode give NULL. */
static void malformed(void)
{
	static const uint8_t long_varint[] = { 0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x01 };
	static const uint8_t bad_mode[] = { 0x13, 0x00 };
	struct ds_stored_chain_entry in[3], out[3];
	uint8_t bytes[3 * DS_CHAIN_SPILL_MAX_ENTRY];
	size_t size, cut;
	bool all_null = true;

	set_entry(&in[0], 10, 20, -1, 0);
	set_entry(&in[1], 10, 15, 0, 1);
	in[1].kind = 200, in[1].bytes = 12345678;
	set_entry(&in[2], 17, 20, 0, 1);
	size = (size_t) (ds_chain_spill_encode(in, 3, 10, bytes) - bytes);
	for (cut = 0; cut < size; cut++) {
		uint8_t *exact = malloc(cut + 1);

		memcpy(exact, bytes, cut);
		all_null &= ds_chain_spill_decode(exact, exact + cut, 3, 10, out) == NULL;
		free(exact);
	}
	UNIT_CHECK(all_null, "every truncation of three entries: NULL");
	UNIT_CHECK(ds_chain_spill_decode(long_varint, long_varint + sizeof(long_varint), 1, 0, out) == NULL,
		"a varint of 11 bytes: NULL");
	UNIT_CHECK(ds_chain_spill_decode(bad_mode, bad_mode + sizeof(bad_mode), 1, 0, out) == NULL,
		"the unused begin mode: NULL");
}

/* A chain written in parts (request-spill.c writes 4096 entries at a time) gives the bytes of the whole. */
static void parts(void)
{
	enum { N = 9 };
	struct ds_stored_chain_entry in[N];
	uint8_t whole[N * DS_CHAIN_SPILL_MAX_ENTRY], split[N * DS_CHAIN_SPILL_MAX_ENTRY];
	uint8_t *end_whole, *end = split;
	uint32_t i, from;
	bool same = true;

	for (i = 0; i < N; i++) {
		set_entry(&in[i], 100 + 10 * i, 105 + 10 * i, i == 0 ? -1 : (int32_t) (i - 1) / 2, i % 3);
	}
	end_whole = ds_chain_spill_encode(in, N, 100, whole);
	for (from = 0; from < N; from += 4) {
		end = ds_chain_spill_encode_part(in, from, from + 4 < N ? from + 4 : N, 100, end);
	}
	same = end - split == end_whole - whole && memcmp(split, whole, (size_t) (end_whole - whole)) == 0;
	UNIT_CHECK(same, "nine entries written 4, 4 and 1 at a time: the bytes of the whole chain");
}

int main(void)
{
	hand_vectors();
	bounds();
	random_chains();
	malformed();
	parts();
	return unit_finish();
}
