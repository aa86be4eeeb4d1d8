/* SPDX-License-Identifier: MIT */
/* W3C traceparent formatting and parsing of libdeepspan-ust. */
#include "deepspan-ust.h"
#include "unit.h"

static enum deepspan_result parse(const char *text, struct deepspan_context *ctx)
{
	return deepspan_traceparent_parse(text, strlen(text), ctx);
}

static void test_format(void)
{
	struct deepspan_context ctx = { .trace_id_high = UINT64_C(0x4bf92f3577b34da6),
		.trace_id_low = UINT64_C(0xa3ce929d0e0e4736), .span_id = UINT64_C(0x00f067aa0ba902b7),
		.trace_flags = 1 };
	char buf[DEEPSPAN_TRACEPARENT_SIZE];

	UNIT_EQ_INT(deepspan_traceparent_format(&ctx, buf, sizeof(buf)), DEEPSPAN_OK, "format the W3C example");
	UNIT_EQ_STR(buf, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "W3C example text");
	UNIT_EQ_UINT(strlen(buf), DEEPSPAN_TRACEPARENT_LEN, "traceparent length");
	UNIT_EQ_INT(deepspan_traceparent_format(&ctx, buf, DEEPSPAN_TRACEPARENT_LEN), DEEPSPAN_ERROR_TOO_SMALL,
		"a 55-byte buffer has no room for the NUL");
	ctx.span_id = 0;
	UNIT_EQ_INT(deepspan_traceparent_format(&ctx, buf, sizeof(buf)), DEEPSPAN_ERROR_INVALID, "zero span id refused");
	ctx.span_id = 1;
	ctx.trace_id_high = ctx.trace_id_low = 0;
	UNIT_EQ_INT(deepspan_traceparent_format(&ctx, buf, sizeof(buf)), DEEPSPAN_ERROR_INVALID, "zero trace id refused");
	ctx.trace_id_low = 2;
	ctx.trace_flags = 0;
	UNIT_EQ_INT(deepspan_traceparent_format(&ctx, buf, sizeof(buf)), DEEPSPAN_OK, "small ids");
	UNIT_EQ_STR(buf, "00-00000000000000000000000000000002-0000000000000001-00", "ids are zero-padded");
}

static void test_parse_valid(void)
{
	struct deepspan_context ctx = { 0 };

	UNIT_EQ_INT(parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &ctx), DEEPSPAN_OK, "parse W3C example");
	UNIT_EQ_UINT(ctx.trace_id_high, UINT64_C(0x4bf92f3577b34da6), "trace id high");
	UNIT_EQ_UINT(ctx.trace_id_low, UINT64_C(0xa3ce929d0e0e4736), "trace id low");
	UNIT_EQ_UINT(ctx.span_id, UINT64_C(0x00f067aa0ba902b7), "parent id");
	UNIT_EQ_UINT(ctx.trace_flags, 1, "flags");
	UNIT_EQ_INT(parse(" \t00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-ff \t", &ctx), DEEPSPAN_OK,
		"surrounding blanks ignored, all-ones ids");
	UNIT_EQ_UINT(ctx.trace_id_high, UINT64_MAX, "all-ones high");
	UNIT_EQ_UINT(ctx.span_id, UINT64_MAX, "all-ones span id");
	UNIT_EQ_UINT(ctx.trace_flags, 0xff, "all flags");
	UNIT_EQ_INT(parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra", &ctx), DEEPSPAN_OK,
		"a future version may append fields");
	UNIT_EQ_INT(parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", &ctx), DEEPSPAN_OK,
		"a future version with exactly four fields");

	/* Only the given length is read: the header value need not be NUL-terminated. */
	const char *line = "00-00000000000000000000000000000abc-0000000000000def-01\r\nnext: header";
	UNIT_EQ_INT(deepspan_traceparent_parse(line, DEEPSPAN_TRACEPARENT_LEN, &ctx), DEEPSPAN_OK, "length-delimited value");
	UNIT_EQ_UINT(ctx.trace_id_low, 0xabc, "length-delimited trace id");
	UNIT_EQ_UINT(ctx.span_id, 0xdef, "length-delimited span id");
}

static void test_parse_invalid(void)
{
	static const char *const bad[] = {
		"",
		"00",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",	/* short flags */
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",	/* version 00 has 4 fields */
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-010",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",	/* uppercase */
		"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",	/* not hex */
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",	/* zero trace id */
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",	/* zero parent id */
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",	/* version ff */
		"0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",	/* wrong separator */
		"00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",	/* more fields need '-' */
		"00-4bf92f3577b34da6a3ce929d0e0e4736--0f067aa0ba902b7-01",
	};
	struct deepspan_context ctx = { .trace_id_low = 42, .span_id = 7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[128];

		snprintf(what, sizeof(what), "refused: \"%s\"", bad[i]);
		UNIT_EQ_INT(parse(bad[i], &ctx), DEEPSPAN_ERROR_INVALID, what);
	}
	UNIT_CHECK(ctx.trace_id_low == 42 && ctx.span_id == 7, "a refused value leaves the context untouched");
	UNIT_EQ_INT(deepspan_traceparent_parse(NULL, 0, &ctx), DEEPSPAN_ERROR_INVALID, "NULL text refused");
}

static void test_round_trip(void)
{
	struct deepspan_context in = { .trace_id_high = 0x0123456789abcdefULL, .trace_id_low = 0xfedcba9876543210ULL,
		.span_id = 0x1122334455667788ULL, .trace_flags = 0x03 };
	struct deepspan_context out = { 0 };
	char buf[DEEPSPAN_TRACEPARENT_SIZE + 8];

	UNIT_EQ_INT(deepspan_traceparent_format(&in, buf, sizeof(buf)), DEEPSPAN_OK, "round trip: format");
	UNIT_EQ_INT(parse(buf, &out), DEEPSPAN_OK, "round trip: parse");
	UNIT_CHECK((in.trace_id_high == out.trace_id_high && in.trace_id_low == out.trace_id_low &&
		 in.span_id == out.span_id && in.trace_flags == out.trace_flags), "round trip: same context");
}

int main(void)
{
	test_format();
	test_parse_valid();
	test_parse_invalid();
	test_round_trip();
	return unit_finish();
}
