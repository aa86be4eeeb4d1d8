/* SPDX-License-Identifier: MIT */
/*
 * W3C Trace Context `traceparent` formatting and parsing (https://www.w3.org/TR/trace-context/).
 * Pure code: no tracer, no allocation.
 */
#include "deepspan-ust.h"

#include <string.h>

static const char hex_digits[] = "0123456789abcdef";

static void write_hex(char *out, uint64_t value, unsigned int digits)
{
	for (unsigned int i = 0; i < digits; i++) {
		out[digits - 1 - i] = hex_digits[value & 0xf];
		value >>= 4;
	}
}

/* Lowercase hex only (W3C: uppercase is invalid); -1 for anything else. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	return -1;
}

static bool read_hex(const char *text, unsigned int digits, uint64_t *value)
{
	uint64_t result = 0;

	for (unsigned int i = 0; i < digits; i++) {
		int nibble = hex_value(text[i]);

		if (nibble < 0) {
			return false;
		}
		result = (result << 4) | (uint64_t) nibble;
	}
	*value = result;
	return true;
}

enum deepspan_result deepspan_traceparent_format(const struct deepspan_context *ctx,
		char *buf, size_t size)
{
	enum deepspan_result result = DEEPSPAN_OK;

	if (!buf || size < DEEPSPAN_TRACEPARENT_SIZE) {
		result = DEEPSPAN_ERROR_TOO_SMALL;
		goto end;
	}
	if (!ctx || (ctx->trace_id_high == 0 && ctx->trace_id_low == 0) || ctx->span_id == 0) {
		result = DEEPSPAN_ERROR_INVALID;
		goto end;
	}
	memcpy(buf, "00-", 3);
	write_hex(buf + 3, ctx->trace_id_high, 16);
	write_hex(buf + 19, ctx->trace_id_low, 16);
	buf[35] = '-';
	write_hex(buf + 36, ctx->span_id, 16);
	buf[52] = '-';
	write_hex(buf + 53, ctx->trace_flags, 2);
	buf[DEEPSPAN_TRACEPARENT_LEN] = '\0';
end:
	return result;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The shape of a traceparent of `length` bytes: separators, version, and the length rule of that version. */
static bool valid_layout(const char *text, size_t length)
{
	uint64_t version;

	if (length < DEEPSPAN_TRACEPARENT_LEN || text[2] != '-' || text[35] != '-' || text[52] != '-' ||
			!read_hex(text, 2, &version) || version == 0xff) {
		return false;
	}
	/* Version 00 has exactly four fields; a later version may append "-more". */
	return version == 0 ? length == DEEPSPAN_TRACEPARENT_LEN :
		length == DEEPSPAN_TRACEPARENT_LEN || text[DEEPSPAN_TRACEPARENT_LEN] == '-';
}

enum deepspan_result deepspan_traceparent_parse(const char *text, size_t length,
		struct deepspan_context *ctx)
{
	enum deepspan_result result = DEEPSPAN_ERROR_INVALID;
	uint64_t high, low, span_id, flags;

	if (!text || !ctx) {
		goto end;
	}
	while (length > 0 && is_blank(text[0])) {
		text++;
		length--;
	}
	while (length > 0 && is_blank(text[length - 1])) {
		length--;
	}
	if (!valid_layout(text, length) ||
			!read_hex(text + 3, 16, &high) || !read_hex(text + 19, 16, &low) ||
			!read_hex(text + 36, 16, &span_id) || !read_hex(text + 53, 2, &flags) ||
			(high == 0 && low == 0) || span_id == 0) {
		goto end;
	}
	ctx->trace_id_high = high;
	ctx->trace_id_low = low;
	ctx->span_id = span_id;
	ctx->trace_flags = (uint8_t) flags;
	result = DEEPSPAN_OK;
end:
	return result;
}
