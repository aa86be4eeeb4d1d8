/* SPDX-License-Identifier: MIT */
#include "thread-state.h"
#include "model-priv.h"

#include <stdio.h>
#include <string.h>

#define MAX_CPUS 65536
/* lttng-modules statedump `status` values. */
enum {
	STATEDUMP_WAIT_FORK = 1,
	STATEDUMP_WAIT_CPU = 2,
	STATEDUMP_WAIT = 5,
};

enum ds_prev_state ds_prev_state_classify(enum ds_state_rule rule, int64_t s)
{
	if (rule == DS_STATE_RULE_TRACECOMPASS) {
		s &= 1023;
		if (s == 0) {
			return DS_PREV_WAIT_CPU;
		}
		if (s & 3) {
			return DS_PREV_BLOCKED;
		}
		if (s & 64) {
			return DS_PREV_EXITED;
		}
		return DS_PREV_UNKNOWN;
	}
	if (s == 0 || s == 256 || (s >= 1024 && (s & 1023) == 0)) {
		return DS_PREV_WAIT_CPU;
	}
	if (s & (1 | 2 | 64 | 128)) {
		return DS_PREV_BLOCKED;
	}
	if (s & (16 | 32)) {
		return DS_PREV_EXITED;
	}
	return DS_PREV_UNKNOWN;
}

/* Appends n bytes of `text` to buf[*len], truncated as snprintf() truncates (room for the NUL kept). */
static void detail_cat(char *buf, size_t size, size_t *len, const char *text, size_t n)
{
	if (*len + 1 < size) {
		size_t room = size - 1 - *len;

		n = n < room ? n : room;
		memcpy(buf + *len, text, n);
		*len += n;
	}
}

/* The same bytes as snprintf("%s%s") and snprintf("%.16s/%d"), without printf (every chain entry has one). */
void ds_detail_format(const struct ds_detail *detail, char *buf, size_t size)
{
	size_t len = 0;

	if (!size) {
		return;
	}
	if (detail->name) {
		if (detail->prefix) {
			detail_cat(buf, size, &len, detail->prefix, strlen(detail->prefix));
		}
		detail_cat(buf, size, &len, detail->name, strlen(detail->name));
	} else if (detail->tid >= 0) {
		char digits[12];
		int n = 0, value = (int) detail->tid;

		detail_cat(buf, size, &len, detail->comm, strnlen(detail->comm, 16));
		detail_cat(buf, size, &len, "/", 1);
		do {
			digits[sizeof(digits) - 1 - n++] = (char) ('0' + value % 10);
			value /= 10;
		} while (value);
		detail_cat(buf, size, &len, digits + sizeof(digits) - n, (size_t) n);
	}
	buf[len] = '\0';
}

const char *ds_detail_text(const struct ds_detail *detail, char *buf, size_t size)
{
	if (detail->name && (!detail->prefix || !detail->prefix[0])) {
		return detail->name;
	}
	if (!detail->name && detail->tid < 0) {
		return "";
	}
	ds_detail_format(detail, buf, size);
	return buf;
}

static const struct ds_detail no_detail = { "", NULL, -1, "" };

static void copy_comm(char *dst, const char *src)
{
	if (src) {
		strncpy(dst, src, 15);
		dst[15] = '\0';
	}
}

static void thread_free(gpointer data)
{
	struct ds_thread *thread = data;

	ds_chain_thread_fini(thread);
	g_free(thread);
}

struct ds_model *ds_model_create(enum ds_state_rule rule, bool record_segments)
{
	struct ds_model *model = g_new0(struct ds_model, 1);

	model->rule = rule;
	model->record_segments = record_segments;
	model->last_ts = INT64_MIN;
	model->threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, thread_free);
	model->vtid_map = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	model->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return model;
}

static void detach_all(struct ds_model *model, struct ds_thread *thread, int64_t ts)
{
	while (thread->spans) {
		sa_span_detach(model, thread->spans, ts, DS_STATE_UNKNOWN, NULL);
	}
}

void ds_model_destroy(struct ds_model *model)
{
	GHashTableIter iter;
	gpointer value;

	if (!model) {
		return;
	}
	/* Spans still attached are owned by the caller: unlink them so they never see freed threads. */
	g_hash_table_iter_init(&iter, model->threads);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		detach_all(model, value, model->last_ts);
	}
	g_hash_table_destroy(model->threads);
	sa_span_pool_free(model);
	g_hash_table_destroy(model->vtid_map);
	g_hash_table_destroy(model->names);
	for (unsigned int i = 0; i < model->cpu_count; i++) {
		ds_chain_cpu_fini(&model->cpus[i]);
	}
	g_free(model->cpus);
	g_free(model->host);
	ds_block_destroy(model->block);
	ds_host_context_destroy(model->hc);
	g_free(model);
}

void ds_model_set_chain(struct ds_model *model, struct ds_chain_ctx *ctx, const char *host)
{
	model->chain = model->record_segments ? ctx : NULL;
	g_free(model->host);
	model->host = g_strdup(host && host[0] ? host : "-");
}

void ds_model_set_host_context(struct ds_model *model)
{
	if (!model->hc) {
		model->hc = ds_host_context_create();
	}
}

struct ds_host_context *ds_model_host_context(struct ds_model *model)
{
	return model->hc;
}

unsigned int ds_model_thread_count(const struct ds_model *model)
{
	return g_hash_table_size(model->threads);
}

/* Clamps `ts` to non-decreasing time. */
static int64_t model_time(struct ds_model *model, int64_t ts)
{
	if (ts < model->last_ts) {
		return model->last_ts;
	}
	model->last_ts = ts;
	if (model->chain) {
		/* the filter advances it by every event of every host (events.c); this is for the model alone */
		ds_chain_advance(model->chain, ts);
	}
	return ts;
}

static struct cpu_state *cpu_get(struct ds_model *model, int64_t cpu)
{
	unsigned int new_count;

	if (cpu < 0 || cpu >= MAX_CPUS) {
		return NULL;
	}
	if ((unsigned int) cpu >= model->cpu_count) {
		new_count = (unsigned int) cpu + 1;
		if (new_count < 8) {
			new_count = 8;
		}
		model->cpus = g_renew(struct cpu_state, model->cpus, new_count);
		memset(model->cpus + model->cpu_count, 0,
			(new_count - model->cpu_count) * sizeof(struct cpu_state));
		model->cpu_count = new_count;
	}
	return &model->cpus[cpu];
}

struct ds_thread *ds_model_thread(struct ds_model *model, int64_t tid, bool create)
{
	struct ds_thread *thread;

	if (tid <= 0) {
		return NULL;
	}
	thread = model->thread_cache[(uint64_t) tid % DS_THREAD_CACHE_SIZE];
	if (thread && thread->tid == tid) {
		return thread;
	}
	thread = g_hash_table_lookup(model->threads, &tid);
	if (thread) {
		model->thread_cache[(uint64_t) tid % DS_THREAD_CACHE_SIZE] = thread;
	} else if (create) {
		thread = g_new0(struct ds_thread, 1);
		thread->tid = tid;
		thread->pid = -1;
		thread->ns_vpid = -1;
		thread->ns_vtid = -1;
		thread->sched = DS_SCHED_UNKNOWN;
		thread->cpu = -1;
		thread->state = DS_STATE_UNKNOWN;
		thread->detail = no_detail;
		thread->since = model->last_ts;
		thread->unknown_reason = "no event yet";
		thread->forked_by = -1;
		if (model->chain) {
			ds_chain_thread_init(model, thread);
		}
		g_hash_table_insert(model->threads, &thread->tid, thread);
		model->thread_cache[(uint64_t) tid % DS_THREAD_CACHE_SIZE] = thread;
	}
	return thread;
}

struct ds_thread *ds_model_cpu_current(struct ds_model *model, int64_t cpu)
{
	if (cpu < 0 || (uint64_t) cpu >= model->cpu_count) {
		return NULL;
	}
	return model->cpus[cpu].current;
}

/* The effective state of `thread` and its detail, from its sched state and its CPU. */
static enum ds_state effective_state(struct ds_model *model, const struct ds_thread *thread,
		struct ds_detail *detail)
{
	const struct cpu_state *cpu;
	const struct irq_context *top;

	*detail = no_detail;
	switch (thread->sched) {
	case DS_SCHED_RUNNING:
		cpu = thread->cpu >= 0 && (unsigned int) thread->cpu < model->cpu_count ?
			&model->cpus[thread->cpu] : NULL;
		if (cpu && cpu->irq_depth) {
			top = &cpu->irqs[cpu->irq_depth - 1];
			detail->prefix = top->kind == DS_IRQ_SOFT ? "softirq:" : "irq:";
			detail->name = top->name;
			return DS_STATE_INTERRUPTED;
		}
		if (thread->syscall) {
			detail->name = thread->syscall;
			return DS_STATE_SYSCALL;
		}
		return DS_STATE_USER;
	case DS_SCHED_BLOCKED:
		/* Who ends the blocked time is known only at the wakeup (ds_model_wakeup). */
		return DS_STATE_BLOCKED;
	case DS_SCHED_WAIT_CPU:
		return DS_STATE_WAIT_CPU;
	default:
		return DS_STATE_UNKNOWN;
	}
}

/* Host context: the process of a thread (its pid, the tid while the pid is unknown). */
static int64_t hc_pid(const struct ds_thread *thread)
{
	return thread->pid >= 0 ? thread->pid : thread->tid;
}

/* Host context: the counter of `kind` of the thread's process, `*last` when it is still that one. */
static struct ds_hc_counter *hc_process_counter(struct ds_model *model, struct ds_thread *thread,
		enum ds_hc_kind kind, struct ds_hc_counter **last, int64_t ts)
{
	if (!*last || (*last)->pid != hc_pid(thread)) {
		*last = ds_hc_counter_get(model->hc, kind, hc_pid(thread), NULL, 0, thread->comm, ts);
	}
	return *last;
}

/* Host context: the thread's effective state becomes `state` at `ts`. */
static void hc_thread_state(struct ds_model *model, struct ds_thread *thread, enum ds_state state, int64_t ts)
{
	bool runs = state == DS_STATE_USER || state == DS_STATE_SYSCALL;
	bool waits = state == DS_STATE_WAIT_CPU;

	if (thread->hc_cpu && !runs) {
		ds_hc_change(model->hc, thread->hc_cpu, ts, -1, 0);
		thread->hc_cpu = NULL;
	} else if (!thread->hc_cpu && runs) {
		thread->hc_cpu = hc_process_counter(model, thread, DS_HC_CPU, &thread->hc_cpu_last, ts);
		ds_hc_change(model->hc, thread->hc_cpu, ts, 1, 0);
	}
	if (thread->hc_runq && !waits) {
		ds_hc_change(model->hc, thread->hc_runq, ts, -1, 0);
		thread->hc_runq = NULL;
	} else if (!thread->hc_runq && waits) {
		thread->hc_runq = hc_process_counter(model, thread, DS_HC_RUN_QUEUE, &thread->hc_runq_last, ts);
		ds_hc_change(model->hc, thread->hc_runq, ts, 1, 0);
	}
}

/* Host context: the innermost interrupt context of `cpu` may have changed at `ts`. */
static void hc_cpu_irq(struct ds_model *model, struct cpu_state *cpu, int64_t ts)
{
	static const enum ds_hc_kind kind_of[] = {
		[DS_IRQ_HARD] = DS_HC_IRQ, [DS_IRQ_SOFT] = DS_HC_SOFTIRQ, [DS_IRQ_VECTOR] = DS_HC_VECTOR,
	};
	struct ds_hc_counter *now = NULL;

	if (!model->hc) {
		return;
	}
	if (cpu->irq_depth) {
		const struct irq_context *top = &cpu->irqs[cpu->irq_depth - 1];
		const char *name = top->name ? top->name : "?";

		now = cpu->hc_irq_last;
		if (!now || now->kind != kind_of[top->kind] || now->name != name) {
			now = ds_hc_counter_get(model->hc, kind_of[top->kind], -1, name, 0, NULL, ts);
			cpu->hc_irq_last = now;
		}
	}
	if (now == cpu->hc_irq) {
		return;
	}
	if (cpu->hc_irq) {
		ds_hc_change(model->hc, cpu->hc_irq, ts, -1, 0);
	}
	if (now) {
		ds_hc_change(model->hc, now, ts, 1, 0);
	}
	cpu->hc_irq = now;
}

void ds_model_block_issue(struct ds_model *model, int64_t ts, int64_t tid, uint64_t dev, uint64_t nr_sector)
{
	struct ds_thread *thread;
	struct ds_hc_counter *counter;

	ts = model_time(model, ts);
	if (!model->hc) {
		return;
	}
	thread = ds_model_thread(model, tid, false);
	counter = ds_hc_counter_get(model->hc, DS_HC_DISK, thread ? hc_pid(thread) : (tid > 0 ? tid : -1), NULL, dev,
		thread ? thread->comm : NULL, ts);
	ds_hc_change(model->hc, counter, ts, 0, nr_sector * 512);
}

const char *ds_model_process_name(struct ds_model *model, int64_t pid, const char *fallback)
{
	const struct ds_thread *leader = ds_model_thread(model, pid, false);

	return leader && leader->comm[0] ? leader->comm : fallback;
}

/* Charges the attached spans with the state that ends at `ts`, then takes the new effective state. */
static void thread_refresh(struct ds_model *model, struct ds_thread *thread, int64_t ts)
{
	struct ds_detail detail;
	enum ds_state state = effective_state(model, thread, &detail);
	struct sa_span *span;

	if (state == thread->state && detail.name == thread->detail.name &&
			detail.prefix == thread->detail.prefix && detail.tid == thread->detail.tid) {
		if (thread->chain && thread->sched == DS_SCHED_WAIT_CPU) {
			/* same state, another CPU waited for: a piece of its own in the history */
			ds_chain_piece_close(model, thread, ts);
		}
		return;
	}
	if (thread->chain) {
		ds_chain_piece_close(model, thread, ts);
	}
	ds_chain_share_walks(model, true);
	for (span = thread->spans; span; span = span->next_on_thread) {
		sa_span_charge(span, ts, thread->state, &thread->detail, thread->tid);
	}
	ds_chain_share_walks(model, false);
	if (model->hc && state != thread->state) {
		hc_thread_state(model, thread, state, ts);
	}
	thread->state = state;
	thread->detail = detail;
	thread->since = ts;
}

static void cpu_clear_interrupts(struct ds_model *model, struct cpu_state *cpu, int64_t ts)
{
	if (cpu->irq_depth == 0 && cpu->timer_depth == 0) {
		return;
	}
	cpu->irq_depth = 0;
	cpu->timer_depth = 0;
	if (cpu->current) {
		thread_refresh(model, cpu->current, ts);
	}
	hc_cpu_irq(model, cpu, ts);
}

/* Marks `thread` no longer running on its CPU (another thread was seen there, or it left). */
static void thread_leave_cpu(struct ds_model *model, struct ds_thread *thread)
{
	struct cpu_state *cpu;

	if (thread->cpu >= 0 && (unsigned int) thread->cpu < model->cpu_count) {
		cpu = &model->cpus[thread->cpu];
		if (cpu->current == thread) {
			cpu->current = NULL;
			cpu->idle = false;
		}
	}
}

void ds_model_sched_switch(struct ds_model *model, int64_t ts, int64_t cpu_id,
		int64_t prev_tid, const char *prev_comm, int64_t prev_state,
		int64_t next_tid, const char *next_comm)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);
	struct ds_thread *prev, *next;

	ts = model_time(model, ts);
	if (!cpu) {
		return;
	}
	cpu_clear_interrupts(model, cpu, ts);
	prev = ds_model_thread(model, prev_tid, true);
	if (cpu->current && cpu->current != prev && cpu->current->sched == DS_SCHED_RUNNING) {
		/* The thread we believed current left unseen (lost events): it is Unknown now. */
		struct ds_thread *stale = cpu->current;

		stale->sched = DS_SCHED_UNKNOWN;
		stale->unknown_reason = "lost events";
		thread_refresh(model, stale, ts);
	}
	cpu->current = NULL;
	if (prev) {
		copy_comm(prev->comm, prev_comm);
		switch (ds_prev_state_classify(model->rule, prev_state)) {
		case DS_PREV_WAIT_CPU:
			prev->sched = DS_SCHED_WAIT_CPU;
			break;
		case DS_PREV_BLOCKED:
			prev->sched = DS_SCHED_BLOCKED;
			break;
		case DS_PREV_EXITED:
			prev->sched = DS_SCHED_UNKNOWN;
			prev->unknown_reason = "exited";
			break;
		default:
			prev->sched = DS_SCHED_UNKNOWN;
			prev->unknown_reason = "stopped or traced";
			break;
		}
		prev->cpu = (int32_t) cpu_id;
		thread_refresh(model, prev, ts);
	}
	next = ds_model_thread(model, next_tid, true);
	cpu->idle = next_tid == 0;
	if (next) {
		copy_comm(next->comm, next_comm);
		if (next->sched == DS_SCHED_RUNNING && next->cpu != cpu_id) {
			thread_leave_cpu(model, next);
		}
		next->sched = DS_SCHED_RUNNING;
		next->cpu = (int32_t) cpu_id;
		cpu->current = next;
		thread_refresh(model, next, ts);
	}
	if (model->chain) {
		ds_chain_cpu_run(model, cpu, ts, next ? next->tid : (next_tid == 0 ? 0 : -1),
			next ? next->comm : NULL);
	}
}

/* The waker seen from `cpu`: an interrupt context, a timer, or the current thread. */
static void waker_detail(struct ds_model *model, int64_t cpu_id, struct ds_detail *detail)
{
	const struct cpu_state *cpu;
	const struct irq_context *top;

	*detail = no_detail;
	if (cpu_id < 0 || (uint64_t) cpu_id >= model->cpu_count) {
		return;
	}
	cpu = &model->cpus[cpu_id];
	if (cpu->timer_depth) {
		detail->name = "timer";
		return;
	}
	if (cpu->irq_depth) {
		top = &cpu->irqs[cpu->irq_depth - 1];
		if (top->kind == DS_IRQ_SOFT && top->name &&
				(strcmp(top->name, "TIMER") == 0 || strcmp(top->name, "HRTIMER") == 0)) {
			detail->name = "timer";
			return;
		}
		detail->prefix = top->kind == DS_IRQ_SOFT ? "softirq:" : "irq:";
		detail->name = top->name;
		return;
	}
	if (cpu->current) {
		detail->tid = (int32_t) cpu->current->tid;
		memcpy(detail->comm, cpu->current->comm, sizeof(detail->comm));
	} else if (cpu->idle) {
		detail->tid = 0;
		snprintf(detail->comm, sizeof(detail->comm), "swapper/%d", (int) cpu_id);
	}
}

void ds_model_wakeup(struct ds_model *model, int64_t ts, int64_t cpu_id, int64_t tid,
		const char *comm)
{
	ds_model_wakeup_target(model, ts, cpu_id, tid, comm, -1);
}

void ds_model_wakeup_target(struct ds_model *model, int64_t ts, int64_t cpu_id, int64_t tid,
		const char *comm, int64_t target_cpu)
{
	struct ds_thread *thread = ds_model_thread(model, tid, true);

	ts = model_time(model, ts);
	if (!thread || thread->sched == DS_SCHED_RUNNING || thread->sched == DS_SCHED_WAIT_CPU) {
		return;
	}
	if (comm && !thread->comm[0]) {
		copy_comm(thread->comm, comm);
	}
	if (thread->sched == DS_SCHED_BLOCKED) {
		/* The blocked interval ends now: its detail (charged by the refresh) is the waker. */
		waker_detail(model, cpu_id, &thread->detail);
		if (thread->read_open && cpu_id >= 0 && (uint64_t) cpu_id < model->cpu_count &&
				model->cpus[cpu_id].blk_valid) {
			/* woken by a block completion during a read: a page-cache miss */
			thread->read_missed = true;
		}
		if (thread->chain) {
			ds_chain_wake(model, thread, cpu_id >= 0 && (uint64_t) cpu_id < model->cpu_count ?
				&model->cpus[cpu_id] : NULL);
		}
	}
	if (model->chain && target_cpu >= 0 && target_cpu < MAX_CPUS) {
		thread->cpu = (int32_t) target_cpu;
	}
	thread->sched = DS_SCHED_WAIT_CPU;
	thread_refresh(model, thread, ts);
}

void ds_model_migrate(struct ds_model *model, int64_t ts, int64_t tid, int64_t dest_cpu)
{
	struct ds_thread *thread = ds_model_thread(model, tid, true);

	ts = model_time(model, ts);
	if (!thread || thread->sched == DS_SCHED_RUNNING) {
		return;
	}
	thread->cpu = (int32_t) dest_cpu;
	if (thread->sched != DS_SCHED_BLOCKED) {
		thread->sched = DS_SCHED_WAIT_CPU;
		thread_refresh(model, thread, ts);
	}
}

static void vtid_map_insert(struct ds_model *model, int64_t vpid, int64_t vtid, int64_t tid)
{
	int64_t *key, *value;

	if (vpid < 0 || vtid < 0 || vtid == tid) {
		return;
	}
	key = g_new(int64_t, 1);
	value = g_new(int64_t, 1);
	*key = (int64_t) (((uint64_t) vpid << 32) | ((uint64_t) vtid & 0xffffffffu));
	*value = tid;
	g_hash_table_replace(model->vtid_map, key, value);
}

static void vtid_map_remove(struct ds_model *model, const struct ds_thread *thread)
{
	int64_t key;
	const int64_t *value;

	if (thread->ns_vpid < 0 || thread->ns_vtid < 0) {
		return;
	}
	key = (int64_t) (((uint64_t) thread->ns_vpid << 32) | ((uint64_t) thread->ns_vtid & 0xffffffffu));
	value = g_hash_table_lookup(model->vtid_map, &key);
	if (value && *value == thread->tid) {
		g_hash_table_remove(model->vtid_map, &key);
	}
}

int64_t ds_model_tid_for_vtid(struct ds_model *model, int64_t vpid, int64_t vtid)
{
	int64_t key;
	const int64_t *value;

	if (vpid < 0 || vtid < 0 || g_hash_table_size(model->vtid_map) == 0) {
		return vtid;
	}
	key = (int64_t) (((uint64_t) vpid << 32) | ((uint64_t) vtid & 0xffffffffu));
	value = g_hash_table_lookup(model->vtid_map, &key);
	return value ? *value : vtid;
}

void ds_model_fork(struct ds_model *model, int64_t ts, int64_t parent_tid,
		int64_t child_tid, int64_t child_pid, const char *child_comm,
		const int64_t *vtids, unsigned int vtid_count)
{
	struct ds_thread *parent = ds_model_thread(model, parent_tid, false);
	struct ds_thread *child;

	ts = model_time(model, ts);
	child = ds_model_thread(model, child_tid, true);
	if (!child) {
		return;
	}
	copy_comm(child->comm, child_comm);
	child->pid = child_pid;
	child->forked_by = parent_tid > 0 && parent_tid != child_tid ? parent_tid : -1;
	if (vtids && vtid_count > 1) {
		child->ns_vtid = vtids[vtid_count - 1];
		if (child_pid == child_tid) {
			child->ns_vpid = child->ns_vtid;
		} else if (parent) {
			child->ns_vpid = parent->ns_vpid;
		}
		vtid_map_insert(model, child->ns_vpid, child->ns_vtid, child->tid);
	}
	child->sched = DS_SCHED_WAIT_CPU;
	thread_refresh(model, child, ts);
}

void ds_model_process_free(struct ds_model *model, int64_t ts, int64_t tid)
{
	struct ds_thread *thread = ds_model_thread(model, tid, false);
	unsigned int i;

	ts = model_time(model, ts);
	if (!thread) {
		return;
	}
	detach_all(model, thread, ts);
	if (model->hc) {
		hc_thread_state(model, thread, DS_STATE_UNKNOWN, ts);
	}
	for (i = 0; i < model->cpu_count; i++) {
		if (model->cpus[i].current == thread) {
			model->cpus[i].current = NULL;
		}
	}
	vtid_map_remove(model, thread);
	if (model->thread_cache[(uint64_t) tid % DS_THREAD_CACHE_SIZE] == thread) {
		model->thread_cache[(uint64_t) tid % DS_THREAD_CACHE_SIZE] = NULL;
	}
	g_hash_table_remove(model->threads, &tid);
}

void ds_model_syscall_entry(struct ds_model *model, int64_t ts, int64_t cpu_id, const char *name)
{
	struct ds_thread *thread = ds_model_cpu_current(model, cpu_id);

	ts = model_time(model, ts);
	if (!thread) {
		return;
	}
	thread->syscall = name;
	thread->syscall_entry = ts;
	thread->syscall_seq++;
	thread->read_open = false;
	thread_refresh(model, thread, ts);
}

void ds_model_syscall_exit(struct ds_model *model, int64_t ts, int64_t cpu_id)
{
	struct ds_thread *thread = ds_model_cpu_current(model, cpu_id);
	struct sa_span *span;

	ts = model_time(model, ts);
	if (!thread || !thread->syscall) {
		return;
	}
	/* Charge the syscall state up to the exit before the syscall disappears. */
	for (span = thread->spans; span; span = span->next_on_thread) {
		sa_span_charge(span, ts, thread->state, &thread->detail, thread->tid);
		sa_span_syscall_done(span, thread, ts);
		if (thread->read_open) {
			sa_span_read_done(span, thread, ts);
		}
	}
	thread->syscall = NULL;
	thread->read_open = false;
	thread_refresh(model, thread, ts);
}

static const char *intern(struct ds_model *model, const char *name)
{
	char *interned;

	if (!name) {
		return "?";
	}
	interned = g_hash_table_lookup(model->names, name);
	if (!interned) {
		interned = g_strdup(name);
		g_hash_table_add(model->names, interned);
	}
	return interned;
}

void ds_model_irq_entry(struct ds_model *model, int64_t ts, int64_t cpu_id,
		enum ds_irq_kind kind, const char *name)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);
	struct irq_context *ctx;

	ts = model_time(model, ts);
	if (!cpu) {
		return;
	}
	if (cpu->irq_depth == IRQ_STACK_DEPTH) {
		/* Deeper than any real nesting: entries were lost; start over. */
		cpu->irq_depth = 0;
	}
	ctx = &cpu->irqs[cpu->irq_depth++];
	if (kind == DS_IRQ_SOFT) {
		cpu->rx_valid = false;
	} else if (kind == DS_IRQ_HARD) {
		cpu->blk_valid = false;
		cpu->blk_seq = 0;
	}
	ctx->kind = kind;
	ctx->name = kind == DS_IRQ_HARD ? intern(model, name) : name;
	if (cpu->current) {
		thread_refresh(model, cpu->current, ts);
	}
	hc_cpu_irq(model, cpu, ts);
}

void ds_model_irq_exit(struct ds_model *model, int64_t ts, int64_t cpu_id, enum ds_irq_kind kind)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);
	unsigned int i;

	ts = model_time(model, ts);
	if (!cpu) {
		return;
	}
	/* Pop the innermost context of this kind (and anything left open above it). */
	for (i = cpu->irq_depth; i > 0; i--) {
		if (cpu->irqs[i - 1].kind == kind) {
			cpu->irq_depth = i - 1;
			break;
		}
	}
	if (cpu->current) {
		thread_refresh(model, cpu->current, ts);
	}
	hc_cpu_irq(model, cpu, ts);
}

void ds_model_timer_entry(struct ds_model *model, int64_t cpu_id)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);

	if (cpu) {
		cpu->timer_depth++;
	}
}

void ds_model_timer_exit(struct ds_model *model, int64_t cpu_id)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);

	if (cpu && cpu->timer_depth) {
		cpu->timer_depth--;
	}
}

void ds_model_statedump_process(struct ds_model *model, int64_t ts, int64_t tid,
		int64_t pid, int64_t status, const char *comm)
{
	struct ds_thread *thread = ds_model_thread(model, tid, true);

	ts = model_time(model, ts);
	if (!thread) {
		return;
	}
	if (thread->pid < 0) {
		thread->pid = pid;
	}
	if (!thread->comm[0]) {
		copy_comm(thread->comm, comm);
	}
	if (thread->sched != DS_SCHED_UNKNOWN) {
		return;
	}
	if (status == STATEDUMP_WAIT) {
		thread->sched = DS_SCHED_BLOCKED;
	} else if (status == STATEDUMP_WAIT_CPU || status == STATEDUMP_WAIT_FORK) {
		thread->sched = DS_SCHED_WAIT_CPU;
	} else {
		return;
	}
	thread_refresh(model, thread, ts);
}

void ds_model_statedump_pid_ns(struct ds_model *model, int64_t tid, int64_t vpid,
		int64_t vtid, int64_t ns_level)
{
	struct ds_thread *thread = ds_model_thread(model, tid, true);

	(void) ns_level;
	if (!thread) {
		return;
	}
	/* Levels come outermost first: the last one seen is the innermost namespace. */
	thread->ns_vpid = vpid;
	thread->ns_vtid = vtid;
	vtid_map_insert(model, vpid, vtid, tid);
}

void ds_model_discarded(struct ds_model *model, int64_t ts)
{
	GHashTableIter iter;
	gpointer value;
	unsigned int i;

	ts = model_time(model, ts);
	for (i = 0; i < model->cpu_count; i++) {
		model->cpus[i].current = NULL;
		model->cpus[i].idle = false;
		model->cpus[i].irq_depth = 0;
		model->cpus[i].timer_depth = 0;
		model->cpus[i].rx_valid = false;
		model->cpus[i].blk_valid = false;
		model->cpus[i].blk_seq = 0;
		hc_cpu_irq(model, &model->cpus[i], ts);
		if (model->chain) {
			ds_chain_cpu_run(model, &model->cpus[i], ts, -1, NULL);
		}
	}
	g_hash_table_iter_init(&iter, model->threads);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct ds_thread *thread = value;
		struct sa_span *span;

		if (thread->syscall) {
			for (span = thread->spans; span; span = span->next_on_thread) {
				sa_span_charge(span, ts, thread->state, &thread->detail, thread->tid);
				sa_span_syscall_done(span, thread, ts);
			}
			thread->syscall = NULL;
		}
		thread->read_open = false;
		thread->sched = DS_SCHED_UNKNOWN;
		thread->unknown_reason = "lost events";
		thread_refresh(model, thread, ts);
	}
}

void ds_model_net_send(struct ds_model *model, int64_t ts, int64_t cpu_id, const struct ds_tcp_key *key)
{
	struct ds_thread *sender = ds_model_cpu_current(model, cpu_id);
	const struct cpu_state *cpu = cpu_get(model, cpu_id);
	const struct irq_context *top = cpu && cpu->irq_depth ? &cpu->irqs[cpu->irq_depth - 1] : NULL;

	ts = model_time(model, ts);
	model->net_seen = true;
	if (model->chain) {
		/* sent in interrupt context (ACK-clocked data, retransmission timer): not the interrupted thread's */
		ds_chain_add_send(model->chain, model, ts, sender && !top ? sender->tid : -1, key);
		if (top) {
			ds_chain_net_sent_in_irq(model->chain, top->name, top->kind == DS_IRQ_SOFT);
		}
	}
}

void ds_model_net_receive(struct ds_model *model, int64_t ts, int64_t cpu_id, const struct ds_tcp_key *key)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);
	const struct irq_context *top;

	ts = model_time(model, ts);
	model->net_seen = true;
	if (!model->chain || !cpu || !cpu->irq_depth) {
		return;
	}
	ds_chain_net_receive(model->chain, key, ts);
	top = &cpu->irqs[cpu->irq_depth - 1];
	if (top->kind != DS_IRQ_SOFT || !top->name) {
		return;
	}
	if (!model->net_rx_name && strcmp(top->name, "NET_RX") == 0) {
		/* softirq names are static or interned: compare pointers from now on */
		model->net_rx_name = top->name;
	}
	if (top->name == model->net_rx_name) {
		cpu->rx_valid = true;
		cpu->rx_key = *key;
		cpu->rx_ts = ts;
	}
}

void ds_model_block_complete(struct ds_model *model, int64_t ts, int64_t cpu_id, uint64_t dev)
{
	struct cpu_state *cpu = cpu_get(model, cpu_id);

	ts = model_time(model, ts);
	(void) ts;
	if (!model->chain || !cpu || !cpu->irq_depth || cpu->irqs[cpu->irq_depth - 1].kind != DS_IRQ_HARD) {
		return;
	}
	cpu->blk_valid = true;
	cpu->blk_dev = dev;
}

void ds_model_set_layers(struct ds_model *model, int64_t window)
{
	ds_block_destroy(model->block);
	model->block = ds_block_create(window);
}

struct ds_block *ds_model_block(struct ds_model *model)
{
	return model->block;
}

void ds_model_block_event(struct ds_model *model, int64_t ts, int64_t cpu_id, enum ds_block_op op,
		const struct ds_block_io *io)
{
	struct cpu_state *cpu;
	struct ds_block_io rq = *io;
	const struct ds_block_done *done;
	struct ds_thread *submitter = NULL;

	if (!model->block) {
		if (op == DS_BLOCK_COMPLETE) {
			ds_model_block_complete(model, ts, cpu_id, io->dev);
		}
		return;
	}
	ts = model_time(model, ts);
	cpu = cpu_get(model, cpu_id);
	if (rq.tid < 0 && cpu && !cpu->irq_depth && cpu->current && op != DS_BLOCK_COMPLETE &&
			op != DS_BLOCK_REQUEUE) {
		/* old layouts have no `tid`: the submitter is the thread running the submission */
		rq.tid = cpu->current->tid;
		if (!rq.comm && cpu->current->comm[0]) {
			rq.comm = cpu->current->comm;
		}
	}
	if (rq.tid > 0 && op != DS_BLOCK_COMPLETE && op != DS_BLOCK_REQUEUE) {
		submitter = ds_model_thread(model, rq.tid, false);
		if (submitter && submitter->read_open) {
			/* block I/O issued on behalf of a read: a page-cache miss */
			submitter->read_missed = true;
		}
	}
	done = ds_block_event(model->block, ts, op, &rq);
	if (op != DS_BLOCK_COMPLETE || !cpu || !cpu->irq_depth ||
			cpu->irqs[cpu->irq_depth - 1].kind != DS_IRQ_HARD) {
		return;
	}
	/* layers keep the completing irq known without chains too (page-cache misses) */
	cpu->blk_valid = true;
	cpu->blk_dev = io->dev;
	cpu->blk_seq = done ? done->seq + 1 : 0;
}

void ds_model_syscall_read(struct ds_model *model, int64_t cpu_id)
{
	struct ds_thread *thread = model->block ? ds_model_cpu_current(model, cpu_id) : NULL;

	if (thread && thread->syscall) {
		thread->read_open = true;
		thread->read_missed = false;
	}
}
