/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/span-attrib-filter/thread-state (the model and its span accounting): hand-written kernel event
 * sequences, checked against per-span state totals, syscalls and segments computed by hand.
 */
#include "unit.h"
#include "span-attrib-filter/thread-state.h"

#define U DS_STATE_USER
#define SC DS_STATE_SYSCALL
#define BL DS_STATE_BLOCKED
#define WC DS_STATE_WAIT_CPU
#define IN DS_STATE_INTERRUPTED
#define UN DS_STATE_UNKNOWN

static struct sa_span *span_on(struct ds_model *m, int64_t tid, int64_t begin)
{
	struct sa_span *span = sa_span_new(m, begin);

	sa_span_attach(m, span, ds_model_thread(m, tid, true), begin);
	return span;
}

static uint64_t sum_states(const struct sa_span *span)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < DS_STATE_COUNT; i++) {
		sum += span->states[i];
	}
	return sum;
}

static void check_sum(const struct sa_span *span, const char *what)
{
	UNIT_EQ_UINT(sum_states(span), (uint64_t) (span->end - span->begin), what);
}

static const struct sa_segment *segment(const struct sa_span *span, guint i)
{
	return i < span->segments->len ? &g_array_index(span->segments, struct sa_segment, i) : NULL;
}

static void check_segment_detail(const struct sa_span *span, enum ds_state state,
		const char *expected, const char *what)
{
	char buf[64] = "(no such segment)";
	guint i;

	for (i = 0; i < span->segments->len; i++) {
		const struct sa_segment *seg = segment(span, i);

		if (seg->state == state) {
			ds_detail_format(&seg->detail, buf, sizeof(buf));
			break;
		}
	}
	UNIT_EQ_STR(buf, expected, what);
}

static const struct sa_syscall_total *syscall_total(const struct sa_span *span, const char *name)
{
	guint i;

	for (i = 0; i < span->syscalls->len; i++) {
		const struct sa_syscall_total *t = &g_array_index(span->syscalls, struct sa_syscall_total, i);

		if (strcmp(t->name, name) == 0) {
			return t;
		}
	}
	return NULL;
}

/*
 * A span freed and a new one made on the same model (the model reuses the freed span and its arrays): the new
 * span starts empty and is charged exactly like a span made on a fresh model.
 */
static void run_reuse_sequence(struct ds_model *m, int64_t t0, struct sa_span **out)
{
	struct sa_span *span = span_on(m, 100, t0 + 5);

	ds_model_syscall_entry(m, t0 + 10, 0, "write");
	ds_model_syscall_exit(m, t0 + 14, 0);
	ds_model_sched_switch(m, t0 + 20, 0, 100, "app", 1, 200, "other");
	ds_model_wakeup(m, t0 + 30, 0, 100, "app");
	ds_model_sched_switch(m, t0 + 35, 0, 200, "other", 256, 100, "app");
	sa_span_finish(m, span, t0 + 40);
	*out = span;
}

static void test_span_reuse(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct ds_model *fresh = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *first, *again, *ref;
	uintptr_t first_address;
	guint i;
	int s;

	ds_model_sched_switch(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_sched_switch(fresh, 1000, 0, 0, "swapper/0", 0, 100, "app");
	first = span_on(m, 100, 1);
	first->service = g_strdup("svc");
	ds_model_syscall_entry(m, 2, 0, "read");
	ds_model_syscall_entry(m, 3, 0, "futex");
	ds_model_syscall_exit(m, 4, 0);
	sa_span_finish(m, first, 5);
	first->truncated = true;
	first_address = (uintptr_t) first;
	sa_span_free(first);
	run_reuse_sequence(m, 1000, &again);
	run_reuse_sequence(fresh, 1000, &ref);
	UNIT_CHECK((uintptr_t) again == first_address, "reuse: the model gives the freed span again");
	UNIT_CHECK(again->service == NULL && again->operation == NULL && !again->truncated,
		"reuse: no identity left from the freed span");
	UNIT_EQ_INT(again->begin, ref->begin, "reuse: begin");
	UNIT_EQ_INT(again->end, ref->end, "reuse: end");
	for (s = 0; s < DS_STATE_COUNT; s++) {
		UNIT_EQ_UINT(again->states[s], ref->states[s], "reuse: each state total as on a fresh model");
	}
	UNIT_EQ_UINT(again->syscalls->len, ref->syscalls->len, "reuse: syscalls as on a fresh model");
	UNIT_CHECK(syscall_total(again, "read") == NULL && syscall_total(again, "futex") == NULL,
		"reuse: the freed span's syscalls are gone");
	UNIT_EQ_UINT(again->segments->len, ref->segments->len, "reuse: segments as on a fresh model");
	for (i = 0; i < again->segments->len && i < ref->segments->len; i++) {
		UNIT_CHECK(segment(again, i)->begin == segment(ref, i)->begin &&
			segment(again, i)->end == segment(ref, i)->end && segment(again, i)->state == segment(ref, i)->state,
			"reuse: segment as on a fresh model");
	}
	sa_span_free(again);
	sa_span_free(ref);
	ds_model_destroy(m);
	ds_model_destroy(fresh);
}

static void test_prev_state(void)
{
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 0), DS_PREV_WAIT_CPU, "0 runnable");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 256), DS_PREV_WAIT_CPU, "256 preempted (report)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 4096), DS_PREV_WAIT_CPU, "4096 preempted (raw)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 2048), DS_PREV_WAIT_CPU, "2048 preempted (raw)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 1), DS_PREV_BLOCKED, "1 sleeping");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 2), DS_PREV_BLOCKED, "2 uninterruptible");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 258), DS_PREV_BLOCKED, "258 killable");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 1026), DS_PREV_BLOCKED, "1026 idle (raw)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 128), DS_PREV_BLOCKED, "128 idle (report)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 16), DS_PREV_EXITED, "16 dead (report)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 32), DS_PREV_EXITED, "32 zombie (report)");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_DEFAULT, 4), DS_PREV_UNKNOWN, "4 stopped");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_TRACECOMPASS, 4096), DS_PREV_WAIT_CPU, "tc 4096 & 1023 = 0");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_TRACECOMPASS, 256), DS_PREV_UNKNOWN, "tc 256 unknown");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_TRACECOMPASS, 128), DS_PREV_UNKNOWN, "tc 128 unknown");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_TRACECOMPASS, 1026), DS_PREV_BLOCKED, "tc 1026 blocked");
	UNIT_EQ_INT(ds_prev_state_classify(DS_STATE_RULE_TRACECOMPASS, 64), DS_PREV_EXITED, "tc 64 exited");
}

static void test_preemption(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;
	const struct sa_syscall_total *read;

	ds_model_sched_switch(m, 10, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 15);
	ds_model_syscall_entry(m, 20, 0, "read");
	ds_model_syscall_exit(m, 30, 0);
	ds_model_sched_switch(m, 40, 0, 100, "app", 4096, 200, "hog");
	ds_model_sched_switch(m, 60, 0, 200, "hog", 256, 100, "app");
	sa_span_finish(m, span, 70);
	UNIT_EQ_UINT(span->states[U], 25, "preemption: user");
	UNIT_EQ_UINT(span->states[SC], 10, "preemption: syscall");
	UNIT_EQ_UINT(span->states[WC], 20, "preemption: wait_cpu");
	check_sum(span, "preemption: states sum to duration");
	read = syscall_total(span, "read");
	UNIT_CHECK(read && read->count == 1 && read->duration == 10, "preemption: read once, 10 ns");
	UNIT_EQ_UINT(span->segments->len, 5, "preemption: 5 segments");
	UNIT_EQ_INT(ds_model_thread(m, 200, false)->state, WC, "preempted hog waits for CPU");
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_block_wake_other_cpu(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;
	const struct sa_syscall_total *futex;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_sched_switch(m, 2, 1, 0, "swapper/1", 0, 300, "mysqld");
	span = span_on(m, 100, 5);
	ds_model_syscall_entry(m, 10, 0, "futex");
	ds_model_sched_switch(m, 20, 0, 100, "app", 1, 0, "swapper/0");
	ds_model_wakeup(m, 50, 1, 100, "app");
	ds_model_wakeup(m, 55, 1, 100, "app");	/* sched_wakeup after sched_waking: no change */
	ds_model_sched_switch(m, 60, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 65, 0);
	sa_span_finish(m, span, 80);
	UNIT_EQ_UINT(span->states[U], 20, "block/wake: user");
	UNIT_EQ_UINT(span->states[SC], 15, "block/wake: syscall");
	UNIT_EQ_UINT(span->states[BL], 30, "block/wake: blocked");
	UNIT_EQ_UINT(span->states[WC], 10, "block/wake: wait_cpu from the waking");
	check_sum(span, "block/wake: sum");
	futex = syscall_total(span, "futex");
	UNIT_CHECK(futex && futex->count == 1 && futex->duration == 55, "block/wake: futex includes blocked time");
	check_segment_detail(span, BL, "mysqld/300", "block/wake: waker is the thread current on the waking CPU");
	check_segment_detail(span, SC, "futex", "block/wake: syscall segment names the syscall");
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_wake_from_softirq_and_timer(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 2);
	ds_model_sched_switch(m, 10, 0, 100, "app", 1, 0, "swapper/0");
	ds_model_irq_entry(m, 20, 1, DS_IRQ_SOFT, "NET_RX");
	ds_model_wakeup(m, 25, 1, 100, "app");
	ds_model_irq_exit(m, 30, 1, DS_IRQ_SOFT);
	ds_model_sched_switch(m, 40, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_sched_switch(m, 50, 0, 100, "app", 1, 0, "swapper/0");
	ds_model_irq_entry(m, 60, 1, DS_IRQ_SOFT, "TIMER");
	ds_model_wakeup(m, 65, 1, 100, "app");
	ds_model_irq_exit(m, 66, 1, DS_IRQ_SOFT);
	ds_model_sched_switch(m, 70, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, span, 75);
	UNIT_EQ_UINT(span->states[BL], 15 + 15, "softirq wake: blocked");
	UNIT_EQ_UINT(span->states[WC], 15 + 5, "softirq wake: wait_cpu");
	check_sum(span, "softirq wake: sum");
	check_segment_detail(span, BL, "softirq:NET_RX", "waker detail softirq:NET_RX");
	UNIT_EQ_INT(segment(span, 4)->state, BL, "second blocked segment");
	{
		char buf[32];

		ds_detail_format(&segment(span, 4)->detail, buf, sizeof(buf));
		UNIT_EQ_STR(buf, "timer", "timer softirq wake detail is timer");
	}
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_irq_in_syscall_nested_softirqs(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;
	const struct sa_syscall_total *write;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 10);
	ds_model_syscall_entry(m, 20, 0, "write");
	ds_model_irq_entry(m, 30, 0, DS_IRQ_HARD, "eth0");
	ds_model_irq_exit(m, 35, 0, DS_IRQ_HARD);
	ds_model_irq_entry(m, 36, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_irq_entry(m, 38, 0, DS_IRQ_HARD, "eth0");	/* irq nested in the softirq */
	ds_model_irq_exit(m, 40, 0, DS_IRQ_HARD);
	ds_model_irq_entry(m, 42, 0, DS_IRQ_SOFT, "BLOCK");	/* nested softirq */
	ds_model_irq_exit(m, 44, 0, DS_IRQ_SOFT);
	ds_model_irq_exit(m, 46, 0, DS_IRQ_SOFT);		/* last softirq: back to the syscall */
	ds_model_syscall_exit(m, 50, 0);
	sa_span_finish(m, span, 60);
	UNIT_EQ_UINT(span->states[U], 20, "irq in syscall: user");
	UNIT_EQ_UINT(span->states[IN], 5 + 10, "irq in syscall: interrupted");
	UNIT_EQ_UINT(span->states[SC], 10 + 1 + 4, "irq in syscall: syscall");
	check_sum(span, "irq in syscall: sum");
	write = syscall_total(span, "write");
	UNIT_CHECK(write && write->count == 1 && write->duration == 30, "syscall duration includes interrupts");
	check_segment_detail(span, IN, "irq:eth0", "interrupted detail names the irq");
	UNIT_EQ_INT(segment(span, 4)->state, IN, "softirq segment");
	{
		char buf[32];

		ds_detail_format(&segment(span, 4)->detail, buf, sizeof(buf));
		UNIT_EQ_STR(buf, "softirq:NET_RX", "softirq segment detail");
	}
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_migration_and_fork(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, false);
	struct sa_span *span;
	const int64_t vtids[] = { 1234, 7 };

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_fork(m, 5, 100, 1234, 1234, "worker", vtids, 2);
	UNIT_EQ_INT(ds_model_thread(m, 1234, false)->state, WC, "fork child waits for a CPU");
	UNIT_EQ_INT(ds_model_tid_for_vtid(m, 7, 7), 1234, "fork vtids map the container vtid");
	UNIT_EQ_INT(ds_model_tid_for_vtid(m, 100, 100), 100, "unmapped vtid is the tid");
	span = span_on(m, 1234, 6);
	ds_model_migrate(m, 8, 1234, 1);
	ds_model_migrate(m, 9, 100, 1);	/* running thread: ignored */
	UNIT_EQ_INT(ds_model_thread(m, 100, false)->state, U, "migrating a running thread changes nothing");
	ds_model_sched_switch(m, 12, 1, 0, "swapper/1", 0, 1234, "worker");
	ds_model_syscall_entry(m, 14, 1, "read");
	ds_model_syscall_exit(m, 15, 1);
	sa_span_finish(m, span, 20);
	UNIT_EQ_UINT(span->states[WC], 6, "fork/migrate: wait_cpu until scheduled");
	UNIT_EQ_UINT(span->states[U], 7, "fork/migrate: user on the new CPU");
	UNIT_EQ_UINT(span->states[SC], 1, "fork/migrate: syscall on the new CPU");
	check_sum(span, "fork/migrate: sum");
	UNIT_CHECK(span->segments == NULL, "segments not recorded when disabled");
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_free_and_reuse(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 10);
	ds_model_sched_switch(m, 20, 0, 100, "app", 16, 0, "swapper/0");
	ds_model_process_free(m, 30, 100);
	UNIT_CHECK(ds_model_thread(m, 100, false) == NULL, "free forgets the thread");
	UNIT_EQ_UINT(ds_model_thread_count(m), 0, "no thread left");
	ds_model_sched_switch(m, 40, 0, 0, "swapper/0", 0, 100, "reused");
	sa_span_finish(m, span, 50);
	UNIT_EQ_UINT(span->states[U], 10, "free: user before exit");
	UNIT_EQ_UINT(span->states[UN], 30, "free: exited and freed time is unknown, reused tid not charged");
	check_sum(span, "free: sum");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* Threads whose tids share a slot of the model's thread cache (tid modulo 256), and a tid freed then reused. */
static void test_thread_cache_slots(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct ds_thread *a, *b, *c;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 5, "a");
	ds_model_sched_switch(m, 2, 1, 0, "swapper/1", 0, 5 + 256, "b");
	ds_model_sched_switch(m, 3, 2, 0, "swapper/2", 0, 5 + 512, "c");
	a = ds_model_thread(m, 5, false);
	b = ds_model_thread(m, 5 + 256, false);
	c = ds_model_thread(m, 5 + 512, false);
	UNIT_CHECK(a && b && c && a != b && b != c && a != c, "cache: three threads of one slot are three threads");
	UNIT_CHECK(a && a->tid == 5 && b && b->tid == 261 && c && c->tid == 517, "cache: each lookup finds its own tid");
	ds_model_sched_switch(m, 4, 1, 5 + 256, "b", 1, 0, "swapper/1");
	UNIT_EQ_INT(ds_model_thread(m, 5, false)->state, U, "cache: the first runs");
	UNIT_EQ_INT(ds_model_thread(m, 5 + 256, false)->state, BL, "cache: the second is blocked");
	ds_model_process_free(m, 5, 5 + 256);
	UNIT_CHECK(ds_model_thread(m, 5 + 256, false) == NULL, "cache: a freed tid is not found");
	UNIT_CHECK(ds_model_thread(m, 5, false) == a, "cache: the other threads of its slot stay");
	b = ds_model_thread(m, 5 + 256, true);
	UNIT_CHECK(b && b->tid == 261 && b->state == UN, "cache: the reused tid is a new Unknown thread");
	UNIT_EQ_UINT(ds_model_thread_count(m), 3, "cache: three threads");
	ds_model_destroy(m);
}

static void test_statedump_and_unknown(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span, *ghost;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 200, 5);
	ghost = span_on(m, 999, 5);
	ds_model_statedump_process(m, 10, 200, 200, 5, "sleeper");	/* WAIT -> blocked */
	ds_model_statedump_process(m, 11, 100, 100, 2, "app");		/* known: unchanged */
	UNIT_EQ_INT(ds_model_thread(m, 100, false)->state, U, "statedump leaves known threads alone");
	ds_model_wakeup(m, 20, 0, 200, NULL);
	sa_span_finish(m, span, 30);
	sa_span_finish(m, ghost, 30);
	UNIT_EQ_UINT(span->states[UN], 5, "statedump: unknown before the statedump");
	UNIT_EQ_UINT(span->states[BL], 10, "statedump: blocked from the statedump");
	UNIT_EQ_UINT(span->states[WC], 10, "statedump: wait_cpu after the wakeup");
	check_segment_detail(span, BL, "app/100", "statedump: waker");
	UNIT_EQ_UINT(ghost->states[UN], 25, "thread absent from the kernel trace: all unknown");
	check_sum(ghost, "ghost: sum");
	sa_span_free(span);
	sa_span_free(ghost);
	ds_model_destroy(m);
}

static void test_discarded(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;
	const struct sa_syscall_total *read;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 10);
	sa_span_free(span);	/* freeing an attached span unlinks it */
	span = span_on(m, 100, 10);
	ds_model_syscall_entry(m, 15, 0, "read");
	ds_model_discarded(m, 20);
	ds_model_syscall_exit(m, 25, 0);		/* current CPU thread unknown: ignored */
	ds_model_sched_switch(m, 30, 0, 100, "app", 1, 0, "swapper/0");
	sa_span_finish(m, span, 40);
	UNIT_EQ_UINT(span->states[U], 5, "discarded: user before");
	UNIT_EQ_UINT(span->states[SC], 5, "discarded: syscall before");
	UNIT_EQ_UINT(span->states[UN], 10, "discarded: unknown until the next defining event");
	UNIT_EQ_UINT(span->states[BL], 10, "discarded: blocked after the switch");
	read = syscall_total(span, "read");
	UNIT_CHECK(read && read->count == 1 && read->duration == 5, "discarded: syscall clipped at the loss");
	check_sum(span, "discarded: sum");
	sa_span_free(span);
	ds_model_destroy(m);
}

static void test_nested_and_activation(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *outer, *inner, *async;
	struct ds_thread *t100;

	ds_model_sched_switch(m, 1, 0, 0, "swapper/0", 0, 100, "loop");
	t100 = ds_model_thread(m, 100, false);
	outer = span_on(m, 100, 10);
	inner = span_on(m, 100, 20);
	async = span_on(m, 100, 20);
	ds_model_syscall_entry(m, 25, 0, "epoll_wait");
	sa_span_detach(m, async, 28, BL, "inactive");
	ds_model_syscall_exit(m, 30, 0);
	sa_span_finish(m, inner, 40);
	sa_span_attach(m, async, t100, 45);
	ds_model_syscall_entry(m, 46, 0, "write");
	ds_model_syscall_exit(m, 48, 0);
	sa_span_finish(m, async, 50);
	sa_span_finish(m, outer, 60);
	UNIT_EQ_UINT(outer->states[U], 15 + 16 + 12, "nested: outer user");
	UNIT_EQ_UINT(outer->states[SC], 5 + 2, "nested: outer syscall");
	check_sum(outer, "nested: outer sum");
	UNIT_EQ_UINT(inner->states[U], 15, "nested: inner user");
	UNIT_EQ_UINT(inner->states[SC], 5, "nested: inner syscall");
	check_sum(inner, "nested: inner sum");
	UNIT_EQ_UINT(async->states[SC], 3 + 2, "activation: syscall only while active");
	UNIT_EQ_UINT(async->states[BL], 17, "activation: inactive time is blocked");
	UNIT_EQ_UINT(async->states[U], 5 + 3, "activation: user while active");
	check_sum(async, "activation: sum");
	check_segment_detail(async, BL, "inactive", "activation: inactive detail");
	UNIT_EQ_UINT(syscall_total(async, "epoll_wait")->duration, 3, "activation: syscall clipped to the active time");
	UNIT_CHECK(syscall_total(async, "write") != NULL, "activation: syscall while re-activated");
	UNIT_CHECK(t100->spans == NULL, "no span left attached");
	sa_span_free(outer);
	sa_span_free(inner);
	sa_span_free(async);
	ds_model_destroy(m);
}

static void test_out_of_order_clamped(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, false);
	struct sa_span *span;

	ds_model_sched_switch(m, 10, 0, 0, "swapper/0", 0, 100, "app");
	span = span_on(m, 100, 10);
	ds_model_syscall_entry(m, 20, 0, "read");
	ds_model_syscall_exit(m, 15, 0);	/* earlier than the entry: clamped */
	sa_span_finish(m, span, 30);
	check_sum(span, "out of order: still sums exactly");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* ds_detail_format() writes what snprintf("%s%s") / snprintf("%.16s/%d") wrote, truncation included. */
static void test_detail_format(void)
{
	static const struct ds_detail details[] = {
		{ "", "futex", -1, "" },
		{ "softirq:", "NET_RX", -1, "" },
		{ NULL, "nanosleep", -1, "" },
		{ "irq:", "", -1, "" },
		{ "", NULL, 4242, "mysqld" },
		{ "", NULL, 0, "swapper/0" },
		{ "", NULL, 2147483647, "a-fifteen-chars" },
		{ "", NULL, 7, "" },
		{ "", NULL, -1, "ignored" },
	};
	static const size_t sizes[] = { 1, 2, 5, 8, 12, 17, 64 };
	bool ok = true;
	size_t i, k;

	for (i = 0; i < G_N_ELEMENTS(details); i++) {
		const struct ds_detail *d = &details[i];

		for (k = 0; k < G_N_ELEMENTS(sizes); k++) {
			char mine[64], theirs[64];

			memset(mine, 'x', sizeof(mine));
			memset(theirs, 'x', sizeof(theirs));
			ds_detail_format(d, mine, sizes[k]);
			if (d->name) {
				snprintf(theirs, sizes[k], "%s%s", d->prefix ? d->prefix : "", d->name);
			} else if (d->tid >= 0) {
				snprintf(theirs, sizes[k], "%.16s/%d", d->comm, (int) d->tid);
			} else {
				theirs[0] = '\0';
			}
			if (memcmp(mine, theirs, sizes[k]) != 0) {
				printf("#   detail %zu, size %zu: \"%.*s\" against \"%s\"\n", i, sizes[k],
					(int) sizes[k], mine, theirs);
				ok = false;
			}
		}
	}
	UNIT_CHECK(ok, "ds_detail_format: the bytes of snprintf, truncated the same at every size");
}

int main(void)
{
	test_detail_format();
	test_prev_state();
	test_preemption();
	test_block_wake_other_cpu();
	test_wake_from_softirq_and_timer();
	test_irq_in_syscall_nested_softirqs();
	test_migration_and_fork();
	test_free_and_reuse();
	test_thread_cache_slots();
	test_statedump_and_unknown();
	test_discarded();
	test_nested_and_activation();
	test_out_of_order_clamped();
	test_span_reuse();
	return unit_finish();
}
