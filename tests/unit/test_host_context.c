/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/span-attrib-filter/host-context (doc/host-context.md): hand-written kernel event
 * sequences on a 2-CPU host, and the windows' differences computed by hand (integers, clipped to the window).
 */
#include "unit.h"
#include "span-attrib-filter/thread-state.h"
#include "span-attrib-filter/host-context.h"

/* The delta of (kind, pid or name) in a closed window; 0 when absent. */
static uint64_t delta_of(const struct sa_span *span, enum ds_hc_kind kind, int64_t pid, const char *name,
		uint64_t dev)
{
	guint i;

	for (i = 0; span->hc && span->hc->deltas && i < span->hc->deltas->len; i++) {
		const struct ds_hc_delta *d = &g_array_index(span->hc->deltas, struct ds_hc_delta, i);

		if (d->counter->kind == kind && d->counter->pid == pid && d->counter->dev == dev &&
				(!name || (d->counter->name && strcmp(d->counter->name, name) == 0))) {
			return d->value;
		}
	}
	return 0;
}

static unsigned int delta_count(const struct sa_span *span)
{
	return span->hc && span->hc->deltas ? span->hc->deltas->len : 0;
}

static struct sa_span *window(struct ds_model *m, int64_t begin)
{
	struct sa_span *span = sa_span_new(m, begin);

	sa_span_open_host_window(m, span, begin);
	return span;
}

/*
 * CPU 0: app (pid 100, tids 100 and 101) and hog (pid 200, tid 200); CPU 1: idle, then the hog's second
 * thread 201 and a disk irq.
 *   t=0    statedump: 100, 101 (pid 100), 200, 201 (pid 200)
 *   t=10   cpu0: swapper -> 100 (app runs)
 *   t=20   cpu0: 101 woken (waits for a CPU)
 *   t=100  window W1 opens
 *   t=150  cpu0: 100 -> 101 (100 preempted: runnable)
 *   t=200  cpu1: swapper -> 201 (hog thread)
 *   t=250  cpu1: irq 42 "nvme0q1" entry (201 interrupted) ; 260 exit
 *   t=270  cpu1: block_rq_issue by 201: 8 sectors on dev 259:0
 *   t=300  window W2 opens (nested, its own window)
 *   t=320  cpu0: softirq NET_RX entry (inside: hard irq 7 "eth0" 330..340), 350 exit
 *   t=400  W1 and W2 close
 *   t=500  W3 opens; nothing changes until it closes at 600
 */
static void test_counters(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *w1, *w2, *w3;
	const uint64_t dev = (UINT64_C(259) << 20) | 0;

	ds_model_set_host_context(m);
	UNIT_CHECK(ds_model_host_context(m) != NULL, "host context on");
	ds_model_statedump_process(m, 0, 100, 100, 5, "app");
	ds_model_statedump_process(m, 0, 101, 100, 5, "app-worker");
	ds_model_statedump_process(m, 0, 200, 200, 5, "hog");
	ds_model_statedump_process(m, 0, 201, 200, 5, "hog-2");
	ds_model_sched_switch(m, 10, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_wakeup(m, 20, 0, 101, "app-worker");
	w1 = window(m, 100);
	ds_model_sched_switch(m, 150, 0, 100, "app", 0, 101, "app-worker");
	ds_model_sched_switch(m, 200, 1, 0, "swapper/1", 0, 201, "hog-2");
	ds_model_irq_entry(m, 250, 1, DS_IRQ_HARD, "nvme0q1");
	ds_model_irq_exit(m, 260, 1, DS_IRQ_HARD);
	ds_model_block_issue(m, 270, 201, dev, 8);
	w2 = window(m, 300);
	ds_model_irq_entry(m, 320, 0, DS_IRQ_SOFT, "NET_RX");
	ds_model_irq_entry(m, 330, 0, DS_IRQ_HARD, "eth0");
	ds_model_irq_exit(m, 340, 0, DS_IRQ_HARD);
	ds_model_irq_exit(m, 350, 0, DS_IRQ_SOFT);
	sa_span_finish(m, w1, 400);
	sa_span_finish(m, w2, 400);

	/* W1 = [100, 400) */
	/* app (pid 100): tid 100 runs 100..150 (50), tid 101 runs 150..320 and 350..400 (170 + 50) */
	UNIT_EQ_UINT(delta_of(w1, DS_HC_CPU, 100, NULL, 0), 50 + 170 + 50, "W1 cpu of app (both threads, irq time excluded)");
	/* hog (pid 200): tid 201 runs 200..250 and 260..400 */
	UNIT_EQ_UINT(delta_of(w1, DS_HC_CPU, 200, NULL, 0), 50 + 140, "W1 cpu of hog");
	/* run queue of app: 101 waits 100..150 (from 20: clipped), 100 waits 150..400 */
	UNIT_EQ_UINT(delta_of(w1, DS_HC_RUN_QUEUE, 100, NULL, 0), 50 + 250, "W1 run-queue wait of app (clipped)");
	UNIT_EQ_UINT(delta_of(w1, DS_HC_RUN_QUEUE, 200, NULL, 0), 0, "W1 hog never waited");
	UNIT_EQ_UINT(delta_of(w1, DS_HC_IRQ, -1, "nvme0q1", 0), 10, "W1 irq nvme0q1");
	/* NET_RX 320..350 is innermost except 330..340 (eth0) */
	UNIT_EQ_UINT(delta_of(w1, DS_HC_SOFTIRQ, -1, "NET_RX", 0), 20, "W1 softirq NET_RX (nested irq excluded)");
	UNIT_EQ_UINT(delta_of(w1, DS_HC_IRQ, -1, "eth0", 0), 10, "W1 irq eth0 (nested in NET_RX)");
	UNIT_EQ_UINT(delta_of(w1, DS_HC_DISK, 200, NULL, dev), 8 * 512, "W1 disk bytes of hog on 259:0");
	UNIT_EQ_UINT(delta_count(w1), 7, "W1 has exactly its 7 non-zero entries");

	/* W2 = [300, 400): issued before: no disk; nvme0q1 before: none */
	UNIT_EQ_UINT(delta_of(w2, DS_HC_CPU, 100, NULL, 0), 20 + 50, "W2 cpu of app");
	UNIT_EQ_UINT(delta_of(w2, DS_HC_CPU, 200, NULL, 0), 100, "W2 cpu of hog (ran all along, no event)");
	UNIT_EQ_UINT(delta_of(w2, DS_HC_RUN_QUEUE, 100, NULL, 0), 100, "W2 run-queue of app");
	UNIT_EQ_UINT(delta_of(w2, DS_HC_SOFTIRQ, -1, "NET_RX", 0), 20, "W2 NET_RX");
	UNIT_EQ_UINT(delta_of(w2, DS_HC_IRQ, -1, "eth0", 0), 10, "W2 eth0");
	UNIT_EQ_UINT(delta_of(w2, DS_HC_DISK, 200, NULL, dev), 0, "W2 no disk (issued before it)");
	UNIT_EQ_UINT(delta_count(w2), 5, "W2 has exactly 5 entries");

	/* W3 = [500, 600): no event at all; 101 (app) and 201 (hog) run, 100 waits */
	w3 = window(m, 500);
	sa_span_finish(m, w3, 600);
	UNIT_EQ_UINT(delta_of(w3, DS_HC_CPU, 100, NULL, 0), 100, "W3 cpu of app without events");
	UNIT_EQ_UINT(delta_of(w3, DS_HC_CPU, 200, NULL, 0), 100, "W3 cpu of hog without events");
	UNIT_EQ_UINT(delta_of(w3, DS_HC_RUN_QUEUE, 100, NULL, 0), 100, "W3 run-queue without events");
	UNIT_EQ_UINT(delta_count(w3), 3, "W3 has 3 entries");
	UNIT_EQ_UINT(ds_host_context_log_length(ds_model_host_context(m)), 0, "log empty once no window is open");
	UNIT_EQ_STR(ds_model_process_name(m, 200, "?"), "hog", "process name is the leader's comm");
	sa_span_free(w1);
	sa_span_free(w2);
	sa_span_free(w3);
	ds_model_destroy(m);
}

/* A counter created while a window is open (a new process, a new device) counts from 0. */
static void test_created_during_window(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *w;

	ds_model_set_host_context(m);
	w = window(m, 100);
	ds_model_fork(m, 110, 1, 300, 300, "newproc", NULL, 0);	/* runnable from 110 */
	ds_model_sched_switch(m, 130, 0, 0, "swapper/0", 0, 300, "newproc");
	ds_model_block_issue(m, 140, 300, 8 << 20 | 16, 3);
	ds_model_block_issue(m, 150, 300, 8 << 20 | 16, 5);
	ds_model_block_issue(m, 160, -1, 8 << 20 | 16, 1);	/* submitter unknown */
	sa_span_finish(m, w, 200);
	UNIT_EQ_UINT(delta_of(w, DS_HC_RUN_QUEUE, 300, NULL, 0), 20, "new process waited 110..130");
	UNIT_EQ_UINT(delta_of(w, DS_HC_CPU, 300, NULL, 0), 70, "new process ran 130..200");
	UNIT_EQ_UINT(delta_of(w, DS_HC_DISK, 300, NULL, 8 << 20 | 16), 8 * 512, "its two issues, 8 sectors");
	UNIT_EQ_UINT(delta_of(w, DS_HC_DISK, -1, NULL, 8 << 20 | 16), 512, "unknown submitter: pid -1");
	sa_span_free(w);
	ds_model_destroy(m);
}

/* Off by default: nothing is kept, spans carry no window. */
static void test_off(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span = sa_span_new(m, 0);

	sa_span_open_host_window(m, span, 0);
	ds_model_sched_switch(m, 10, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_block_issue(m, 20, 100, 1, 1);
	sa_span_finish(m, span, 30);
	UNIT_CHECK(span->hc == NULL && ds_model_host_context(m) == NULL, "no host context when off");
	sa_span_free(span);
	ds_model_destroy(m);
}

/* A window freed while open (span dropped) leaves the others exact. */
static void test_window_freed_open(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *a, *b;

	ds_model_set_host_context(m);
	ds_model_sched_switch(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	a = window(m, 10);
	b = window(m, 20);
	ds_model_sched_switch(m, 30, 0, 100, "app", 1, 0, "swapper/0");
	sa_span_free(a);
	ds_model_sched_switch(m, 40, 0, 0, "swapper/0", 0, 100, "app");
	sa_span_finish(m, b, 50);
	UNIT_EQ_UINT(delta_of(b, DS_HC_CPU, 100, NULL, 0), 10 + 10, "app ran 20..30 and 40..50");
	UNIT_EQ_UINT(ds_host_context_log_length(ds_model_host_context(m)), 0, "log trimmed");
	sa_span_free(b);
	ds_model_destroy(m);
}

/*
 * The counters a thread or a CPU charged last are found again without a lookup: a thread whose pid becomes
 * known between two runs is charged to its process's counter afterwards, and handlers alternating on a CPU
 * each to their own.
 */
static void test_counter_reuse(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *w;

	ds_model_set_host_context(m);
	w = window(m, 0);
	ds_model_sched_switch(m, 10, 0, 0, "swapper/0", 0, 500, "late");
	ds_model_sched_switch(m, 20, 0, 500, "late", 1, 0, "swapper/0");
	ds_model_statedump_process(m, 25, 500, 400, 5, "late");	/* pid known now: 400 */
	ds_model_sched_switch(m, 30, 0, 0, "swapper/0", 0, 500, "late");
	ds_model_sched_switch(m, 40, 0, 500, "late", 1, 0, "swapper/0");
	ds_model_irq_entry(m, 50, 1, DS_IRQ_HARD, "eth0");
	ds_model_irq_exit(m, 53, 1, DS_IRQ_HARD);
	ds_model_irq_entry(m, 60, 1, DS_IRQ_HARD, "nvme0q1");
	ds_model_irq_exit(m, 67, 1, DS_IRQ_HARD);
	ds_model_irq_entry(m, 70, 1, DS_IRQ_SOFT, "eth0");
	ds_model_irq_exit(m, 71, 1, DS_IRQ_SOFT);
	ds_model_irq_entry(m, 80, 1, DS_IRQ_HARD, "eth0");
	ds_model_irq_exit(m, 85, 1, DS_IRQ_HARD);
	sa_span_finish(m, w, 100);
	UNIT_EQ_UINT(delta_of(w, DS_HC_CPU, 500, NULL, 0), 10, "reuse: ran 10..20 as tid 500 (pid unknown)");
	UNIT_EQ_UINT(delta_of(w, DS_HC_CPU, 400, NULL, 0), 10, "reuse: ran 30..40 as process 400");
	UNIT_EQ_UINT(delta_of(w, DS_HC_IRQ, -1, "eth0", 0), 3 + 5, "reuse: irq eth0 twice");
	UNIT_EQ_UINT(delta_of(w, DS_HC_IRQ, -1, "nvme0q1", 0), 7, "reuse: irq nvme0q1 between them");
	UNIT_EQ_UINT(delta_of(w, DS_HC_SOFTIRQ, -1, "eth0", 0), 1, "reuse: a softirq of the same name apart");
	sa_span_free(w);
	ds_model_destroy(m);
}

int main(void)
{
	test_counters();
	test_created_during_window();
	test_off();
	test_window_freed_open();
	test_counter_reuse();
	return unit_finish();
}
