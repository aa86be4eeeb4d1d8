/* SPDX-License-Identifier: MIT */
/*
 * The cost of libdeepspan-ust per span: N child spans (deepspan_span_start + deepspan_span_end)
 * on one thread, timed with CLOCK_MONOTONIC; also the id generator and traceparent format+parse.
 * Prints one JSON object. Run it with and without an LTTng session (bench/instrumentation-overhead).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deepspan-ust.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long spans = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	struct deepspan_span root, child;
	struct deepspan_context parent, parsed;
	char header[DEEPSPAN_TRACEPARENT_SIZE];
	uint64_t begin, span_ns, id_ns, tp_ns, sink = 0;

	if (argc > 2 || spans == 0 || spans > 100000000) {
		fprintf(stderr, "usage: instrumentation-overhead-spans [SPANS (1..100000000, default 200000)]\n");
		return 2;
	}
	deepspan_span_start(&root, NULL, "bench", "root", DEEPSPAN_KIND_SERVER);
	parent = deepspan_span_context(&root);

	begin = now_ns();
	for (unsigned long i = 0; i < spans; i++) {
		deepspan_span_start(&child, &parent, "bench", "child operation", DEEPSPAN_KIND_INTERNAL);
		deepspan_span_end(&child, DEEPSPAN_STATUS_OK);
	}
	span_ns = now_ns() - begin;

	begin = now_ns();
	for (unsigned long i = 0; i < spans; i++) {
		sink += deepspan_new_span_id();
	}
	id_ns = now_ns() - begin;

	begin = now_ns();
	for (unsigned long i = 0; i < spans; i++) {
		parent.span_id = i + 1;
		deepspan_traceparent_format(&parent, header, sizeof(header));
		deepspan_traceparent_parse(header, DEEPSPAN_TRACEPARENT_LEN, &parsed);
		sink += parsed.span_id;
	}
	tp_ns = now_ns() - begin;
	deepspan_span_end(&root, DEEPSPAN_STATUS_OK);

	printf("{\"spans\": %lu, \"tracing_enabled\": %s, \"ns_per_span\": %.1f, \"ns_per_id\": %.1f, "
		"\"ns_per_traceparent_format_parse\": %.1f, \"checksum\": %" PRIu64 "}\n", spans,
		deepspan_tracing_enabled() ? "true" : "false", (double) span_ns / spans, (double) id_ns / spans,
		(double) tp_ns / spans, sink);
	return 0;
}
