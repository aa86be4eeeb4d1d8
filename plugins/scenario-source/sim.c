/* SPDX-License-Identifier: MIT */
#include "sim.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim-truth.h"

/* 2023-11-14T22:13:20Z: the simulated trace starts here (true time). */
#define SIM_EPOCH_START INT64_C(1700000000000000000)

static const char *const cause_names[] = {
	[SIM_CAUSE_NONE] = "none", [SIM_CAUSE_LOCK] = "lock", [SIM_CAUSE_CPU] = "cpu",
	[SIM_CAUSE_DISK] = "disk", [SIM_CAUSE_IRQ] = "irq", [SIM_CAUSE_MIXED] = "mixed",
	[SIM_CAUSE_LOCK_HOG] = "lock-hog", [SIM_CAUSE_LOCK_SLEEP] = "lock-sleep",
	[SIM_CAUSE_LOCK_REMOTE] = "lock-remote", [SIM_CAUSE_HANDOFF] = "handoff",
	[SIM_CAUSE_DEADLOCK] = "deadlock", [SIM_CAUSE_NET_DELAY] = "net-delay",
	[SIM_CAUSE_NET_RETRANSMIT] = "net-retransmit", [SIM_CAUSE_DISK_CONTENTION] = "disk-contention",
	[SIM_CAUSE_CACHE_MISS] = "cache-miss",
};

const char *sim_cause_name(enum sim_cause cause)
{
	return cause_names[cause];
}

void sim_config_defaults(struct sim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->hosts = 3;
	cfg->cpus = 4;
	cfg->requests = 200;
	cfg->seed = 1;
	cfg->slow_ratio = 0.05;
	cfg->cause = SIM_CAUSE_MIXED;
	cfg->chain_depth = 8;
	cfg->chain_window_ns = INT64_C(2000000000);
	cfg->span_schema = SIM_SPANS_DEEPSPAN;
	cfg->packet_events = 4096;
	cfg->interarrival_ns = 4000000;
	cfg->max_inflight = 16;
	sim_config_random_clocks(cfg);
}

void sim_config_random_clocks(struct sim_config *cfg)
{
	struct sim_rng rng;
	unsigned int h;

	sim_rng_init(&rng, cfg->seed, 7);
	for (h = 0; h < SIM_MAX_HOSTS; h++) {
		int64_t offset = sim_rng_range(&rng, -50000000, 50000000);
		int64_t drift = sim_rng_range(&rng, -50000, 50000);

		cfg->clocks[h].offset_ns = h == 0 ? 0 : offset;
		cfg->clocks[h].drift_ppb = h == 0 ? 0 : drift;
	}
}

void sim_host_clock_uuid(const struct sim *sim, unsigned int host, uint8_t out[16])
{
	uint64_t state = sim->cfg.seed * UINT64_C(0x2545F4914F6CDD1D) + host + 1;
	uint64_t a = sim_splitmix64(&state);
	uint64_t b = sim_splitmix64(&state);
	unsigned int i;

	for (i = 0; i < 8; i++) {
		out[i] = (uint8_t) (a >> (8 * i));
		out[8 + i] = (uint8_t) (b >> (8 * i));
	}
	out[6] = (uint8_t) ((out[6] & 0x0f) | 0x40);
	out[8] = (uint8_t) ((out[8] & 0x3f) | 0x80);
}

void sim_fail(struct sim *sim, const char *fmt, ...)
{
	va_list args;

	if (sim->failed) {
		return;
	}
	sim->failed = true;
	va_start(args, fmt);
	vsnprintf(sim->error, sizeof(sim->error), fmt, args);
	va_end(args);
}

const char *sim_intern(struct sim *sim, const char *text)
{
	char *copy = g_hash_table_lookup(sim->strings, text);

	if (!copy) {
		copy = g_strdup(text);
		g_hash_table_insert(sim->strings, copy, copy);
	}
	return copy;
}

void *sim_pool_alloc(struct sim *sim, size_t size)
{
	void *block = calloc(1, size);

	if (!block) {
		sim_fail(sim, "out of memory");
		return NULL;
	}
	g_ptr_array_add(sim->pool, block);
	return block;
}

void sim_schedule(struct sim *sim, int64_t time, uint32_t kind, uint32_t arg,
		uint64_t gen, void *target)
{
	if (!sim_queue_push(&sim->queue, time, kind, arg, gen, target)) {
		sim_fail(sim, "out of memory scheduling an action");
	}
}

struct sim *sim_create(const struct sim_config *cfg, char *error, size_t error_size)
{
	struct sim *sim;
	__int128 deadline;
	unsigned int h;

	if (!cfg->preset) {
		snprintf(error, error_size, "no workload preset configured");
		return NULL;
	}
	sim = calloc(1, sizeof(*sim));
	if (!sim) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	sim->cfg = *cfg;
	sim->start = SIM_EPOCH_START;
	sim->now = sim->start;
	/* generous: a run never lasts 100x its arrival time plus a minute (saturated) */
	deadline = (__int128) sim->start + INT64_C(60000000000) +
		(__int128) cfg->requests * cfg->interarrival_ns * 100;
	sim->deadline = deadline > INT64_MAX ? INT64_MAX : (int64_t) deadline;
	for (h = 0; h < cfg->hosts; h++) {
		sim->cfg.clocks[h].reference_ns = sim->start;
	}
	sim->strings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	sim->pool = g_ptr_array_new_with_free_func(free);
	if (cfg->truth_path && (sim_cause_is_chain(cfg->cause) || cfg->truth_chains)) {
		/* the chain truth's bookkeeping (sim-chain.h), only when the truth writes chains */
		sim->chain_threads = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	sim_rng_init(&sim->rng, cfg->seed, 1);
	sim_queue_init(&sim->queue);
	sim_output_init(&sim->out, cfg->hosts, cfg->cpus, cfg->packet_events, sim->cfg.clocks);
	sim->out.discard_every = cfg->discard_every;
	sim->out.discard_burst = 64;
	for (h = 0; h < cfg->hosts; h++) {
		sim_kernel_init_host(sim, h, cfg->preset->host_name(h, cfg->hosts), cfg->cpus);
	}
	if (!cfg->preset->create(sim)) {
		goto error;
	}
	if (cfg->truth_path) {
		sim->truth = sim_truth_open(cfg->truth_path, sim, error, error_size);
		if (!sim->truth) {
			goto end_error;
		}
	}
	return sim;

error:
	snprintf(error, error_size, "%s", sim->error);
end_error:
	sim_destroy(sim);
	return NULL;
}

/* Must run once the output ports are known to be connected or not. */
static void sim_begin(struct sim *sim)
{
	unsigned int h;

	if (!sim_output_start(&sim->out, sim->start)) {
		sim_fail(sim, "out of memory starting the streams");
		return;
	}
	for (h = 0; h < sim->cfg.hosts; h++) {
		sim_statedump(sim, h);
	}
	sim->cfg.preset->start(sim);
}

/*
 * The truth of the spans still open at the end of the trace (cause `deadlock`), innermost first,
 * truncated as span-attrib truncates them: at the last event of the whole input (the hosts' clocks
 * are one clock when exact; doc/scenario.md "Chain truth").
 */
static void truth_open_spans(struct sim *sim)
{
	int64_t end = 0;
	unsigned int h;

	for (h = 0; h < sim->cfg.hosts; h++) {
		if (sim->out.host[h].last_local > end) {
			end = sim->out.host[h].last_local;
		}
	}
	for (h = 0; h < sim->cfg.hosts; h++) {
		struct sim_thread *t;

		for (t = sim->host[h].threads; t; t = t->all_next) {
			struct sim_span *span;

			sim_book_flush(&t->book, end);
			for (span = t->book.spans; span; span = span->outer) {
				sim_truth_open_span(sim->truth, sim, span, end);
			}
		}
	}
	if (sim->cfg.preset->truth_open) {
		sim->cfg.preset->truth_open(sim);
	}
}

static void sim_end(struct sim *sim)
{
	if (sim->truth) {
		truth_open_spans(sim);
	}
	if (!sim_output_finish(&sim->out)) {
		sim_fail(sim, "out of memory ending the streams");
	}
	if (sim->truth) {
		bool ok = sim_truth_close(sim->truth, sim->tcp_segments, sim->out.discarded);

		sim->truth = NULL;
		if (!ok) {
			sim_fail(sim, "cannot write the truth file \"%s\"", sim->cfg.truth_path);
		}
	}
	sim->done = true;
}

bool sim_step(struct sim *sim)
{
	struct sim_action action;

	if (sim->done || sim->failed) {
		return false;
	}
	if (!sim->out.host[0].last_true) {
		sim_begin(sim);
		return !sim->failed;
	}
	if (sim->cfg.preset->finished(sim) || !sim_queue_pop(&sim->queue, &action)) {
		sim_end(sim);
		return !sim->failed;
	}
	if (action.time > sim->now) {
		sim->now = action.time;
	}
	if (sim->now > sim->deadline) {
		sim_fail(sim, "the simulation stalled: %" PRIu64 " of %" PRIu64 " requests done after "
			"%" PRId64 " s of simulated time", sim->cfg.preset->completed(sim), sim->cfg.requests,
			(sim->now - sim->start) / 1000000000);
		return false;
	}
	if (action.kind >= SIM_ACT_WORKLOAD) {
		sim->cfg.preset->act(sim, &action);
	} else {
		sim_kernel_act(sim, &action);
	}
	return !sim->failed;
}

void sim_destroy(struct sim *sim)
{
	unsigned int h;

	if (!sim) {
		return;
	}
	sim_truth_abort(sim->truth);
	sim->cfg.preset->destroy(sim);
	for (h = 0; h < SIM_MAX_HOSTS; h++) {
		sim_kernel_fini_host(&sim->host[h]);
	}
	if (sim->pool) {
		g_ptr_array_free(sim->pool, TRUE);
	}
	sim_output_fini(&sim->out);
	sim_queue_fini(&sim->queue);
	if (sim->strings) {
		g_hash_table_destroy(sim->strings);
	}
	if (sim->chain_threads) {
		g_hash_table_destroy(sim->chain_threads);
	}
	free(sim);
}
