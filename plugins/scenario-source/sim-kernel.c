#include "sim-kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define NET_IRQ 24
#define DISK_IRQ 27
#define DISK_DEV ((259u << 20) | 0u)
#define RWBS_READ_SYNC ((1u << 2) | (1u << 5))
#define NS_INUM_ROOT 4026531836u
#define TCP_FLAG_ACK 0x10
#define TCP_FLAG_PSH 0x08

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
	}
}

void sim_kernel_fini_host(struct sim_host *host)
{
	struct sim_thread *t = host->threads;

	while (t) {
		struct sim_thread *next = t->all_next;

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
static void cpu_switch(struct sim *sim, struct sim_cpu *cpu, int64_t prev_state)
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
	}
	if (next) {
		next->run = SIM_T_RUNNING;
		next->cpu = cpu->index;
		sim_book_set(&next->book, sim_book_running_state(&next->book), rec->ts);
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
static void cpu_dispatch(struct sim *sim, struct sim_cpu *cpu)
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
			cpu_switch(sim, cpu, step.state);
			break;
		case SIM_STEP_EXIT:
			thread_exit(sim, cpu, t);
			cpu_switch(sim, cpu, SIM_PREV_STATE_ZOMBIE);
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
		cpu_dispatch(sim, cpu);
		return;
	}
	if (cpu->rq_len > 0) {
		t->run = SIM_T_RUNNABLE;
		rq_push(cpu, t);
		cpu_switch(sim, cpu, SIM_PREV_STATE_PREEMPTED);
		cpu_dispatch(sim, cpu);
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
	cpu_switch(sim, cpu, SIM_PREV_STATE_RUNNING);
	cpu_dispatch(sim, cpu);
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

	if (cpu_is_idle(&host->cpu[t->cpu])) {
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
	sim_book_set(&t->book, SIM_ST_WAIT_CPU, rec->ts);
	if (target != t->cpu) {
		rec = sim_emit_cpu(sim, t->host, cpu, SIM_EV_SCHED_MIGRATE_TASK);
		fill_comm_tid_prio(rec, t);
		rec->v[2] = t->cpu;
		rec->v[3] = target;
		t->cpu = target;
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

/* ---- interrupts ---- */

static struct sim_irq_work *irq_work_new(struct sim *sim, enum sim_irq_kind kind)
{
	struct sim_irq_work *work = sim->free_irq_works;

	if (work) {
		sim->free_irq_works = work->next;
	} else {
		work = sim_pool_alloc(sim, sizeof(*work));
		if (!work) {
			return NULL;
		}
	}
	memset(work, 0, sizeof(*work));
	work->kind = kind;
	return work;
}

static void irq_work_free(struct sim *sim, struct sim_irq_work *work)
{
	work->next = sim->free_irq_works;
	sim->free_irq_works = work;
}

static void irq_raise(struct sim *sim, unsigned int host, unsigned int cpu,
		struct sim_irq_work *work, int64_t at)
{
	sim_schedule(sim, at, SIM_ACT_IRQ_RAISE, cpu, host, work);
}

static void mark_interrupted(struct sim_cpu *cpu, int64_t ts)
{
	if (cpu->cur) {
		sim_book_set(&cpu->cur->book, SIM_ST_INTERRUPTED, ts);
	}
}

static void mark_resumed(struct sim_cpu *cpu, int64_t ts)
{
	if (cpu->cur) {
		sim_book_set(&cpu->cur->book, sim_book_running_state(&cpu->cur->book), ts);
	}
}

static void emit_irq_entry(struct sim *sim, struct sim_cpu *cpu, int irq, const char *name)
{
	struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_IRQ_HANDLER_ENTRY);

	rec->v[0] = irq;
	rec->s[0] = name;
	mark_interrupted(cpu, rec->ts);
}

static void emit_irq_exit(struct sim *sim, struct sim_cpu *cpu, int irq)
{
	struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_IRQ_HANDLER_EXIT);

	rec->v[0] = irq;
	rec->v[1] = 1;
	mark_resumed(cpu, rec->ts);
}

static void emit_softirq(struct sim *sim, struct sim_cpu *cpu, enum sim_event_id ev, unsigned int vec)
{
	struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, ev);

	rec->v[0] = vec;
	if (ev == SIM_EV_SOFTIRQ_ENTRY) {
		mark_interrupted(cpu, rec->ts);
	} else if (ev == SIM_EV_SOFTIRQ_EXIT) {
		mark_resumed(cpu, rec->ts);
	}
}

static void fill_net_header(struct sim_record *rec, unsigned int first, const struct sim_conn *conn,
		int dir, uint32_t seq, uint32_t ack, uint32_t len, bool last, uint16_t ip_id)
{
	int64_t *v = &rec->v[first];

	v[SIM_NET_SADDR] = conn->ip[dir];
	v[SIM_NET_DADDR] = conn->ip[1 - dir];
	v[SIM_NET_TOT_LEN] = len + 52;
	v[SIM_NET_IP_ID] = ip_id;
	v[SIM_NET_SPORT] = conn->port[dir];
	v[SIM_NET_DPORT] = conn->port[1 - dir];
	v[SIM_NET_SEQ] = seq;
	v[SIM_NET_ACK_SEQ] = ack;
	v[SIM_NET_FLAGS] = last ? (TCP_FLAG_ACK | TCP_FLAG_PSH) : TCP_FLAG_ACK;
	v[SIM_NET_WINDOW] = 501;
	v[SIM_NET_TCP_CHECKSUM] = (seq ^ (ack >> 3) ^ (len * 2654435761u)) & 0xffff;
}

static uint32_t segment_len(const struct sim_irq_work *work, uint32_t index)
{
	uint32_t off = index * SIM_MSS;
	uint32_t left = work->bytes - off;

	return left < SIM_MSS ? left : SIM_MSS;
}

/* Emits step `work->step` of a NET_RX interrupt; returns the delay to the next step or -1. */
static int64_t net_rx_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_host *host = &sim->host[cpu->host];
	struct sim_conn *conn = work->conn;
	int recv_dir = 1 - work->dir;

	if (work->loopback && work->step < 2) {
		/* loopback: no device irq; the sender raised NET_RX (netif_rx) */
		work->step = 1;
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_RAISE, SIM_SOFTIRQ_NET_RX);
		return 1500;
	}
	switch (work->step) {
	case 0:
		emit_irq_entry(sim, cpu, NET_IRQ, sim_intern(sim, "eth0"));
		return work->duration;
	case 1:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_RAISE, SIM_SOFTIRQ_NET_RX);
		emit_irq_exit(sim, cpu, NET_IRQ);
		return 250;
	case 2:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_ENTRY, SIM_SOFTIRQ_NET_RX);
		return 1200;
	default:
		break;
	}
	if (work->seg_done < work->segments) {
		uint32_t index = work->seg_done++;
		uint32_t len = segment_len(work, index);
		struct sim_record *rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_NET_IF_RECEIVE_SKB);

		rec->v[0] = (int64_t) (UINT64_C(0xffff888000000000) + ((host->skb_counter++ * 0x2c0) & 0xffffffffu));
		rec->v[1] = len + 52;
		rec->s[0] = sim_intern(sim, work->loopback ? "lo" : "eth0");
		fill_net_header(rec, 2, conn, work->dir, work->seq + index * SIM_MSS, work->ack_seq,
			len, work->seg_done == work->segments, (uint16_t) (work->seq + index));
		if (work->seg_done == work->segments) {
			conn->rcv_nxt[recv_dir] = work->seq + work->bytes;
			if (conn->deliver) {
				conn->deliver(sim, conn, work->dir, work->msg, cpu->index);
			}
			return 900;
		}
		return 700;
	}
	emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_EXIT, SIM_SOFTIRQ_NET_RX);
	return -1;
}

static int64_t disk_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_record *rec;

	switch (work->step) {
	case 0:
		emit_irq_entry(sim, cpu, DISK_IRQ, sim_intern(sim, "nvme0q1"));
		return work->duration;
	case 1:
		rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_BLOCK_RQ_COMPLETE);
		rec->v[0] = DISK_DEV;
		rec->v[1] = (int64_t) work->sector;
		rec->v[2] = work->bytes / 512;
		rec->v[3] = 0;
		rec->v[4] = RWBS_READ_SYNC;
		work->thread->io_done = true;
		sim_wake(sim, work->thread, cpu->index);
		return 600;
	default:
		emit_irq_exit(sim, cpu, DISK_IRQ);
		return -1;
	}
}

static int64_t timer_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	switch (work->step) {
	case 0:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_RAISE, SIM_SOFTIRQ_TIMER);
		return 300;
	case 1:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_ENTRY, SIM_SOFTIRQ_TIMER);
		return 800;
	case 2:
		work->thread->io_done = true;
		sim_wake(sim, work->thread, cpu->index);
		return 500;
	default:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_EXIT, SIM_SOFTIRQ_TIMER);
		return -1;
	}
}

static int64_t storm_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	if (work->step == 0) {
		emit_irq_entry(sim, cpu, 17, sim_intern(sim, "ehci_hcd:usb1"));
		return work->duration;
	}
	emit_irq_exit(sim, cpu, 17);
	return -1;
}

static void irq_begin(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work);

static void irq_finish(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_irq_work *next;

	cpu->irq_cur = NULL;
	if (work->kind == SIM_IRQ_STORM && work->repeat > 0) {
		work->repeat--;
		work->step = 0;
		irq_raise(sim, cpu->host, cpu->index, work, sim_host_now(sim, cpu->host) + work->period);
	} else {
		irq_work_free(sim, work);
	}
	next = cpu->irq_head;
	if (next) {
		cpu->irq_head = next->next;
		if (!cpu->irq_head) {
			cpu->irq_tail = NULL;
		}
		irq_begin(sim, cpu, next);
		return;
	}
	if (cpu->cur) {
		cpu_dispatch(sim, cpu);
	} else if (cpu->rq_len > 0) {
		cpu_switch(sim, cpu, SIM_PREV_STATE_RUNNING);
		cpu_dispatch(sim, cpu);
	}
}

static void irq_run_step(struct sim *sim, struct sim_cpu *cpu)
{
	struct sim_irq_work *work = cpu->irq_cur;
	int64_t delay;

	switch (work->kind) {
	case SIM_IRQ_NET_RX:
		delay = net_rx_step(sim, cpu, work);
		break;
	case SIM_IRQ_DISK:
		delay = disk_step(sim, cpu, work);
		break;
	case SIM_IRQ_TIMER:
		delay = timer_step(sim, cpu, work);
		break;
	default:
		delay = storm_step(sim, cpu, work);
		break;
	}
	work->step++;
	if (delay < 0) {
		irq_finish(sim, cpu, work);
		return;
	}
	cpu->irq_gen++;
	sim_schedule(sim, sim_host_now(sim, cpu->host) + delay, SIM_ACT_IRQ_STEP,
		cpu->index, cpu->irq_gen, cpu);
}

static void irq_begin(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_thread *t = cpu->cur;

	if (t && t->remaining > 0) {
		int64_t done = sim_host_now(sim, cpu->host) - cpu->run_start;

		t->remaining -= done;
		if (t->remaining < 1) {
			t->remaining = 1;
		}
	}
	cpu->gen++;
	cpu->irq_cur = work;
	irq_run_step(sim, cpu);
}

static void on_irq_raise(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	if (cpu->irq_cur) {
		work->next = NULL;
		if (cpu->irq_tail) {
			cpu->irq_tail->next = work;
		} else {
			cpu->irq_head = work;
		}
		cpu->irq_tail = work;
		return;
	}
	irq_begin(sim, cpu, work);
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
		on_irq_raise(sim, cpu, action->target);
		break;
	case SIM_ACT_IRQ_STEP:
		cpu = action->target;
		if (cpu->irq_cur && action->gen == cpu->irq_gen) {
			irq_run_step(sim, cpu);
		}
		break;
	default:
		break;
	}
}

/* ---- network, disk, timers ---- */

static unsigned int rx_cpu(const struct sim_host *host, const struct sim_conn *conn)
{
	uint32_t hash = (uint32_t) conn->port[0] * 2654435761u ^ conn->port[1];

	return (hash >> 7) % host->ncpus;
}

static void queue_delivery(struct sim *sim, struct sim_conn *conn, int dir, uint32_t seq,
		uint32_t ack, uint32_t bytes, void *msg, int64_t at, unsigned int sender_cpu)
{
	int receiver = conn->host[1 - dir];
	struct sim_irq_work *work;

	if (receiver < 0) {
		return;
	}
	work = irq_work_new(sim, SIM_IRQ_NET_RX);
	if (!work) {
		return;
	}
	work->conn = conn;
	work->dir = dir;
	work->seq = seq;
	work->ack_seq = ack;
	work->bytes = bytes;
	work->segments = (bytes + SIM_MSS - 1) / SIM_MSS;
	work->msg = msg;
	work->duration = sim_rng_jitter(&sim->rng, 2500, 0.3);
	work->loopback = conn->host[dir] == receiver;
	irq_raise(sim, (unsigned int) receiver,
		work->loopback ? sender_cpu : rx_cpu(&sim->host[receiver], conn), work, at);
}

void sim_tcp_send(struct sim *sim, struct sim_thread *t, struct sim_conn *conn, int dir,
		uint32_t bytes, void *msg)
{
	struct sim_host *host = &sim->host[t->host];
	uint32_t seq = conn->snd_nxt[dir];
	uint32_t ack = conn->rcv_nxt[dir];
	uint32_t segments = (bytes + SIM_MSS - 1) / SIM_MSS;
	bool loopback = conn->host[1 - dir] == (int) t->host;
	int64_t latency;
	uint32_t i;

	for (i = 0; i < segments; i++) {
		uint32_t len = bytes - i * SIM_MSS < SIM_MSS ? bytes - i * SIM_MSS : SIM_MSS;
		struct sim_record *rec = sim_emit_thread(sim, t, SIM_EV_NET_DEV_QUEUE);

		rec->v[0] = (int64_t) (UINT64_C(0xffff888000000000) + ((host->skb_counter++ * 0x2c0) & 0xffffffffu));
		rec->v[1] = len + 66;
		rec->s[0] = sim_intern(sim, loopback ? "lo" : "eth0");
		fill_net_header(rec, 2, conn, dir, seq + i * SIM_MSS, ack, len, i + 1 == segments,
			(uint16_t) (seq + i));
		sim->tcp_segments++;
	}
	conn->snd_nxt[dir] = seq + bytes;
	latency = loopback ? sim_rng_jitter(&sim->rng, 4000, 0.3) :
		sim_rng_jitter(&sim->rng, SIM_NET_LATENCY, 0.4);
	queue_delivery(sim, conn, dir, seq, ack, bytes, msg, sim_host_now(sim, t->host) + latency, t->cpu);
}

void sim_tcp_inject(struct sim *sim, struct sim_conn *conn, int dir, uint32_t bytes,
		void *msg, int64_t at)
{
	uint32_t seq = conn->snd_nxt[dir];

	conn->snd_nxt[dir] = seq + bytes;
	queue_delivery(sim, conn, dir, seq, conn->rcv_nxt[dir], bytes, msg, at, 0);
}

void sim_disk_read(struct sim *sim, struct sim_thread *t, uint32_t bytes, int64_t latency)
{
	struct sim_host *host = &sim->host[t->host];
	struct sim_record *rec = sim_emit_thread(sim, t, SIM_EV_BLOCK_RQ_ISSUE);
	struct sim_irq_work *work;

	rec->v[0] = DISK_DEV;
	rec->v[1] = (int64_t) host->next_sector;
	rec->v[2] = bytes / 512;
	rec->v[3] = bytes;
	rec->v[4] = t->tid;
	rec->v[5] = RWBS_READ_SYNC;
	rec->s[0] = t->comm;
	t->io_done = false;
	work = irq_work_new(sim, SIM_IRQ_DISK);
	if (!work) {
		return;
	}
	work->thread = t;
	work->bytes = bytes;
	work->sector = host->next_sector;
	work->duration = sim_rng_jitter(&sim->rng, 1800, 0.3);
	host->next_sector += bytes / 512 + (uint64_t) sim_rng_range(&sim->rng, 8, 40000);
	irq_raise(sim, t->host, t->cpu, work, sim_host_now(sim, t->host) + latency);
}

void sim_timer_wake(struct sim *sim, struct sim_thread *t, int64_t ns)
{
	struct sim_irq_work *work = irq_work_new(sim, SIM_IRQ_TIMER);

	if (!work) {
		return;
	}
	t->io_done = false;
	work->thread = t;
	irq_raise(sim, t->host, t->cpu, work, sim_host_now(sim, t->host) + ns);
}

void sim_irq_storm(struct sim *sim, unsigned int host, unsigned int cpu, unsigned int count,
		int64_t period, int64_t duration)
{
	struct sim_irq_work *work;

	if (count == 0) {
		return;
	}
	work = irq_work_new(sim, SIM_IRQ_STORM);
	if (!work) {
		return;
	}
	work->duration = duration;
	work->period = period;
	work->repeat = count - 1;
	irq_raise(sim, host, cpu, work, sim_host_now(sim, host) + 1000);
}

/* ---- statedump ---- */

void sim_statedump(struct sim *sim, unsigned int h)
{
	struct sim_host *host = &sim->host[h];
	struct sim_thread *t;
	struct sim_record *rec;

	(void) sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_START);
	for (t = host->threads; t; t = t->all_next) {
		rec = sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_PROCESS_STATE);
		rec->v[0] = t->tid;
		rec->v[1] = t->tid;
		rec->v[2] = t->proc->pid;
		rec->v[3] = t->proc->pid;
		rec->v[4] = t->proc->ppid;
		rec->v[5] = t->proc->ppid;
		rec->s[0] = t->comm;
		rec->v[6] = t->kernel_thread ? 1 : 0;	/* type: user / kernel thread */
		rec->v[7] = 5;				/* mode: LTTNG_MODE_UNKNOWN-like (as lttng writes) */
		rec->v[8] = 0;				/* submode */
		rec->v[9] = t->run == SIM_T_BLOCKED ? 5 : 2;	/* status: WAIT / WAIT_CPU */
		rec->v[10] = 0;				/* ns_level */
		rec->v[11] = NS_INUM_ROOT;
		rec->v[12] = t->cpu;
		if (t->book.state == SIM_ST_UNKNOWN && t->run == SIM_T_BLOCKED) {
			sim_book_set(&t->book, SIM_ST_BLOCKED, rec->ts);
		}
	}
	(void) sim_emit_cpu(sim, h, 0, SIM_EV_STATEDUMP_END);
}
