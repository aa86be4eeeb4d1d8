/* SPDX-License-Identifier: MIT */
/*
 * Interrupt context of the kernel model: hard irqs and softirqs queued per
 * CPU and run step by step (each step emits its events and says when the
 * next one happens), NIC receive with NET_RX delivering TCP segments, disk
 * completions, timer expiries and irq storms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim-kernel-priv.h"
#include "sim.h"

#define NET_IRQ 24
#define DISK_IRQ 27
#define STORM_IRQ 17
#define DISK_DEV ((259u << 20) | 0u)
#define RWBS_READ_SYNC ((1u << 2) | (1u << 5))
#define RWBS_WRITE (1u << 0)
#define TCP_FLAG_ACK 0x10
#define TCP_FLAG_PSH 0x08

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

static void mark_interrupted(struct sim_cpu *cpu, int64_t ts, const char *name)
{
	if (cpu->cur) {
		struct sim_piece *piece;

		sim_book_set(&cpu->cur->book, SIM_ST_INTERRUPTED, ts);
		piece = sim_book_last_piece(&cpu->cur->book);
		if (piece && piece->state == SIM_ST_INTERRUPTED && piece->begin == ts) {
			piece->irq_name = name;
		}
	}
}

/* "softirq:NAME" of the vectors the model raises. */
static const char *softirq_label(unsigned int vec)
{
	switch (vec) {
	case SIM_SOFTIRQ_NET_RX:
		return "softirq:NET_RX";
	case SIM_SOFTIRQ_TIMER:
		return "softirq:TIMER";
	case SIM_SOFTIRQ_RCU:
		return "softirq:RCU";
	default:
		return "softirq:?";
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
	mark_interrupted(cpu, rec->ts, irq == NET_IRQ ? "irq:eth0" : irq == DISK_IRQ ? "irq:nvme0q1" :
		"irq:ehci_hcd:usb1");
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
		mark_interrupted(cpu, rec->ts, softirq_label(vec));
	} else if (ev == SIM_EV_SOFTIRQ_EXIT) {
		mark_resumed(cpu, rec->ts);
	}
}

/*
 * Steps 0 and 1 of a softirq's work: raised (`raised` ns before the next step), then entered (`entered` ns);
 * 0 once past them.
 */
static int64_t softirq_open(struct sim *sim, struct sim_cpu *cpu, const struct sim_irq_work *work, unsigned int vec,
		int64_t raised, int64_t entered)
{
	if (work->step == 0) {
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_RAISE, vec);
		return raised;
	}
	if (work->step == 1) {
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_ENTRY, vec);
		return entered;
	}
	return 0;
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
			work->t_r = rec->ts;
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

static struct sim_irq_work *queue_delivery(struct sim *sim, struct sim_conn *conn, int dir, uint32_t seq,
		uint32_t ack, uint32_t bytes, void *msg, int64_t at, unsigned int sender_cpu,
		const struct sim_thread *sender, int64_t t_s);

/* Steps of a TCP retransmission timer: the lost last segment leaves again (net_dev_queue), same key. */
static int64_t retransmit_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_host *host = &sim->host[cpu->host];
	struct sim_irq_work *delivery;
	struct sim_record *rec;
	uint32_t last = work->segments - 1;
	int64_t delay = softirq_open(sim, cpu, work, SIM_SOFTIRQ_TIMER, 300, 800);

	if (delay > 0) {
		return delay;
	}
	switch (work->step) {
	case 2:
		rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_NET_DEV_QUEUE);
		rec->v[0] = (int64_t) (UINT64_C(0xffff888000000000) + ((host->skb_counter++ * 0x2c0) & 0xffffffffu));
		rec->v[1] = work->last_len + 66;
		rec->s[0] = sim_intern(sim, "eth0");
		fill_net_header(rec, 2, work->conn, work->dir, work->seq + last * SIM_MSS, work->ack_seq,
			work->last_len, true, (uint16_t) (work->seq + work->segments));
		sim->tcp_segments++;
		delivery = queue_delivery(sim, work->conn, work->dir, work->seq, work->ack_seq, work->bytes,
			work->msg, sim_host_now(sim, cpu->host) + work->extra, cpu->index, work->thread, rec->ts);
		if (delivery) {
			delivery->t_f = work->t_f;
		}
		return 500;
	default:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_EXIT, SIM_SOFTIRQ_TIMER);
		return -1;
	}
}

static void disk_issue(struct sim *sim, struct sim_host *host, struct sim_irq_work *work, unsigned int cpu,
		struct sim_record *rec);

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
		rec->v[4] = work->write ? RWBS_WRITE : RWBS_READ_SYNC;
		work->t_r = rec->ts;	/* chain truth: the completion (layers split) */
		if (work->thread) {
			work->thread->io_done = true;
			sim_wake(sim, work->thread, cpu->index);
		}
		if (work->queued) {
			struct sim_host *host = &sim->host[cpu->host];
			struct sim_irq_work *next = host->disk_head;

			/* the device is free: blk-mq dispatches the next queued request from the completion */
			host->disk_busy = false;
			if (next) {
				host->disk_head = next->next;
				if (!host->disk_head) {
					host->disk_tail = NULL;
				}
				next->next = NULL;
				disk_issue(sim, host, next, cpu->index,
					sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_BLOCK_RQ_ISSUE));
			}
		}
		return 600;
	default:
		emit_irq_exit(sim, cpu, DISK_IRQ);
		return -1;
	}
}

static int64_t timer_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	int64_t delay = softirq_open(sim, cpu, work, SIM_SOFTIRQ_TIMER, 300, 800);

	if (delay > 0) {
		return delay;
	}
	switch (work->step) {
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
		emit_irq_entry(sim, cpu, STORM_IRQ, sim_intern(sim, "ehci_hcd:usb1"));
		return work->duration;
	}
	emit_irq_exit(sim, cpu, STORM_IRQ);
	return -1;
}

static int64_t rcu_step(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
{
	struct sim_record *rec;
	int64_t delay = softirq_open(sim, cpu, work, SIM_SOFTIRQ_RCU, 400, 900);

	if (delay > 0) {
		return delay;
	}
	switch (work->step) {
	case 2:
		rec = sim_emit_cpu(sim, cpu->host, cpu->index, SIM_EV_SCHED_PROCESS_FREE);
		rec->s[0] = work->thread->comm;
		rec->v[0] = work->thread->tid;
		rec->v[1] = work->thread->prio;
		sim_thread_destroy(sim, work->thread);
		work->thread = NULL;
		return 700;
	default:
		emit_softirq(sim, cpu, SIM_EV_SOFTIRQ_EXIT, SIM_SOFTIRQ_RCU);
		return -1;
	}
}

void sim_release(struct sim *sim, struct sim_thread *t, unsigned int cpu)
{
	struct sim_irq_work *work = irq_work_new(sim, SIM_IRQ_RCU);

	if (!work) {
		return;
	}
	work->thread = t;
	irq_raise(sim, t->host, cpu, work, sim_host_now(sim, t->host) + sim_rng_range(&sim->rng, 1000000, 4000000));
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
		sim_cpu_dispatch(sim, cpu);
	} else if (cpu->rq_len > 0) {
		sim_cpu_switch(sim, cpu, SIM_PREV_STATE_RUNNING);
		sim_cpu_dispatch(sim, cpu);
	}
}

void sim_irq_on_step(struct sim *sim, struct sim_cpu *cpu)
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
	case SIM_IRQ_RCU:
		delay = rcu_step(sim, cpu, work);
		break;
	case SIM_IRQ_RETRANSMIT:
		delay = retransmit_step(sim, cpu, work);
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
	sim_irq_on_step(sim, cpu);
}

void sim_irq_on_raise(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work)
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

/* ---- network, disk, timers ---- */

static unsigned int rx_cpu(const struct sim_host *host, const struct sim_conn *conn)
{
	uint32_t hash = (uint32_t) conn->port[0] * 2654435761u ^ conn->port[1];

	return (hash >> 7) % host->ncpus;
}

static struct sim_irq_work *queue_delivery(struct sim *sim, struct sim_conn *conn, int dir, uint32_t seq,
		uint32_t ack, uint32_t bytes, void *msg, int64_t at, unsigned int sender_cpu,
		const struct sim_thread *sender, int64_t t_s)
{
	int receiver = conn->host[1 - dir];
	struct sim_irq_work *work;

	if (receiver < 0) {
		return NULL;
	}
	work = irq_work_new(sim, SIM_IRQ_NET_RX);
	if (!work) {
		return NULL;
	}
	work->conn = conn;
	work->dir = dir;
	work->seq = seq;
	work->ack_seq = ack;
	work->bytes = bytes;
	work->segments = (bytes + SIM_MSS - 1) / SIM_MSS;
	work->msg = msg;
	if (sender) {
		work->sent_known = true;
		work->s_host = (uint16_t) sender->host;
		work->s_tid = sender->tid;
		work->t_s = t_s;
		work->t_f = t_s;
	}
	work->duration = sim_rng_jitter(&sim->rng, 2500, 0.3);
	work->loopback = conn->host[dir] == receiver;
	irq_raise(sim, (unsigned int) receiver,
		work->loopback ? sender_cpu : rx_cpu(&sim->host[receiver], conn), work, at);
	return work;
}

void sim_tcp_send_faulty(struct sim *sim, struct sim_thread *t, struct sim_conn *conn, int dir,
		uint32_t bytes, void *msg, int64_t delay, int64_t rto)
{
	struct sim_host *host = &sim->host[t->host];
	uint32_t seq = conn->snd_nxt[dir];
	uint32_t ack = conn->rcv_nxt[dir];
	uint32_t segments = (bytes + SIM_MSS - 1) / SIM_MSS;
	bool loopback = conn->host[1 - dir] == (int) t->host;
	int64_t latency;
	int64_t t_s = 0;
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
		t_s = rec->ts;
	}
	conn->snd_nxt[dir] = seq + bytes;
	latency = loopback ? sim_rng_jitter(&sim->rng, 4000, 0.3) :
		sim_rng_jitter(&sim->rng, SIM_NET_LATENCY, 0.4);
	if (rto > 0 && segments > 0) {
		/* the last segment is lost: the sender's retransmission timer sends it again */
		struct sim_irq_work *work = irq_work_new(sim, SIM_IRQ_RETRANSMIT);

		if (!work) {
			return;
		}
		work->conn = conn;
		work->dir = dir;
		work->seq = seq;
		work->ack_seq = ack;
		work->bytes = bytes;
		work->segments = segments;
		work->last_len = bytes - (segments - 1) * SIM_MSS;
		work->msg = msg;
		work->thread = t;
		work->t_f = t_s;
		work->extra = latency + delay;
		irq_raise(sim, t->host, t->cpu, work, sim_host_now(sim, t->host) + rto);
		return;
	}
	queue_delivery(sim, conn, dir, seq, ack, bytes, msg, sim_host_now(sim, t->host) + latency + delay, t->cpu,
		t, t_s);
}

void sim_tcp_send(struct sim *sim, struct sim_thread *t, struct sim_conn *conn, int dir,
		uint32_t bytes, void *msg)
{
	sim_tcp_send_faulty(sim, t, conn, dir, bytes, msg, 0, 0);
}

void sim_tcp_inject(struct sim *sim, struct sim_conn *conn, int dir, uint32_t bytes,
		void *msg, int64_t at)
{
	uint32_t seq = conn->snd_nxt[dir];

	conn->snd_nxt[dir] = seq + bytes;
	queue_delivery(sim, conn, dir, seq, conn->rcv_nxt[dir], bytes, msg, at, 0, NULL, 0);
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
	t->book.syscall_block_io = true;
	work = irq_work_new(sim, SIM_IRQ_DISK);
	if (!work) {
		return;
	}
	work->thread = t;
	work->bytes = bytes;
	work->sector = host->next_sector;
	work->t_s = rec->ts;	/* chain truth: the issue (a direct issue: no queue time) */
	work->t_i = rec->ts;
	work->duration = sim_rng_jitter(&sim->rng, 1800, 0.3);
	host->next_sector += bytes / 512 + (uint64_t) sim_rng_range(&sim->rng, 8, 40000);
	irq_raise(sim, t->host, t->cpu, work, sim_host_now(sim, t->host) + latency);
}

/* Charges the request `done` issued now to the waited reads still queued behind it (sum as span-attrib's). */
static void disk_charge_ahead(struct sim_host *host, const struct sim_irq_work *done, int64_t ts)
{
	struct sim_irq_work *q;

	for (q = host->disk_head; q; q = q->next) {
		struct sim_disk_ahead *ah = &q->ahead;
		unsigned int k;

		if (!q->thread || ts < q->t_i) {
			continue;
		}
		ah->count++;
		for (k = 0; k < ah->nsubs && ah->subs[k].thread != done->submitter; k++) {
		}
		if (k == ah->nsubs && k < SIM_DISK_AHEAD_SUBMITTERS) {
			ah->subs[k].thread = done->submitter;
			ah->nsubs++;
		}
		if (k < ah->nsubs) {
			ah->subs[k].count++;
			ah->subs[k].writes += done->write ? 1 : 0;
			ah->subs[k].bytes += done->bytes;
		}
	}
}

/* Fills the block_rq_issue `rec` of `work`, puts it on the device and schedules its completion irq. */
static void disk_issue(struct sim *sim, struct sim_host *host, struct sim_irq_work *work, unsigned int cpu,
		struct sim_record *rec)
{
	const struct sim_thread *cur = host->cpu[cpu].cur;

	rec->v[0] = DISK_DEV;
	rec->v[1] = (int64_t) work->sector;
	rec->v[2] = work->bytes / 512;
	rec->v[3] = work->bytes;
	/* lttng-modules records the current task: the submitter itself, or whoever the completion irq interrupted */
	rec->v[4] = cur ? cur->tid : 0;
	rec->v[5] = work->write ? RWBS_WRITE : RWBS_READ_SYNC;
	rec->s[0] = cur ? cur->comm : sim_intern(sim, "swapper");
	work->t_s = rec->ts;
	host->disk_busy = true;
	disk_charge_ahead(host, work, rec->ts);
	/* rec->ts is the host's local clock; the engine schedules on the simulation's own time */
	irq_raise(sim, host->index, cpu, work, sim_host_now(sim, host->index) + work->service);
}

void sim_disk_submit(struct sim *sim, struct sim_thread *t, uint32_t bytes, bool write, int64_t service)
{
	struct sim_host *host = &sim->host[t->host];
	struct sim_record *rec = sim_emit_thread(sim, t, SIM_EV_BLOCK_RQ_INSERT);
	struct sim_irq_work *work = irq_work_new(sim, SIM_IRQ_DISK);

	rec->v[0] = DISK_DEV;
	rec->v[1] = (int64_t) host->next_sector;
	rec->v[2] = bytes / 512;
	rec->v[3] = bytes;
	rec->v[4] = t->tid;
	rec->v[5] = write ? RWBS_WRITE : RWBS_READ_SYNC;
	rec->s[0] = t->comm;
	t->book.syscall_block_io = true;
	if (!work) {
		return;
	}
	work->queued = true;
	work->write = write;
	work->submitter = t;
	work->thread = write ? NULL : t;
	work->bytes = bytes;
	work->sector = host->next_sector;
	work->t_i = rec->ts;
	work->service = service;
	work->duration = sim_rng_jitter(&sim->rng, 1800, 0.3);
	if (!write) {
		t->io_done = false;
	}
	/* writes of one burst are contiguous; a read lands elsewhere on the device */
	host->next_sector += bytes / 512 + (write ? 0 : (uint64_t) sim_rng_range(&sim->rng, 8, 40000));
	if (!host->disk_busy) {
		disk_issue(sim, host, work, t->cpu, sim_emit_thread(sim, t, SIM_EV_BLOCK_RQ_ISSUE));
	} else if (host->disk_tail) {
		host->disk_tail->next = work;
		host->disk_tail = work;
	} else {
		host->disk_head = host->disk_tail = work;
	}
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
