/* SPDX-License-Identifier: MIT */
/*
 * The packed chain format (doc/critical-path.md, "Encoding"): the chain of a span in one printable string,
 * `chain_packed`, that filter.deepspan.span-attrib writes (chain-output.c) and the sinks' span reader reads
 * (span-consumer/chain-reader.c).  This header holds the format's primitives, inlined where they are used:
 *
 * - an unsigned integer is written in base 32, least significant digit first; every digit but the last is
 *   one of the 32 characters from DS_PACKED_MORE ('P'..'o'), the last one of the 32 from DS_PACKED_LAST
 *   ('0'..'O'): so 0 is "0", 31 is "O", 32 is "P1";
 * - a signed integer is its ZigZag code (0, -1, 1, -2 ... as 0, 1, 2, 3 ...) written as an unsigned one;
 * - a string is a reference: 0 then its length and its bytes (a literal, which gets the next number in the
 *   span's table of strings, from 1), or the number of a string written before in the same chain.
 */
#ifndef DEEPSPAN_COMMON_CHAIN_PACKED_H
#define DEEPSPAN_COMMON_CHAIN_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DS_PACKED_LAST '0'	/* '0'..'O': the last digit of an integer */
#define DS_PACKED_MORE 'P'	/* 'P'..'o': a digit with more to follow */
#define DS_PACKED_HEADER 'C'	/* first character: a chain without `bytes` */
#define DS_PACKED_HEADER_BYTES 'D'	/* first character: a chain whose entries end with `bytes` */
#define DS_PACKED_UINT_MAX 13	/* characters of the longest integer (64 bits in 5-bit digits) */

/* Writes `value` at `out` (room for DS_PACKED_UINT_MAX characters); returns the characters written. */
static inline size_t ds_packed_put_uint(char *out, uint64_t value)
{
	size_t n = 0;

	while (value >= 32) {
		out[n++] = (char) (DS_PACKED_MORE + (value & 31));
		value >>= 5;
	}
	out[n++] = (char) (DS_PACKED_LAST + value);
	return n;
}

static inline uint64_t ds_packed_zigzag(int64_t value)
{
	return ((uint64_t) value << 1) ^ (uint64_t) (value >> 63);
}

static inline int64_t ds_packed_unzigzag(uint64_t code)
{
	return (int64_t) ((code >> 1) ^ (0 - (code & 1)));
}

/* A read position in a packed chain; `bad` once something read was not of the format (kept: sticky). */
struct ds_packed_cursor {
	const char *at;		/* borrowed: the next character */
	const char *end;	/* borrowed: one past the last */
	bool bad;
};

/* The integers of more than one digit (ds_packed_get_uint). */
static inline uint64_t ds_packed_get_long_uint(struct ds_packed_cursor *cur)
{
	uint64_t value = 0;
	unsigned int shift = 0;

	while (cur->at < cur->end) {
		unsigned int c = (unsigned char) *cur->at++;

		if (c >= DS_PACKED_LAST && c < DS_PACKED_LAST + 32u) {
			uint64_t digit = c - DS_PACKED_LAST;

			if (shift == 60 && digit > 15) {
				break;	/* more than 64 bits */
			}
			return value | digit << shift;
		}
		if (c < DS_PACKED_MORE || c >= DS_PACKED_MORE + 32u || shift == 60) {
			break;
		}
		value |= (uint64_t) (c - DS_PACKED_MORE) << shift;
		shift += 5;
	}
	cur->bad = true;
	return 0;
}

/* Reads an unsigned integer; 0 with `bad` set when the text is not one or it exceeds 64 bits. */
static inline uint64_t ds_packed_get_uint(struct ds_packed_cursor *cur)
{
	/* most integers are one digit: no loop for them */
	if (cur->at < cur->end) {
		unsigned int digit = (unsigned int) (unsigned char) *cur->at - DS_PACKED_LAST;

		if (digit < 32) {
			cur->at++;
			return digit;
		}
	}
	return ds_packed_get_long_uint(cur);
}

static inline int64_t ds_packed_get_int(struct ds_packed_cursor *cur)
{
	return ds_packed_unzigzag(ds_packed_get_uint(cur));
}

#endif /* DEEPSPAN_COMMON_CHAIN_PACKED_H */
