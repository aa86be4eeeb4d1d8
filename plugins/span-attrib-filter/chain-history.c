/* SPDX-License-Identifier: MIT */
/*
 * The history the models keep for chains (doc/critical-path.md): per thread its effective-state pieces
 * with the waker of each blocked piece and its last wakers, per CPU the timeline of its current thread, both
 * for `chain-window` behind the model's time.
 */
#include "chain.h"
#include "model-priv.h"

#include <string.h>

void ds_chain_thread_init(struct ds_model *model, struct ds_thread *thread)
{
	struct ds_thread_history *h = g_new0(struct ds_thread_history, 1);

	h->open_since = model->last_ts;
	h->open_cpu = thread->cpu;
	h->open_reason = thread->unknown_reason;
	thread->chain = h;
}

void ds_chain_thread_fini(struct ds_thread *thread)
{
	if (thread->chain) {
		guint i;

		for (i = 0; i < thread->chain->block_count; i++) {
			g_free(thread->chain->blocks[i]);
		}
		g_free(thread->chain->blocks);
		g_free(thread->chain);
		thread->chain = NULL;
	}
}

void ds_chain_piece_close(struct ds_model *model, struct ds_thread *thread, int64_t ts)
{
	struct ds_thread_history *h = thread->chain;
	int64_t limit = ds_chain_window_limit(model->chain, ts);

	if (ts > h->open_since) {
		struct ds_piece *piece;

		if (h->len == h->block_count * DS_PIECE_BLOCK) {
			if (h->block_count == h->block_alloc) {
				h->block_alloc = h->block_alloc ? h->block_alloc * 2 : 4;
				h->blocks = g_renew(struct ds_piece *, h->blocks, h->block_alloc);
			}
			h->blocks[h->block_count++] = g_new(struct ds_piece, DS_PIECE_BLOCK);
		}
		piece = ds_chain_piece_at(h, h->len++);
		piece->begin = h->open_since;
		piece->end = ts;
		piece->state = thread->state;
		piece->detail = thread->detail;
		piece->syscall = thread->syscall;
		piece->reason = h->open_reason;
		piece->cpu = h->open_cpu;
		piece->wake = h->wake;
		while (h->head < h->len && ds_chain_piece_at(h, h->head)->end <= limit) {
			h->head++;
			h->pruned = true;
		}
		/* the first block's pieces all left the window: free it (the others move down one slot) */
		while (h->head >= DS_PIECE_BLOCK) {
			g_free(h->blocks[0]);
			memmove(h->blocks, h->blocks + 1, (h->block_count - 1) * sizeof(*h->blocks));
			h->block_count--;
			h->head -= DS_PIECE_BLOCK;
			h->len -= DS_PIECE_BLOCK;
		}
		h->open_since = ts;
	}
	h->open_cpu = thread->cpu;
	h->open_reason = thread->unknown_reason;
	memset(&h->wake, 0, sizeof(h->wake));
}

void ds_chain_cpu_run(struct ds_model *model, struct cpu_state *cpu, int64_t ts, int64_t tid, const char *comm)
{
	int64_t limit = ds_chain_window_limit(model->chain, ts);
	struct ds_cpu_run run;

	if (!cpu->runs) {
		cpu->runs = g_array_sized_new(FALSE, FALSE, sizeof(struct ds_cpu_run), 64);
	}
	if (cpu->runs->len > cpu->runs_head &&
			g_array_index(cpu->runs, struct ds_cpu_run, cpu->runs->len - 1).tid == tid) {
		return;
	}
	memset(&run, 0, sizeof(run));
	run.begin = ts;
	run.tid = tid;
	if (comm) {
		ds_chain_text_copy(run.comm, comm, sizeof(run.comm));
	}
	g_array_append_val(cpu->runs, run);
	/* a run ends where the next begins */
	while (cpu->runs_head + 1 < cpu->runs->len &&
			g_array_index(cpu->runs, struct ds_cpu_run, cpu->runs_head + 1).begin <= limit) {
		cpu->runs_head++;
		cpu->runs_pruned = true;
	}
	if (cpu->runs_head >= DS_CHAIN_COMPACT_MIN && cpu->runs_head * 2 >= cpu->runs->len) {
		g_array_remove_range(cpu->runs, 0, cpu->runs_head);
		cpu->runs_head = 0;
	}
}

void ds_chain_cpu_fini(struct cpu_state *cpu)
{
	if (cpu->runs) {
		g_array_free(cpu->runs, TRUE);
		cpu->runs = NULL;
	}
}

static void remember_waker(struct ds_thread_history *h, const char *syscall, struct ds_model *model, int64_t tid)
{
	unsigned int i, slot = h->last_waker_next;

	if (!syscall || tid <= 0) {
		return;
	}
	for (i = 0; i < DS_LAST_WAKERS; i++) {
		if (h->last_wakers[i].syscall == syscall || !h->last_wakers[i].syscall) {
			slot = i;
			break;
		}
	}
	if (slot == h->last_waker_next) {
		h->last_waker_next = (h->last_waker_next + 1) % DS_LAST_WAKERS;
	}
	h->last_wakers[slot].syscall = syscall;
	h->last_wakers[slot].model = model;
	h->last_wakers[slot].tid = tid;
}

static bool is_timer_softirq(const char *name)
{
	return name && (strcmp(name, "TIMER") == 0 || strcmp(name, "HRTIMER") == 0);
}

void ds_chain_wake(struct ds_model *model, struct ds_thread *thread, const struct cpu_state *cpu)
{
	struct ds_thread_history *h = thread->chain;
	struct ds_wake *w = &h->wake;
	const struct irq_context *top;

	memset(w, 0, sizeof(*w));
	if (!cpu) {
		return;
	}
	if (cpu->timer_depth) {
		w->kind = DS_WAKE_TIMER;
	} else if (cpu->irq_depth) {
		top = &cpu->irqs[cpu->irq_depth - 1];
		w->name = top->name;
		if (top->kind == DS_IRQ_SOFT) {
			if (is_timer_softirq(top->name)) {
				w->kind = DS_WAKE_TIMER;
			} else if (cpu->rx_valid) {
				w->kind = DS_WAKE_NET;
				w->key = cpu->rx_key;
				w->rx_ts = cpu->rx_ts;
			} else {
				w->kind = DS_WAKE_SOFTIRQ;
			}
		} else if (top->kind == DS_IRQ_HARD && cpu->blk_valid) {
			w->kind = DS_WAKE_DISK;
			w->dev = cpu->blk_dev;
			w->blk_seq = cpu->blk_seq;
		} else {
			w->kind = DS_WAKE_IRQ;
		}
	} else if (cpu->current) {
		w->kind = DS_WAKE_THREAD;
		w->tid = cpu->current->tid;
		remember_waker(h, thread->syscall, model, w->tid);
	} else if (cpu->idle) {
		w->kind = DS_WAKE_IDLE;
	}
	if (w->kind == DS_WAKE_NET || w->kind == DS_WAKE_SOFTIRQ) {
		ds_chain_net_wake(model, w);
	}
	if (w->kind == DS_WAKE_NET && w->send_seq) {
		const struct ds_tcp_send *send = ds_chain_send_first(model->chain,
			ds_chain_send_at(model->chain, w->send_seq - 1));

		if (send) {
			remember_waker(h, thread->syscall, send->model, send->tid);
		}
	} else if (w->kind == DS_WAKE_NET && model->chain->local_only) {
		/* one host's pass: the sender may be on another host, a waker it does not see (chain-continuation.c) */
		remember_waker(h, thread->syscall, NULL, INT64_MAX);
	}
}
