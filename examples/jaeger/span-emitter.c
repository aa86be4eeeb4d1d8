/* SPDX-License-Identifier: MIT */
/*
 * ds-span-emitter: emits the same small span trees in either span schema deepspan reads —
 * `jaeger_ust` (the Jaeger-Go LTTng instrumentation) or `deepspan_ust` (libdeepspan-ust) — and
 * prints what it did as JSON (ids, parents, operations, measured CLOCK_MONOTONIC bounds), so a
 * test can check that filter.deepspan.span-attrib reads both schemas identically.
 *
 * Each request: "HTTP GET /dispatch" → { "SQL SELECT" → "disk read", "redis GET" }, each span
 * a short busy loop; in the deepspan schema "redis GET" also emits span_activate/span_deactivate
 * around its work. Single thread, bounded by --requests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deepspan-ust.h"
#include "jaeger-ust-tp.h"

#define SERVICE_NAME "ds-span-emitter"
#define MAX_REQUESTS 10000
#define SPANS_PER_REQUEST 4

enum schema { SCHEMA_JAEGER, SCHEMA_DEEPSPAN };

struct emitted_span {
	struct deepspan_span span;
	const char *operation;
	uint64_t begin_ns, end_ns;	/* CLOCK_MONOTONIC, measured around the tracepoints */
};

struct emitter {
	enum schema schema;
	FILE *out;		/* borrowed */
	unsigned long emitted;	/* spans printed so far */
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static void busy_wait_us(unsigned int us)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t) us * 1000;

	while (clock_ns(CLOCK_MONOTONIC) < deadline) {
	}
}

static void span_begin(const struct emitter *em, struct emitted_span *s, const struct emitted_span *parent,
		const char *operation)
{
	struct deepspan_context context;

	s->operation = operation;
	s->begin_ns = clock_ns(CLOCK_MONOTONIC);
	if (parent) {
		context = deepspan_span_context(&parent->span);
	}
	if (em->schema == SCHEMA_DEEPSPAN) {
		deepspan_span_start(&s->span, parent ? &context : NULL, SERVICE_NAME, operation,
			parent ? DEEPSPAN_KIND_INTERNAL : DEEPSPAN_KIND_SERVER);
		return;
	}
	if (parent) {
		s->span.context = context;
		s->span.parent_span_id = context.span_id;
	} else {
		deepspan_new_trace_id(&s->span.context.trace_id_high, &s->span.context.trace_id_low);
		s->span.parent_span_id = 0;
	}
	s->span.context.span_id = deepspan_new_span_id();
	lttng_ust_tracepoint(jaeger_ust, start_span, s->span.context.trace_id_high,
		s->span.context.trace_id_low, s->span.context.span_id, s->span.parent_span_id, operation,
		(int64_t) clock_ns(CLOCK_REALTIME));
}

static void span_finish(struct emitter *em, struct emitted_span *s)
{
	if (em->schema == SCHEMA_DEEPSPAN) {
		deepspan_span_end(&s->span, DEEPSPAN_STATUS_OK);
	} else {
		lttng_ust_tracepoint(jaeger_ust, end_span, s->span.context.trace_id_high,
			s->span.context.trace_id_low, s->span.context.span_id,
			(int64_t) (clock_ns(CLOCK_MONOTONIC) - s->begin_ns));
	}
	s->end_ns = clock_ns(CLOCK_MONOTONIC);
	fprintf(em->out, "%s  {\"trace_id_high\": %" PRIu64 ", \"trace_id_low\": %" PRIu64 ", \"span_id\": %"
		PRIu64 ", \"parent_span_id\": %" PRIu64 ", \"operation\": \"%s\", \"begin_ns\": %" PRIu64
		", \"end_ns\": %" PRIu64 "}", em->emitted ? ",\n" : "", s->span.context.trace_id_high,
		s->span.context.trace_id_low, s->span.context.span_id, s->span.parent_span_id, s->operation,
		s->begin_ns, s->end_ns);
	em->emitted++;
}

static void emit_request(struct emitter *em)
{
	struct emitted_span spans[SPANS_PER_REQUEST];

	span_begin(em, &spans[0], NULL, "HTTP GET /dispatch");
	busy_wait_us(100);
	span_begin(em, &spans[1], &spans[0], "SQL SELECT");
	busy_wait_us(200);
	span_begin(em, &spans[2], &spans[1], "disk read");
	busy_wait_us(150);
	span_finish(em, &spans[2]);
	span_finish(em, &spans[1]);
	span_begin(em, &spans[3], &spans[0], "redis GET");
	if (em->schema == SCHEMA_DEEPSPAN) {
		/* As an event loop would: the span runs on this thread only between these two events. */
		deepspan_span_activate(&spans[3].span);
		busy_wait_us(100);
		deepspan_span_deactivate(&spans[3].span);
	} else {
		busy_wait_us(100);
	}
	span_finish(em, &spans[3]);
	span_finish(em, &spans[0]);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: ds-span-emitter --schema=jaeger|deepspan [--requests=N (1..%d, default 20)] [--output=FILE]\n"
		"Emits N span trees in the given LTTng-UST schema and prints them as JSON.\n", MAX_REQUESTS);
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "schema", required_argument, NULL, 's' },
		{ "requests", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct emitter em = { .schema = SCHEMA_DEEPSPAN, .out = stdout };
	const char *schema = NULL, *output = NULL;
	unsigned long requests = 20;
	char *end = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case 's': schema = optarg; break;
		case 'n': requests = strtoul(optarg, &end, 10); break;
		case 'o': output = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !schema || (strcmp(schema, "jaeger") && strcmp(schema, "deepspan")) ||
			(end && *end) || requests == 0 || requests > MAX_REQUESTS) {
		usage(stderr);
		return 2;
	}
	em.schema = strcmp(schema, "jaeger") == 0 ? SCHEMA_JAEGER : SCHEMA_DEEPSPAN;
	if (output && !(em.out = fopen(output, "w"))) {
		fprintf(stderr, "ds-span-emitter: cannot write %s: %s\n", output, strerror(errno));
		return 1;
	}
	fprintf(em.out, "{\"schema\": \"%s\", \"service\": \"%s\", \"spans\": [\n", schema, SERVICE_NAME);
	for (unsigned long i = 0; i < requests; i++) {
		emit_request(&em);
	}
	fprintf(em.out, "\n]}\n");
	return em.out != stdout && fclose(em.out) != 0 ? 1 : 0;
}
