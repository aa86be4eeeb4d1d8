/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/span-attrib-filter/chain (doc/critical-path.md): hand-written kernel event sequences
 * through the thread model with chains on; every test checks the chain invariants in integers (the entries of
 * each waited segment partition it, children partition their parent, depth-first order, depths) and the
 * entries computed by hand.
 */
#include "unit.h"
#include "span-attrib-filter/thread-state.h"
#include "span-attrib-filter/chain.h"

#define BLOCKED 1	/* prev_state: sleeping */
#define RUNNABLE 0	/* prev_state: preempted */

static struct ds_chain_ctx *ctx;

static struct ds_tcp_key key_of(uint32_t seq);

static struct ds_model *model_on(const char *host)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);

	ds_model_set_chain(m, ctx, host);
	return m;
}

static void sw(struct ds_model *m, int64_t ts, int64_t cpu, int64_t prev, const char *prev_comm, int64_t state,
		int64_t next, const char *next_comm)
{
	ds_model_sched_switch(m, ts, cpu, prev, prev_comm, state, next, next_comm);
}

static struct sa_span *span_on(struct ds_model *m, int64_t tid, int64_t begin)
{
	struct sa_span *span = sa_span_new(m, begin);

	span->tid = tid;
	sa_span_attach(m, span, ds_model_thread(m, tid, true), begin);
	return span;
}

static const struct ds_chain_entry *entry(const struct sa_span *span, guint i)
{
	return i < span->chain->len ? &g_array_index(span->chain, struct ds_chain_entry, i) : NULL;
}

/* Children of `parent` (-1: roots of segment `seg`) partition [begin, end); recursive; returns false if not. */
static bool partition(const struct sa_span *span, uint64_t seg, int64_t parent, int64_t begin, int64_t end,
		uint64_t depth, guint *next)
{
	int64_t t = begin;

	while (*next < span->chain->len) {
		const struct ds_chain_entry *e = entry(span, *next);
		guint self = *next;

		if (e->parent != parent || e->segment != seg) {
			break;
		}
		if (e->begin != t || e->end <= e->begin || e->depth != depth || !e->detail[0]) {
			return false;
		}
		(*next)++;
		if (*next < span->chain->len && entry(span, *next)->parent == (int64_t) self) {
			if (!partition(span, seg, (int64_t) self, e->begin, e->end, depth + 1, next)) {
				return false;
			}
		}
		t = e->end;
	}
	return t == end;
}

/* The contract's invariants over the whole span. */
static void check_chain(const struct sa_span *span, const char *what)
{
	guint next = 0, i;
	bool ok = span->chain != NULL;

	for (i = 0; ok && i < span->segments->len; i++) {
		const struct sa_segment *seg = &g_array_index(span->segments, struct sa_segment, i);
		bool waited = seg->state == DS_STATE_BLOCKED || seg->state == DS_STATE_WAIT_CPU;

		if (waited) {
			ok = partition(span, i, -1, seg->begin, seg->end, 0, &next);
		} else {
			ok = next >= span->chain->len || entry(span, next)->segment != i;
		}
	}
	ok = ok && next == span->chain->len;
	UNIT_CHECK(ok, what);
	/* the lengths kept with the texts (output.c writes the texts by them; UINT8_MAX: 255 bytes or more) */
	for (i = 0, ok = true; span->chain && i < span->chain->len; i++) {
		const struct ds_chain_entry *e = entry(span, i);
		size_t host = strlen(e->host);

		ok = ok && e->comm_len == strlen(e->comm) && e->process_len == strlen(e->process) &&
			e->detail_len == strlen(e->detail) && e->host_len == (host < UINT8_MAX ? host : UINT8_MAX);
	}
	UNIT_CHECK(ok, "entries' text lengths");
}

/* The index of the first entry of `kind` with `detail`, or -1. */
static int find(const struct sa_span *span, enum ds_chain_kind kind, const char *detail)
{
	guint i;

	for (i = 0; i < span->chain->len; i++) {
		if (entry(span, i)->kind == kind && strcmp(entry(span, i)->detail, detail) == 0) {
			return (int) i;
		}
	}
	return -1;
}

static void expect(const struct sa_span *span, enum ds_chain_kind kind, const char *detail, uint64_t depth,
		int64_t begin, int64_t end, const char *what)
{
	const struct ds_chain_entry *e = NULL;
	guint k;

	for (k = 0; k < span->chain->len && !e; k++) {
		const struct ds_chain_entry *c = entry(span, k);

		if (c->kind == kind && strcmp(c->detail, detail) == 0 && c->depth == depth && c->begin == begin &&
				c->end == end) {
			e = c;
		}
	}
	if (!UNIT_CHECK(e != NULL, what)) {

		printf("#   wanted %s \"%s\" depth %" PRIu64 " [%" PRId64 ", %" PRId64 "); chain:\n",
			ds_chain_kind_name(kind), detail, depth, begin, end);
		for (k = 0; k < span->chain->len; k++) {
			e = entry(span, k);
			printf("#   %u: seg %" PRIu64 " parent %" PRId64 " depth %" PRIu64 " [%" PRId64 ", %" PRId64
				") %s %s/%" PRId64 " %s \"%s\"\n", k, e->segment, e->parent, e->depth, e->begin,
				e->end, e->host, e->comm, e->tid, ds_chain_kind_name(e->kind), e->detail);
		}
	}
}

/* T waits on a futex held by W, which itself waited for X, then for its CPU. */
static void test_nested(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "mysqld");
	sw(m, 0, 2, 0, "swapper/2", 0, 300, "writer");
	span = span_on(m, 100, 1);
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_syscall_entry(m, 20, 1, "futex");
	sw(m, 20, 1, 200, "mysqld", BLOCKED, 0, "swapper/1");
	ds_model_wakeup_target(m, 30, 2, 200, "mysqld", 1);
	sw(m, 35, 1, 0, "swapper/1", 0, 200, "mysqld");
	ds_model_syscall_exit(m, 36, 1);
	ds_model_wakeup_target(m, 50, 1, 100, "app", 0);
	sw(m, 60, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 61, 0);
	sa_span_finish(m, span, 70);
	check_chain(span, "nested: partition");
	expect(span, DS_CHAIN_WAIT, "futex \u2190 mysqld/200", 0, 10, 50, "nested: T blocked on mysqld");
	expect(span, DS_CHAIN_RUNNING, "-", 1, 10, 20, "nested: mysqld ran before blocking");
	expect(span, DS_CHAIN_WAIT, "futex \u2190 writer/300", 1, 20, 30, "nested: mysqld blocked on writer");
	expect(span, DS_CHAIN_RUNNING, "-", 2, 20, 30, "nested: writer ran");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: idle", 1, 30, 35, "nested: mysqld waited for CPU 1 (idle)");
	expect(span, DS_CHAIN_RUNNING, "futex", 1, 35, 36, "nested: mysqld in futex");
	expect(span, DS_CHAIN_RUNNING, "-", 1, 36, 50, "nested: mysqld ran until the wakeup");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: idle", 0, 50, 60, "nested: T's own Waited CPU names idle");
	UNIT_EQ_STR(entry(span, 0)->host, "alpha", "nested: host");
	UNIT_EQ_INT(entry(span, 0)->tid, 100, "nested: depth 0 is T");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* The waker is queued on CPU 2 then migrates to CPU 3: each part names who ran on the CPU it waited for. */
static void test_waker_migrates(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "worker");
	sw(m, 0, 2, 0, "swapper/2", 0, 400, "hog2");
	sw(m, 0, 3, 0, "swapper/3", 0, 500, "hog3");
	span = span_on(m, 100, 0);
	ds_model_syscall_entry(m, 5, 1, "poll");
	sw(m, 5, 1, 200, "worker", BLOCKED, 0, "swapper/1");
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(m, 20, 1, DS_IRQ_HARD, "eth0");
	ds_model_wakeup_target(m, 20, 1, 200, "worker", 2);
	ds_model_irq_exit(m, 21, 1, DS_IRQ_HARD);
	ds_model_migrate(m, 30, 200, 3);
	sw(m, 40, 3, 500, "hog3", RUNNABLE, 200, "worker");
	ds_model_syscall_exit(m, 41, 3);
	ds_model_wakeup_target(m, 45, 3, 100, "app", 0);
	sw(m, 46, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 50);
	check_chain(span, "migrate: partition");
	expect(span, DS_CHAIN_WAIT, "futex \u2190 worker/200", 0, 10, 45, "migrate: T waits for worker");
	expect(span, DS_CHAIN_IRQ, "poll \u2190 irq:eth0", 1, 10, 20, "migrate: worker woken by an irq on CPU 1");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: hog2/400", 1, 20, 30, "migrate: hog2 on CPU 2");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: hog3/500", 1, 30, 40, "migrate: hog3 on CPU 3");
	UNIT_EQ_INT(entry(span, (guint) find(span, DS_CHAIN_WAIT_CPU, "ran instead: hog3/500"))->cpu, 3,
		"migrate: cpu of the wait-cpu leaf");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* A wakeup from an irq, a softirq and a timer on another CPU: terminal leaves. */
static void test_irq_timer_terminals(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 0);
	ds_model_syscall_entry(m, 10, 0, "read");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(m, 20, 1, DS_IRQ_HARD, "nvme0q1");
	ds_model_block_complete(m, 20, 1, (259u << 20) | 1);
	ds_model_wakeup_target(m, 21, 1, 100, "app", 0);
	ds_model_irq_exit(m, 22, 1, DS_IRQ_HARD);
	sw(m, 25, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 26, 0);
	ds_model_syscall_entry(m, 30, 0, "nanosleep");
	sw(m, 30, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_timer_entry(m, 2);
	ds_model_wakeup_target(m, 40, 2, 100, "app", 0);
	ds_model_timer_exit(m, 2);
	sw(m, 41, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 42, 0);
	ds_model_syscall_entry(m, 50, 0, "recvfrom");
	sw(m, 50, 0, 100, "app", BLOCKED, 0, "swapper/0");
	/* the host records network events (else the wakeup is unknown: test_net_no_events) */
	{
		struct ds_tcp_key other = key_of(99);

		ds_model_net_send(m, 55, 1, &other);
	}
	ds_model_irq_entry(m, 60, 3, DS_IRQ_SOFT, "NET_RX");
	ds_model_wakeup_target(m, 61, 3, 100, "app", 0);
	ds_model_irq_exit(m, 62, 3, DS_IRQ_SOFT);
	ds_model_irq_entry(m, 63, 3, DS_IRQ_HARD, "eth0");
	sw(m, 64, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 70);
	check_chain(span, "terminals: partition");
	expect(span, DS_CHAIN_DISK, "read \u2190 disk dev 259:1", 0, 10, 21, "terminals: block completion");
	expect(span, DS_CHAIN_TIMER, "nanosleep \u2190 timer", 0, 30, 40, "terminals: timer");
	expect(span, DS_CHAIN_SOFTIRQ, "recvfrom \u2190 softirq:NET_RX", 0, 50, 61, "terminals: softirq without a segment");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* The waker's history older than the window is gone: that part is Unknown, never guessed. */
static void test_history_expiry(void)
{
	struct ds_chain_ctx *saved = ctx;
	struct ds_model *m;
	struct sa_span *span;
	int64_t t;

	ctx = ds_chain_ctx_create(8, 100);
	m = model_on("alpha");
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "busy");
	span = span_on(m, 100, 0);
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	for (t = 20; t < 1000; t += 20) {
		ds_model_syscall_entry(m, t, 1, "getpid");
		ds_model_syscall_exit(m, t + 10, 1);
	}
	ds_model_wakeup_target(m, 1000, 1, 100, "app", 0);
	sw(m, 1005, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 1010);
	check_chain(span, "expiry: partition");
	UNIT_CHECK(find(span, DS_CHAIN_UNKNOWN, "unknown: history expired") >= 0, "expiry: history expired entry");
	UNIT_EQ_INT(entry(span, (guint) find(span, DS_CHAIN_UNKNOWN, "unknown: history expired"))->begin, 10,
		"expiry: from the start of the wait");
	UNIT_CHECK(entry(span, (guint) find(span, DS_CHAIN_UNKNOWN, "unknown: history expired"))->end >= 880,
		"expiry: the last window is kept");
	expect(span, DS_CHAIN_RUNNING, "getpid", 1, 980, 990, "expiry: recent history explained");
	UNIT_CHECK(ctx->counters.history_expired > 0, "expiry: counted");
	sa_span_free(span);
	ds_model_destroy(m);
	ds_chain_ctx_destroy(ctx);
	ctx = saved;
}

/* A host name of 300 bytes: its entries keep no length for it (UINT8_MAX), the others theirs. */
static void test_long_host(void)
{
	char host[301];
	struct ds_model *m;
	struct sa_span *span;

	memset(host, 'h', sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	m = model_on(host);
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "holder");
	span = span_on(m, 100, 0);
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_wakeup_target(m, 50, 1, 100, "app", 0);
	sw(m, 60, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 70);
	check_chain(span, "long host: partition");
	UNIT_CHECK(span->chain->len > 0 && strcmp(entry(span, 0)->host, host) == 0 &&
		entry(span, 0)->host_len == UINT8_MAX, "long host: the name whole, its length not kept");
	sa_span_free(span);
	ds_model_destroy(m);
}

/*
 * A long history kept in blocks (struct ds_thread_history): a waker with thousands of pieces, most of them
 * out of the window (whole blocks freed as they leave it); the wait is explained piece by piece from the
 * pieces still kept, across block boundaries, and the part before the window is `history expired`.
 */
static void test_history_blocks(void)
{
	struct ds_chain_ctx *saved = ctx;
	struct ds_model *m;
	struct sa_span *span;
	bool pieces_ok = true;
	int64_t t;
	guint i, running = 0;

	ctx = ds_chain_ctx_create(8, 5000);
	m = model_on("alpha");
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "busy");
	for (t = 10; t < 90000; t += 20) {
		ds_model_syscall_entry(m, t, 1, "getpid");
		ds_model_syscall_exit(m, t + 10, 1);
	}
	span = span_on(m, 100, 90000);
	ds_model_syscall_entry(m, 90000, 0, "futex");
	sw(m, 90000, 0, 100, "app", BLOCKED, 0, "swapper/0");
	for (t = 90010; t < 104000; t += 20) {
		ds_model_syscall_entry(m, t, 1, "getpid");
		ds_model_syscall_exit(m, t + 10, 1);
	}
	ds_model_wakeup_target(m, 104000, 1, 100, "app", 0);
	sw(m, 104005, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 104010);
	check_chain(span, "blocks: partition");
	expect(span, DS_CHAIN_UNKNOWN, "unknown: history expired", 1, 90000, 99000, "blocks: before the window expired");
	for (i = 0; i < span->chain->len; i++) {
		const struct ds_chain_entry *e = entry(span, i);

		if (e->kind != DS_CHAIN_RUNNING) {
			continue;
		}
		/* busy: getpid over [10 + 20k, 20 + 20k), user space over [20 + 20k, 30 + 20k) */
		pieces_ok = pieces_ok && e->end - e->begin == 10 && e->depth == 1 && e->tid == 200 &&
			strcmp(e->detail, (e->begin - 10) % 20 == 0 ? "getpid" : "-") == 0;
		running++;
	}
	UNIT_CHECK(pieces_ok, "blocks: every kept piece of the waker is its own entry, in order");
	UNIT_EQ_UINT(running, (104000 - 99000) / 10, "blocks: the pieces of the window, across block boundaries");
	UNIT_CHECK(ctx->counters.history_expired > 0, "blocks: expiry counted");
	sa_span_free(span);
	ds_model_destroy(m);
	ds_chain_ctx_destroy(ctx);
	ctx = saved;
}

/*
 * Lost events inside a chain: the waker's history has an Unknown stretch (lost events), and a CPU whose
 * switch-out was lost still names T as current: the chain comes back to T, reported as a deadlock, not looped.
 */
static void test_lost_events_and_cycle(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "peer");
	span = span_on(m, 100, 0);
	/* T's switch-out on CPU 0 is lost: CPU 1 reports it switched out there */
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 1, 100, "app", BLOCKED, 300, "other");
	sw(m, 12, 1, 300, "other", BLOCKED, 200, "peer");
	ds_model_syscall_entry(m, 20, 1, "futex");
	sw(m, 20, 1, 200, "peer", BLOCKED, 0, "swapper/1");
	ds_model_wakeup_target(m, 30, 0, 200, "peer", 1);	/* CPU 0's current is still T */
	sw(m, 40, 1, 0, "swapper/1", 0, 200, "peer");
	ds_model_wakeup_target(m, 50, 1, 100, "app", 0);
	sw(m, 55, 0, 100, "app", 0, 100, "app");
	sa_span_finish(m, span, 60);
	check_chain(span, "cycle: partition");
	expect(span, DS_CHAIN_DEADLOCK, "deadlock: app/100 \u2190 peer/200 \u2190 app/100", 1, 20, 30,
		"cycle: reported as a deadlock");
	UNIT_CHECK(ctx->counters.deadlocks > 0, "cycle: counted");
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_lost_events_unknown(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "peer");
	span = span_on(m, 100, 0);
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_discarded(m, 20);
	sw(m, 30, 1, 200, "peer", RUNNABLE, 200, "peer");
	ds_model_wakeup_target(m, 40, 1, 100, "app", 0);
	sw(m, 45, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 50);
	check_chain(span, "lost events: partition");
	/* T itself was Unknown after the loss: its segment is not a waited one from 20 on */
	expect(span, DS_CHAIN_UNKNOWN, "unknown: waker not seen", 0, 10, 20,
		"lost events: the blocked part before the loss has no waker");
	sa_span_free(span);
	ds_model_destroy(m);
}

static struct ds_tcp_key key_of(uint32_t seq)
{
	struct ds_tcp_key key;

	memset(&key, 0, sizeof(key));
	key.seq = seq;
	key.ack_seq = seq + 1000;
	key.flags = 0x18;
	key.source_port = 40000;
	key.dest_port = 3306;
	return key;
}

/* A request to another host and its reply: the wait continues on the remote thread before its send. */
static void test_tcp_hand_off(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key req = key_of(1), rep = key_of(2);
	struct sa_span *span;

	sw(a, 0, 0, 0, "swapper/0", 0, 100, "client");
	sw(b, 0, 0, 0, "swapper/0", 0, 200, "server");
	ds_model_syscall_entry(b, 1, 0, "recvfrom");
	sw(b, 1, 0, 200, "server", BLOCKED, 0, "swapper/0");
	span = span_on(a, 100, 2);
	ds_model_syscall_entry(a, 5, 0, "sendto");
	ds_model_net_send(a, 6, 0, &req);
	ds_model_syscall_exit(a, 7, 0);
	ds_model_syscall_entry(a, 10, 0, "recvfrom");
	sw(a, 10, 0, 100, "client", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(b, 18, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(b, 19, 0, &req);
	ds_model_wakeup_target(b, 20, 0, 200, "server", 0);
	ds_model_irq_exit(b, 21, 0, DS_IRQ_SOFT);
	sw(b, 22, 0, 0, "swapper/0", 0, 200, "server");
	ds_model_syscall_exit(b, 23, 0);
	ds_model_syscall_entry(b, 39, 0, "sendto");
	ds_model_net_send(b, 40, 0, &rep);
	ds_model_syscall_exit(b, 41, 0);
	ds_model_irq_entry(a, 44, 1, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(a, 45, 1, &rep);
	ds_model_wakeup_target(a, 46, 1, 100, "client", 0);
	ds_model_irq_exit(a, 47, 1, DS_IRQ_SOFT);
	sw(a, 48, 0, 0, "swapper/0", 0, 100, "client");
	sa_span_finish(a, span, 60);
	check_chain(span, "tcp: partition");
	expect(span, DS_CHAIN_NETWORK, "recvfrom \u2190 beta/server/200", 0, 10, 46, "tcp: network entry");
	expect(span, DS_CHAIN_NETWORK, "recvfrom \u2190 alpha/client/100", 1, 10, 20,
		"tcp: the server waited for the request (sent before the wait: no sender part)");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta", 2, 10, 19, "tcp: request in flight");
	expect(span, DS_CHAIN_SOFTIRQ, "after arrival: softirq:NET_RX", 2, 19, 20, "tcp: request after arrival");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: idle", 1, 20, 22, "tcp: server waited for its CPU");
	expect(span, DS_CHAIN_RUNNING, "-", 1, 23, 39, "tcp: server ran");
	expect(span, DS_CHAIN_RUNNING, "sendto", 1, 39, 40, "tcp: server sent the reply");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment beta \u2192 alpha", 1, 40, 45, "tcp: reply in flight");
	expect(span, DS_CHAIN_SOFTIRQ, "after arrival: softirq:NET_RX", 1, 45, 46, "tcp: reply after arrival");
	UNIT_EQ_STR(entry(span, (guint) find(span, DS_CHAIN_RUNNING, "sendto"))->host, "beta", "tcp: remote host");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/* The span's own Waited CPU names every thread that ran on its CPU meanwhile. */
static void test_ran_instead(void)
{
	struct ds_model *m = model_on("alpha");
	struct sa_span *span;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 0);
	sw(m, 10, 0, 100, "app", RUNNABLE, 201, "hog1");
	sw(m, 20, 0, 201, "hog1", RUNNABLE, 202, "hog2");
	ds_model_irq_entry(m, 22, 0, DS_IRQ_HARD, "eth0");
	ds_model_irq_exit(m, 23, 0, DS_IRQ_HARD);
	sw(m, 30, 0, 202, "hog2", RUNNABLE, 100, "app");
	sa_span_finish(m, span, 40);
	check_chain(span, "ran instead: partition");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: hog1/201", 0, 10, 20, "ran instead: hog1");
	expect(span, DS_CHAIN_WAIT_CPU, "ran instead: hog2/202", 0, 20, 30, "ran instead: hog2 (irq counts for it)");
	UNIT_EQ_UINT(span->chain->len, 2, "ran instead: two leaves");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* chain-depth bounds the walk. */
static void test_depth_limit(void)
{
	struct ds_chain_ctx *saved = ctx;
	struct ds_model *m;
	struct sa_span *span;

	ctx = ds_chain_ctx_create(1, 1000000);
	m = model_on("alpha");
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 1, 0, "swapper/1", 0, 200, "mysqld");
	sw(m, 0, 2, 0, "swapper/2", 0, 300, "writer");
	span = span_on(m, 100, 1);
	ds_model_syscall_entry(m, 10, 0, "futex");
	sw(m, 10, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_syscall_entry(m, 20, 1, "futex");
	sw(m, 20, 1, 200, "mysqld", BLOCKED, 0, "swapper/1");
	ds_model_wakeup_target(m, 30, 2, 200, "mysqld", 1);
	sw(m, 30, 1, 0, "swapper/1", 0, 200, "mysqld");
	ds_model_wakeup_target(m, 50, 1, 100, "app", 0);
	sw(m, 50, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 70);
	check_chain(span, "depth limit: partition");
	expect(span, DS_CHAIN_DEPTH_LIMIT, "futex \u2190 writer/300", 1, 20, 30, "depth limit: leaf at depth 1");
	sa_span_free(span);
	ds_model_destroy(m);
	ds_chain_ctx_destroy(ctx);
	ctx = saved;
}

/* End of the trace: a thread still blocked, and two threads on two hosts each waiting for the other. */
static void test_end_of_trace(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key k1 = key_of(11), k2 = key_of(12);
	struct sa_span *span, *alone;

	sw(a, 0, 0, 0, "swapper/0", 0, 100, "client");
	sw(a, 0, 1, 0, "swapper/1", 0, 101, "lonely");
	sw(b, 0, 0, 0, "swapper/0", 0, 200, "server");
	/* earlier exchanges: each one's recvfrom was last woken by a segment of the other */
	ds_model_syscall_entry(b, 1, 0, "recvfrom");
	sw(b, 1, 0, 200, "server", BLOCKED, 0, "swapper/0");
	ds_model_net_send(a, 2, 0, &k1);
	ds_model_irq_entry(b, 3, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(b, 3, 0, &k1);
	ds_model_wakeup_target(b, 3, 0, 200, "server", 0);
	ds_model_irq_exit(b, 4, 0, DS_IRQ_SOFT);
	sw(b, 5, 0, 0, "swapper/0", 0, 200, "server");
	ds_model_syscall_exit(b, 5, 0);
	ds_model_syscall_entry(a, 6, 0, "recvfrom");
	sw(a, 6, 0, 100, "client", BLOCKED, 0, "swapper/0");
	ds_model_net_send(b, 7, 0, &k2);
	ds_model_irq_entry(a, 8, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(a, 8, 0, &k2);
	ds_model_wakeup_target(a, 8, 0, 100, "client", 0);
	ds_model_irq_exit(a, 9, 0, DS_IRQ_SOFT);
	sw(a, 10, 0, 0, "swapper/0", 0, 100, "client");
	ds_model_syscall_exit(a, 10, 0);
	span = span_on(a, 100, 11);
	alone = span_on(a, 101, 11);
	/* now both wait for the other in recvfrom, for ever */
	ds_model_syscall_entry(a, 20, 0, "recvfrom");
	sw(a, 20, 0, 100, "client", BLOCKED, 0, "swapper/0");
	ds_model_syscall_entry(b, 21, 0, "recvfrom");
	sw(b, 21, 0, 200, "server", BLOCKED, 0, "swapper/0");
	ds_model_syscall_entry(a, 25, 1, "epoll_wait");
	sw(a, 25, 1, 101, "lonely", BLOCKED, 0, "swapper/1");
	ds_model_sched_switch(b, 90, 1, 0, "swapper/1", 0, 0, "swapper/1");
	span->truncated = true;
	alone->truncated = true;
	sa_span_finish(a, span, 100);
	sa_span_finish(a, alone, 100);
	check_chain(span, "end: partition (deadlock)");
	check_chain(alone, "end: partition (still blocked)");
	expect(span, DS_CHAIN_DEADLOCK,
		"deadlock: client/100 (host alpha, recvfrom) \u2190 server/200 (host beta, recvfrom) \u2190 client/100",
		0, 20, 100, "end: the cycle across hosts is named");
	expect(alone, DS_CHAIN_UNKNOWN, "unknown: still blocked at end of trace in epoll_wait", 0, 25, 100,
		"end: still blocked");
	sa_span_free(span);
	sa_span_free(alone);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/*
 * Network terminal (doc/storage-network.md, "Network"): a server on beta blocked in recvfrom from 1 on, the
 * client on alpha running from 0 (sendto from 5).  net_wait wakes the server at `wake` on beta's CPU `wake_cpu`
 * (the server last ran on CPU 0) from the NET_RX softirq that received `rx` at wake - 1.
 */
static void net_wait(struct ds_model *a, struct ds_model *b, const struct ds_tcp_key *rx,
		int64_t wake, int64_t wake_cpu)
{
	ds_model_irq_entry(b, wake - 2, wake_cpu, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(b, wake - 1, wake_cpu, rx);
	ds_model_wakeup_target(b, wake, wake_cpu, 200, "server", 0);
	ds_model_irq_exit(b, wake, wake_cpu, DS_IRQ_SOFT);
	sw(b, wake, 0, 0, "swapper/0", 0, 200, "server");
	ds_model_syscall_exit(b, wake + 1, 0);
	(void) a;
}

static void net_start(struct ds_model *a, struct ds_model *b, struct sa_span **span)
{
	sw(a, 0, 0, 0, "swapper/0", 0, 100, "client");
	sw(b, 0, 0, 0, "swapper/0", 0, 200, "server");
	*span = span_on(b, 200, 0);
	ds_model_syscall_entry(b, 1, 0, "recvfrom");
	sw(b, 1, 0, 200, "server", BLOCKED, 0, "swapper/0");
	ds_model_syscall_entry(a, 5, 0, "sendto");
}

/* The first send is lost; the retransmission (from a timer softirq on an idle CPU) is the one received. */
static void test_net_retransmission(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key k = key_of(21);
	struct sa_span *span;

	net_start(a, b, &span);
	ds_model_net_send(a, 6, 0, &k);
	ds_model_syscall_exit(a, 7, 0);
	ds_model_syscall_entry(a, 8, 0, "recvfrom");
	sw(a, 8, 0, 100, "client", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(a, 29, 0, DS_IRQ_SOFT, "TIMER");
	ds_model_net_send(a, 30, 0, &k);
	ds_model_irq_exit(a, 31, 0, DS_IRQ_SOFT);
	net_wait(a, b, &k, 36, 0);
	sa_span_finish(b, span, 50);
	check_chain(span, "retransmission: partition");
	expect(span, DS_CHAIN_NETWORK, "recvfrom \u2190 alpha/client/100", 0, 1, 36,
		"retransmission: the sender is the thread of the first send");
	expect(span, DS_CHAIN_RUNNING, "-", 1, 1, 5, "retransmission: the sender before its send (user)");
	expect(span, DS_CHAIN_RUNNING, "sendto", 1, 5, 6, "retransmission: the sender in sendto");
	expect(span, DS_CHAIN_IN_FLIGHT, "retransmission wait: segment alpha \u2192 beta", 1, 6, 30,
		"retransmission: first send to the retransmission");
	UNIT_EQ_STR(entry(span, (guint) find(span, DS_CHAIN_IN_FLIGHT,
		"retransmission wait: segment alpha \u2192 beta"))->host, "alpha",
		"retransmission: the wait is charged to the sender's host");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta (retransmitted)", 1, 30, 35,
		"retransmission: in flight from the retransmission");
	expect(span, DS_CHAIN_SOFTIRQ, "after arrival: softirq:NET_RX", 1, 35, 36,
		"retransmission: after arrival");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/*
 * A spurious retransmission: the first copy (sent at 6) arrives at 10 and wakes the server; the second copy
 * (sent at 20) arrives at 25 and wakes it again.  Each receive uses the last send before it.
 */
static void test_net_received_twice(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key k = key_of(31);
	uint64_t twice = ctx->counters.received_twice;
	struct sa_span *span;

	net_start(a, b, &span);
	ds_model_net_send(a, 6, 0, &k);
	ds_model_syscall_exit(a, 7, 0);
	ds_model_syscall_entry(a, 8, 0, "recvfrom");
	sw(a, 8, 0, 100, "client", BLOCKED, 0, "swapper/0");
	net_wait(a, b, &k, 11, 1);
	ds_model_syscall_entry(b, 15, 0, "recvfrom");
	sw(b, 15, 0, 200, "server", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(a, 19, 0, DS_IRQ_SOFT, "TIMER");
	ds_model_net_send(a, 20, 0, &k);
	ds_model_irq_exit(a, 21, 0, DS_IRQ_SOFT);
	net_wait(a, b, &k, 26, 1);
	sa_span_finish(b, span, 50);
	check_chain(span, "received twice: partition");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta", 1, 6, 10,
		"received twice: the first copy is in flight from the first send (not the later one)");
	expect(span, DS_CHAIN_IN_FLIGHT, "retransmission wait: segment alpha \u2192 beta", 1, 15, 20,
		"received twice: the second wait waited for the retransmission");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta (retransmitted) (received twice)", 1, 20, 25,
		"received twice: the second copy is in flight from the retransmission, and named");
	UNIT_EQ_UINT(ctx->counters.received_twice - twice, 1, "received twice: counted once");
	UNIT_EQ_UINT(ctx->counters.in_flight_clipped, 0, "received twice: nothing clipped");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/* A receive whose key was never sent; a receive before its send (clocks not synchronized). */
static void test_net_no_send_and_clocks(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key lost = key_of(41), early = key_of(42);
	uint64_t clipped = ctx->counters.in_flight_clipped;
	uint64_t before_sent = ctx->counters.received_before_sent, unmatched = ctx->counters.no_matching_send;
	struct sa_span *span;

	net_start(a, b, &span);
	net_wait(a, b, &lost, 10, 0);
	ds_model_syscall_entry(b, 15, 0, "recvfrom");
	sw(b, 15, 0, 200, "server", BLOCKED, 0, "swapper/0");
	/* beta's clock is ahead: the receive at 25 is before the send at 28 on alpha's clock */
	ds_model_net_send(a, 28, 0, &early);
	net_wait(a, b, &early, 26, 0);
	sa_span_finish(b, span, 50);
	check_chain(span, "no send, clocks: partition");
	expect(span, DS_CHAIN_SOFTIRQ, "recvfrom \u2190 softirq:NET_RX (no matching send)", 0, 1, 10,
		"no send: said so");
	expect(span, DS_CHAIN_NETWORK, "recvfrom \u2190 alpha/client/100", 0, 15, 26,
		"clocks: still the network entry");
	expect(span, DS_CHAIN_SOFTIRQ, "after arrival: softirq:NET_RX", 1, 25, 26, "clocks: after arrival kept");
	UNIT_CHECK(find(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta") < 0, "clocks: no in-flight leaf");
	UNIT_EQ_UINT(ctx->counters.in_flight_clipped - clipped, 1, "clocks: the clipped segment is counted");
	/* the key received at 9 without a send is sent at 40 on alpha: alpha's clock is ahead */
	ds_model_net_send(a, 40, 0, &lost);
	UNIT_EQ_UINT(ctx->counters.received_before_sent - before_sent, 1, "clocks: a send after its receive is counted");
	ds_model_net_send(a, 41, 0, &lost);
	UNIT_EQ_UINT(ctx->counters.received_before_sent - before_sent, 1, "clocks: counted once per receive");
	UNIT_EQ_UINT(ctx->counters.no_matching_send - unmatched, 1, "no send: the wakeup is counted");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/* The receive and the wakeup on CPU 1 of beta, the server waking on CPU 0: the segment is still found. */
static void test_net_other_cpu(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key k = key_of(51);
	struct sa_span *span;

	net_start(a, b, &span);
	ds_model_net_send(a, 6, 0, &k);
	ds_model_syscall_exit(a, 7, 0);
	net_wait(a, b, &k, 12, 1);
	sa_span_finish(b, span, 50);
	check_chain(span, "other cpu: partition");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta", 1, 6, 11, "other cpu: in flight");
	expect(span, DS_CHAIN_SOFTIRQ, "after arrival: softirq:NET_RX", 1, 11, 12, "other cpu: after arrival");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/* A segment sent from a softirq that interrupts a thread: the thread did not send it. */
static void test_net_sent_in_softirq(void)
{
	struct ds_model *a = model_on("alpha"), *b = model_on("beta");
	struct ds_tcp_key k = key_of(61);
	struct sa_span *span;

	net_start(a, b, &span);
	ds_model_irq_entry(a, 6, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_send(a, 7, 0, &k);
	ds_model_irq_exit(a, 8, 0, DS_IRQ_SOFT);
	net_wait(a, b, &k, 12, 0);
	sa_span_finish(b, span, 50);
	check_chain(span, "sent in softirq: partition");
	expect(span, DS_CHAIN_NETWORK, "recvfrom \u2190 alpha/softirq:NET_RX", 0, 1, 12,
		"sent in softirq: the network entry names the softirq");
	expect(span, DS_CHAIN_UNKNOWN, "unknown: sent from softirq:NET_RX on alpha, no thread", 1, 1, 7,
		"sent in softirq: the sender part is unknown, not the interrupted client's");
	expect(span, DS_CHAIN_IN_FLIGHT, "segment alpha \u2192 beta", 1, 7, 11, "sent in softirq: in flight");
	sa_span_free(span);
	ds_model_destroy(a);
	ds_model_destroy(b);
}

/* A host that recorded no network events: a NET_RX wakeup is `unknown`, with the reason, and counted. */
static void test_net_no_events(void)
{
	struct ds_model *b = model_on("gamma");
	uint64_t before = ctx->counters.no_net_events;
	struct sa_span *span;

	ctx->counters.first_no_net_host[0] = '\0';

	sw(b, 0, 0, 0, "swapper/0", 0, 200, "server");
	span = span_on(b, 200, 0);
	ds_model_syscall_entry(b, 1, 0, "recvfrom");
	sw(b, 1, 0, 200, "server", BLOCKED, 0, "swapper/0");
	ds_model_irq_entry(b, 8, 1, DS_IRQ_SOFT, "NET_RX");
	ds_model_wakeup_target(b, 10, 1, 200, "server", 0);
	ds_model_irq_exit(b, 10, 1, DS_IRQ_SOFT);
	sw(b, 10, 0, 0, "swapper/0", 0, 200, "server");
	sa_span_finish(b, span, 20);
	check_chain(span, "no net events: partition");
	expect(span, DS_CHAIN_UNKNOWN,
		"unknown: recvfrom \u2190 softirq:NET_RX, no network events recorded on gamma", 0, 1, 10,
		"no net events: unknown with the reason");
	UNIT_EQ_UINT(ctx->counters.no_net_events - before, 1, "no net events: counted");
	UNIT_EQ_STR(ctx->counters.first_no_net_host, "gamma", "no net events: the host is named");
	sa_span_free(span);
	ds_model_destroy(b);
}

/* The send index keeps the window only, and names a retransmission. */
static void test_send_index(void)
{
	struct ds_chain_ctx *c = ds_chain_ctx_create(8, 100);
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct ds_tcp_key k = key_of(7), other = key_of(8);
	int64_t t;

	ds_model_set_chain(m, c, "alpha");
	ds_chain_add_send(c, m, 10, 5, &k);
	UNIT_CHECK(ds_chain_find_send(c, &k) && ds_chain_find_send(c, &k)->count == 1, "sends: found once");
	ds_chain_add_send(c, m, 20, 5, &k);
	UNIT_EQ_UINT(ds_chain_find_send(c, &k)->count, 2, "sends: retransmission counted");
	UNIT_CHECK(ds_chain_find_send(c, &other) == NULL, "sends: another key is absent");
	for (t = 30; t < 5000; t += 10) {
		ds_chain_add_send(c, m, t, 5, &other);
		other.seq++;
	}
	UNIT_CHECK(ds_chain_find_send(c, &k) == NULL, "sends: expired after the window");
	UNIT_CHECK(c->sends->len - c->sends_head <= 12, "sends: only the window is kept");
	UNIT_CHECK(c->sends->len < 200, "sends: the ring is compacted");
	ds_model_destroy(m);
	ds_chain_ctx_destroy(c);
}

/*
 * One host's events give that host's chains whatever the other hosts do (doc/scale.md, "Per-host analysis"):
 * alpha's server waits for a loopback segment of its client sent at 6 and received at `wake`; beta (only in
 * the whole graph's context) sends other segments meanwhile.  The send is matched when it is within the
 * window (100 ns here) behind the wakeup, and not when it is older, in both contexts: the window is measured
 * from the time of the event read, not from the last send of any host.
 */
static struct sa_span *loopback_wait(struct ds_chain_ctx *c, bool with_beta, int64_t wake, struct ds_model **a)
{
	struct ds_model *b = NULL;
	struct ds_tcp_key k = key_of(31), other = key_of(32);
	struct sa_span *span;

	*a = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	ds_model_set_chain(*a, c, "alpha");
	if (with_beta) {
		b = ds_model_create(DS_STATE_RULE_DEFAULT, true);
		ds_model_set_chain(b, c, "beta");
		sw(b, 0, 0, 0, "swapper/0", 0, 300, "other");
	}
	sw(*a, 0, 0, 0, "swapper/0", 0, 100, "client");
	sw(*a, 0, 1, 0, "swapper/1", 0, 200, "server");
	span = span_on(*a, 200, 0);
	ds_model_syscall_entry(*a, 1, 1, "recvfrom");
	sw(*a, 1, 1, 200, "server", BLOCKED, 0, "swapper/1");
	ds_model_syscall_entry(*a, 5, 0, "sendto");
	ds_model_net_send(*a, 6, 0, &k);
	ds_model_syscall_exit(*a, 7, 0);
	if (b) {
		/* beta's sends, after alpha's send left the window of the whole graph's latest send */
		ds_model_net_send(b, wake - 10, 0, &other);
		ds_model_net_send(b, wake - 5, 0, &other);
	}
	ds_model_irq_entry(*a, wake - 2, 1, DS_IRQ_SOFT, "NET_RX");
	ds_model_net_receive(*a, wake - 1, 1, &k);
	ds_model_wakeup_target(*a, wake, 1, 200, "server", 0);
	ds_model_irq_exit(*a, wake, 1, DS_IRQ_SOFT);
	sw(*a, wake, 1, 0, "swapper/1", 0, 200, "server");
	ds_model_syscall_exit(*a, wake + 1, 1);
	sa_span_finish(*a, span, wake + 10);
	if (b) {
		ds_model_destroy(b);
	}
	return span;
}

static void same_entries(const struct sa_span *x, const struct sa_span *y, const char *what)
{
	bool same = x->chain->len == y->chain->len;
	guint i;

	for (i = 0; same && i < x->chain->len; i++) {
		const struct ds_chain_entry *e = entry(x, i), *f = entry(y, i);

		same = e->segment == f->segment && e->parent == f->parent && e->depth == f->depth &&
			e->begin == f->begin && e->end == f->end && e->tid == f->tid && e->kind == f->kind &&
			e->state == f->state && strcmp(e->detail, f->detail) == 0 && strcmp(e->host, f->host) == 0;
	}
	UNIT_CHECK(same, what);
}

static void test_host_local_sends(void)
{
	static const int64_t wakes[] = { 90, 150 };
	unsigned int i;

	for (i = 0; i < G_N_ELEMENTS(wakes); i++) {
		struct ds_chain_ctx *whole = ds_chain_ctx_create(8, 100), *local = ds_chain_ctx_create(8, 100);
		struct ds_model *a_whole, *a_local;
		struct sa_span *s_whole = loopback_wait(whole, true, wakes[i], &a_whole);
		struct sa_span *s_local = loopback_wait(local, false, wakes[i], &a_local);

		check_chain(s_whole, "host-local sends: partition");
		same_entries(s_whole, s_local, wakes[i] < 106 ? "host-local sends: a send within the window, same chain"
			: "host-local sends: a send out of the window, same chain");
		if (wakes[i] < 106) {
			expect(s_local, DS_CHAIN_NETWORK, "recvfrom \u2190 alpha/client/100", 0, 1, wakes[i],
				"host-local sends: matched within the window");
		} else {
			expect(s_local, DS_CHAIN_SOFTIRQ, "recvfrom \u2190 softirq:NET_RX (no matching send)", 0, 1,
				wakes[i], "host-local sends: older than the window behind the wakeup, not matched");
		}
		sa_span_free(s_whole);
		sa_span_free(s_local);
		ds_model_destroy(a_whole);
		ds_model_destroy(a_local);
		ds_chain_ctx_destroy(whole);
		ds_chain_ctx_destroy(local);
	}
}

int main(void)
{
	ctx = ds_chain_ctx_create(8, 1000000000);
	test_nested();
	test_waker_migrates();
	test_irq_timer_terminals();
	test_history_expiry();
	test_history_blocks();
	test_long_host();
	test_lost_events_and_cycle();
	test_lost_events_unknown();
	test_tcp_hand_off();
	test_ran_instead();
	test_depth_limit();
	test_end_of_trace();
	test_send_index();
	test_net_retransmission();
	test_net_received_twice();
	test_net_no_send_and_clocks();
	test_net_other_cpu();
	test_net_sent_in_softirq();
	test_net_no_events();
	test_host_local_sends();
	ds_chain_ctx_destroy(ctx);
	return unit_finish();
}
