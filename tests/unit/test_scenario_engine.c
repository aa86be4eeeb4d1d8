/*
 * Unit tests of the scenario simulator without babeltrace2: event queue,
 * host clocks, thread-state bookkeeping, output framing, and a whole
 * hotrod run checked record by record.
 */
#include "unit.h"

#include <stdlib.h>

#include "scenario-source/sim.h"
#include "scenario-source/sim-state.h"
#include "scenario-source/sim-presets.h"

static void test_queue_order(void)
{
	struct sim_queue queue;
	struct sim_action action;
	static const int64_t times[] = { 50, 10, 30, 10, 20, 50, 5 };
	int64_t last_time = -1;
	uint64_t last_seq = 0;
	unsigned int i, popped = 0;
	bool ordered = true;

	sim_queue_init(&queue);
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		sim_queue_push(&queue, times[i], i, 0, 0, NULL);
	}
	while (sim_queue_pop(&queue, &action)) {
		if (action.time < last_time || (action.time == last_time && action.seq < last_seq)) {
			ordered = false;
		}
		last_time = action.time;
		last_seq = action.seq;
		popped++;
	}
	UNIT_EQ_UINT(popped, 7, "queue: every action pops once");
	UNIT_CHECK(ordered, "queue: by time, then insertion order");
	UNIT_CHECK(sim_queue_empty(&queue), "queue: empty at the end");
	sim_queue_fini(&queue);
}

static void test_clock(void)
{
	struct sim_clock clock = { .offset_ns = 1000, .drift_ppb = 20000, .reference_ns = 1000000000 };
	struct sim_clock slow = { .offset_ns = -5, .drift_ppb = -50000, .reference_ns = 0 };

	UNIT_EQ_INT(sim_clock_local(&clock, 1000000000), 1000001000, "clock: offset at the reference");
	UNIT_EQ_INT(sim_clock_local(&clock, 2000000000), 2000021000, "clock: 20 ppm after 1 s");
	UNIT_EQ_INT(sim_clock_local(&clock, 1000000025), 1000001025, "clock: 0.5 ns rounds away from 0");
	UNIT_EQ_INT(sim_clock_local(&slow, 10), 5, "clock: negative drift rounds");
	UNIT_EQ_INT(sim_clock_local(&slow, 1000000000), 999949995, "clock: -50 ppm after 1 s");
}

static void test_book(void)
{
	struct sim_thread_book book;
	struct sim_span outer, inner;
	int64_t sum = 0;
	unsigned int s;

	sim_book_init(&book);
	sim_book_set(&book, SIM_ST_USER, 100);
	sim_book_span_start(&book, &outer, 110);
	sim_book_syscall_entry(&book, SIM_SYS_READ, 120);
	sim_book_set(&book, SIM_ST_BLOCKED, 130);
	sim_book_set(&book, SIM_ST_WAIT_CPU, 170);
	sim_book_set(&book, sim_book_running_state(&book), 180);
	sim_book_syscall_exit(&book, 185);
	sim_book_span_start(&book, &inner, 190);
	sim_book_set(&book, SIM_ST_INTERRUPTED, 200);
	sim_book_set(&book, SIM_ST_USER, 204);
	UNIT_CHECK(sim_book_span_end(&book, 210) == &inner, "book: innermost span ends first");
	UNIT_CHECK(sim_book_span_end(&book, 220) == &outer, "book: then the outer one");
	UNIT_CHECK(sim_book_span_end(&book, 230) == NULL, "book: no span left");
	UNIT_EQ_INT(outer.states[SIM_ST_USER], 10 + 15 + 16, "book: outer user");
	UNIT_EQ_INT(outer.states[SIM_ST_SYSCALL], 10 + 5, "book: outer syscall");
	UNIT_EQ_INT(outer.states[SIM_ST_BLOCKED], 40, "book: outer blocked");
	UNIT_EQ_INT(outer.states[SIM_ST_WAIT_CPU], 10, "book: outer wait cpu");
	UNIT_EQ_INT(outer.states[SIM_ST_INTERRUPTED], 4, "book: outer interrupted");
	for (s = 0; s < SIM_ST_COUNT; s++) {
		sum += outer.states[s];
	}
	UNIT_EQ_INT(sum, outer.end - outer.begin, "book: outer states sum to its duration");
	UNIT_EQ_INT(inner.states[SIM_ST_USER] + inner.states[SIM_ST_INTERRUPTED], 20, "book: inner sum");
	UNIT_EQ_UINT(outer.syscalls[SIM_SYS_READ].count, 1, "book: one read");
	UNIT_EQ_INT(outer.syscalls[SIM_SYS_READ].duration, 65, "book: read entry to exit");
	UNIT_EQ_UINT(inner.syscalls[SIM_SYS_READ].count, 0, "book: read is outside the inner span");
}

static void test_output_framing(void)
{
	struct sim_clock clocks[SIM_MAX_HOSTS] = { { 0 } };
	struct sim_output out;
	struct sim_record rec;
	unsigned int i, packets_begun = 0, packets_ended = 0, events = 0;
	int64_t last = 0;
	bool monotonic = true;

	clocks[0].drift_ppb = -50000;
	sim_output_init(&out, 1, 2, 16, clocks);
	out.port[0].connected = true;
	UNIT_CHECK(sim_output_start(&out, 1000000), "framing: start");
	for (i = 0; i < 100; i++) {
		struct sim_record *r = sim_output_event(&out, 0, SIM_DOMAIN_KERNEL, i % 2,
			SIM_EV_SOFTIRQ_ENTRY, 1000000 + i / 4);
		r->v[0] = 1;
	}
	UNIT_CHECK(sim_output_finish(&out), "framing: finish");
	while (sim_output_pop(&out, 0, &rec)) {
		if (rec.kind != SIM_REC_STREAM_BEGIN && rec.ts < last) {
			monotonic = false;
		}
		if (rec.kind != SIM_REC_STREAM_BEGIN) {
			last = rec.ts;
		}
		packets_begun += rec.kind == SIM_REC_PACKET_BEGIN;
		packets_ended += rec.kind == SIM_REC_PACKET_END;
		events += rec.kind == SIM_REC_EVENT;
	}
	UNIT_EQ_UINT(events, 100, "framing: every event queued");
	UNIT_CHECK(monotonic, "framing: non-decreasing timestamps with a slow clock");
	UNIT_EQ_UINT(packets_begun, packets_ended, "framing: packets balanced");
	UNIT_EQ_UINT(packets_begun, 2 + 2 * 3, "framing: a packet switch every 16 events per stream");
	UNIT_EQ_UINT(sim_output_pending(&out, 1), 0, "framing: unconnected port keeps nothing");
	sim_output_fini(&out);
}

/* Runs a whole scenario and checks every port's records. */
static void test_whole_run(unsigned int hosts, enum sim_cause cause)
{
	struct sim_config cfg;
	struct sim *sim;
	char error[256];
	int64_t last[2 * SIM_MAX_HOSTS] = { 0 };
	uint64_t events[2 * SIM_MAX_HOSTS] = { 0 };
	int open_packets[2 * SIM_MAX_HOSTS][SIM_MAX_CPUS] = { { 0 } };
	bool monotonic = true, balanced = true;
	unsigned int p, c;
	uint64_t steps = 0;
	char what[96];

	sim_config_defaults(&cfg);
	cfg.preset = sim_preset_find("hotrod");
	cfg.hosts = hosts;
	cfg.cpus = 2;
	cfg.requests = 25;
	cfg.slow_ratio = 0.5;
	cfg.cause = cause;
	sim = sim_create(&cfg, error, sizeof(error));
	UNIT_CHECK(sim != NULL, "run: simulator created");
	if (!sim) {
		return;
	}
	for (p = 0; p < 2 * hosts; p++) {
		sim->out.port[p].connected = true;
	}
	while (sim_step(sim)) {
		steps++;
		for (p = 0; p < 2 * hosts; p++) {
			struct sim_record rec;

			while (sim_output_pop(&sim->out, p, &rec)) {
				if (rec.kind == SIM_REC_STREAM_BEGIN) {
					continue;
				}
				monotonic = monotonic && rec.ts >= last[p];
				last[p] = rec.ts;
				events[p] += rec.kind == SIM_REC_EVENT;
				if (rec.kind == SIM_REC_PACKET_BEGIN) {
					balanced = balanced && open_packets[p][rec.stream] == 0;
					open_packets[p][rec.stream] = 1;
				} else if (rec.kind == SIM_REC_PACKET_END) {
					balanced = balanced && open_packets[p][rec.stream] == 1;
					open_packets[p][rec.stream] = 0;
				} else if (rec.kind == SIM_REC_EVENT) {
					balanced = balanced && open_packets[p][rec.stream] == 1;
				}
			}
		}
	}
	snprintf(what, sizeof(what), "run (%u hosts, cause %s): ", hosts, sim_cause_name(cause));
	UNIT_CHECK(!sim->failed, what);
	if (sim->failed) {
		printf("#   %s\n", sim->error);
	}
	UNIT_CHECK(sim->done && steps > 1000, "run: completes");
	UNIT_CHECK(monotonic, "run: every port in non-decreasing local time");
	UNIT_CHECK(balanced, "run: events inside packets, packets balanced");
	for (p = 0; p < 2 * hosts; p++) {
		for (c = 0; c < cfg.cpus; c++) {
			balanced = balanced && open_packets[p][c] == 0;
		}
		UNIT_CHECK(events[p] > 0, "run: every trace has events");
	}
	UNIT_CHECK(balanced, "run: every packet closed");
	UNIT_CHECK(sim->tcp_segments > 25 * 20, "run: TCP segments between services");
	sim_destroy(sim);
}

/* The engine knows presets only through the ops table it is given. */
static void test_presets(void)
{
	struct sim_config cfg;
	char error[128] = "";

	UNIT_CHECK(sim_preset_find("hotrod") == sim_presets[0], "presets: hotrod is the default");
	UNIT_EQ_STR(sim_preset_find("hotrod")->name, "hotrod", "presets: found by name");
	UNIT_CHECK(sim_preset_find("nodejs") == NULL, "presets: unknown name");
	sim_config_defaults(&cfg);
	UNIT_CHECK(sim_create(&cfg, error, sizeof(error)) == NULL, "presets: refused without a preset");
	UNIT_EQ_STR(error, "no workload preset configured", "presets: says why");
}

int main(void)
{
	test_queue_order();
	test_clock();
	test_book();
	test_output_framing();
	test_presets();
	test_whole_run(3, SIM_CAUSE_MIXED);
	test_whole_run(2, SIM_CAUSE_LOCK);
	test_whole_run(5, SIM_CAUSE_CPU);
	test_whole_run(8, SIM_CAUSE_IRQ);
	test_whole_run(1, SIM_CAUSE_DISK);
	return unit_finish();
}
