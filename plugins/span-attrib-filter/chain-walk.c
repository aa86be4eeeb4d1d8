/* SPDX-License-Identifier: MIT */
/*
 * The walk of chains (doc/critical-path.md, "Semantics"): a waited segment of a span explained into entries
 * partitioning it, following wakers into other threads and, through the TCP send index, other hosts.
 */
#include "chain.h"
#include "detail-format.h"
#include "model-priv.h"
#include "block.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct walk_step {
	struct ds_model *model;		/* borrowed */
	int64_t tid;
};

struct chain_walk {
	struct ds_chain_ctx *ctx;	/* borrowed */
	GArray *out;			/* borrowed; the span's chain */
	uint64_t segment;
	bool at_end;			/* the span is truncated at the end of the trace */
	struct walk_step path[DS_CHAIN_MAX_DEPTH + 2];	/* the threads on the chain, depth 0 first */
	unsigned int path_len;
	const struct ds_model *host_model;	/* borrowed; NULL: none yet */
	const char *host;		/* borrowed: host_model's host name for the entries, "-" when unknown */
	uint8_t host_len;
};

static const char *text_or_none(const char *text)
{
	return text && text[0] ? text : "-";
}

static const char *comm_of(const struct ds_thread *thread)
{
	return thread && thread->comm[0] ? thread->comm : "?";
}

/* The process name of `thread`, resolved once per pid (cached in its history). */
static void process_of(struct ds_model *model, const struct ds_thread *thread, char *out)
{
	struct ds_thread_history *h = thread->chain;
	const struct ds_thread *leader;

	if (h && h->process[0] && h->process_pid == thread->pid) {
		memcpy(out, h->process, 16);
		return;
	}
	leader = thread->pid > 0 ? ds_model_thread(model, thread->pid, false) : NULL;
	ds_chain_text_copy(out, leader && leader->comm[0] ? leader->comm : text_or_none(thread->comm), 16);
	if (h && leader && leader->comm[0]) {
		memcpy(h->process, out, 16);
		h->process_pid = thread->pid;
	}
}

/* Appends an entry for `thread` of `model` (NULL: no thread) and returns its index. */
static int64_t add_entry(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		int64_t parent, unsigned int depth, int64_t begin, int64_t end, enum ds_state state,
		enum ds_chain_kind kind, int64_t cpu, const char *fmt, ...) G_GNUC_PRINTF(11, 12);

static int64_t add_entry(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		int64_t parent, unsigned int depth, int64_t begin, int64_t end, enum ds_state state,
		enum ds_chain_kind kind, int64_t cpu, const char *fmt, ...)
{
	struct ds_chain_entry *e;
	va_list args;

	/* filled in place: an entry is large (its detail) */
	g_array_set_size(w->out, w->out->len + 1);
	e = &g_array_index(w->out, struct ds_chain_entry, w->out->len - 1);
	e->segment = w->segment;
	e->parent = parent;
	e->depth = depth;
	e->begin = begin;
	e->end = end;
	if (model != w->host_model) {
		/* the host name's length, once per model walked in a row */
		w->host_model = model;
		w->host = model->host ? model->host : "-";
		w->host_len = (uint8_t) MIN(strlen(w->host), UINT8_MAX);
	}
	e->host = w->host;
	e->host_len = w->host_len;
	e->pid = thread ? thread->pid : -1;
	e->tid = thread ? thread->tid : -1;
	if (thread && thread->comm[0]) {
		memcpy(e->comm, thread->comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
	} else {
		memcpy(e->comm, "-", 2);
	}
	e->comm_len = (uint8_t) strlen(e->comm);
	if (thread) {
		process_of(model, thread, e->process);
	} else {
		memcpy(e->process, "-", 2);
	}
	e->process_len = (uint8_t) strlen(e->process);
	e->cpu = cpu;
	e->state = state;
	e->kind = kind;
	e->bytes = 0;
	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		/* the common case: a ready text */
		va_start(args, fmt);
		e->detail_len = (uint8_t) ds_chain_text_copy(e->detail, va_arg(args, const char *), sizeof(e->detail));
		va_end(args);
	} else if (!strchr(fmt, '%')) {
		/* a constant text ("ran instead: unknown") */
		e->detail_len = (uint8_t) ds_chain_text_copy(e->detail, fmt, sizeof(e->detail));
	} else {
		va_start(args, fmt);
		/* vsnprintf's bytes (chain-text.c) */
		e->detail_len = (uint8_t) ds_chain_text_vformat(e->detail, sizeof(e->detail), fmt, args);
		va_end(args);
	}
	if (!e->detail[0]) {
		memcpy(e->detail, "-", 2);
		e->detail_len = 1;
	}
	return (int64_t) w->out->len - 1;
}

/* Appends `text` to buf[*len] (size `size`, NUL-terminated, truncated like snprintf). */
static void text_cat(char *buf, size_t size, size_t *len, const char *text)
{
	size_t n = strlen(text);

	if (*len + n >= size) {
		n = *len + 1 < size ? size - 1 - *len : 0;
	}
	memcpy(buf + *len, text, n);
	*len += n;
	buf[*len] = '\0';
}

/* Appends `value` in decimal (PRId64) to buf[*len]. */
static void text_cat_int(char *buf, size_t size, size_t *len, int64_t value)
{
	char digits[24], *p = digits + sizeof(digits) - 1;
	uint64_t u = value < 0 ? (uint64_t) -(value + 1) + 1 : (uint64_t) value;

	*p = '\0';
	do {
		*--p = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	if (value < 0) {
		*--p = '-';
	}
	text_cat(buf, size, len, p);
}

/* "<syscall> ← <comm>/<tid>" into buf, as snprintf("%s \u2190 %s/%" PRId64) would write it. */
static void text_waker(char *buf, size_t size, const char *syscall, const char *comm, int64_t tid)
{
	size_t len = 0;

	buf[0] = '\0';
	text_cat(buf, size, &len, syscall);
	text_cat(buf, size, &len, " \u2190 ");
	text_cat(buf, size, &len, comm);
	text_cat(buf, size, &len, "/");
	text_cat_int(buf, size, &len, tid);
}

/* "<prefix><comm>/<tid>" into buf, as snprintf("%s%s/%" PRId64) would write it. */
static const char *text_thread(char *buf, size_t size, const char *prefix, const char *comm, int64_t tid)
{
	size_t len = 0;

	buf[0] = '\0';
	text_cat(buf, size, &len, prefix);
	text_cat(buf, size, &len, comm);
	text_cat(buf, size, &len, "/");
	text_cat_int(buf, size, &len, tid);
	return buf;
}

static int path_find(const struct chain_walk *w, const struct ds_model *model, int64_t tid)
{
	unsigned int i;

	for (i = 0; i < w->path_len; i++) {
		if (w->path[i].model == model && w->path[i].tid == tid) {
			return (int) i;
		}
	}
	return -1;
}

/* "comm/tid ← comm/tid ← ..." of the path from index `from`, then `comm/tid` of the thread found again. */
static void format_cycle(const struct chain_walk *w, unsigned int from, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = from; i <= w->path_len && len < size; i++) {
		const struct walk_step *step = &w->path[i < w->path_len ? i : from];
		const struct ds_thread *t = ds_model_thread(step->model, step->tid, false);
		int n = snprintf(buf + len, size - len, "%s%s/%" PRId64, i == from ? "" : " \u2190 ", comm_of(t),
			step->tid);

		len += n > 0 ? (size_t) n : 0;
	}
}

static void note_deadlock(struct chain_walk *w, const char *detail)
{
	w->ctx->counters.deadlocks++;
	if (!w->ctx->counters.first_deadlock[0]) {
		g_strlcpy(w->ctx->counters.first_deadlock, detail, sizeof(w->ctx->counters.first_deadlock));
	}
}

static void explain(struct chain_walk *w, struct ds_model *model, int64_t tid, int64_t a, int64_t b,
		unsigned int depth, int64_t parent);

/* A leaf `deadlock` of `thread` over [x, y): the chain came back to path[found]. */
static void deadlock_leaf(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread, int found,
		int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	char cycle[DS_CHAIN_DETAIL_SIZE];
	int64_t e;

	format_cycle(w, (unsigned int) found, cycle, sizeof(cycle));
	e = add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DEADLOCK, -1,
		"deadlock: %s", cycle);
	note_deadlock(w, g_array_index(w->out, struct ds_chain_entry, e).detail);
}

/* Explains [x, y) by the thread `next` of `next_model` at `depth`, under `parent`, with it on the path. */
static void descend(struct chain_walk *w, struct ds_model *next_model, int64_t next, int64_t x, int64_t y,
		unsigned int depth, int64_t parent)
{
	w->path[w->path_len].model = next_model;
	w->path[w->path_len].tid = next;
	w->path_len++;
	explain(w, next_model, next, x, y, depth, parent);
	w->path_len--;
}

/* Who ran on `cpu` over [x, y) while `thread` waited for it. */
static void explain_wait_cpu(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		int32_t cpu_id, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	const struct cpu_state *cpu = cpu_id >= 0 && (unsigned int) cpu_id < model->cpu_count ?
		&model->cpus[cpu_id] : NULL;
	guint lo, hi, r;

	if (!cpu || !cpu->runs || cpu->runs_head >= cpu->runs->len) {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_WAIT_CPU, DS_CHAIN_WAIT_CPU, cpu_id,
			"ran instead: unknown");
		return;
	}
	/* the last run beginning at or before x */
	lo = cpu->runs_head;
	hi = cpu->runs->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(cpu->runs, struct ds_cpu_run, mid).begin <= x) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == cpu->runs_head) {
		int64_t first = g_array_index(cpu->runs, struct ds_cpu_run, lo).begin;
		int64_t e = first < y ? first : y;

		if (cpu->runs_pruned) {
			w->ctx->counters.history_expired++;
			add_entry(w, model, thread, parent, depth, x, e, DS_STATE_WAIT_CPU, DS_CHAIN_UNKNOWN, -1,
				"unknown: history expired");
		} else {
			add_entry(w, model, thread, parent, depth, x, e, DS_STATE_WAIT_CPU, DS_CHAIN_WAIT_CPU, cpu_id,
				"ran instead: unknown");
		}
		x = e;
		r = lo;
	} else {
		r = lo - 1;
	}
	for (; x < y && r < cpu->runs->len; r++) {
		const struct ds_cpu_run *run = &g_array_index(cpu->runs, struct ds_cpu_run, r);
		int64_t end = r + 1 < cpu->runs->len ? g_array_index(cpu->runs, struct ds_cpu_run, r + 1).begin : y;

		if (end > y) {
			end = y;
		}
		if (end <= x) {
			continue;
		}
		if (run->tid == 0) {
			add_entry(w, model, thread, parent, depth, x, end, DS_STATE_WAIT_CPU, DS_CHAIN_WAIT_CPU, cpu_id,
				"%s", "ran instead: idle");
		} else if (run->tid < 0) {
			add_entry(w, model, thread, parent, depth, x, end, DS_STATE_WAIT_CPU, DS_CHAIN_WAIT_CPU, cpu_id,
				"ran instead: unknown");
		} else {
			char buf[DS_CHAIN_DETAIL_SIZE];

			add_entry(w, model, thread, parent, depth, x, end, DS_STATE_WAIT_CPU, DS_CHAIN_WAIT_CPU, cpu_id,
				"%s", text_thread(buf, sizeof(buf), "ran instead: ", text_or_none(run->comm), run->tid));
		}
		x = end;
	}
}

/* The last waker of a thread blocked in `syscall`, NULL when none is known. */
static const struct ds_last_waker *last_waker(const struct ds_thread_history *h, const char *syscall)
{
	unsigned int i;

	for (i = 0; syscall && i < DS_LAST_WAKERS; i++) {
		if (h->last_wakers[i].syscall == syscall) {
			return &h->last_wakers[i];
		}
	}
	return NULL;
}

/* A thread blocked at the end of the trace: a cycle of last wakers for the same resource comes back to it. */
static bool end_deadlock(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		char *buf, size_t size)
{
	struct walk_step hops[DS_CHAIN_MAX_DEPTH + 1];
	const struct ds_thread *cur = thread;
	struct ds_model *cur_model = model;
	unsigned int n = 0, i;
	size_t len = 0;
	bool cycle = false;

	while (n <= w->ctx->depth) {
		const struct ds_last_waker *lw = cur->chain ? last_waker(cur->chain, cur->syscall) : NULL;
		const struct ds_thread *next;

		hops[n].model = cur_model;
		hops[n].tid = cur->tid;
		n++;
		if (!lw) {
			break;
		}
		if (!lw->model) {
			ds_chain_cross_host_need(w->ctx, cur_model, cur->tid, cur->chain->open_since,
				"end-of-trace deadlock check through a wait ended by a TCP segment from another host");
			break;
		}
		next = ds_model_thread(lw->model, lw->tid, false);
		if (!next || next->sched != DS_SCHED_BLOCKED || !next->syscall) {
			break;
		}
		if (lw->model == model && next->tid == thread->tid) {
			cycle = true;
			break;
		}
		for (i = 0; i < n && !(hops[i].model == lw->model && hops[i].tid == next->tid); i++) {
		}
		if (i < n) {
			break;	/* a cycle that does not come back to this thread */
		}
		cur = next;
		cur_model = lw->model;
	}
	if (!cycle) {
		return false;
	}
	len = (size_t) snprintf(buf, size, "deadlock:");
	for (i = 0; i <= n && len < size; i++) {
		const struct walk_step *hop = &hops[i < n ? i : 0];
		const struct ds_thread *t = ds_model_thread(hop->model, hop->tid, false);
		int k;

		if (i < n) {
			k = snprintf(buf + len, size - len, "%s %s/%" PRId64 " (host %s, %s)", i ? " \u2190" : "",
				comm_of(t), hop->tid, hop->model->host, t && t->syscall ? t->syscall : "-");
		} else {
			k = snprintf(buf + len, size - len, " \u2190 %s/%" PRId64, comm_of(t), hop->tid);
		}
		len += k > 0 ? (size_t) k : 0;
	}
	return true;
}

static int64_t clamp(int64_t t, int64_t x, int64_t y)
{
	return t < x ? x : (t > y ? y : t);
}

/*
 * Layers: a blocked piece woken by the completion of a known block request (doc/storage-network.md,
 * "Storage"): an entry `disk` whose children partition [x, y): not yet queued (the request was inserted
 * after the thread blocked), queue time (insert to issue; charged to the top submitter served ahead of it
 * when there is one), device time (issue to complete), and completion to wakeup.  False (nothing added)
 * when the completion record is not known.
 */
static bool explain_disk(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	const struct ds_block_done *d = model->block && p->wake.blk_seq ?
		ds_block_find_done(model->block, p->wake.blk_seq - 1) : NULL;
	const char *sc = p->syscall ? p->syscall : "-";
	char dev[64], size[32], queued[32];
	int64_t a, b, c, e;

	if (!d) {
		return false;
	}
	ds_block_device_label(model->block, d->dev, dev, sizeof(dev));
	ds_detail_format_bytes(d->bytes, size, sizeof(size));
	a = clamp(d->insert_ts, x, y);
	b = clamp(d->issue_ts, a, y);
	c = clamp(d->complete_ts, b, y);
	ds_detail_format_duration(b - a, queued, sizeof(queued));
	e = add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
		"%s \u2190 disk %s %s %s at sector %" PRIu64, sc, dev, d->write ? "write" : "read", size, d->sector);
	g_array_index(w->out, struct ds_chain_entry, e).bytes = d->bytes;
	if (a > x) {
		add_entry(w, model, thread, e, depth + 1, x, a, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
			"before the request was queued");
	}
	if (b > a && d->ahead.count) {
		const struct ds_block_ahead *ah = &d->ahead;
		const struct ds_thread *top = ah->top_tid > 0 ? ds_model_thread(model, ah->top_tid, false) : NULL;
		char ahead_size[32], others[48] = "";
		const char *what = ah->top_writes == ah->top_count ? "writes" : (ah->top_writes ? "requests" : "reads");
		int64_t leaf;

		ds_detail_format_bytes(ah->top_bytes, ahead_size, sizeof(ahead_size));
		if (ah->count > ah->top_count) {
			snprintf(others, sizeof(others), " (+%" PRIu32 " of others)", ah->count - ah->top_count);
		}
		leaf = add_entry(w, model, top, e, depth + 1, a, b, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
			"queued %s behind %" PRIu32 " %s (%s) of %s/%" PRId64 "%s", queued, ah->top_count, what,
			ahead_size, ah->top_comm, ah->top_tid, others);
		g_array_index(w->out, struct ds_chain_entry, leaf).bytes = ah->top_bytes;
		if (!top) {
			/* the submitter is not in the model (an old layout without `tid`): name it as recorded */
			struct ds_chain_entry *entry = &g_array_index(w->out, struct ds_chain_entry, leaf);

			entry->tid = ah->top_tid;
			entry->comm_len = (uint8_t) ds_chain_text_copy(entry->comm, ah->top_comm, sizeof(entry->comm));
			entry->process_len = (uint8_t) ds_chain_text_copy(entry->process, ah->top_comm,
				sizeof(entry->process));
		}
	} else if (b > a) {
		add_entry(w, model, thread, e, depth + 1, a, b, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
			"queued %s in the I/O scheduler", queued);
	}
	if (c > b) {
		int64_t device = add_entry(w, model, thread, e, depth + 1, b, c, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
			"device %s: %s %s", dev, d->write ? "write" : "read", size);

		g_array_index(w->out, struct ds_chain_entry, device).bytes = d->bytes;
	}
	if (y > c) {
		add_entry(w, model, thread, e, depth + 1, c, y, DS_STATE_BLOCKED, DS_CHAIN_IRQ, -1,
			"after completion: irq:%s", text_or_none(p->wake.name));
	}
	return true;
}

/* A blocked piece still open when the segment was walked: a deadlock at the end of the trace, or unknown. */
static void explain_open_blocked(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const char *sc, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	char buf[DS_CHAIN_DETAIL_SIZE];
	int64_t e;

	if (w->at_end && end_deadlock(w, model, thread, buf, sizeof(buf))) {
		e = add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DEADLOCK, -1,
			"%s", buf);
		note_deadlock(w, g_array_index(w->out, struct ds_chain_entry, e).detail);
	} else if (w->at_end) {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: still blocked at end of trace in %s", sc);
	} else {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: waker not seen");
	}
}

/* Woken by a thread: a deadlock when it is on the chain already, else its own time over [x, y). */
static void explain_thread_wake(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, const char *sc, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	const char *comm = p->detail.comm[0] ? p->detail.comm : "?";
	int found = path_find(w, model, p->wake.tid);
	char buf[DS_CHAIN_DETAIL_SIZE];
	int64_t e;

	text_waker(buf, sizeof(buf), sc, comm, p->wake.tid);
	if (found >= 0) {
		deadlock_leaf(w, model, thread, found, x, y, depth, parent);
	} else if (depth + 1 > w->ctx->depth) {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DEPTH_LIMIT, -1,
			"%s", buf);
	} else {
		e = add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_WAIT, -1,
			"%s", buf);
		descend(w, model, p->wake.tid, x, y, depth + 1, e);
	}
}

/* The sender's part [x, t_f) of a network entry `e`: its thread before the key's first send. */
static void explain_sender(struct chain_walk *w, const struct ds_tcp_send *first, const struct ds_thread *sender,
		int64_t x, int64_t t_f, unsigned int depth, int64_t e)
{
	int found = first->tid > 0 ? path_find(w, first->model, first->tid) : -1;

	if (found >= 0) {
		deadlock_leaf(w, first->model, sender, found, x, t_f, depth, e);
	} else if (first->tid > 0) {
		descend(w, first->model, first->tid, x, t_f, depth, e);
	} else if (first->irq) {
		/* the kernel sent it (ACK-clocked data, a timer): which thread queued it is not known */
		add_entry(w, first->model, NULL, e, depth, x, t_f, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: sent from %s:%s on %s, no thread", first->irq_soft ? "softirq" : "irq",
			first->irq, first->model->host);
	} else {
		add_entry(w, first->model, NULL, e, depth, x, t_f, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: no thread current at the send on %s", first->model->host);
	}
}

/*
 * The children of a network entry `e` over [x, y): x <= t_f <= t_s <= t_r <= y: the sender before its first
 * send, the retransmission wait, in flight, after arrival.
 */
static void explain_segment_path(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, const struct ds_tcp_send *send, const struct ds_tcp_send *first,
		const struct ds_thread *sender, int64_t x, int64_t y, unsigned int depth, int64_t e)
{
	int64_t t_r = p->wake.rx_ts < x ? x : (p->wake.rx_ts > y ? y : p->wake.rx_ts);
	int64_t t_s = send->ts < x ? x : send->ts;
	int64_t t_f = first->ts < x ? x : first->ts;

	if (t_s > t_r) {
		/* received before it was sent: the hosts' clocks are not synchronized (doc/storage-network.md) */
		w->ctx->counters.in_flight_clipped++;
		t_s = t_r;
	}
	if (t_f > t_s) {
		t_f = t_s;
	}
	if (t_f > x) {
		explain_sender(w, first, sender, x, t_f, depth, e);
	}
	if (t_s > t_f) {
		/* the first send was lost: the sender's host waited for its retransmission timer */
		add_entry(w, first->model, NULL, e, depth, t_f, t_s, DS_STATE_BLOCKED, DS_CHAIN_IN_FLIGHT, -1,
			"retransmission wait: segment %s \u2192 %s", first->model->host, model->host);
	}
	if (t_r > t_s) {
		add_entry(w, model, NULL, e, depth, t_s, t_r, DS_STATE_BLOCKED, DS_CHAIN_IN_FLIGHT, -1,
			"segment %s \u2192 %s%s%s", send->model->host, model->host,
			send->count > 1 ? " (retransmitted)" : "", p->wake.received_twice ? " (received twice)" : "");
	}
	if (y > t_r) {
		add_entry(w, model, thread, e, depth, t_r, y, DS_STATE_BLOCKED, DS_CHAIN_SOFTIRQ, -1,
			"after arrival: softirq:NET_RX");
	}
}

/*
 * Woken by a TCP segment (doc/storage-network.md, "Network"): the send matched at the wakeup (the last one at
 * or before the receive), else looked up again now; the sender is the thread of the key's first send.
 */
static void explain_net_wake(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, const char *sc, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	const struct ds_tcp_send *send = p->wake.send_seq ? ds_chain_send_at(w->ctx, p->wake.send_seq - 1) : NULL;
	const struct ds_tcp_send *first;
	const struct ds_thread *sender;
	char buf[DS_CHAIN_DETAIL_SIZE];
	int64_t e;

	if (p->wake.no_net_events) {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: %s \u2190 softirq:NET_RX, no network events recorded on %s", sc,
			model->host ? model->host : "-");
		return;
	}
	if (!send || !ds_tcp_key_equal(&send->key, &p->wake.key)) {
		send = ds_chain_send_before(w->ctx, &p->wake.key, p->wake.rx_ts);
	}
	if (!send) {
		ds_chain_cross_host_need(w->ctx, model, thread->tid, x,
			"wait ended by a TCP segment not sent on this host");
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_SOFTIRQ, -1,
			"%s \u2190 softirq:NET_RX (no matching send)", sc);
		return;
	}
	first = ds_chain_send_first(w->ctx, send);
	sender = ds_model_thread(first->model, first->tid, false);
	if (first->tid <= 0 && first->irq) {
		ds_chain_text_format(buf, sizeof(buf), "%s \u2190 %s/%s:%s", sc, first->model->host,
			first->irq_soft ? "softirq" : "irq", first->irq);
	} else {
		ds_chain_text_format(buf, sizeof(buf), "%s \u2190 %s/%s/%" PRId64, sc, first->model->host,
			comm_of(sender), first->tid);
	}
	if (depth + 1 > w->ctx->depth) {
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DEPTH_LIMIT, -1,
			"%s", buf);
		return;
	}
	e = add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_NETWORK, -1, "%s", buf);
	explain_segment_path(w, model, thread, p, send, first, sender, x, y, depth + 1, e);
}

static void explain_blocked(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, bool open, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	const char *sc = p->syscall ? p->syscall : "-";

	if (open) {
		explain_open_blocked(w, model, thread, sc, x, y, depth, parent);
		return;
	}
	switch (p->wake.kind) {
	case DS_WAKE_THREAD:
		explain_thread_wake(w, model, thread, p, sc, x, y, depth, parent);
		return;
	case DS_WAKE_TIMER:
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_TIMER, -1,
			"%s \u2190 timer", sc);
		return;
	case DS_WAKE_IRQ:
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_IRQ, -1,
			"%s \u2190 irq:%s", sc, text_or_none(p->wake.name));
		return;
	case DS_WAKE_SOFTIRQ:
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_SOFTIRQ, -1,
			"%s \u2190 softirq:%s", sc, text_or_none(p->wake.name));
		return;
	case DS_WAKE_DISK:
		if (!explain_disk(w, model, thread, p, x, y, depth, parent)) {
			add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_DISK, -1,
				"%s \u2190 disk dev %" PRIu64 ":%" PRIu64, sc, p->wake.dev >> 20, p->wake.dev & 0xfffff);
		}
		return;
	case DS_WAKE_NET:
		explain_net_wake(w, model, thread, p, sc, x, y, depth, parent);
		return;
	default:
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_BLOCKED, DS_CHAIN_UNKNOWN, -1,
			"unknown: waker not seen");
		return;
	}
}

static void explain_piece(struct chain_walk *w, struct ds_model *model, const struct ds_thread *thread,
		const struct ds_piece *p, bool open, int64_t x, int64_t y, unsigned int depth, int64_t parent)
{
	char buf[64];

	switch (p->state) {
	case DS_STATE_USER:
	case DS_STATE_SYSCALL:
	case DS_STATE_INTERRUPTED:
		add_entry(w, model, thread, parent, depth, x, y, p->state, DS_CHAIN_RUNNING, p->cpu, "%s",
			text_or_none(ds_detail_text(&p->detail, buf, sizeof(buf))));
		break;
	case DS_STATE_WAIT_CPU:
		explain_wait_cpu(w, model, thread, p->cpu, x, y, depth, parent);
		break;
	case DS_STATE_BLOCKED:
		explain_blocked(w, model, thread, p, open, x, y, depth, parent);
		break;
	default:
		add_entry(w, model, thread, parent, depth, x, y, DS_STATE_UNKNOWN, DS_CHAIN_UNKNOWN, -1,
			"unknown: %s", p->reason ? p->reason : "no event yet");
		break;
	}
}

/* explain(T, [a, b), d, parent) of doc/critical-path.md, "Semantics". */
static void explain(struct chain_walk *w, struct ds_model *model, int64_t tid, int64_t a, int64_t b,
		unsigned int depth, int64_t parent)
{
	const struct ds_thread *thread = ds_model_thread(model, tid, false);
	const struct ds_thread_history *h;
	struct ds_piece open;
	int64_t oldest;
	guint lo, hi, i;

	if (a >= b) {
		return;
	}
	if (!thread || !thread->chain) {
		add_entry(w, model, NULL, parent, depth, a, b, DS_STATE_UNKNOWN, DS_CHAIN_UNKNOWN, -1,
			"unknown: not in the kernel trace");
		return;
	}
	h = thread->chain;
	oldest = h->head < h->len ? ds_chain_piece_at(h, h->head)->begin : h->open_since;
	if (a < oldest) {
		int64_t e = oldest < b ? oldest : b;

		if (h->pruned) {
			w->ctx->counters.history_expired++;
		}
		if (!h->pruned && thread->forked_by > 0 && w->path_len < G_N_ELEMENTS(w->path) &&
				ds_model_thread(model, thread->forked_by, false) &&
				path_find(w, model, thread->forked_by) < 0) {
			/* not born yet: its creator's time until the fork (doc/critical-path.md, "Semantics") */
			descend(w, model, thread->forked_by, a, e, depth, parent);
		} else {
			add_entry(w, model, thread, parent, depth, a, e, DS_STATE_UNKNOWN, DS_CHAIN_UNKNOWN, -1,
				"unknown: %s", h->pruned ? "history expired" : "no event yet");
		}
		a = e;
	}
	/* the first closed piece ending after a */
	lo = h->head;
	hi = h->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (ds_chain_piece_at(h, mid)->end <= a) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	open.begin = h->open_since;
	open.end = INT64_MAX;
	open.state = thread->state;
	open.detail = thread->detail;
	open.syscall = thread->syscall;
	open.reason = h->open_reason;
	open.cpu = h->open_cpu;
	memset(&open.wake, 0, sizeof(open.wake));
	for (i = lo; a < b && i <= h->len; i++) {
		const struct ds_piece *p = i < h->len ? ds_chain_piece_at(h, i) : &open;
		int64_t x = a > p->begin ? a : p->begin;
		int64_t y = b < p->end ? b : p->end;

		if (x > a) {
			/* a gap in the history (cannot happen: pieces are contiguous) stays explained */
			add_entry(w, model, thread, parent, depth, a, x, DS_STATE_UNKNOWN, DS_CHAIN_UNKNOWN, -1,
				"unknown: no event yet");
		}
		if (x < y) {
			explain_piece(w, model, thread, p, p == &open, x, y, depth, parent);
		}
		a = y > a ? y : a;
	}
}

/*
 * The same segment of the same thread walked last in this charge (another span of the thread): its
 * entries copied under `index`, and what the walk counted counted again.  false when there is none.
 */
static bool replay_memo(struct ds_chain_ctx *ctx, const struct ds_model *model, struct sa_span *span,
		const struct sa_segment *seg, guint index)
{
	guint base = span->chain->len, i;

	if (!ctx->memo.open || !ctx->memo.valid || ctx->memo.entries == span->chain ||
			ctx->memo.model != model || ctx->memo.tid != seg->tid || ctx->memo.begin != seg->begin ||
			ctx->memo.end != seg->end || ctx->memo.state != (int) seg->state ||
			ctx->memo.at_end != span->truncated) {
		return false;
	}
	/* one pass: each entry copied and renumbered (one bulk copy, then a second pass, cost more) */
	g_array_set_size(span->chain, base + ctx->memo.count);
	for (i = 0; i < ctx->memo.count; i++) {
		struct ds_chain_entry *e = &g_array_index(span->chain, struct ds_chain_entry, base + i);

		*e = g_array_index(ctx->memo.entries, struct ds_chain_entry, ctx->memo.base + i);
		e->segment = index;
		if (e->parent >= 0) {
			e->parent = e->parent - (int64_t) ctx->memo.base + (int64_t) base;
		}
	}
	ctx->counters.history_expired += ctx->memo.history_expired;
	ctx->counters.in_flight_clipped += ctx->memo.in_flight_clipped;
	ctx->counters.deadlocks += ctx->memo.deadlocks;
	return true;
}

void ds_chain_explain_segment(struct ds_model *model, struct sa_span *span, guint index)
{
	const struct sa_segment *seg = &g_array_index(span->segments, struct sa_segment, index);
	struct ds_chain_counters counted;
	struct chain_walk w;
	guint base;

	if (!model->chain || !span->chain ||
			(seg->state != DS_STATE_BLOCKED && seg->state != DS_STATE_WAIT_CPU)) {
		return;
	}
	w.ctx = model->chain;
	w.host_model = NULL;
	w.out = span->chain;
	w.segment = index;
	w.at_end = span->truncated;
	w.path_len = 0;
	if (seg->tid < 0) {
		struct ds_thread *thread = ds_model_thread(model, span->tid, false);

		add_entry(&w, model, thread, -1, 0, seg->begin, seg->end, seg->state, DS_CHAIN_UNKNOWN, -1,
			"unknown: span inactive");
		return;
	}
	if (replay_memo(w.ctx, model, span, seg, index)) {
		return;
	}
	counted = w.ctx->counters;
	base = w.out->len;
	w.path[0].model = model;
	w.path[0].tid = seg->tid;
	w.path_len = 1;
	explain(&w, model, seg->tid, seg->begin, seg->end, 0, -1);
	if (w.ctx->memo.open) {
		struct ds_chain_ctx *ctx = w.ctx;

		ctx->memo.valid = true;
		ctx->memo.model = model;
		ctx->memo.tid = seg->tid;
		ctx->memo.begin = seg->begin;
		ctx->memo.end = seg->end;
		ctx->memo.state = (int) seg->state;
		ctx->memo.at_end = span->truncated;
		ctx->memo.entries = w.out;
		ctx->memo.base = base;
		ctx->memo.count = w.out->len - base;
		ctx->memo.history_expired = ctx->counters.history_expired - counted.history_expired;
		ctx->memo.in_flight_clipped = ctx->counters.in_flight_clipped - counted.in_flight_clipped;
		ctx->memo.deadlocks = ctx->counters.deadlocks - counted.deadlocks;
	}
}

void ds_chain_share_walks(struct ds_model *model, bool on)
{
	if (model->chain) {
		model->chain->memo.open = on;
		model->chain->memo.valid = false;
	}
}
