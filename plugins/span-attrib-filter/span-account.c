#include "span-account.h"

#include <string.h>

struct sa_span *sa_span_new(struct ds_model *model, int64_t begin)
{
	struct sa_span *span = g_new0(struct sa_span, 1);

	span->pid = -1;
	span->tid = -1;
	span->begin = begin;
	span->end = begin;
	span->cursor = begin;
	span->idle_state = DS_STATE_UNKNOWN;
	span->syscalls = g_array_sized_new(FALSE, FALSE, sizeof(struct sa_syscall_total), 4);
	if (ds_model_records_segments(model)) {
		span->segments = g_array_sized_new(FALSE, FALSE, sizeof(struct sa_segment), 16);
	}
	return span;
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

void sa_span_charge(struct sa_span *span, int64_t ts, enum ds_state state,
		const struct ds_detail *detail)
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
					same_detail(&last->detail, detail)) {
				last->end = ts;
				goto end;
			}
		}
		seg.begin = span->cursor;
		seg.end = ts;
		seg.state = state;
		seg.detail = *detail;
		g_array_append_val(span->segments, seg);
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

static void charge_idle(struct sa_span *span, int64_t ts)
{
	struct ds_detail detail = { "", span->idle_detail, -1, "" };

	sa_span_charge(span, ts, span->idle_state, &detail);
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
		sa_span_charge(span, ts, thread->state, &thread->detail);
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
}
