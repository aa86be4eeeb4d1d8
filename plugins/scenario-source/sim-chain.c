/* SPDX-License-Identifier: MIT */
#include "sim-chain.h"
#include "detail-format.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

struct sim_chain_walk {
	const struct sim *sim;
	unsigned int span_host;
	int64_t segment_begin;
	int64_t oldest;			/* span host clock: history older than this is expired */
	GArray *leaves;			/* borrowed: struct sim_chain_leaf */
	const struct sim_thread *path[DS_CHAIN_MAX_DEPTH + 2];	/* borrowed: threads on the chain */
	unsigned int npath;
};

/* A local timestamp of `host` on the span host's clock (exact when both clocks are the same). */
static int64_t to_span_clock(const struct sim_chain_walk *w, unsigned int host, int64_t ts)
{
	const struct sim_clock *from = &w->sim->cfg.clocks[host];
	const struct sim_clock *to = &w->sim->cfg.clocks[w->span_host];
	int64_t true_ns;

	if (host == w->span_host || (from->offset_ns == to->offset_ns && from->drift_ppb == to->drift_ppb &&
			from->reference_ns == to->reference_ns)) {
		return ts;
	}
	true_ns = ts - from->offset_ns;
	true_ns = ts - (sim_clock_local(from, true_ns) - true_ns);
	return sim_clock_local(to, true_ns);
}

/* The index of the last piece beginning at or before `ts` (span clock), -1 when none. */
static gint piece_at(const struct sim_chain_walk *w, const struct sim_thread *t, const GArray *h, int64_t ts)
{
	gint lo = 0, hi = (gint) h->len - 1, found = -1;

	while (lo <= hi) {
		gint mid = lo + (hi - lo) / 2;

		if (to_span_clock(w, t->host, g_array_index(h, struct sim_piece, mid).begin) <= ts) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* The same for a CPU's runs. */
static gint run_at(const struct sim_chain_walk *w, unsigned int host, const GArray *runs, int64_t ts)
{
	gint lo = 0, hi = (gint) runs->len - 1, found = -1;

	while (lo <= hi) {
		gint mid = lo + (hi - lo) / 2;

		if (to_span_clock(w, host, g_array_index(runs, struct sim_cpu_run, mid).begin) <= ts) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static struct sim_chain_leaf *leaf(struct sim_chain_walk *w, const struct sim_thread *t, int64_t begin, int64_t end,
		enum sim_tstate state, enum ds_chain_kind kind, unsigned int depth, const char *fmt, ...)
		__attribute__((format(printf, 8, 9)));

/* Appends a leaf [begin, end) of `t` (none when empty) and returns it. */
static struct sim_chain_leaf *leaf(struct sim_chain_walk *w, const struct sim_thread *t, int64_t begin, int64_t end,
		enum sim_tstate state, enum ds_chain_kind kind, unsigned int depth, const char *fmt, ...)
{
	struct sim_chain_leaf l = {
		.segment_begin = w->segment_begin, .begin = begin, .end = end,
		.host = t->host, .pid = t->proc->pid, .tid = t->tid, .comm = t->comm,
		.state = (uint8_t) state, .kind = (uint8_t) kind, .depth = depth,
	};
	va_list ap;

	if (end <= begin) {
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(l.detail, sizeof(l.detail), fmt, ap);
	va_end(ap);
	g_array_append_val(w->leaves, l);
	return &g_array_index(w->leaves, struct sim_chain_leaf, w->leaves->len - 1);
}

static const char *syscall_label(const struct sim_piece *p)
{
	return p->syscall < 0 ? "-" : sim_syscall_name((enum sim_syscall) p->syscall);
}

static bool on_path(const struct sim_chain_walk *w, const struct sim_thread *t)
{
	unsigned int i;

	for (i = 0; i < w->npath; i++) {
		if (w->path[i] == t) {
			return true;
		}
	}
	return false;
}

static void explain(struct sim_chain_walk *w, const struct sim_thread *t, int64_t a, int64_t b, unsigned int depth);

/* wait_cpu [x, y) on `cpu`: one leaf per maximal run of the same current thread there. */
static void wait_on_cpu(struct sim_chain_walk *w, const struct sim_thread *t, int cpu, int64_t x, int64_t y,
		unsigned int depth)
{
	const GArray *runs = cpu >= 0 ? w->sim->host[t->host].cpu[cpu].runs : NULL;
	gint i;

	if (!runs) {
		leaf(w, t, x, y, SIM_ST_WAIT_CPU, DS_CHAIN_WAIT_CPU, depth, "ran instead: idle");
		return;
	}
	/* the run current at x (-1: before the CPU's first switch) */
	i = run_at(w, t->host, runs, x);
	while (x < y) {
		int32_t tid = i >= 0 ? g_array_index(runs, struct sim_cpu_run, i).tid : -1;
		const char *comm = i >= 0 ? g_array_index(runs, struct sim_cpu_run, i).comm : NULL;
		int64_t end = y;
		gint j = i + 1;

		/* over the following runs of the same thread (an irq counts for the thread it interrupts) */
		for (; j < (gint) runs->len; j++) {
			const struct sim_cpu_run *next = &g_array_index(runs, struct sim_cpu_run, j);
			int64_t nb = to_span_clock(w, t->host, next->begin);

			if (nb >= y) {
				break;
			}
			if (next->tid != tid) {
				end = nb;
				break;
			}
		}
		if (i < 0) {
			/* before the CPU's first sched_switch the trace cannot tell who is current: never guess */
			leaf(w, t, x, end, SIM_ST_WAIT_CPU, DS_CHAIN_WAIT_CPU, depth, "ran instead: unknown");
		} else if (tid >= 0) {
			leaf(w, t, x, end, SIM_ST_WAIT_CPU, DS_CHAIN_WAIT_CPU, depth, "ran instead: %s/%d",
				comm, tid);
		} else {
			leaf(w, t, x, end, SIM_ST_WAIT_CPU, DS_CHAIN_WAIT_CPU, depth, "ran instead: idle");
		}
		x = end;
		i = j;
	}
}

/* A Waited CPU piece: on the CPU it was woken on, then (sched_migrate_task) on the one it moved to. */
static void explain_wait_cpu(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_piece *p,
		int64_t x, int64_t y, unsigned int depth)
{
	int64_t m = p->migrate_cpu >= 0 ? to_span_clock(w, t->host, p->migrate_ts) : y;

	if (m > x) {
		wait_on_cpu(w, t, p->cpu, x, m < y ? m : y, depth);
	}
	if (m < y) {
		/* another CPU: its own runs (idle on both sides is two leaves, on two CPUs) */
		wait_on_cpu(w, t, p->migrate_cpu, m > x ? m : x, y, depth);
	}
}

/* No waker: unknown, or at the end of the trace a deadlock with its peer, or still blocked. */
static void explain_no_waker(struct sim_chain_walk *w, const struct sim_thread *t, const char *sys, bool last,
		int64_t x, int64_t y, unsigned int depth)
{
	const struct sim *sim = w->sim;

	if (!last) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_UNKNOWN, depth, "unknown: waker not seen");
	} else if (t->deadlock_peer) {
		const struct sim_thread *q = t->deadlock_peer;
		const GArray *qh = q->book.history;
		const char *qsys = qh && qh->len ? syscall_label(&g_array_index(qh, struct sim_piece, qh->len - 1)) : "-";

		/* the cycle as doc/critical-path.md writes it: each thread, its host and syscall */
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_DEADLOCK, depth,
			"deadlock: %s/%d (host %s, %s) \u2190 %s/%d (host %s, %s) \u2190 %s/%d",
			t->comm, t->tid, sim->host[t->host].name, sys, q->comm, q->tid,
			sim->host[q->host].name, qsys, t->comm, t->tid);
	} else {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_UNKNOWN, depth, "unknown: still blocked at end of trace in %s", sys);
	}
}

/* Woken by a thread of the same host: its time over [x, y), or a deadlock, or the depth limit. */
static void explain_thread_waker(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_waker *wk,
		const char *sys, int64_t x, int64_t y, unsigned int depth)
{
	const struct sim *sim = w->sim;
	const struct sim_thread *waker = sim_thread_find(sim, wk->host, wk->tid);

	if (!waker) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_UNKNOWN, depth, "unknown: waker not seen");
	} else if (on_path(w, waker)) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_DEADLOCK, depth, "deadlock: %s/%d \u2190 %s/%d",
			t->comm, t->tid, waker->comm, waker->tid);
	} else if (depth + 1 > sim->cfg.chain_depth) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_DEPTH_LIMIT, depth, "%s \u2190 %s/%d", sys,
			waker->comm, waker->tid);
	} else {
		w->path[w->npath++] = waker;
		explain(w, waker, x, y, depth + 1);
		w->npath--;
	}
}

/*
 * Layers (doc/storage-network.md "Storage"): children of the disk entry: before the insert (if it blocked
 * first), queue time (insert to issue, charged to the top submitter served ahead; none for a direct issue),
 * device time, completion to wakeup.
 */
static void explain_disk_waker(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_waker *wk,
		int64_t x, int64_t y, unsigned int depth)
{
	int64_t i = to_span_clock(w, t->host, wk->t_i), a = to_span_clock(w, t->host, wk->t_s);
	int64_t c = to_span_clock(w, t->host, wk->t_r);

	i = i < x ? x : (i > y ? y : i);
	a = a < i ? i : (a > y ? y : a);
	c = c < a ? a : (c > y ? y : c);
	if (i > x) {
		leaf(w, t, x, i, SIM_ST_BLOCKED, DS_CHAIN_DISK, depth + 1, "before the request was queued");
	}
	if (a > i) {
		const struct sim_thread *top = wk->ahead_count ? sim_thread_find(w->sim, t->host, wk->ahead_top_tid) :
			NULL;
		char queued[32], size[32], others[48] = "";

		ds_detail_format_duration(a - i, queued, sizeof(queued));
		if (top) {
			struct sim_chain_leaf *q;

			ds_detail_format_bytes(wk->ahead_top_bytes, size, sizeof(size));
			if (wk->ahead_count > wk->ahead_top_count) {
				snprintf(others, sizeof(others), " (+%" PRIu32 " of others)",
					wk->ahead_count - wk->ahead_top_count);
			}
			q = leaf(w, top, i, a, SIM_ST_BLOCKED, DS_CHAIN_DISK, depth + 1,
				"queued %s behind %" PRIu32 " %s (%s) of %s/%d%s", queued, wk->ahead_top_count,
				wk->ahead_top_writes == wk->ahead_top_count ? "writes" :
				(wk->ahead_top_writes ? "requests" : "reads"), size, top->comm, top->tid, others);
			q->bytes = wk->ahead_top_bytes;
		} else {
			leaf(w, t, i, a, SIM_ST_BLOCKED, DS_CHAIN_DISK, depth + 1, "queued %s in the I/O scheduler", queued);
		}
	}
	if (c > a) {
		leaf(w, t, a, c, SIM_ST_BLOCKED, DS_CHAIN_DISK, depth + 1, "device 259:0: read")->bytes = wk->bytes;
	}
	if (y > c) {
		leaf(w, t, c, y, SIM_ST_BLOCKED, DS_CHAIN_IRQ, depth + 1, "after completion: irq:nvme0q1");
	}
}

/* A leaf of the network path, no thread's (the sender's host's, or in flight: the receiver's host's). */
static void network_leaf(struct sim_chain_leaf *l)
{
	if (l) {
		l->pid = -1;
		l->tid = -1;
		l->comm = "-";
	}
}

/*
 * Woken by a segment from `waker`: the sender before its first send, the retransmission wait, in flight,
 * after arrival.
 */
static void explain_segment_path(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_waker *wk,
		const struct sim_thread *waker, int64_t x, int64_t y, unsigned int depth)
{
	const struct sim *sim = w->sim;
	int64_t t_s = to_span_clock(w, waker->host, wk->t_s);
	int64_t t_f = to_span_clock(w, waker->host, wk->t_f);
	int64_t t_r = to_span_clock(w, t->host, wk->t_r);
	int64_t f = t_s > x ? t_s : x;
	int64_t g = t_r > x ? t_r : x;
	int64_t h = t_f > x ? t_f : x;

	if (t_f > x) {
		w->path[w->npath++] = waker;
		explain(w, waker, x, t_f < y ? t_f : y, depth + 1);
		w->npath--;
	}
	if (f > h) {
		network_leaf(leaf(w, waker, h, f < y ? f : y, SIM_ST_BLOCKED, DS_CHAIN_IN_FLIGHT, depth + 1,
			"retransmission wait: segment %s \u2192 %s", sim->host[waker->host].name, sim->host[t->host].name));
	}
	if (g > f) {
		network_leaf(leaf(w, t, f, g < y ? g : y, SIM_ST_BLOCKED, DS_CHAIN_IN_FLIGHT, depth + 1,
			"segment %s \u2192 %s%s", sim->host[waker->host].name, sim->host[t->host].name,
			t_f < t_s ? " (retransmitted)" : ""));
	}
	leaf(w, t, g, y, SIM_ST_BLOCKED, DS_CHAIN_SOFTIRQ, depth + 1, "after arrival: softirq:NET_RX");
}

/* Woken in a softirq: NET_RX of a known segment continues on its sender, else the softirq is the cause. */
static void explain_softirq_waker(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_waker *wk,
		const char *sys, int64_t x, int64_t y, unsigned int depth)
{
	const struct sim *sim = w->sim;
	const struct sim_thread *waker = wk->net_known ? sim_thread_find(sim, wk->host, wk->tid) : NULL;

	if (!waker) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_SOFTIRQ, depth, "%s \u2190 softirq:%s%s", sys,
			wk->name, strcmp(wk->name, "NET_RX") == 0 ? " (no matching send)" : "");
	} else if (depth + 1 > sim->cfg.chain_depth) {
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_DEPTH_LIMIT, depth, "%s \u2190 %s/%s/%d", sys,
			sim->host[waker->host].name, waker->comm, waker->tid);
	} else {
		explain_segment_path(w, t, wk, waker, x, y, depth);
	}
}

static void explain_blocked(struct sim_chain_walk *w, const struct sim_thread *t, const struct sim_piece *p,
		bool last, int64_t x, int64_t y, unsigned int depth)
{
	const struct sim_waker *wk = &p->waker;
	const char *sys = syscall_label(p);

	switch (wk->kind) {
	case SIM_WAKER_NONE:
		explain_no_waker(w, t, sys, last, x, y, depth);
		return;
	case SIM_WAKER_THREAD:
		explain_thread_waker(w, t, wk, sys, x, y, depth);
		return;
	case SIM_WAKER_TIMER:
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_TIMER, depth, "%s \u2190 timer", sys);
		return;
	case SIM_WAKER_IRQ:
		leaf(w, t, x, y, SIM_ST_BLOCKED, DS_CHAIN_IRQ, depth, "%s \u2190 irq:%s", sys, wk->name);
		return;
	case SIM_WAKER_DISK:
		explain_disk_waker(w, t, wk, x, y, depth);
		return;
	default:
		explain_softirq_waker(w, t, wk, sys, x, y, depth);
		return;
	}
}

static void explain(struct sim_chain_walk *w, const struct sim_thread *t, int64_t a, int64_t b, unsigned int depth)
{
	const GArray *h = t->book.history;
	guint i = 0;

	if (!h || h->len == 0) {
		leaf(w, t, a, b, SIM_ST_UNKNOWN, DS_CHAIN_UNKNOWN, depth, "unknown: not in the kernel trace");
		return;
	}
	if (a < w->oldest) {
		int64_t e = b < w->oldest ? b : w->oldest;

		leaf(w, t, a, e, SIM_ST_UNKNOWN, DS_CHAIN_UNKNOWN, depth, "unknown: history expired");
		a = e;
	}
	if (a < to_span_clock(w, t->host, g_array_index(h, struct sim_piece, 0).begin)) {
		int64_t first = to_span_clock(w, t->host, g_array_index(h, struct sim_piece, 0).begin);
		int64_t e = b < first ? b : first;

		leaf(w, t, a, e, SIM_ST_UNKNOWN, DS_CHAIN_UNKNOWN, depth, "unknown: no event yet");
		a = e;
	}
	if (piece_at(w, t, h, a) > 0) {
		i = (guint) piece_at(w, t, h, a);
	}
	for (; i < h->len && a < b; i++) {
		const struct sim_piece *p = &g_array_index(h, struct sim_piece, i);
		bool last = i + 1 == h->len;
		int64_t pe = last ? INT64_MAX : to_span_clock(w, t->host, g_array_index(h, struct sim_piece, i + 1).begin);
		int64_t x = a;
		int64_t y = b < pe ? b : pe;

		if (y <= x) {
			continue;
		}
		switch ((enum sim_tstate) p->state) {
		case SIM_ST_USER:
			leaf(w, t, x, y, SIM_ST_USER, DS_CHAIN_RUNNING, depth, "-");
			break;
		case SIM_ST_SYSCALL:
			leaf(w, t, x, y, SIM_ST_SYSCALL, DS_CHAIN_RUNNING, depth, "%s", syscall_label(p));
			break;
		case SIM_ST_INTERRUPTED:
			leaf(w, t, x, y, SIM_ST_INTERRUPTED, DS_CHAIN_RUNNING, depth, "%s",
				p->irq_name ? p->irq_name : "-");
			break;
		case SIM_ST_WAIT_CPU:
			explain_wait_cpu(w, t, p, x, y, depth);
			break;
		case SIM_ST_BLOCKED:
			explain_blocked(w, t, p, last, x, y, depth);
			break;
		default:
			leaf(w, t, x, y, SIM_ST_UNKNOWN, DS_CHAIN_UNKNOWN, depth, "unknown: no event yet");
			break;
		}
		a = y;
	}
}

void sim_chain_span(const struct sim *sim, const struct sim_thread *t, int64_t begin, int64_t end,
		GArray *leaves)
{
	struct sim_chain_walk w = {
		.sim = sim, .span_host = t->host, .leaves = leaves,
		.oldest = end - sim->cfg.chain_window_ns,
	};
	const GArray *h = t->book.history;
	guint i;

	if (!h) {
		return;
	}
	i = piece_at(&w, t, h, begin) > 0 ? (guint) piece_at(&w, t, h, begin) : 0;
	for (; i < h->len && g_array_index(h, struct sim_piece, i).begin < end; i++) {
		const struct sim_piece *p = &g_array_index(h, struct sim_piece, i);
		int64_t pe = i + 1 < h->len ? g_array_index(h, struct sim_piece, i + 1).begin : INT64_MAX;
		int64_t x = p->begin > begin ? p->begin : begin;
		int64_t y = pe < end ? pe : end;

		if (y <= x || (p->state != SIM_ST_BLOCKED && p->state != SIM_ST_WAIT_CPU)) {
			continue;
		}
		w.segment_begin = x;
		w.path[0] = t;
		w.npath = 1;
		explain(&w, t, x, y, 0);
	}
}
