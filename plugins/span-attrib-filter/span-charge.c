/* SPDX-License-Identifier: MIT */
/*
 * Spans charged by the thread model (thread-state.h, "Spans"): a span's life (new, attach, detach,
 * finish, free, the pool of freed spans), and what the model charges to it on every change of its thread's
 * effective state: state totals, segments (explained into chains as they close), syscall totals, reads.
 */
#include "thread-state.h"
#include "model-priv.h"

#include <string.h>

/*
 * Span accounting: a span attached to a thread is charged that thread's effective state; the
 * model calls sa_span_charge() on every change of it.
 */

/* Spans kept for reuse per model, and the longest array a kept span may keep (longer ones are freed). */
#define SPAN_POOL_MAX 64
#define SPAN_POOL_MAX_LEN 256

struct sa_span *sa_span_new(struct ds_model *model, int64_t begin)
{
	struct sa_span *span = model->span_pool;
	GArray *syscalls = NULL, *segments = NULL;

	if (span) {
		/* a span freed on this model: its arrays are empty, of the same kinds */
		model->span_pool = span->next_on_thread;
		model->span_pool_count--;
		syscalls = span->syscalls;
		segments = span->segments;
		memset(span, 0, sizeof(*span));
	} else {
		span = g_new0(struct sa_span, 1);
	}
	span->pid = -1;
	span->tid = -1;
	span->begin = begin;
	span->end = begin;
	span->cursor = begin;
	span->idle_state = DS_STATE_UNKNOWN;
	span->model = model;
	span->syscalls = syscalls ? syscalls : g_array_sized_new(FALSE, FALSE, sizeof(struct sa_syscall_total), 4);
	if (model->record_segments) {
		span->segments = segments ? segments : g_array_sized_new(FALSE, FALSE, sizeof(struct sa_segment), 16);
		if (model->chain) {
			span->chain = ds_chain_array_take(model->chain);
		}
	}
	return span;
}

/* Empties `array` for reuse; a long one is freed (NULL returned) so the pool holds little memory. */
static GArray *array_for_pool(GArray *array)
{
	if (array && array->len > SPAN_POOL_MAX_LEN) {
		g_array_free(array, TRUE);
		return NULL;
	}
	return array ? g_array_set_size(array, 0) : NULL;
}

void sa_span_pool_free(struct ds_model *model)
{
	while (model->span_pool) {
		struct sa_span *span = model->span_pool;

		model->span_pool = span->next_on_thread;
		if (span->syscalls) {
			g_array_free(span->syscalls, TRUE);
		}
		if (span->segments) {
			g_array_free(span->segments, TRUE);
		}
		g_free(span);
	}
	model->span_pool_count = 0;
}

static void unlink_from_thread(struct sa_span *span)
{
	if (span->prev_on_thread) {
		span->prev_on_thread->next_on_thread = span->next_on_thread;
	} else {
		span->thread->spans = span->next_on_thread;
	}
	if (span->next_on_thread) {
		span->next_on_thread->prev_on_thread = span->prev_on_thread;
	}
	span->thread = NULL;
	span->next_on_thread = NULL;
	span->prev_on_thread = NULL;
}

void sa_span_free(struct sa_span *span)
{
	if (!span) {
		return;
	}
	if (span->thread) {
		unlink_from_thread(span);
	}
	g_free(span->service);
	g_free(span->operation);
	if (span->chain) {
		/* back to the chain context's recycled arrays (chain-arrays.c), pooled span or not */
		ds_chain_array_give(span->model->chain, span->chain);
		span->chain = NULL;
	}
	if (span->reads) {
		g_array_free(span->reads, TRUE);
	}
	if (span->hc) {
		ds_hc_window_fini(span->hc);
		g_free(span->hc);
	}
	if (span->model && span->model->span_pool_count < SPAN_POOL_MAX) {
		/* kept for the model's next span (sa_span_new) */
		struct ds_model *model = span->model;
		GArray *syscalls = array_for_pool(span->syscalls);
		GArray *segments = array_for_pool(span->segments);

		memset(span, 0, sizeof(*span));
		span->syscalls = syscalls;
		span->segments = segments;
		span->next_on_thread = model->span_pool;
		model->span_pool = span;
		model->span_pool_count++;
		return;
	}
	if (span->segments) {
		g_array_free(span->segments, TRUE);
	}
	g_array_free(span->syscalls, TRUE);
	g_free(span);
}

static bool same_detail(const struct ds_detail *a, const struct ds_detail *b)
{
	return a->name == b->name && a->prefix == b->prefix && a->tid == b->tid &&
		(a->tid < 0 || strncmp(a->comm, b->comm, sizeof(a->comm)) == 0);
}

/* Chains: explains the segments closed so far (all but the last one, or all when `all`). */
static void explain_closed(struct sa_span *span, bool all)
{
	guint closed = span->segments->len - (all || span->segments->len == 0 ? 0 : 1);

	while (span->chain_done < closed) {
		ds_chain_explain_segment(span->model, span, span->chain_done++);
	}
}

void sa_span_charge(struct sa_span *span, int64_t ts, enum ds_state state,
		const struct ds_detail *detail, int64_t tid)
{
	struct sa_segment *last;
	struct sa_segment seg;

	if (ts <= span->cursor) {
		return;
	}
	span->states[state] += (uint64_t) (ts - span->cursor);
	if (span->segments) {
		if (span->segments->len) {
			last = &g_array_index(span->segments, struct sa_segment, span->segments->len - 1);
			if (last->state == state && last->end == span->cursor &&
					same_detail(&last->detail, detail) && (!span->chain || last->tid == tid)) {
				last->end = ts;
				goto end;
			}
		}
		seg.begin = span->cursor;
		seg.end = ts;
		seg.state = state;
		seg.detail = *detail;
		seg.tid = tid;
		g_array_append_val(span->segments, seg);
		if (span->chain) {
			explain_closed(span, false);
		}
	}
end:
	span->cursor = ts;
}

static void add_syscall(struct sa_span *span, const char *name, bool count, uint64_t duration)
{
	struct sa_syscall_total total = { name, 0, 0 };
	guint i;

	for (i = 0; i < span->syscalls->len; i++) {
		struct sa_syscall_total *t = &g_array_index(span->syscalls, struct sa_syscall_total, i);

		if (t->name == name) {
			t->count += count ? 1 : 0;
			t->duration += duration;
			return;
		}
	}
	total.count = count ? 1 : 0;
	total.duration = duration;
	g_array_append_val(span->syscalls, total);
}

void sa_span_syscall_done(struct sa_span *span, const struct ds_thread *thread, int64_t ts)
{
	int64_t from = thread->syscall_entry > span->attached_since ?
		thread->syscall_entry : span->attached_since;
	bool already = span->syscall_counted && span->syscall_seq_counted == thread->syscall_seq;

	if (!thread->syscall || ts < from) {
		return;
	}
	add_syscall(span, thread->syscall, !already, (uint64_t) (ts - from));
	span->syscall_counted = true;
	span->syscall_seq_counted = thread->syscall_seq;
}

/* Layers: a read-family syscall of `thread` ends at `ts` (doc/storage-network.md, "Page cache"). */
void sa_span_read_done(struct sa_span *span, const struct ds_thread *thread, int64_t ts)
{
	int64_t from = thread->syscall_entry > span->attached_since ?
		thread->syscall_entry : span->attached_since;
	uint64_t duration = ts > from ? (uint64_t) (ts - from) : 0;

	struct sa_read read = { from, ts > from ? ts : from, thread->read_missed };

	if (thread->read_missed) {
		span->cache_misses++;
		span->cache_miss_time += duration;
	} else {
		span->cache_hits++;
		span->cache_hit_time += duration;
	}
	/* per read, for the frames of each syscall (one allocation per span with reads) */
	if (!span->reads) {
		span->reads = g_array_sized_new(FALSE, FALSE, sizeof(struct sa_read), 2);
	}
	g_array_append_val(span->reads, read);
}

static void charge_idle(struct sa_span *span, int64_t ts)
{
	struct ds_detail detail = { "", span->idle_detail, -1, "" };

	sa_span_charge(span, ts, span->idle_state, &detail, -1);
}

void sa_span_attach(struct ds_model *model, struct sa_span *span, struct ds_thread *thread, int64_t ts)
{
	if (span->thread == thread) {
		return;
	}
	if (span->thread) {
		sa_span_detach(model, span, ts, DS_STATE_UNKNOWN, NULL);
	}
	charge_idle(span, ts);
	span->thread = thread;
	span->attached_since = ts;
	span->prev_on_thread = NULL;
	span->next_on_thread = thread->spans;
	if (thread->spans) {
		thread->spans->prev_on_thread = span;
	}
	thread->spans = span;
}

void sa_span_detach(struct ds_model *model, struct sa_span *span, int64_t ts,
		enum ds_state idle_state, const char *idle_detail)
{
	struct ds_thread *thread = span->thread;

	(void) model;
	if (thread) {
		sa_span_charge(span, ts, thread->state, &thread->detail, thread->tid);
		if (thread->syscall) {
			sa_span_syscall_done(span, thread, ts);
		}
		unlink_from_thread(span);
	} else {
		charge_idle(span, ts);
	}
	span->idle_state = idle_state;
	span->idle_detail = idle_detail;
}

void sa_span_finish(struct ds_model *model, struct sa_span *span, int64_t end)
{
	if (end < span->cursor) {
		end = span->cursor;
	}
	sa_span_detach(model, span, end, span->idle_state, span->idle_detail);
	span->end = end;
	if (span->chain) {
		explain_closed(span, true);
	}
	if (span->hc) {
		ds_hc_window_close(span->hc, end);
	}
}

void sa_span_open_host_window(struct ds_model *model, struct sa_span *span, int64_t ts)
{
	if (!model->hc || span->hc) {
		return;
	}
	span->hc = g_new0(struct ds_hc_window, 1);
	ds_hc_window_open(model->hc, span->hc, ts);
}
