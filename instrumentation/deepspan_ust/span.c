/* SPDX-License-Identifier: MIT */
/* The span API of libdeepspan-ust (see deepspan-ust.h): ids, then one tracepoint per call. */
#define _GNU_SOURCE
#include "deepspan-ust.h"
#include "ids.h"

#include <pthread.h>

#include "deepspan-ust-tp.h"

/* Incremented in every forked child, so each thread reseeds instead of repeating its parent's ids. */
static unsigned long fork_generation = 1;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

struct thread_ids {
	struct deepspan_id_generator generator;
	unsigned long generation;	/* fork_generation at seeding; 0 = not seeded */
};

static __thread struct thread_ids thread_ids;

static void after_fork_in_child(void)
{
	__atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, after_fork_in_child);
}

static struct deepspan_id_generator *thread_generator(void)
{
	unsigned long generation = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);

	if (thread_ids.generation != generation) {
		pthread_once(&atfork_once, register_atfork);
		/* Reload: a fork between the load and pthread_once must not leave a stale generation. */
		generation = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
		deepspan_id_generator_seed(&thread_ids.generator, deepspan_id_fresh_seed());
		thread_ids.generation = generation;
	}
	return &thread_ids.generator;
}

uint64_t deepspan_new_span_id(void)
{
	return deepspan_id_generator_next(thread_generator());
}

void deepspan_new_trace_id(uint64_t *high, uint64_t *low)
{
	struct deepspan_id_generator *gen = thread_generator();

	*high = deepspan_id_generator_next(gen);
	*low = deepspan_id_generator_next(gen);
}

void deepspan_span_start(struct deepspan_span *span, const struct deepspan_context *parent,
		const char *service, const char *operation, enum deepspan_span_kind kind)
{
	if (parent && (parent->trace_id_high != 0 || parent->trace_id_low != 0)) {
		span->context.trace_id_high = parent->trace_id_high;
		span->context.trace_id_low = parent->trace_id_low;
		span->context.trace_flags = parent->trace_flags;
		span->parent_span_id = parent->span_id;
	} else {
		deepspan_new_trace_id(&span->context.trace_id_high, &span->context.trace_id_low);
		span->context.trace_flags = DEEPSPAN_TRACE_FLAG_SAMPLED;
		span->parent_span_id = 0;
	}
	span->context.span_id = deepspan_new_span_id();
	lttng_ust_tracepoint(deepspan_ust, span_start, span->context.trace_id_high,
		span->context.trace_id_low, span->context.span_id, span->parent_span_id,
		service ? service : "", operation ? operation : "", (uint8_t) kind);
}

void deepspan_span_end(const struct deepspan_span *span, enum deepspan_span_status status)
{
	lttng_ust_tracepoint(deepspan_ust, span_end, span->context.trace_id_high,
		span->context.trace_id_low, span->context.span_id, (uint8_t) status);
}

void deepspan_span_activate(const struct deepspan_span *span)
{
	lttng_ust_tracepoint(deepspan_ust, span_activate, span->context.trace_id_high,
		span->context.trace_id_low, span->context.span_id);
}

void deepspan_span_deactivate(const struct deepspan_span *span)
{
	lttng_ust_tracepoint(deepspan_ust, span_deactivate, span->context.trace_id_high,
		span->context.trace_id_low, span->context.span_id);
}

bool deepspan_tracing_enabled(void)
{
	return lttng_ust_tracepoint_enabled(deepspan_ust, span_start);
}
