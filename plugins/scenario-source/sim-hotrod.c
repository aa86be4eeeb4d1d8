/* SPDX-License-Identifier: MIT */
#include "sim-hotrod.h"

#include <stdlib.h>
#include <string.h>

#include "hotrod-model.h"
#include "sim-truth.h"

static const enum hr_service placement_order[HR_SERVICES] = {
	HR_FRONTEND, HR_CUSTOMER, HR_DRIVER, HR_ROUTE, HR_MYSQL, HR_REDIS,
};

const struct hr_service_desc hr_services[HR_SERVICES] = {
	[HR_FRONTEND] = { "frontend", "frontend", 8080, 4 },
	[HR_CUSTOMER] = { "customer", "customer", 8081, 3 },
	[HR_DRIVER] = { "driver", "driver", 8082, 3 },
	[HR_ROUTE] = { "route", "route", 8083, 4 },
	[HR_MYSQL] = { "mysql", "mysqld", 3306, 4 },
	[HR_REDIS] = { "redis", "redis-server", 6379, 1 },
};

static const char *sim_hotrod_host_name(unsigned int index, unsigned int hosts)
{
	static const char *const names[2 * SIM_MAX_HOSTS] = {
		"frontend", "customer", "driver", "route", "mysql", "redis",
		"frontend-2", "customer-2", "driver-2", "route-2", "mysql-2", "redis-2",
	};

	(void) hosts;
	return names[index % (2 * SIM_MAX_HOSTS)];
}

/* ---- requests ---- */

void hr_request_done(struct sim *sim, struct hr_request *req, const struct sim_span *root)
{
	struct sim_hotrod *hr = hr_state(sim);

	if (sim->truth) {
		struct sim_truth_request tr = {
			.trace_id_high = req->trace_id_high,
			.trace_id_low = req->trace_id_low,
			.root_operation = root->operation,
			.root_service = root->service,
			.begin = root->begin,
			.end = root->end,
			.cause = sim_cause_name(req->slow ? req->cause : SIM_CAUSE_NONE),
			.slow = req->slow,
			.culprit = req->slow ? req->culprit : NULL,
			.cycle_peer = req->slow ? req->cycle_peer : NULL,
		};

		sim_truth_request(sim->truth, sim, &tr);
	}
	hr->slot_busy[req->slot] = false;
	hr->completed++;
	hr->inflight--;
	req->next_free = hr->free_requests;
	hr->free_requests = req;
	if (hr->waiting_arrivals > 0) {
		hr->waiting_arrivals--;
		sim_schedule(sim, sim_host_now(sim, root->host) + 50000, HR_ACT_ARRIVAL, 1, 0, NULL);
	}
}

static enum sim_cause draw_cause(struct sim *sim)
{
	static const enum sim_cause mixed[4] = {
		SIM_CAUSE_LOCK, SIM_CAUSE_CPU, SIM_CAUSE_DISK, SIM_CAUSE_IRQ,
	};

	if (sim->cfg.cause == SIM_CAUSE_MIXED) {
		return mixed[sim_rng_next(&hr_state(sim)->rng) % 4];
	}
	return sim->cfg.cause;
}

static void start_request(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_request *req = hr->free_requests;
	struct sim_conn *conn;
	struct hr_job *job;
	unsigned int slot;

	for (slot = 0; slot < sim->cfg.max_inflight && hr->slot_busy[slot]; slot++) {
	}
	if (req) {
		hr->free_requests = req->next_free;
	} else {
		req = sim_pool_alloc(sim, sizeof(*req));
		if (!req) {
			return;
		}
	}
	memset(req, 0, sizeof(*req));
	req->index = hr->issued++;
	req->trace_id_high = sim_rng_next(&hr->rng);
	req->trace_id_low = sim_rng_next(&hr->rng) | 1;
	req->slow = sim->cfg.cause != SIM_CAUSE_NONE && sim_rng_unit(&hr->rng) < sim->cfg.slow_ratio;
	req->cause = req->slow ? draw_cause(sim) : SIM_CAUSE_NONE;
	if (req->cause == SIM_CAUSE_DEADLOCK) {
		/* one deadlock per run: it keeps a mysql worker forever */
		if (hr->dl_drawn) {
			req->slow = false;
			req->cause = SIM_CAUSE_NONE;
		}
		hr->dl_drawn = true;
	}
	req->slot = slot;
	hr->slot_busy[slot] = true;
	hr->inflight++;
	conn = &hr->ext_conns[slot];
	job = hr_job_new(sim);
	if (!job) {
		return;
	}
	job->req = req;
	job->service = HR_FRONTEND;
	job->operation = sim_intern(sim, "HTTP GET /dispatch");
	job->conn = conn;
	job->req_bytes = 350;
	hr_build_program(sim, job, 0);
	sim_tcp_inject(sim, conn, 0, 350, job, sim->now);
}

static void on_arrival(struct sim *sim, bool scheduled)
{
	struct sim_hotrod *hr = hr_state(sim);

	if (scheduled) {
		/* a fresh arrival: schedule the next one */
		if (hr->issued + hr->waiting_arrivals + 1 < sim->cfg.requests) {
			sim_schedule(sim, sim->now + sim_rng_exp(&hr->rng, (double) sim->cfg.interarrival_ns),
				HR_ACT_ARRIVAL, 0, 0, NULL);
		}
	}
	/* fresh or released from the wait list: a free slot may have been taken meanwhile */
	if (hr->inflight >= sim->cfg.max_inflight) {
		hr->waiting_arrivals++;
		return;
	}
	start_request(sim);
}

static void sim_hotrod_act(struct sim *sim, const struct sim_action *action)
{
	if (action->kind == HR_ACT_ARRIVAL) {
		on_arrival(sim, action->arg == 0);
	}
}

static uint64_t sim_hotrod_completed(const struct sim *sim)
{
	return hr_state(sim)->completed;
}

static bool sim_hotrod_finished(const struct sim *sim)
{
	return hr_state(sim)->completed + hr_state(sim)->stuck >= sim->cfg.requests;
}

/* ---- set-up ---- */

static struct hr_thread_role *role_new(struct sim *sim, int kind, struct hr_instance *inst)
{
	struct hr_thread_role *role = calloc(1, sizeof(*role));

	if (!role) {
		sim_fail(sim, "out of memory creating a thread role");
		return NULL;
	}
	role->kind = kind;
	role->inst = inst;
	role->all_next = hr_state(sim)->roles;
	hr_state(sim)->roles = role;
	return role;
}

static struct sim_thread *spawn(struct sim *sim, struct sim_process *proc, const char *comm,
		sim_thread_fn fn, int kind, struct hr_instance *inst, unsigned int cpu)
{
	struct hr_thread_role *role = role_new(sim, kind, inst);
	struct sim_thread *t;

	if (!role) {
		return NULL;
	}
	t = sim_thread_new(sim, proc, comm, fn, role, cpu);
	if (t) {
		role->thread = t;
	}
	return t;
}

static bool create_instance(struct sim *sim, struct hr_instance *inst, enum hr_service service,
		unsigned int host)
{
	const struct hr_service_desc *desc = &hr_services[service];
	unsigned int i;

	inst->service = service;
	inst->host = host;
	inst->proc = sim_process_new(sim, host, desc->comm, 1);
	if (!inst->proc) {
		return false;
	}
	for (i = 0; i < desc->workers; i++) {
		struct sim_thread *t = spawn(sim, inst->proc, desc->comm, hr_worker_fn,
			HR_ROLE_WORKER, inst, i);

		if (!t) {
			return false;
		}
		hr_make_idle(t);
		if (i == 0) {
			inst->first_worker = t;
		}
	}
	if (service == HR_FRONTEND) {
		for (i = 0; i < HR_HELPERS; i++) {
			struct sim_thread *t = spawn(sim, inst->proc, desc->comm, hr_worker_fn,
				HR_ROLE_HELPER, inst, i);

			if (!t) {
				return false;
			}
			hr_make_idle(t);
		}
	}
	if (service == HR_MYSQL) {
		inst->holder = spawn(sim, inst->proc, desc->comm, hr_holder_fn, HR_ROLE_HOLDER, inst, 0);
		if (!inst->holder) {
			return false;
		}
		((struct hr_thread_role *) inst->holder->role)->idle = true;
	}
	return true;
}

static bool create_daemons(struct sim *sim, unsigned int h)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct sim_thread *t;
	struct hr_thread_role *role;

	hr->daemons[h][0] = sim_process_new(sim, h, "rcu_sched", 2);
	if (!hr->daemons[h][0]) {
		return false;
	}
	t = spawn(sim, hr->daemons[h][0], "rcu_sched", hr_daemon_fn, HR_ROLE_DAEMON, NULL, 0);
	if (!t) {
		return false;
	}
	t->kernel_thread = true;
	role = t->role;
	role->period = 4000000;
	role->run_ns = 6000;
	hr->daemons[h][1] = sim_process_new(sim, h, "systemd-journal", 1);
	if (!hr->daemons[h][1]) {
		return false;
	}
	t = spawn(sim, hr->daemons[h][1], "systemd-journal", hr_daemon_fn, HR_ROLE_DAEMON, NULL, 1);
	if (!t) {
		return false;
	}
	role = t->role;
	role->period = 45000000;
	role->run_ns = 60000;
	hr->daemons[h][2] = sim_process_new(sim, h, "cron", 1);
	if (!hr->daemons[h][2]) {
		return false;
	}
	t = spawn(sim, hr->daemons[h][2], "cron", hr_shell_fn, HR_ROLE_SHELL, NULL, 2);
	if (!t) {
		return false;
	}
	role = t->role;
	role->period = 250000000;
	return true;
}

/* Threads of the chain causes, created last (only for them: the other causes' traces stay as they were). */
static bool create_chain_cause_threads(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_instance *mysql = &hr->inst[HR_MYSQL][0];
	struct hr_instance *redis = &hr->inst[HR_REDIS][0];
	struct sim_process *proc;
	unsigned int i;

	if (sim->cfg.cause == SIM_CAUSE_LOCK_HOG) {
		proc = sim_process_new(sim, mysql->host, "stress-ng", 1);
		if (!proc) {
			return false;
		}
		for (i = 0; i < HR_LOCK_HOGS; i++) {
			hr->lock_hogs[i] = spawn(sim, proc, "stress-ng-cpu", hr_lock_hog_fn, HR_ROLE_HOG, NULL, i);
			if (!hr->lock_hogs[i]) {
				return false;
			}
			hr->lock_hogs[i]->pinned = true;
		}
	}
	if (sim->cfg.cause == SIM_CAUSE_DEADLOCK) {
		struct sim_conn *conn;

		proc = sim_process_new(sim, redis->host, "replica", 1);
		if (!proc) {
			return false;
		}
		hr->replica = spawn(sim, proc, "replica", hr_replica_fn, HR_ROLE_HOG, NULL, 1);
		conn = calloc(1, sizeof(*conn));
		if (!hr->replica || !conn) {
			free(conn);
			sim_fail(sim, "out of memory creating the deadlock's threads");
			return false;
		}
		conn->host[0] = (int) mysql->host;
		conn->host[1] = (int) redis->host;
		conn->ip[0] = sim->host[mysql->host].ip;
		conn->ip[1] = sim->host[redis->host].ip;
		conn->port[0] = sim->host[mysql->host].next_port++;
		conn->port[1] = 3307;
		conn->snd_nxt[0] = (uint32_t) sim_rng_next(&hr->rng);
		conn->snd_nxt[1] = (uint32_t) sim_rng_next(&hr->rng);
		conn->rcv_nxt[0] = conn->snd_nxt[1];
		conn->rcv_nxt[1] = conn->snd_nxt[0];
		conn->deliver = hr_dl_deliver;
		hr->dl_conn = conn;
	}
	if (sim->cfg.cause == SIM_CAUSE_DISK_CONTENTION) {
		for (i = 0; i < hr->ninst[HR_MYSQL]; i++) {
			unsigned int h = hr->inst[HR_MYSQL][i].host;

			if (hr->backup[h]) {
				continue;
			}
			proc = sim_process_new(sim, h, "backup.sh", 1);
			if (!proc) {
				return false;
			}
			hr->backup[h] = spawn(sim, proc, "backup.sh", hr_backup_fn, HR_ROLE_HOG, NULL, 0);
			if (!hr->backup[h]) {
				return false;
			}
		}
	}
	return true;
}

static void sim_hotrod_truth_open(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_request *req = hr->dl_req;

	if (req) {
		struct sim_truth_request tr = {
			.trace_id_high = req->trace_id_high,
			.trace_id_low = req->trace_id_low,
			.root_operation = sim_intern(sim, "HTTP GET /dispatch"),
			.root_service = sim_intern(sim, hr_services[HR_FRONTEND].name),
			.begin = req->root_begin,
			.cause = sim_cause_name(req->cause),
			.slow = true,
			.open = true,
			.culprit = req->culprit,
			.cycle_peer = req->cycle_peer,
		};

		sim_truth_request(sim->truth, sim, &tr);
	}
}

static bool sim_hotrod_create(struct sim *sim)
{
	struct sim_hotrod *hr = calloc(1, sizeof(*hr));
	unsigned int k, h, c, total;

	if (!hr) {
		sim_fail(sim, "out of memory creating the hotrod workload");
		return false;
	}
	sim->preset_state = hr;
	sim_rng_init(&hr->rng, sim->cfg.seed, 2);
	for (h = 0; h < sim->cfg.hosts; h++) {
		if (!create_daemons(sim, h)) {
			return false;
		}
	}
	total = sim->cfg.hosts > HR_SERVICES ? sim->cfg.hosts : HR_SERVICES;
	for (k = 0; k < total; k++) {
		enum hr_service service = placement_order[k % HR_SERVICES];

		if (hr->ninst[service] >= HR_MAX_INSTANCES) {
			continue;
		}
		if (!create_instance(sim, &hr->inst[service][hr->ninst[service]], service,
				k % sim->cfg.hosts)) {
			return false;
		}
		hr->ninst[service]++;
	}
	for (k = 0; k < hr->ninst[HR_ROUTE]; k++) {
		h = hr->inst[HR_ROUTE][k].host;
		if (hr->hog_proc[h]) {
			continue;
		}
		hr->hog_proc[h] = sim_process_new(sim, h, "stress-ng", 1);
		if (!hr->hog_proc[h]) {
			return false;
		}
		for (c = 0; c < HR_HOGS_PER_CPU * sim->host[h].ncpus && c < HR_HOGS_PER_CPU * SIM_MAX_CPUS; c++) {
			hr->hogs[h][c] = spawn(sim, hr->hog_proc[h], "stress-ng-cpu", hr_hog_fn,
				HR_ROLE_HOG, NULL, c);
			if (!hr->hogs[h][c]) {
				return false;
			}
		}
	}
	if (!create_chain_cause_threads(sim)) {
		return false;
	}
	hr->ext_conns = calloc(sim->cfg.max_inflight, sizeof(*hr->ext_conns));
	hr->slot_busy = calloc(sim->cfg.max_inflight, sizeof(*hr->slot_busy));
	if (!hr->ext_conns || !hr->slot_busy) {
		sim_fail(sim, "out of memory creating client connections");
		return false;
	}
	for (k = 0; k < sim->cfg.max_inflight; k++) {
		struct sim_conn *conn = &hr->ext_conns[k];
		struct hr_instance *inst = &hr->inst[HR_FRONTEND][k % hr->ninst[HR_FRONTEND]];

		hr_conn_init(sim, conn, -1, (10u << 24) | (1u << 8) | 50u, (uint16_t) (50000 + k), inst,
			HR_FRONTEND);
	}
	return true;
}

static void sim_hotrod_start(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_thread_role *role;

	for (role = hr->roles; role; role = role->all_next) {
		if (role->kind == HR_ROLE_DAEMON || role->kind == HR_ROLE_SHELL) {
			sim_timer_wake(sim, role->thread,
				(int64_t) (sim_rng_next(&hr->rng) % (uint64_t) role->period) + 1000);
		}
	}
	if (hr->replica) {
		sim_timer_wake(sim, hr->replica, 500000);	/* deadlock: the replica starts waiting */
	}
	if (sim->cfg.requests > 0) {
		sim_schedule(sim, sim->now + 1000000, HR_ACT_ARRIVAL, 0, 0, NULL);
	}
}

static void sim_hotrod_destroy(struct sim *sim)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct hr_thread_role *role;

	if (!hr) {
		return;
	}
	role = hr->roles;
	while (role) {
		struct hr_thread_role *next = role->all_next;
		unsigned int s, i;

		for (s = 0; s < HR_SERVICES; s++) {
			for (i = 0; i < HR_MAX_INSTANCES; i++) {
				free(role->conns[s][i]);
			}
		}
		free(role);
		role = next;
	}
	free(hr->ext_conns);
	free(hr->slot_busy);
	free(hr->dl_conn);
	free(hr);
	sim->preset_state = NULL;
}

const struct sim_preset_ops sim_preset_hotrod = {
	.name = "hotrod",
	.host_name = sim_hotrod_host_name,
	.create = sim_hotrod_create,
	.start = sim_hotrod_start,
	.act = sim_hotrod_act,
	.finished = sim_hotrod_finished,
	.truth_open = sim_hotrod_truth_open,
	.completed = sim_hotrod_completed,
	.destroy = sim_hotrod_destroy,
};
