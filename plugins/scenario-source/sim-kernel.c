/* SPDX-License-Identifier: MIT */
#include "sim-kernel.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim-kernel-priv.h"
#include "sim.h"

#define NS_INUM_ROOT 4026531836u

static const char *swapper_comm(struct sim *sim, unsigned int cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "swapper/%u", cpu);
	return sim_intern(sim, name);
}

int64_t sim_host_now(struct sim *sim, unsigned int host)
{
	int64_t last = sim_output_host_now(&sim->out, host);

	return sim->now > last ? sim->now : last;
}

struct sim_record *sim_emit_cpu(struct sim *sim, unsigned int host, unsigned int cpu,
		enum sim_event_id ev)
{
	struct sim_record *rec = sim_output_event(&sim->out, host,
		sim_event_desc(ev)->domain, cpu, ev, sim->now);

	if (!rec) {
		sim_fail(sim, "out of memory while queueing events");
		rec = &sim->out.scratch;
	}
	return rec;
}

struct sim_record *sim_emit_thread(struct sim *sim, struct sim_thread *t, enum sim_event_id ev)
{
	struct sim_record *rec = sim_emit_cpu(sim, t->host, t->cpu, ev);

	rec->vpid = t->proc->pid;
	rec->vtid = t->tid;
	rec->procname = t->comm;
	return rec;
}

/* ---- hosts, processes, threads ---- */

static gpointer thread_key(unsigned int host, int32_t tid)
{
	return GSIZE_TO_POINTER(((gsize) host << 32) | (guint32) tid);
}

struct sim_thread *sim_thread_find(const struct sim *sim, unsigned int host, int32_t tid)
{
	if (!sim->chain_threads) {
		return NULL;
	}
	return g_hash_table_lookup(sim->chain_threads, thread_key(host, tid));
}

/* Chain truth: a new current thread on `cpu` from `ts` (NULL: idle). */
static void cpu_run_append(struct sim_cpu *cpu, const struct sim_thread *t, int64_t ts, int64_t keep)
{
	struct sim_cpu_run run = { .begin = ts, .tid = t ? t->tid : -1, .comm = t ? t->comm : NULL };
	GArray *runs = cpu->runs;

	if (runs->len >= 256 && g_array_index(runs, struct sim_cpu_run, runs->len / 2).begin < ts - keep) {
		g_array_remove_range(runs, 0, runs->len / 2);
	}
	g_array_append_val(runs, run);
}

/* Chain truth: the CPU a Waited CPU piece that just began waits for. */
static void piece_set_cpu(struct sim_thread *t, unsigned int cpu)
{
	struct sim_piece *piece = sim_book_last_piece(&t->book);

	if (piece && piece->state == SIM_ST_WAIT_CPU) {
		piece->cpu = (int16_t) cpu;
	}
}

void sim_kernel_init_host(struct sim *sim, unsigned int index, const char *name, unsigned int ncpus)
{
	struct sim_host *host = &sim->host[index];
	unsigned int c;

	memset(host, 0, sizeof(*host));
	host->index = index;
	host->name = sim_intern(sim, name);
	host->ncpus = ncpus;
	host->next_tid = 900 + (int32_t) sim_rng_range(&sim->rng, 0, 400);
	host->next_port = (uint16_t) sim_rng_range(&sim->rng, 33000, 45000);
	host->ip = (10u << 24) | (index + 11);
	host->next_sector = (uint64_t) sim_rng_range(&sim->rng, 1000000, 90000000);
	for (c = 0; c < ncpus; c++) {
		host->cpu[c].index = c;
		host->cpu[c].host = index;
		(void) swapper_comm(sim, c);
		if (sim->chain_threads) {
			host->cpu[c].runs = g_array_new(FALSE, FALSE, sizeof(struct sim_cpu_run));
		}
	}
}

void sim_kernel_fini_host(struct sim_host *host)
{
	struct sim_thread *t = host->threads;
	unsigned int c;

	for (c = 0; c < SIM_MAX_CPUS; c++) {
		if (host->cpu[c].runs) {
			g_array_free(host->cpu[c].runs, TRUE);
			host->cpu[c].runs = NULL;
		}
	}
	while (t) {
		struct sim_thread *next = t->all_next;

		sim_book_fini(&t->book);
		free(t);
		t = next;
	}
	host->threads = NULL;
	while (host->processes) {
		struct sim_process *next = host->processes->all_next;

		free(host->processes);
		host->processes = next;
	}
}

struct sim_process *sim_process_new(struct sim *sim, unsigned int host, const char *comm, int32_t ppid)
{
	struct sim_process *proc = calloc(1, sizeof(*proc));

	if (!proc) {
		sim_fail(sim, "out of memory creating a process");
		return NULL;
	}
	proc->pid = sim->host[host].next_tid;
	proc->ppid = ppid;
	proc->comm = sim_intern(sim, comm);
	proc->host = host;
	proc->all_next = sim->host[host].processes;
	sim->host[host].processes = proc;
	return proc;
}

struct sim_thread *sim_thread_new(struct sim *sim, struct sim_process *proc,
		const char *comm, sim_thread_fn fn, void *role, unsigned int cpu)
{
	struct sim_host *host = &sim->host[proc->host];
	struct sim_thread *t = calloc(1, sizeof(*t));

	if (!t) {
		sim_fail(sim, "out of memory creating a thread");
		return NULL;
	}
	t->proc = proc;
	t->host = proc->host;
	t->tid = host->next_tid++;
	t->comm = sim_intern(sim, comm);
	t->prio = 20;
	t->run = SIM_T_BLOCKED;
	t->cpu = cpu % host->ncpus;
	t->fn = fn;
	t->role = role;
	sim_book_init(&t->book);
	if (sim->chain_threads) {
		/* spans are written at their end: the walk needs chain-window behind it (and a margin) */
		sim_book_keep_history(&t->book, sim->cfg.chain_window_ns + INT64_C(100000000));
		g_hash_table_insert(sim->chain_threads, thread_key(t->host, t->tid), t);
	}
	t->all_next = host->threads;
	host->threads = t;
	proc->threads++;
	return t;
}

/* ---- run queues and context switches ---- */

static void rq_push(struct sim_cpu *cpu, struct sim_thread *t)
{
	t->rq_next = NULL;
	if (cpu->rq_tail) {
		cpu->rq_tail->rq_next = t;
	} else {
		cpu->rq_head = t;
	}
	cpu->rq_tail = t;
	cpu->rq_len++;
}

static struct sim_thread *rq_pop(struct sim_cpu *cpu)
{
	struct sim_thread *t = cpu->rq_head;

	if (!t) {
		return NULL;
	}
	cpu->rq_head = t->rq_next;
	if (!cpu->rq_head) {
		cpu->rq_tail = NULL;
	}
	cpu->rq_len--;
	t->rq_next = NULL;
	return t;
}

static enum sim_tstate state_after_switch_out(int64_t prev_state)
{
	if (prev_state == SIM_PREV_STATE_RUNNING || prev_state == SIM_PREV_STATE_PREEMPTED) {
		return SIM_ST_WAIT_CPU;
	}
	if (prev_state & (SIM_PREV_STATE_SLEEPING | SIM_PREV_STATE_DISK | 64 | 128)) {
		return SIM_ST_BLOCKED;
	}
	return SIM_ST_UNKNOWN;
}

static void rq_push_front(struct sim_cpu *cpu, struct sim_thread *t)
{
	t->rq_next = cpu->rq_head;
	cpu->rq_head = t;
	if (!cpu->rq_tail) {
		cpu->rq_tail = t;
	}
	cpu->rq_len++;
}

/* CFS-like: the scheduling latency shared by the runnable threads, at least the minimum granularity. */
static int64_t slice_length(const struct sim_cpu *cpu)
{
	int64_t slice = SIM_SCHED_LATENCY / (int64_t) (cpu->rq_len + 1);

	return slice < SIM_MIN_GRANULARITY ? SIM_MIN_GRANULARITY : slice;
}

/* sched_switch from the current thread (or idle) to the run queue's head (or idle). */
void sim_cpu_switch(struct sim *sim, struct sim_cpu *cpu, int64_t prev_state)
{
	struct sim_thread *prev = cpu->cur;
	struct sim_thread *next = rq_pop(cpu);
	const char *swapper = swapper_comm(sim, cpu->index);
	struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_SCHED_SWITCH);

	rec->s[0] = prev ? prev->comm : swapper;
	rec->v[0] = prev ? prev->tid : 0;
	rec->v[1] = prev ? prev->prio : 20;
	rec->v[2] = prev ? prev_state : SIM_PREV_STATE_RUNNING;
	rec->s[1] = next ? next->comm : swapper;
	rec->v[3] = next ? next->tid : 0;
	rec->v[4] = next ? next->prio : 20;
	if (prev) {
		sim_book_set(&prev->book, state_after_switch_out(prev_state), rec->ts);
		piece_set_cpu(prev, cpu->index);
	}
	if (next) {
		next->run = SIM_T_RUNNING;
		next->cpu = cpu->index;
		sim_book_set(&next->book, sim_book_running_state(&next->book), rec->ts);
	}
	if (cpu->runs) {
		cpu_run_append(cpu, next, rec->ts, sim->cfg.chain_window_ns + INT64_C(100000000));
	}
	cpu->cur = next;
	cpu->gen++;
	cpu->slice_end = sim_host_now(sim, cpu->host) + slice_length(cpu);
}

static void start_run(struct sim *sim, struct sim_cpu *cpu)
{
	struct sim_thread *t = cpu->cur;
	int64_t now = sim_host_now(sim, cpu->host);
	int64_t at = now + t->remaining;

	if (cpu->rq_len > 0 && cpu->slice_end < at) {
		at = cpu->slice_end > now ? cpu->slice_end : now + 1;
	}
	cpu->run_start = now;
	cpu->gen++;
	sim_schedule(sim, at, SIM_ACT_WORK_DONE, cpu->index, cpu->gen, cpu);
}

static void thread_exit(struct sim *sim, struct sim_cpu *cpu, struct sim_thread *t)
{
	struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_SCHED_PROCESS_EXIT);

	rec->s[0] = t->comm;
	rec->v[0] = t->tid;
	rec->v[1] = t->prio;
	t->run = SIM_T_DEAD;
	t->proc->threads--;
}

/* Runs the current thread's behaviour until it starts consuming CPU or the CPU goes idle. */
void sim_cpu_dispatch(struct sim *sim, struct sim_cpu *cpu)
{
	while (cpu->cur && !sim->failed) {
		struct sim_thread *t = cpu->cur;
		struct sim_step step;

		if (t->remaining > 0) {
			start_run(sim, cpu);
			return;
		}
		step = t->fn(sim, t);
		switch (step.kind) {
		case SIM_STEP_RUN:
			t->remaining = step.ns > 0 ? step.ns : 1;
			break;
		case SIM_STEP_BLOCK:
			if (t->woken) {
				t->woken = false;
				break;
			}
			t->run = SIM_T_BLOCKED;
			sim_cpu_switch(sim, cpu, step.state);
			break;
		case SIM_STEP_EXIT:
			thread_exit(sim, cpu, t);
			if (t->exit_notify) {
				sim_wake(sim, t->exit_notify, cpu->index);
			}
			sim_cpu_switch(sim, cpu, SIM_PREV_STATE_ZOMBIE);
			break;
		}
	}
}

static void on_work_done(struct sim *sim, struct sim_cpu *cpu, uint64_t gen)
{
	struct sim_thread *t = cpu->cur;

	if (gen != cpu->gen || !t || cpu->irq_cur) {
		return;
	}
	t->remaining -= sim->now - cpu->run_start;
	if (t->remaining <= 0) {
		t->remaining = 0;
		sim_cpu_dispatch(sim, cpu);
		return;
	}
	if (cpu->rq_len > 0) {
		t->run = SIM_T_RUNNABLE;
		rq_push(cpu, t);
		sim_cpu_switch(sim, cpu, SIM_PREV_STATE_PREEMPTED);
		sim_cpu_dispatch(sim, cpu);
		return;
	}
	cpu->slice_end = sim->now + slice_length(cpu);
	start_run(sim, cpu);
}

static void on_resched(struct sim *sim, struct sim_cpu *cpu)
{
	cpu->resched_pending = false;
	if (cpu->irq_cur || cpu->cur || cpu->rq_len == 0) {
		return;
	}
	sim_cpu_switch(sim, cpu, SIM_PREV_STATE_RUNNING);
	sim_cpu_dispatch(sim, cpu);
}

/* ---- wake-ups ---- */

static bool cpu_is_idle(const struct sim_cpu *cpu)
{
	return !cpu->cur && cpu->rq_len == 0;
}

static unsigned int select_cpu(struct sim_host *host, const struct sim_thread *t)
{
	unsigned int best = t->cpu;
	unsigned int best_load = host->cpu[t->cpu].rq_len + (host->cpu[t->cpu].cur ? 1u : 0u);
	unsigned int i;

	if (t->pinned || cpu_is_idle(&host->cpu[t->cpu])) {
		return t->cpu;
	}
	for (i = 1; i < host->ncpus; i++) {
		unsigned int c = (t->cpu + i) % host->ncpus;
		unsigned int load = host->cpu[c].rq_len + (host->cpu[c].cur ? 1u : 0u);

		if (load < best_load) {
			best = c;
			best_load = load;
		}
	}
	return best;
}

static void fill_comm_tid_prio(struct sim_record *rec, const struct sim_thread *t)
{
	rec->s[0] = t->comm;
	rec->v[0] = t->tid;
	rec->v[1] = t->prio;
}

/*
 * A thread was queued behind a running one: the runner keeps the CPU for at
 * most the wake-up granularity (or what is left of its slice, if shorter).
 */
static void wakeup_preempt(struct sim *sim, struct sim_cpu *cpu)
{
	struct sim_thread *t = cpu->cur;
	int64_t now = sim_host_now(sim, cpu->host);

	if (cpu->slice_end <= now + SIM_WAKEUP_GRANULARITY) {
		return;
	}
	cpu->slice_end = now + SIM_WAKEUP_GRANULARITY;
	if (t->remaining > 0) {
		t->remaining -= now - cpu->run_start;
		if (t->remaining < 1) {
			t->remaining = 1;
		}
		start_run(sim, cpu);
	}
}

static void enqueue_woken(struct sim *sim, struct sim_thread *t, unsigned int waker_cpu)
{
	struct sim_host *host = &sim->host[t->host];
	struct sim_cpu *target = &host->cpu[t->cpu];

	t->run = SIM_T_RUNNABLE;
	if (target->cur) {
		/* a sleeper's credit: it runs next, soon */
		rq_push_front(target, t);
		if (!target->irq_cur) {
			wakeup_preempt(sim, target);
		}
	} else {
		rq_push(target, t);
	}
	if (!target->cur && !target->irq_cur && !target->resched_pending) {
		target->resched_pending = true;
		sim_schedule(sim, sim_host_now(sim, t->host) + (target->index == waker_cpu ? 700 : 2500),
			SIM_ACT_RESCHED, target->index, 0, target);
	}
}

/* Chain truth: what ends the Waited blocked piece of `t` woken from `cpu_index` now. */
static void record_waker(struct sim *sim, struct sim_thread *t, unsigned int cpu_index)
{
	struct sim_piece *piece = sim_book_last_piece(&t->book);
	const struct sim_cpu *cpu = &sim->host[t->host].cpu[cpu_index];
	const struct sim_irq_work *irq = cpu->irq_cur;
	struct sim_waker *w;

	if (!piece || piece->state != SIM_ST_BLOCKED) {
		return;
	}
	w = &piece->waker;
	if (!irq) {
		if (cpu->cur) {
			w->kind = SIM_WAKER_THREAD;
			w->host = (uint16_t) cpu->cur->host;
			w->tid = cpu->cur->tid;
		}
		return;
	}
	switch (irq->kind) {
	case SIM_IRQ_NET_RX:
		w->kind = SIM_WAKER_SOFTIRQ;
		w->name = "NET_RX";
		if (irq->sent_known) {
			w->net_known = true;
			w->host = irq->s_host;
			w->tid = irq->s_tid;
			w->t_s = irq->t_s;
			w->t_r = irq->t_r;
			w->t_f = irq->t_f;
		}
		break;
	case SIM_IRQ_DISK:
		w->kind = SIM_WAKER_DISK;
		w->name = "nvme0q1";
		w->t_s = irq->t_s;
		w->t_r = irq->t_r;
		w->t_i = irq->t_i;
		w->bytes = irq->bytes;
		w->ahead_count = irq->ahead.count;
		if (irq->ahead.nsubs) {
			unsigned int k, top = 0;

			/* the top submitter: most bytes, then most requests (doc/storage-network.md "Storage") */
			for (k = 1; k < irq->ahead.nsubs; k++) {
				if (irq->ahead.subs[k].bytes > irq->ahead.subs[top].bytes ||
						(irq->ahead.subs[k].bytes == irq->ahead.subs[top].bytes &&
						 irq->ahead.subs[k].count > irq->ahead.subs[top].count)) {
					top = k;
				}
			}
			w->ahead_top_count = irq->ahead.subs[top].count;
			w->ahead_top_writes = irq->ahead.subs[top].writes;
			w->ahead_top_bytes = irq->ahead.subs[top].bytes;
			w->ahead_top_tid = irq->ahead.subs[top].thread->tid;
			w->ahead_top_comm = irq->ahead.subs[top].thread->comm;
		}
		break;
	case SIM_IRQ_TIMER:
	case SIM_IRQ_RETRANSMIT:
		w->kind = SIM_WAKER_TIMER;
		break;
	case SIM_IRQ_RCU:
		w->kind = SIM_WAKER_SOFTIRQ;
		w->name = "RCU";
		break;
	default:
		w->kind = SIM_WAKER_IRQ;
		w->name = "ehci_hcd:usb1";
		break;
	}
}

void sim_wake(struct sim *sim, struct sim_thread *t, unsigned int cpu)
{
	struct sim_host *host = &sim->host[t->host];
	struct sim_record *rec;
	unsigned int target;

	if (t->run == SIM_T_RUNNING || t->run == SIM_T_RUNNABLE) {
		t->woken = true;
		return;
	}
	if (t->run == SIM_T_DEAD) {
		return;
	}
	target = select_cpu(host, t);
	rec = sim_emit_cpu(sim, t->host, cpu, SIM_EV_SCHED_WAKING);
	fill_comm_tid_prio(rec, t);
	rec->v[2] = t->cpu;
	if (t->book.history) {
		record_waker(sim, t, cpu);
	}
	sim_book_set(&t->book, SIM_ST_WAIT_CPU, rec->ts);
	/* sched_waking names its previous CPU; sched_migrate_task, if any, the one it moves to */
	piece_set_cpu(t, t->cpu);
	if (target != t->cpu) {
		struct sim_piece *piece;

		rec = sim_emit_cpu(sim, t->host, cpu, SIM_EV_SCHED_MIGRATE_TASK);
		fill_comm_tid_prio(rec, t);
		rec->v[2] = t->cpu;
		rec->v[3] = target;
		t->cpu = target;
		piece = sim_book_last_piece(&t->book);
		if (piece && piece->state == SIM_ST_WAIT_CPU) {
			piece->migrate_cpu = (int16_t) target;
			piece->migrate_ts = rec->ts;
		}
	}
	rec = sim_emit_cpu(sim, t->host, cpu, SIM_EV_SCHED_WAKEUP);
	fill_comm_tid_prio(rec, t);
	rec->v[2] = target;
	enqueue_woken(sim, t, cpu);
}

void sim_thread_start(struct sim *sim, struct sim_thread *t, unsigned int waker_cpu)
{
	struct sim_record *rec;

	t->cpu = select_cpu(&sim->host[t->host], t);
	rec = sim_emit_cpu(sim, t->host, waker_cpu, SIM_EV_SCHED_WAKEUP_NEW);
	fill_comm_tid_prio(rec, t);
	rec->v[2] = t->cpu;
	sim_book_set(&t->book, SIM_ST_WAIT_CPU, rec->ts);
	piece_set_cpu(t, t->cpu);
	enqueue_woken(sim, t, waker_cpu);
}

/* ---- syscalls ---- */

void sim_syscall_entry(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *values, const char *string)
{
	enum sim_event_id ev = sim_syscall_entry_event(sys);
	struct sim_record *rec = sim_emit_thread(sim, t, ev);
	unsigned int n = sim_event_int_count(ev);

	memcpy(rec->v, values, n * sizeof(*values));
	rec->s[0] = string;
	sim_book_syscall_entry(&t->book, sys, rec->ts);
}

void sim_syscall_exit(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *values)
{
	enum sim_event_id ev = sim_syscall_exit_event(sys);
	struct sim_record *rec = sim_emit_thread(sim, t, ev);
	unsigned int n = sim_event_int_count(ev);

	memcpy(rec->v, values, n * sizeof(*values));
	sim_book_syscall_exit(&t->book, rec->ts);
}

void sim_kernel_act(struct sim *sim, const struct sim_action *action)
{
	struct sim_cpu *cpu;

	switch (action->kind) {
	case SIM_ACT_WORK_DONE:
		on_work_done(sim, action->target, action->gen);
		break;
	case SIM_ACT_RESCHED:
		on_resched(sim, action->target);
		break;
	case SIM_ACT_IRQ_RAISE:
		cpu = &sim->host[action->gen].cpu[action->arg];
		sim_irq_on_raise(sim, cpu, action->target);
		break;
	case SIM_ACT_IRQ_STEP:
		cpu = action->target;
		if (cpu->irq_cur && action->gen == cpu->irq_gen) {
			sim_irq_on_step(sim, cpu);
		}
		break;
	default:
		break;
	}
}

/* ---- processes ---- */

struct sim_thread *sim_fork(struct sim *sim, struct sim_thread *parent, sim_thread_fn fn, void *role)
{
	struct sim_process *proc = sim_process_new(sim, parent->host, parent->comm, parent->proc->pid);
	struct sim_thread *child;
	struct sim_record *rec;

	if (!proc) {
		return NULL;
	}
	child = sim_thread_new(sim, proc, parent->comm, fn, role, parent->cpu);
	if (!child) {
		return NULL;
	}
	rec = sim_emit_thread(sim, parent, SIM_EV_SCHED_PROCESS_FORK);
	rec->s[0] = parent->comm;
	rec->v[0] = parent->tid;
	rec->v[1] = parent->proc->pid;
	rec->v[2] = NS_INUM_ROOT;
	rec->s[1] = child->comm;
	rec->v[3] = child->tid;
	rec->v[4] = child->tid;		/* vtids[0]: same pid namespace */
	rec->v[5] = proc->pid;
	rec->v[6] = NS_INUM_ROOT;
	return child;
}

void sim_exec(struct sim *sim, struct sim_thread *t, const char *filename, const char *comm)
{
	struct sim_record *rec = sim_emit_thread(sim, t, SIM_EV_SCHED_PROCESS_EXEC);

	rec->s[0] = sim_intern(sim, filename);
	rec->v[0] = t->tid;
	rec->v[1] = t->tid;
	t->comm = sim_intern(sim, comm);
	t->proc->comm = t->comm;
}

void sim_thread_destroy(struct sim *sim, struct sim_thread *t)
{
	struct sim_host *host = &sim->host[t->host];
	struct sim_thread **link;
	struct sim_process **plink;

	if (sim->chain_threads) {
		g_hash_table_remove(sim->chain_threads, thread_key(t->host, t->tid));
	}
	sim_book_fini(&t->book);
	for (link = &host->threads; *link; link = &(*link)->all_next) {
		if (*link == t) {
			*link = t->all_next;
			break;
		}
	}
	if (t->proc->threads == 0) {
		for (plink = &host->processes; *plink; plink = &(*plink)->all_next) {
			if (*plink == t->proc) {
				*plink = t->proc->all_next;
				free(t->proc);
				break;
			}
		}
	}
	free(t);
}

/* ---- statedump ---- */

static void statedump_thread(struct sim *sim, unsigned int h, struct sim_thread *t)
{
	struct sim_record *rec;

	/* lttng walks the task list: a microsecond or two per task */
	sim->now = sim_host_now(sim, h) + sim_rng_range(&sim->rng, 700, 3000);
	rec = sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_PROCESS_STATE);
	rec->v[0] = t->tid;
	rec->v[1] = t->proc->pid;
	rec->v[2] = t->proc->ppid;
	rec->s[0] = t->comm;
	rec->v[3] = t->kernel_thread ? 1 : 0;	/* type: user / kernel thread */
	rec->v[4] = 5;				/* mode, as lttng-modules writes it */
	rec->v[5] = 0;				/* submode */
	/* status: WAIT (5) when sleeping; a runnable or running CFS task is WAIT_FORK (1), not WAIT_CPU:
	 * lttng-modules 2.13 tests `list_empty(&p->rt.run_list)`, true for every non-RT task */
	rec->v[6] = t->run == SIM_T_BLOCKED ? 5 : 1;
	rec->v[7] = t->cpu;
	rec->v[8] = UINT64_C(0xffff888000000000) + (uint64_t) t->proc->pid * 0x400;	/* file_table_address */
	if (t->book.state == SIM_ST_UNKNOWN && t->run == SIM_T_BLOCKED) {
		sim_book_set(&t->book, SIM_ST_BLOCKED, rec->ts);
	}
	rec = sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_PROCESS_PID_NS);
	rec->v[0] = t->tid;
	rec->v[1] = t->tid;			/* vtid: one (root) pid namespace */
	rec->v[2] = t->proc->pid;
	rec->v[3] = t->proc->ppid;
	rec->v[4] = 0;				/* ns_level */
	rec->v[5] = NS_INUM_ROOT;
}

void sim_statedump(struct sim *sim, unsigned int h)
{
	struct sim_host *host = &sim->host[h];
	GPtrArray *threads = g_ptr_array_new();
	struct sim_thread *t;
	guint i;

	(void) sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_START);
	/* the host's list is newest first: dump in tid order, as the kernel's task list */
	for (t = host->threads; t; t = t->all_next) {
		g_ptr_array_add(threads, t);
	}
	for (i = threads->len; i > 0; i--) {
		statedump_thread(sim, h, g_ptr_array_index(threads, i - 1));
	}
	g_ptr_array_free(threads, TRUE);
	(void) sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_END);
}
