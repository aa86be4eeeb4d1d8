/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the scenario simulator without babeltrace2: event queue,
 * host clocks, thread-state bookkeeping, output framing, and a whole
 * hotrod run checked record by record.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "scenario-source/sim.h"
#include "scenario-source/sim-chain.h"
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

/* The state history behind the chain truth: one piece per state change, syscall and waker kept. */
static void test_book_history(void)
{
	struct sim_thread_book book;
	struct sim_piece *p;
	int64_t ts;

	sim_book_init(&book);
	UNIT_CHECK(sim_book_last_piece(&book) == NULL, "history: off by default");
	sim_book_keep_history(&book, 1000);
	sim_book_set(&book, SIM_ST_USER, 100);
	sim_book_syscall_entry(&book, SIM_SYS_FUTEX, 110);
	sim_book_set(&book, SIM_ST_BLOCKED, 120);
	p = sim_book_last_piece(&book);
	UNIT_CHECK(p && p->begin == 120 && p->state == SIM_ST_BLOCKED && p->syscall == SIM_SYS_FUTEX,
		"history: blocked piece with its syscall");
	p->waker.kind = SIM_WAKER_TIMER;
	sim_book_set(&book, SIM_ST_WAIT_CPU, 200);
	sim_book_set(&book, SIM_ST_WAIT_CPU, 210);	/* no change: no piece */
	UNIT_EQ_UINT(book.history->len, 4, "history: one piece per change");
	UNIT_EQ_INT(g_array_index(book.history, struct sim_piece, 2).waker.kind, SIM_WAKER_TIMER,
		"history: the waker stays on its piece");
	/* long runs: pieces older than the kept window go, the recent ones stay */
	for (ts = 300; ts < 300 + 10 * 600; ts += 10) {
		sim_book_set(&book, (ts / 10) % 2 ? SIM_ST_USER : SIM_ST_WAIT_CPU, ts);
	}
	UNIT_CHECK(book.history->len < 600, "history: bounded");
	UNIT_CHECK(g_array_index(book.history, struct sim_piece, 0).begin <= ts - 10 - 1000,
		"history: the kept window is still there");
	sim_book_fini(&book);
	UNIT_CHECK(book.history == NULL, "history: freed");
}

/* A hand-made world for the chain walk: host 0 runs T and W, host 1 runs S. */
struct chain_world {
	struct sim sim;
	struct sim_process proc[3];
	struct sim_thread thread[4];	/* T, W, X (runs instead of W), S (remote sender) */
};

static struct sim_piece *add_piece(struct sim_thread *t, int64_t begin, enum sim_tstate state, int cpu)
{
	struct sim_piece piece = { .begin = begin, .state = (uint8_t) state, .syscall = SIM_SYS_NONE,
		.cpu = (int16_t) cpu, .migrate_cpu = -1 };

	g_array_append_val(t->book.history, piece);
	return &g_array_index(t->book.history, struct sim_piece, t->book.history->len - 1);
}

static void chain_world_init(struct chain_world *w)
{
	static const char *const comms[4] = { "worker", "holder", "hog", "server" };
	static const int32_t tids[4] = { 100, 101, 102, 200 };
	static const unsigned int hosts[4] = { 0, 0, 0, 1 };
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->sim.cfg.hosts = 2;
	w->sim.cfg.chain_depth = 8;
	w->sim.cfg.chain_window_ns = 1000000;
	w->sim.host[0].name = "alpha";
	w->sim.host[1].name = "beta";
	w->sim.host[0].cpu[1].runs = g_array_new(FALSE, FALSE, sizeof(struct sim_cpu_run));
	w->sim.chain_threads = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (i = 0; i < 4; i++) {
		struct sim_thread *t = &w->thread[i];

		t->proc = &w->proc[i < 3 ? 0 : 1];
		t->proc->pid = i < 3 ? 100 : 200;
		t->proc->comm = i < 3 ? "app" : "server";
		t->host = hosts[i];
		t->tid = tids[i];
		t->comm = comms[i];
		sim_book_init(&t->book);
		sim_book_keep_history(&t->book, INT64_C(1) << 40);
		g_hash_table_insert(w->sim.chain_threads,
			GSIZE_TO_POINTER(((gsize) t->host << 32) | (guint32) t->tid), t);
	}
}

static void chain_world_fini(struct chain_world *w)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		sim_book_fini(&w->thread[i].book);
	}
	g_array_free(w->sim.host[0].cpu[1].runs, TRUE);
	g_hash_table_destroy(w->sim.chain_threads);
}

static const struct sim_chain_leaf *leaf_at(const GArray *leaves, guint i)
{
	return &g_array_index(leaves, struct sim_chain_leaf, i);
}

/*
 * T blocks in futex at 1000, woken by W at 5000 (then waits for CPU until 5100).  W, during
 * [1000, 5000): running to 2000, waiting for CPU 1 to 3000 (X ran, then idle from 2500), blocked
 * in recvfrom to 4000 woken by NET_RX from S on beta (sent at 3200, received at 3600), running.
 */
static void test_chain_walk(void)
{
	struct chain_world w;
	struct sim_thread *t, *wk, *s;
	struct sim_piece *p;
	struct sim_cpu_run run;
	GArray *leaves = g_array_new(FALSE, FALSE, sizeof(struct sim_chain_leaf));
	static const struct { int64_t begin, end; int32_t tid; unsigned int depth; enum ds_chain_kind kind; }
	want[] = {
		{ 1000, 2000, 101, 1, DS_CHAIN_RUNNING },
		{ 2000, 2500, 101, 1, DS_CHAIN_WAIT_CPU },
		{ 2500, 3000, 101, 1, DS_CHAIN_WAIT_CPU },
		{ 3000, 3200, 200, 2, DS_CHAIN_RUNNING },
		{ 3200, 3600, -1, 2, DS_CHAIN_IN_FLIGHT },
		{ 3600, 4000, 101, 2, DS_CHAIN_SOFTIRQ },
		{ 4000, 5000, 101, 1, DS_CHAIN_RUNNING },
		{ 5000, 5100, 100, 0, DS_CHAIN_WAIT_CPU },
	};
	guint i;

	chain_world_init(&w);
	t = &w.thread[0];
	wk = &w.thread[1];
	s = &w.thread[3];
	add_piece(t, 500, SIM_ST_USER, -1);
	p = add_piece(t, 1000, SIM_ST_BLOCKED, -1);
	p->syscall = SIM_SYS_FUTEX;
	p->waker = (struct sim_waker) { .kind = SIM_WAKER_THREAD, .host = 0, .tid = 101 };
	add_piece(t, 5000, SIM_ST_WAIT_CPU, 1);
	add_piece(t, 5100, SIM_ST_USER, -1);
	add_piece(wk, 900, SIM_ST_USER, -1);
	add_piece(wk, 2000, SIM_ST_WAIT_CPU, 1);
	add_piece(wk, 3000, SIM_ST_BLOCKED, -1)->waker = (struct sim_waker) { .kind = SIM_WAKER_SOFTIRQ,
		.name = "NET_RX", .net_known = true, .host = 1, .tid = 200, .t_s = 3200, .t_r = 3600,
		.t_f = 3200 };
	add_piece(wk, 4000, SIM_ST_USER, -1);
	add_piece(s, 100, SIM_ST_USER, -1);
	run = (struct sim_cpu_run) { .begin = 1500, .tid = 102, .comm = "hog" };
	g_array_append_val(w.sim.host[0].cpu[1].runs, run);
	run = (struct sim_cpu_run) { .begin = 2500, .tid = -1 };
	g_array_append_val(w.sim.host[0].cpu[1].runs, run);
	run = (struct sim_cpu_run) { .begin = 5100, .tid = 100, .comm = "worker" };
	g_array_append_val(w.sim.host[0].cpu[1].runs, run);

	sim_chain_span(&w.sim, t, 800, 6000, leaves);
	UNIT_EQ_UINT(leaves->len, sizeof(want) / sizeof(want[0]), "chain: leaves of a nested chain");
	for (i = 0; i < leaves->len && i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sim_chain_leaf *l = leaf_at(leaves, i);

		UNIT_CHECK(l->begin == want[i].begin && l->end == want[i].end && l->tid == want[i].tid &&
			l->depth == want[i].depth && l->kind == want[i].kind, "chain: leaf as expected");
	}
	if (leaves->len == sizeof(want) / sizeof(want[0])) {
		UNIT_EQ_STR(leaf_at(leaves, 1)->detail, "ran instead: hog/102", "chain: who ran instead");
		UNIT_EQ_STR(leaf_at(leaves, 2)->detail, "ran instead: idle", "chain: idle CPU");
		UNIT_EQ_STR(leaf_at(leaves, 4)->detail, "segment beta \u2192 alpha", "chain: in flight");
		UNIT_EQ_INT(leaf_at(leaves, 3)->host, 1, "chain: the sender is on the other host");
		UNIT_EQ_INT(leaf_at(leaves, 0)->segment_begin, 1000, "chain: first segment");
		UNIT_EQ_INT(leaf_at(leaves, 7)->segment_begin, 5000, "chain: the Waited CPU segment");
	}

	/* depth limit 1: W is followed, S is not */
	g_array_set_size(leaves, 0);
	w.sim.cfg.chain_depth = 1;
	sim_chain_span(&w.sim, t, 800, 6000, leaves);
	UNIT_CHECK(leaves->len == 6 && leaf_at(leaves, 3)->kind == DS_CHAIN_DEPTH_LIMIT &&
		leaf_at(leaves, 3)->begin == 3000 && leaf_at(leaves, 3)->end == 4000 &&
		strcmp(leaf_at(leaves, 3)->detail, "- \u2190 beta/server/200") == 0, "chain: depth limit");

	/* a cycle: W's blocked piece is woken by T itself; history expiry before the window */
	g_array_set_size(leaves, 0);
	w.sim.cfg.chain_depth = 8;
	g_array_index(wk->book.history, struct sim_piece, 2).waker =
		(struct sim_waker) { .kind = SIM_WAKER_THREAD, .host = 0, .tid = 100 };
	w.sim.cfg.chain_window_ns = 6000 - 1500;
	sim_chain_span(&w.sim, t, 800, 6000, leaves);
	UNIT_CHECK(leaves->len >= 2 && leaf_at(leaves, 0)->kind == DS_CHAIN_UNKNOWN &&
		leaf_at(leaves, 0)->end == 1500 && strcmp(leaf_at(leaves, 0)->detail, "unknown: history expired") == 0,
		"chain: history expired");
	for (i = 0; i < leaves->len; i++) {
		if (leaf_at(leaves, i)->kind == DS_CHAIN_DEADLOCK) {
			break;
		}
	}
	UNIT_CHECK(i < leaves->len && leaf_at(leaves, i)->begin == 3000 && leaf_at(leaves, i)->end == 4000 &&
		strcmp(leaf_at(leaves, i)->detail, "deadlock: holder/101 \u2190 worker/100") == 0, "chain: a cycle is a deadlock");

	/* still blocked at the end of the trace */
	g_array_set_size(leaves, 0);
	w.sim.cfg.chain_window_ns = 1000000;
	g_array_set_size(t->book.history, 2);
	g_array_index(t->book.history, struct sim_piece, 1).waker.kind = SIM_WAKER_NONE;
	sim_chain_span(&w.sim, t, 800, 6000, leaves);
	UNIT_CHECK(leaves->len == 1 && leaf_at(leaves, 0)->end == 6000 &&
		strcmp(leaf_at(leaves, 0)->detail, "unknown: still blocked at end of trace in futex") == 0,
		"chain: still blocked");
	g_array_free(leaves, TRUE);
	chain_world_fini(&w);
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
	test_book_history();
	test_chain_walk();
	test_whole_run(3, SIM_CAUSE_LOCK_HOG);
	test_whole_run(2, SIM_CAUSE_LOCK_SLEEP);
	test_whole_run(5, SIM_CAUSE_LOCK_REMOTE);
	test_whole_run(1, SIM_CAUSE_LOCK_REMOTE);
	test_whole_run(4, SIM_CAUSE_HANDOFF);
	test_whole_run(2, SIM_CAUSE_DEADLOCK);
	return unit_finish();
}
