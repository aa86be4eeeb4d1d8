/* SPDX-License-Identifier: MIT */
/* hotrod: spans, client calls, server jobs and the worker / helper behaviour. */
#include <stdlib.h>
#include <string.h>

#include "hotrod-model.h"
#include "sim-truth.h"

/* ---- pools ---- */

struct hr_job *hr_job_new(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_job *job = hr->free_jobs;

	if (job) {
		hr->free_jobs = job->next;
	} else {
		job = sim_pool_alloc(sim, sizeof(*job));
		if (!job) {
			return NULL;
		}
	}
	memset(job, 0, sizeof(*job));
	return job;
}

static void job_free(struct sim *sim, struct hr_job *job)
{
	job->next = hr_state(sim)->free_jobs;
	hr_state(sim)->free_jobs = job;
}

static struct sim_span *span_new(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct sim_span *span = hr->free_spans;

	if (span) {
		hr->free_spans = span->next_free;
	} else {
		span = sim_pool_alloc(sim, sizeof(*span));
		if (!span) {
			return NULL;
		}
	}
	memset(span, 0, sizeof(*span));
	return span;
}

static void span_free(struct sim *sim, struct sim_span *span)
{
	span->next_free = hr_state(sim)->free_spans;
	hr_state(sim)->free_spans = span;
}

static void queue_push(struct hr_job_queue *queue, struct hr_job *job)
{
	job->next = NULL;
	if (queue->tail) {
		queue->tail->next = job;
	} else {
		queue->head = job;
	}
	queue->tail = job;
}

static struct hr_job *queue_pop(struct hr_job_queue *queue)
{
	struct hr_job *job = queue->head;

	if (job) {
		queue->head = job->next;
		if (!queue->head) {
			queue->tail = NULL;
		}
		job->next = NULL;
	}
	return job;
}

/* ---- spans ---- */

static uint64_t new_span_id(struct sim *sim)
{
	uint64_t id;

	do {
		id = sim_rng_next(&hr_state(sim)->rng);
	} while (id == 0);
	return id;
}

static struct sim_span *span_start(struct sim *sim, struct sim_thread *t, struct hr_request *req,
		uint64_t parent, enum hr_service service, const char *operation, uint8_t kind)
{
	struct sim_span *span = span_new(sim);
	struct sim_record *rec;

	if (!span) {
		return NULL;
	}
	span->trace_id_high = req->trace_id_high;
	span->trace_id_low = req->trace_id_low;
	span->span_id = new_span_id(sim);
	span->parent_span_id = parent;
	span->host = t->host;
	span->service = sim_intern(sim, hr_services[service].name);
	span->operation = operation;
	span->pid = t->proc->pid;
	span->tid = t->tid;
	span->kind = kind;
	span->request = req;
	span->chain_truth = sim->cfg.truth_chains || (req->slow && sim_cause_is_chain(req->cause));
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec = sim_emit_thread(sim, t, SIM_EV_JAEGER_START_SPAN);
		rec->v[0] = (int64_t) span->trace_id_high;
		rec->v[1] = (int64_t) span->trace_id_low;
		rec->v[2] = (int64_t) span->span_id;
		rec->v[3] = (int64_t) parent;
		rec->s[0] = operation;
		rec->v[4] = rec->ts;	/* start_time: ns since the epoch (host clock), like `duration` */
	} else {
		rec = sim_emit_thread(sim, t, SIM_EV_DS_SPAN_START);
		rec->v[0] = (int64_t) span->trace_id_high;
		rec->v[1] = (int64_t) span->trace_id_low;
		rec->v[2] = (int64_t) span->span_id;
		rec->v[3] = (int64_t) parent;
		rec->s[0] = span->service;
		rec->s[1] = operation;
		rec->v[4] = kind;
	}
	sim_book_span_start(&t->book, span, rec->ts);
	if (parent == 0) {
		req->root_begin = span->begin;
	}
	return span;
}

static void span_end(struct sim *sim, struct sim_thread *t)
{
	struct sim_span *open = t->book.spans;
	struct sim_record *rec;
	struct sim_span *span;

	if (!open) {
		return;
	}
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec = sim_emit_thread(sim, t, SIM_EV_JAEGER_END_SPAN);
		rec->v[3] = 0;
	} else {
		rec = sim_emit_thread(sim, t, SIM_EV_DS_SPAN_END);
		rec->v[3] = 1;	/* status ok */
	}
	rec->v[0] = (int64_t) open->trace_id_high;
	rec->v[1] = (int64_t) open->trace_id_low;
	rec->v[2] = (int64_t) open->span_id;
	span = sim_book_span_end(&t->book, rec->ts);
	if (sim->cfg.span_schema == SIM_SPANS_JAEGER) {
		rec->v[3] = span->end - span->begin;
	}
	if (sim->truth) {
		sim_truth_span(sim->truth, sim, span);
	}
	if (span->parent_span_id == 0) {
		hr_request_done(sim, span->request, span);
	}
	span_free(sim, span);
}

/* ---- syscall helpers ---- */

void hr_sys_quick(struct sim *sim, struct sim_thread *t, enum sim_syscall sys,
		const int64_t *entry, const char *string, const int64_t *exit)
{
	sim_syscall_entry(sim, t, sys, entry, string);
	sim_syscall_exit(sim, t, sys, exit);
}

uint64_t hr_user_buffer(const struct sim_thread *t)
{
	return UINT64_C(0xc000100000) + (uint64_t) t->tid * 0x10000;
}

/* ---- connections ---- */


static struct sim_conn *conn_for(struct sim *sim, struct sim_thread *t, enum hr_service service,
		struct hr_instance **inst_out)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_thread_role *role = t->role;
	unsigned int which = role->next_instance[service]++ % hr->ninst[service];
	struct hr_instance *inst = &hr->inst[service][which];
	struct sim_conn *conn = role->conns[service][which];
	struct sim_host *host = &sim->host[t->host];

	*inst_out = inst;
	if (conn) {
		return conn;
	}
	conn = calloc(1, sizeof(*conn));
	if (!conn) {
		sim_fail(sim, "out of memory creating a connection");
		return NULL;
	}
	hr_conn_init(sim, conn, (int) t->host, host->ip, host->next_port++, inst, service);
	role->conns[service][which] = conn;
	return conn;
}

void hr_conn_init(struct sim *sim, struct sim_conn *conn, int client_host, uint32_t client_ip,
		uint16_t client_port, struct hr_instance *inst, enum hr_service service)
{
	struct sim_hotrod *hr = hr_state(sim);

	conn->host[0] = client_host;
	conn->host[1] = (int) inst->host;
	conn->ip[0] = client_ip;
	conn->ip[1] = sim->host[inst->host].ip;
	conn->port[0] = client_port;
	conn->port[1] = hr_services[service].port;
	conn->snd_nxt[0] = (uint32_t) sim_rng_next(&hr->rng);
	conn->snd_nxt[1] = (uint32_t) sim_rng_next(&hr->rng);
	conn->rcv_nxt[0] = conn->snd_nxt[1];
	conn->rcv_nxt[1] = conn->snd_nxt[0];
	conn->deliver = hr_deliver;
	conn->owner = inst;
}

/* ---- job programs ---- */

static void add_op(struct hr_job *job, struct hr_op op)
{
	if (job->nops < HR_MAX_OPS) {
		job->ops[job->nops++] = op;
	}
}

static int64_t jitter(struct sim *sim, int64_t mean)
{
	return sim_rng_jitter(&hr_state(sim)->rng, mean, 0.35);
}

static struct hr_op op_compute(struct sim *sim, int64_t mean)
{
	return (struct hr_op) { .kind = HR_OP_COMPUTE, .ns = jitter(sim, mean) };
}

/* `index` tells calls of one program apart (0 = first). */
static struct hr_op op_call(struct sim *sim, enum hr_service service, const char *operation,
		uint32_t req_bytes, uint32_t resp_bytes, unsigned int index)
{
	return (struct hr_op) { .kind = HR_OP_CALL, .service = service,
		.operation = sim_intern(sim, operation), .req_bytes = req_bytes,
		.resp_bytes = resp_bytes, .count = index };
}

/* Fills the program of a server job for `service`/`operation` of `req`. */
/* The frontend's program: customer, nearest drivers, then the routes in parallel (a CPU hog for `cpu`). */
static void build_frontend(struct sim *sim, struct hr_job *job, enum sim_cause cause)
{
	add_op(job, op_compute(sim, 120000));
	add_op(job, op_call(sim, HR_CUSTOMER, "HTTP GET /customer", 220, 480, 0));
	add_op(job, op_compute(sim, 40000));
	add_op(job, op_call(sim, HR_DRIVER, "FindNearest", 300, 2900, 0));
	if (cause == SIM_CAUSE_CPU) {
		add_op(job, (struct hr_op) { .kind = HR_OP_HOG,
			.ns = sim_rng_range(&hr_state(sim)->rng, 12000000, 18000000) });
	}
	add_op(job, (struct hr_op) { .kind = HR_OP_PAR_CALLS, .service = HR_ROUTE,
		.operation = sim_intern(sim, "HTTP GET /route"), .req_bytes = 250,
			.resp_bytes = 1200, .count = HR_ROUTE_FANOUT });
	add_op(job, op_compute(sim, 80000));
	job->resp_bytes = 1900;
}

/* MySQL's program: the lock, deadlock and disk causes are here; a cached read otherwise. */
static void build_mysql(struct sim *sim, struct hr_job *job, enum sim_cause cause)
{
	add_op(job, op_compute(sim, 40000));
	if (cause == SIM_CAUSE_LOCK || cause == SIM_CAUSE_LOCK_HOG || cause == SIM_CAUSE_LOCK_SLEEP ||
			cause == SIM_CAUSE_LOCK_REMOTE || cause == SIM_CAUSE_HANDOFF) {
		add_op(job, (struct hr_op) { .kind = HR_OP_LOCK,
			.ns = sim_rng_range(&hr_state(sim)->rng, 20000000, 40000000) });
	}
	if (cause == SIM_CAUSE_DEADLOCK) {
		add_op(job, (struct hr_op) { .kind = HR_OP_DEADLOCK });
	}
	if (cause == SIM_CAUSE_DISK_CONTENTION) {
		/* backup.sh's burst is queued on the device while the query is planned, then the read */
		add_op(job, (struct hr_op) { .kind = HR_OP_BACKUP });
		add_op(job, op_compute(sim, 150000));
		add_op(job, (struct hr_op) { .kind = HR_OP_DISK_READ,
			.ns = sim_rng_range(&hr_state(sim)->rng, 90000, 160000), .count = 1 });
	} else if (cause == SIM_CAUSE_CACHE_MISS) {
		/* the same file as every request's read, not in the page cache this time: a seek on the
		 * device (queued behind nothing: an idle disk) */
		add_op(job, (struct hr_op) { .kind = HR_OP_DISK_READ,
			.ns = sim_rng_range(&hr_state(sim)->rng, 6000000, 14000000), .count = 1 });
	} else if (cause == SIM_CAUSE_DISK) {
		add_op(job, (struct hr_op) { .kind = HR_OP_DISK_READ,
			.ns = sim_rng_range(&hr_state(sim)->rng, 15000000, 30000000) });
	} else {
		add_op(job, (struct hr_op) { .kind = HR_OP_CACHED_READ });
	}
	add_op(job, op_compute(sim, 150000));
	job->resp_bytes = 600;
}

/* Redis's program: the lock holder's remote call (`lock-remote`) and the irq storm (`irq`) are here. */
static void build_redis(struct sim *sim, struct hr_job *job, enum sim_cause cause, unsigned int call_index)
{
	if (cause == SIM_CAUSE_LOCK_REMOTE && call_index == HR_REMOTE_CALL_INDEX) {
		/* the lock holder's remote call: the remote thread computes while the lock is held */
		add_op(job, op_compute(sim, ((struct hr_thread_role *) job->caller->role)->inst->hold_ns));
	} else if (cause == SIM_CAUSE_IRQ && call_index == 1) {
		add_op(job, (struct hr_op) { .kind = HR_OP_STORM, .count = 400 });
		add_op(job, op_compute(sim, 400000));
	} else {
		add_op(job, op_compute(sim, call_index == 0 ? 60000 : 120000));
	}
	job->resp_bytes = 250;
}

void hr_build_program(struct sim *sim, struct hr_job *job, unsigned int call_index)
{
	struct hr_request *req = job->req;
	enum sim_cause cause = req->slow ? req->cause : SIM_CAUSE_NONE;
	unsigned int i;

	switch (job->service) {
	case HR_FRONTEND:
		build_frontend(sim, job, cause);
		break;
	case HR_CUSTOMER:
		add_op(job, op_compute(sim, 60000));
		add_op(job, op_call(sim, HR_MYSQL, "SQL SELECT", 180, 600, 0));
		add_op(job, op_compute(sim, 30000));
		job->resp_bytes = 480;
		break;
	case HR_MYSQL:
		build_mysql(sim, job, cause);
		break;
	case HR_DRIVER:
		add_op(job, op_compute(sim, 50000));
		add_op(job, op_call(sim, HR_REDIS, "FindDriverIDs", 120, 400, 0));
		add_op(job, op_compute(sim, 20000));
		for (i = 0; i < HR_GET_DRIVER_CALLS; i++) {
			add_op(job, op_call(sim, HR_REDIS, "GetDriver", 90, 250, i + 1));
		}
		add_op(job, op_compute(sim, 40000));
		job->resp_bytes = 2900;
		break;
	case HR_REDIS:
		build_redis(sim, job, cause, call_index);
		break;
	case HR_ROUTE:
		add_op(job, op_compute(sim, 1500000));
		job->resp_bytes = 1200;
		break;
	default:
		break;
	}
}

/* ---- service side ---- */

static void assign_job(struct sim *sim, struct hr_instance *inst, struct hr_job *job, unsigned int cpu)
{
	struct hr_thread_role *worker = inst->idle;

	job->inst = inst;
	if (!worker) {
		queue_push(&inst->backlog, job);
		return;
	}
	inst->idle = worker->next_idle;
	worker->next_idle = NULL;
	worker->idle = false;
	worker->thread->job = job;
	sim_wake(sim, worker->thread, cpu);
}

void hr_deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu)
{
	struct hr_job *job = msg;

	if (dir == 0) {
		assign_job(sim, conn->owner, job, cpu);
		return;
	}
	job->replied = true;
	sim_wake(sim, job->caller, cpu);
}

static struct hr_job *take_job(struct hr_instance *inst, struct sim_thread *t)
{
	struct hr_job *job = t->job;

	if (job) {
		t->job = NULL;
		return job;
	}
	return queue_pop(&inst->backlog);
}

/* ---- the worker / helper behaviour ---- */


/* The client span starts and sendto enters the kernel; the request leaves in call_sent(). */
static void call_begin(struct sim *sim, struct sim_thread *t, const struct hr_op *op,
		struct hr_request *req, uint64_t parent_span_id, unsigned int call_index)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst;
	struct sim_conn *conn = conn_for(sim, t, op->service, &inst);
	struct hr_job *job = hr_job_new(sim);
	int64_t entry[6] = { 7 + op->service, (int64_t) hr_user_buffer(t), op->req_bytes, 0, 0, 0 };

	if (!conn || !job) {
		return;
	}
	/* the lock holder's call (lock-remote) is its own business: no spans, no trace context */
	job->untraced = role->kind == HR_ROLE_HOLDER;
	role->call_span = job->untraced ? NULL : span_start(sim, t, req, parent_span_id,
		role->inst->service, op->operation, 2);
	job->req = req;
	job->service = op->service;
	job->operation = op->operation;
	job->parent_span_id = role->call_span ? role->call_span->span_id : 0;
	job->conn = conn;
	job->caller = t;
	job->req_bytes = op->req_bytes;
	hr_build_program(sim, job, call_index);
	role->call = job;
	sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
}

/* The request's segments leave (net_dev_queue), sendto returns, recvfrom waits for the reply. */
static void call_sent(struct sim *sim, struct sim_thread *t, const struct hr_op *op)
{
	struct hr_thread_role *role = t->role;
	int64_t exit_values[1] = { op->req_bytes };
	int64_t entry[4] = { 7 + op->service, 65536, 0, 0 };

	sim_tcp_send(sim, t, role->call->conn, 0, op->req_bytes, role->call);
	sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, entry, NULL);
}

static void call_receive(struct sim *sim, struct sim_thread *t, uint32_t bytes)
{
	struct hr_thread_role *role = t->role;
	int64_t exit_values[4] = { bytes, (int64_t) hr_user_buffer(t), 0, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_RECVFROM, exit_values);
	if (role->call_span) {
		span_end(sim, t);
	}
	role->call_span = NULL;
	job_free(sim, role->call);
	role->call = NULL;
}

/* ---- the lock holder's remote call (lock-remote) ---- */

void hr_holder_call_begin(struct sim *sim, struct sim_thread *t)
{
	struct hr_instance *inst = ((struct hr_thread_role *) t->role)->inst;

	inst->remote_op = op_call(sim, HR_REDIS, "FindDriverIDs", 120, 400, HR_REMOTE_CALL_INDEX);
	call_begin(sim, t, &inst->remote_op, inst->lock_req, inst->lock_parent_span, HR_REMOTE_CALL_INDEX);
}

void hr_holder_call_sent(struct sim *sim, struct sim_thread *t)
{
	call_sent(sim, t, &((struct hr_thread_role *) t->role)->inst->remote_op);
}

void hr_holder_call_receive(struct sim *sim, struct sim_thread *t)
{
	call_receive(sim, t, ((struct hr_thread_role *) t->role)->inst->remote_op.resp_bytes);
}

/* ---- deadlock ---- */

/* The mysql worker sends to the replica (which answers) and waits in recvfrom. */
static void deadlock_send(struct sim *sim, struct sim_thread *t)
{
	struct sim_hotrod *hr = hr_state(sim);
	int64_t entry[6] = { 10, (int64_t) hr_user_buffer(t), 64, 0, 0, 0 };
	int64_t exit_values[1] = { 64 };
	int64_t recv_entry[4] = { 10, 65536, 0, 0 };

	hr->dl_worker = t;
	t->deadlock_peer = hr->replica;
	hr->replica->deadlock_peer = t;
	hr->dl_req = ((struct hr_job *) t->job)->req;
	hr->dl_req->culprit = hr->replica;
	hr->dl_req->cycle_peer = t;
	hr->stuck++;
	sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
	sim_tcp_send(sim, t, hr->dl_conn, 0, 64, NULL);
	sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL);
}

static void dispatch_tasks(struct sim *sim, struct sim_thread *t, const struct hr_op *op,
		struct hr_job *parent)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst = role->inst;
	int64_t entry[6] = { (int64_t) HR_LOCK_ADDR + 64, 129, 1, 0, 0, 0 };
	int64_t exit_values[3] = { 0, (int64_t) HR_LOCK_ADDR + 64, 0 };
	unsigned int i;

	role->pending = op->count;
	for (i = 0; i < op->count; i++) {
		struct hr_job *task = hr_job_new(sim);
		struct hr_thread_role *helper;

		if (!task) {
			return;
		}
		task->req = parent->req;
		task->ops[0] = *op;
		task->ops[0].kind = HR_OP_CALL;
		task->ops[0].count = i;
		task->nops = 1;
		task->parent_span_id = t->book.spans ? t->book.spans->span_id : 0;
		task->parent_thread = t;
		task->pending = &role->pending;
		helper = inst->idle_helpers;
		if (helper) {
			inst->idle_helpers = helper->next_idle;
			helper->next_idle = NULL;
			helper->idle = false;
			helper->thread->job = task;
			/* FUTEX_WAKE_PRIVATE on the helper's condition variable */
			sim_syscall_entry(sim, t, SIM_SYS_FUTEX, entry, NULL);
			sim_wake(sim, helper->thread, t->cpu);
			exit_values[0] = 1;
			sim_syscall_exit(sim, t, SIM_SYS_FUTEX, exit_values);
		} else {
			queue_push(&inst->tasks, task);
		}
	}
}

static void task_done(struct sim *sim, struct sim_thread *t, struct hr_job *task)
{
	int64_t entry[6] = { (int64_t) HR_LOCK_ADDR + 128, 129, 1, 0, 0, 0 };
	int64_t exit_values[3] = { 1, (int64_t) HR_LOCK_ADDR + 128, 0 };

	if (--*task->pending == 0) {
		sim_syscall_entry(sim, t, SIM_SYS_FUTEX, entry, NULL);
		sim_wake(sim, task->parent_thread, t->cpu);
		sim_syscall_exit(sim, t, SIM_SYS_FUTEX, exit_values);
	}
}

/* epoll_wait returns the ready socket; recvfrom enters the kernel to copy the request. */
static void server_receive(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t exit_epoll[3] = { 1, 1, 7 + job->service };
	int64_t recv_entry[4] = { 7 + job->service, 65536, 0, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_EPOLL_WAIT, exit_epoll);
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL);
}

/* recvfrom returns the request and the server span starts. */
static void server_begin(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t recv_exit[4] = { job->req_bytes, (int64_t) hr_user_buffer(t), 0, 0 };
	struct hr_thread_role *role = t->role;

	sim_syscall_exit(sim, t, SIM_SYS_RECVFROM, recv_exit);
	if (!job->untraced) {
		(void) span_start(sim, t, job->req, job->parent_span_id, role->inst->service,
			job->operation, 1);
	}
}

/* The server span ends and sendto enters the kernel with the reply. */
static void server_reply(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t entry[6] = { 7 + job->service, (int64_t) hr_user_buffer(t), job->resp_bytes, 0, 0, 0 };

	if (!job->untraced) {
		span_end(sim, t);
	}
	sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
}

/* The reply's segments leave and sendto returns. */
static void server_end(struct sim *sim, struct sim_thread *t, struct hr_job *job)
{
	int64_t exit_values[1] = { job->resp_bytes };
	enum sim_cause cause = job->req && job->req->slow ? job->req->cause : SIM_CAUSE_NONE;

	if (job->service == HR_CUSTOMER && !job->untraced &&
			(cause == SIM_CAUSE_NET_DELAY || cause == SIM_CAUSE_NET_RETRANSMIT)) {
		/* the network path customer -> frontend: the reply is slow in flight, or lost and retransmitted */
		int64_t ns = sim_rng_range(&hr_state(sim)->rng, 20000000, 40000000);

		sim_tcp_send_faulty(sim, t, job->conn, 1, job->resp_bytes, job,
			cause == SIM_CAUSE_NET_DELAY ? ns : 0, cause == SIM_CAUSE_NET_RETRANSMIT ? ns : 0);
	} else {
		sim_tcp_send(sim, t, job->conn, 1, job->resp_bytes, job);
	}
	sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	if (job->conn->host[0] < 0) {
		job_free(sim, job);	/* nobody traced waits for this reply */
	}
}

static void idle_begin(struct sim *sim, struct sim_thread *t)
{
	int64_t entry[3] = { 3, 64, -1 };

	sim_syscall_entry(sim, t, SIM_SYS_EPOLL_WAIT, entry, NULL);
}

void hr_make_idle(struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;

	if (role->idle) {
		return;
	}
	role->idle = true;
	if (role->kind == HR_ROLE_HELPER) {
		role->next_idle = role->inst->idle_helpers;
		role->inst->idle_helpers = role;
	} else {
		role->next_idle = role->inst->idle;
		role->inst->idle = role;
	}
}

static struct hr_job *take_task(struct hr_instance *inst, struct sim_thread *t)
{
	struct hr_job *job = t->job;

	if (job) {
		t->job = NULL;
		return job;
	}
	return queue_pop(&inst->tasks);
}

/* The instantaneous part of an operation: syscall entries, disk request, cause triggers. */
static void op_start(struct sim *sim, struct sim_thread *t, const struct hr_op *op)
{
	struct hr_instance *inst = ((struct hr_thread_role *) t->role)->inst;
	int64_t v[3] = { 0 };

	if (op->kind == HR_OP_CACHED_READ || op->kind == HR_OP_DISK_READ) {
		v[0] = 12;
		v[1] = 16384;
		v[2] = (int64_t) (sim_rng_next(&hr_state(sim)->rng) % 4096) * 16384;
		sim_syscall_entry(sim, t, SIM_SYS_PREAD64, v, NULL);
		if (op->kind == HR_OP_DISK_READ && op->count) {
			sim_disk_submit(sim, t, 16384, false, op->ns);
		} else if (op->kind == HR_OP_DISK_READ) {
			sim_disk_read(sim, t, 16384, op->ns);
		}
	} else if (op->kind == HR_OP_LOCK) {
		hr_lock_trigger(sim, t, inst, op->ns);
		t->arg = (int64_t) inst->lock_rounds_wanted;
	} else if (op->kind == HR_OP_STORM) {
		sim_irq_storm(sim, t->host, t->cpu, op->count, 41000, 40000);
	} else if (op->kind == HR_OP_HOG) {
		hr_trigger_hog(sim, op->ns);
	} else if (op->kind == HR_OP_BACKUP) {
		hr_trigger_backup(sim, t);
	}
}

struct sim_step hr_worker_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;
	struct hr_instance *inst = role->inst;
	struct hr_job *job = t->job;
	const struct hr_op *op;

	SIM_CO_BEGIN(t);
	for (;;) {
		if (role->kind == HR_ROLE_HELPER) {
			static const int64_t wait_entry[6] = { (int64_t) HR_LOCK_ADDR + 192, 128, 0, 0, 0, 0 };

			if (t->started) {
				sim_syscall_entry(sim, t, SIM_SYS_FUTEX, wait_entry, NULL);
			}
			t->started = true;
			while (!(t->job = take_task(inst, t))) {
				hr_make_idle(t);
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
			{
				static const int64_t wait_exit[3] = { 0, (int64_t) HR_LOCK_ADDR + 192, 0 };

				sim_syscall_exit(sim, t, SIM_SYS_FUTEX, wait_exit);
			}
		} else {
			if (t->started) {
				idle_begin(sim, t);
			}
			t->started = true;
			while (!(t->job = take_job(inst, t))) {
				hr_make_idle(t);
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
		}
		role->idle = false;
		job = t->job;
		if (role->kind == HR_ROLE_WORKER) {
			server_receive(sim, t, job);
			SIM_CO_YIELD(t, step_run(sim_rng_jitter(&sim->rng, 3000, 0.4)));
			server_begin(sim, t, t->job);
		}
		for (t->i = 0; t->i < (int64_t) ((struct hr_job *) t->job)->nops; t->i++) {
			job = t->job;
			op = &job->ops[t->i];
			if (op->kind == HR_OP_COMPUTE) {
				SIM_CO_YIELD(t, step_run(((struct hr_job *) t->job)->ops[t->i].ns));
			} else if (op->kind == HR_OP_CALL) {
				call_begin(sim, t, op, job->req,
					role->kind == HR_ROLE_HELPER ? job->parent_span_id :
					(t->book.spans ? t->book.spans->span_id : 0), op->count);
				SIM_CO_YIELD(t, step_run(sim_rng_jitter(&sim->rng, 5000, 0.4)));
				call_sent(sim, t, &((struct hr_job *) t->job)->ops[t->i]);
				SIM_CO_YIELD(t, step_run(1500));
				while (!role->call->replied) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
				SIM_CO_YIELD(t, step_run(sim_rng_jitter(&sim->rng, 2500, 0.4)));
				call_receive(sim, t, ((struct hr_job *) t->job)->ops[t->i].resp_bytes);
			} else if (op->kind == HR_OP_PAR_CALLS) {
				dispatch_tasks(sim, t, op, job);
				{
					static const int64_t wait_entry[6] = { (int64_t) HR_LOCK_ADDR + 128, 128, 0, 0, 0, 0 };

					sim_syscall_entry(sim, t, SIM_SYS_FUTEX, wait_entry, NULL);
				}
				while (role->pending > 0) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
				{
					static const int64_t wait_exit[3] = { 0, (int64_t) HR_LOCK_ADDR + 128, 0 };

					sim_syscall_exit(sim, t, SIM_SYS_FUTEX, wait_exit);
				}
			} else if (op->kind == HR_OP_CACHED_READ) {
				op_start(sim, t, op);
				SIM_CO_YIELD(t, step_run(6000));
				{
					int64_t x[2] = { 16384, (int64_t) hr_user_buffer(t) };

					sim_syscall_exit(sim, t, SIM_SYS_PREAD64, x);
				}
			} else if (op->kind == HR_OP_DISK_READ) {
				op_start(sim, t, op);
				while (!t->io_done) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_DISK));
				}
				SIM_CO_YIELD(t, step_run(8000));
				{
					int64_t x[2] = { 16384, (int64_t) hr_user_buffer(t) };

					sim_syscall_exit(sim, t, SIM_SYS_PREAD64, x);
				}
			} else if (op->kind == HR_OP_DEADLOCK && hr_state(sim)->replica) {
				deadlock_send(sim, t);
				while (!hr_state(sim)->dl_reply) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
				{
					int64_t x[4] = { 64, (int64_t) hr_user_buffer(t), 0, 0 };
					int64_t recv_entry[4] = { 10, 65536, 0, 0 };

					sim_syscall_exit(sim, t, SIM_SYS_RECVFROM, x);
					sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL);
				}
				while (t->deadlock_peer) {
					SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
				}
			} else if (op->kind == HR_OP_LOCK) {
				op_start(sim, t, op);
				SIM_CO_YIELD(t, step_run(15000));
				if (inst->lock_rounds_done < (uint64_t) t->arg) {
					int64_t v[6] = { (int64_t) HR_LOCK_ADDR, 128, 2, 0, 0, 0 };

					sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
					if (inst->nlock_waiters < 16) {
						inst->lock_waiters[inst->nlock_waiters++] = t;
					}
					while (((struct hr_thread_role *) t->role)->inst->lock_rounds_done < (uint64_t) t->arg) {
						SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
					}
					{
						int64_t x[3] = { 0, (int64_t) HR_LOCK_ADDR, 0 };

						sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
					}
				}
			} else {
				op_start(sim, t, op);
			}
		}
		job = t->job;
		if (role->kind == HR_ROLE_WORKER) {
			server_reply(sim, t, job);
			SIM_CO_YIELD(t, step_run(sim_rng_jitter(&sim->rng, 6000, 0.4)));
			server_end(sim, t, t->job);
		} else {
			task_done(sim, t, job);
			job_free(sim, job);
		}
		t->job = NULL;
	}
	SIM_CO_END(t);
}
