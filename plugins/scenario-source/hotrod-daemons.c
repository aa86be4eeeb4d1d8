/* SPDX-License-Identifier: MIT */
/* hotrod: background threads (lock holder, noisy neighbour, daemons) and the cause triggers. */
#include <stdlib.h>
#include <string.h>

#include "hotrod-model.h"
#include "sim-truth.h"

/* ---- background threads ---- */

static void futex_wait_entry(struct sim *sim, struct sim_thread *t, uint64_t addr)
{
	int64_t v[6] = { (int64_t) addr, 128, 0, 0, 0, 0 };

	sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
}

static void futex_wait_exit(struct sim *sim, struct sim_thread *t, uint64_t addr)
{
	int64_t x[3] = { 0, (int64_t) addr, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
}

static void nanosleep_entry(struct sim *sim, struct sim_thread *t, int64_t ns)
{
	int64_t v[1] = { (int64_t) hr_user_buffer(t) + 64 };

	sim_syscall_entry(sim, t, SIM_SYS_NANOSLEEP, v, NULL);
	sim_timer_wake(sim, t, ns);
}

static void nanosleep_exit(struct sim *sim, struct sim_thread *t)
{
	int64_t x[2] = { 0, 0 };

	sim_syscall_exit(sim, t, SIM_SYS_NANOSLEEP, x);
}

static void release_lock(struct sim *sim, struct sim_thread *t, struct hr_instance *inst)
{
	int64_t v[6] = { (int64_t) HR_LOCK_ADDR, 129, 1, 0, 0, 0 };
	int64_t x[3] = { 0, (int64_t) HR_LOCK_ADDR, 0 };
	unsigned int i;

	inst->lock_rounds_done = inst->lock_rounds_wanted;
	if (inst->nlock_waiters == 0) {
		return;
	}
	sim_syscall_entry(sim, t, SIM_SYS_FUTEX, v, NULL);
	for (i = 0; i < inst->nlock_waiters; i++) {
		sim_wake(sim, inst->lock_waiters[i], t->cpu);
	}
	x[0] = inst->nlock_waiters;
	inst->nlock_waiters = 0;
	sim_syscall_exit(sim, t, SIM_SYS_FUTEX, x);
}

/* The holder's work while it holds the lock, by the cause of the round. */
#define HOLDER(t) ((struct hr_thread_role *) (t)->role)
#define HOLDER_INST(t) (HOLDER(t)->inst)

static void start_lock_hogs(struct sim *sim, struct sim_thread *holder)
{
	struct sim_hotrod *hr = hr_state(sim);
	unsigned int i;

	HOLDER_INST(holder)->hogging = true;
	for (i = 0; i < HR_LOCK_HOGS; i++) {
		struct sim_thread *hog = hr->lock_hogs[i];

		if (hog && hog->run == SIM_T_BLOCKED) {
			hog->cpu = holder->cpu;	/* pinned: they share the holder's CPU */
			sim_wake(sim, hog, holder->cpu);
		}
	}
}

/*
 * mysqld's background thread: holds the table lock when asked.  `lock` and
 * `lock-sleep`: asleep in nanosleep for `hold_ns`; `lock-hog`: computes
 * `hold_ns` / 4 while CPU hogs share its CPU; `lock-remote`: waits for a call
 * to redis (another host) that computes `hold_ns`; `handoff`: woken by the
 * worker itself, computes `hold_ns` (a pread64 in the middle), then wakes it.
 */
struct sim_step hr_holder_fn(struct sim *sim, struct sim_thread *t)
{

	SIM_CO_BEGIN(t);
	for (;;) {
		if (t->started) {
			futex_wait_entry(sim, t, HR_LOCK_ADDR + 256);
		}
		t->started = true;
		HOLDER(t)->idle = true;
		while (HOLDER_INST(t)->lock_rounds_done >= HOLDER_INST(t)->lock_rounds_wanted) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		HOLDER(t)->idle = false;
		HOLDER(t)->timer_armed = false;
		futex_wait_exit(sim, t, HR_LOCK_ADDR + 256);
		SIM_CO_YIELD(t, step_run(12000));
		if (HOLDER_INST(t)->lock_mode == SIM_CAUSE_LOCK_HOG) {
			start_lock_hogs(sim, t);
			SIM_CO_YIELD(t, step_run(HOLDER_INST(t)->hold_ns / 4));
			HOLDER_INST(t)->hogging = false;
		} else if (HOLDER_INST(t)->lock_mode == SIM_CAUSE_LOCK_REMOTE) {
			hr_holder_call_begin(sim, t);
			SIM_CO_YIELD(t, step_run(5000));
			hr_holder_call_sent(sim, t);
			SIM_CO_YIELD(t, step_run(1500));
			while (!HOLDER(t)->call->replied) {
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
			SIM_CO_YIELD(t, step_run(2500));
			hr_holder_call_receive(sim, t);
		} else if (HOLDER_INST(t)->lock_mode == SIM_CAUSE_HANDOFF) {
			SIM_CO_YIELD(t, step_run(HOLDER_INST(t)->hold_ns / 2));
			{
				int64_t v[3] = { 12, 16384, 0 };

				sim_syscall_entry(sim, t, SIM_SYS_PREAD64, v, NULL);
			}
			SIM_CO_YIELD(t, step_run(6000));
			{
				int64_t x[2] = { 16384, (int64_t) hr_user_buffer(t) };

				sim_syscall_exit(sim, t, SIM_SYS_PREAD64, x);
			}
			SIM_CO_YIELD(t, step_run(HOLDER_INST(t)->hold_ns / 2));
		} else {
			nanosleep_entry(sim, t, HOLDER_INST(t)->hold_ns);
			while (!t->io_done) {
				SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
			}
			nanosleep_exit(sim, t);
		}
		release_lock(sim, t, HOLDER_INST(t));
	}
	SIM_CO_END(t);
}

/* lock-hog: a CPU hog pinned to the lock holder's CPU while it holds the lock. */
struct sim_step hr_lock_hog_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_instance *inst = &hr_state(sim)->inst[HR_MYSQL][0];

	SIM_CO_BEGIN(t);
	for (;;) {
		while (!inst->hogging) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		while (inst->hogging) {
			SIM_CO_YIELD(t, step_run(1000000));
		}
	}
	SIM_CO_END(t);
}

/*
 * deadlock: the replica (redis host), started at the beginning, waits in
 * recvfrom for the primary's message, answers it, then waits in recvfrom for
 * the next one, which never comes: the mysql worker, after the answer, waits
 * in recvfrom for the replica too.  Each one's last recvfrom wake-up came
 * from the other.
 */
struct sim_step hr_replica_fn(struct sim *sim, struct sim_thread *t)
{
	static const int64_t recv_entry[4] = { 9, 65536, 0, 0 };

	SIM_CO_BEGIN(t);
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL);
	while (!hr_state(sim)->dl_request) {
		SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
	}
	{
		int64_t x[4] = { 64, (int64_t) hr_user_buffer(t), 0, 0 };

		sim_syscall_exit(sim, t, SIM_SYS_RECVFROM, x);
	}
	SIM_CO_YIELD(t, step_run(20000));
	{
		int64_t entry[6] = { 9, (int64_t) hr_user_buffer(t), 64, 0, 0, 0 };
		int64_t exit_values[1] = { 64 };

		sim_syscall_entry(sim, t, SIM_SYS_SENDTO, entry, NULL);
		sim_tcp_send(sim, t, hr_state(sim)->dl_conn, 1, 64, NULL);
		sim_syscall_exit(sim, t, SIM_SYS_SENDTO, exit_values);
	}
	sim_syscall_entry(sim, t, SIM_SYS_RECVFROM, recv_entry, NULL);
	while (t->deadlock_peer) {
		SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
	}
	SIM_CO_END(t);
}

void hr_dl_deliver(struct sim *sim, struct sim_conn *conn, int dir, void *msg, unsigned int cpu)
{
	struct sim_hotrod *hr = hr_state(sim);

	(void) conn;
	(void) msg;
	if (dir == 0) {
		hr->dl_request = true;
		sim_wake(sim, hr->replica, cpu);
	} else {
		hr->dl_reply = true;
		sim_wake(sim, hr->dl_worker, cpu);
	}
}

/* A noisy neighbour's thread: CPU-bound until hog_until (cause `cpu`). */
struct sim_step hr_hog_fn(struct sim *sim, struct sim_thread *t)
{
	SIM_CO_BEGIN(t);
	for (;;) {
		while (sim_host_now(sim, t->host) >= hr_state(sim)->hog_until[t->host]) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		while (sim_host_now(sim, t->host) < hr_state(sim)->hog_until[t->host]) {
			SIM_CO_YIELD(t, step_run(1000000));
		}
	}
	SIM_CO_END(t);
}

/*
 * disk-contention: backup.sh sleeps until asked for a burst, then writes a large file: one write(2) whose
 * dirty pages go out as 120-280 block writes of 256 KiB, plugged and inserted at once into the device
 * queue (block_rq_insert each); the device serves them in FIFO order, 70-110 us each.
 */
struct sim_step hr_backup_fn(struct sim *sim, struct sim_thread *t)
{
	struct sim_hotrod *hr = hr_state(sim);

	SIM_CO_BEGIN(t);
	for (;;) {
		while (!hr->backup_pending[t->host]) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		hr->backup_pending[t->host]--;
		{
			uint64_t n = sim_rng_range(&hr->rng, 120, 280), k;
			int64_t v[3] = { 7, (int64_t) hr_user_buffer(t), (int64_t) (n * 262144) };

			sim_syscall_entry(sim, t, SIM_SYS_WRITE, v, NULL);
			for (k = 0; k < n; k++) {
				sim_disk_submit(sim, t, 262144, true, sim_rng_range(&hr->rng, 70000, 110000));
			}
			t->arg = (int64_t) (n * 262144);
		}
		SIM_CO_YIELD(t, step_run(30000));
		{
			int64_t x[1] = { t->arg };

			sim_syscall_exit(sim, t, SIM_SYS_WRITE, x);
		}
	}
	SIM_CO_END(t);
}

void hr_trigger_backup(struct sim *sim, struct sim_thread *t)
{
	struct sim_hotrod *hr = hr_state(sim);
	struct sim_thread *backup = hr->backup[t->host];
	struct hr_job *job = t->job;

	if (!backup) {
		return;
	}
	if (job) {
		job->req->culprit = backup;
	}
	hr->backup_pending[t->host]++;
	if (backup->run == SIM_T_BLOCKED) {
		sim_timer_wake(sim, backup, 2000);
	}
}

/* A periodic daemon: sleeps, then runs briefly (and, in user space, writes a log line). */
struct sim_step hr_daemon_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;

	SIM_CO_BEGIN(t);
	for (;;) {
		if (!t->started) {
			t->started = true;	/* the first timer is armed by sim_hotrod_start */
		} else if (t->kernel_thread) {
			sim_timer_wake(sim, t, sim_rng_jitter(&hr_state(sim)->rng, role->period, 0.5));
		} else {
			nanosleep_entry(sim, t, sim_rng_jitter(&hr_state(sim)->rng, role->period, 0.5));
		}
		while (!t->io_done) {
			SIM_CO_YIELD(t, step_block(t->kernel_thread ? 128 : SIM_PREV_STATE_SLEEPING));
		}
		if (!t->kernel_thread) {
			nanosleep_exit(sim, t);
		}
		SIM_CO_YIELD(t, step_run(sim_rng_jitter(&hr_state(sim)->rng, ((struct hr_thread_role *) t->role)->run_ns, 0.5)));
		if (!t->kernel_thread) {
			int64_t v[3] = { 5, (int64_t) hr_user_buffer(t), 120 };
			int64_t x[1] = { 120 };

			hr_sys_quick(sim, t, SIM_SYS_WRITE, v, NULL, x);
		}
	}
	SIM_CO_END(t);
}


void hr_trigger_hog(struct sim *sim, int64_t duration)
{
	struct sim_hotrod *hr = hr_state(sim);
	unsigned int i, c;

	for (i = 0; i < hr->ninst[HR_ROUTE]; i++) {
		unsigned int h = hr->inst[HR_ROUTE][i].host;
		int64_t until = sim_host_now(sim, h) + duration;

		if (until > hr->hog_until[h]) {
			hr->hog_until[h] = until;
		}
		for (c = 0; c < HR_HOGS_PER_CPU * sim->host[h].ncpus && c < HR_HOGS_PER_CPU * SIM_MAX_CPUS; c++) {
			struct sim_thread *hog = hr->hogs[h][c];

			if (hog && hog->run == SIM_T_BLOCKED) {
				sim_timer_wake(sim, hog, 20000 + 3000 * c);
			}
		}
	}
}

void hr_lock_trigger(struct sim *sim, struct sim_thread *waiter, struct hr_instance *inst, int64_t hold)
{
	struct hr_thread_role *holder = inst->holder->role;
	struct hr_request *req = ((struct hr_job *) waiter->job)->req;

	inst->lock_rounds_wanted++;
	inst->hold_ns = hold;
	inst->lock_mode = req->cause;
	inst->lock_req = req;
	inst->lock_parent_span = waiter->book.spans ? waiter->book.spans->span_id : 0;
	if (req->cause == SIM_CAUSE_LOCK_HOG) {
		req->culprit = hr_state(sim)->lock_hogs[0];
	} else if (req->cause == SIM_CAUSE_LOCK_REMOTE) {
		/* the holder's call goes to the first redis instance, served by its one worker */
		req->culprit = hr_state(sim)->inst[HR_REDIS][0].first_worker;
	} else if (req->cause == SIM_CAUSE_LOCK_SLEEP || req->cause == SIM_CAUSE_HANDOFF) {
		req->culprit = inst->holder;
	}
	if (req->cause == SIM_CAUSE_HANDOFF) {
		/* the hand-off: the worker itself wakes the pool thread (FUTEX_WAKE) */
		if (holder->idle) {
			int64_t v[6] = { (int64_t) HR_LOCK_ADDR + 256, 129, 1, 0, 0, 0 };
			int64_t x[3] = { 1, (int64_t) HR_LOCK_ADDR + 256, 0 };

			sim_syscall_entry(sim, waiter, SIM_SYS_FUTEX, v, NULL);
			sim_wake(sim, inst->holder, waiter->cpu);
			sim_syscall_exit(sim, waiter, SIM_SYS_FUTEX, x);
		}
		return;
	}
	if (holder->idle && !holder->timer_armed) {
		holder->timer_armed = true;
		sim_timer_wake(sim, inst->holder, 2000);
	}
}

/* The forked child: returns from clone, execs curl, reads a file, maps memory, exits. */
static struct sim_step child_fn(struct sim *sim, struct sim_thread *t)
{
	SIM_CO_BEGIN(t);
	{
		int64_t x[1] = { 0 };

		sim_syscall_exit(sim, t, SIM_SYS_CLONE, x);
	}
	SIM_CO_YIELD(t, step_run(sim_rng_jitter(&hr_state(sim)->rng, 40000, 0.3)));
	{
		int64_t v[2] = { 0x5634a8e0, 0x5634a900 };

		sim_syscall_entry(sim, t, SIM_SYS_EXECVE, v, sim_intern(sim, "/usr/bin/curl"));
	}
	SIM_CO_YIELD(t, step_run(sim_rng_jitter(&hr_state(sim)->rng, 150000, 0.3)));
	sim_exec(sim, t, "/usr/bin/curl", "curl");
	{
		int64_t x[1] = { 0 };
		int64_t open_v[3] = { -100, 0x80000, 0 };
		int64_t open_x[1] = { 3 };
		int64_t read_v[2] = { 3, 4096 };
		int64_t read_x[2] = { 220, (int64_t) hr_user_buffer(t) };
		int64_t close_v[1] = { 3 };
		int64_t mmap_v[6] = { 0, 8192, 3, 0x22, -1, 0 };
		int64_t mmap_x[1] = { (int64_t) UINT64_C(0x7f1c2a600000) + t->tid * 0x1000 };

		sim_syscall_exit(sim, t, SIM_SYS_EXECVE, x);
		hr_sys_quick(sim, t, SIM_SYS_OPENAT, open_v, sim_intern(sim, "/etc/hosts"), open_x);
		hr_sys_quick(sim, t, SIM_SYS_READ, read_v, NULL, read_x);
		hr_sys_quick(sim, t, SIM_SYS_CLOSE, close_v, NULL, x);
		hr_sys_quick(sim, t, SIM_SYS_MMAP, mmap_v, NULL, mmap_x);
	}
	SIM_CO_YIELD(t, step_run(sim_rng_jitter(&hr_state(sim)->rng, 300000, 0.5)));
	{
		int64_t v[1] = { 0 };

		sim_syscall_entry(sim, t, SIM_SYS_EXIT_GROUP, v, NULL);
	}
	SIM_CO_END(t);
}

/* A cron-like shell: now and then forks a child, waits for it (wait4) and reaps it. */
struct sim_step hr_shell_fn(struct sim *sim, struct sim_thread *t)
{
	struct hr_thread_role *role = t->role;

	SIM_CO_BEGIN(t);
	for (;;) {
		if (t->started) {
			nanosleep_entry(sim, t, sim_rng_jitter(&hr_state(sim)->rng, role->period, 0.3));
		}
		t->started = true;
		while (!t->io_done) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		nanosleep_exit(sim, t);
		SIM_CO_YIELD(t, step_run(sim_rng_jitter(&hr_state(sim)->rng, 30000, 0.3)));
		{
			int64_t v[4] = { 0x1200011, 0, 0, (int64_t) hr_user_buffer(t) + 0x9d0 };
			int64_t x[1];

			sim_syscall_entry(sim, t, SIM_SYS_CLONE, v, NULL);
			role->child = sim_fork(sim, t, child_fn, NULL);
			if (!role->child) {
				return step_exit();
			}
			role->child->exit_notify = t;
			x[0] = role->child->tid;
			sim_syscall_exit(sim, t, SIM_SYS_CLONE, x);
			sim_thread_start(sim, role->child, t->cpu);
		}
		{
			int64_t v[2] = { -1, 0 };

			sim_syscall_entry(sim, t, SIM_SYS_WAIT4, v, NULL);
		}
		while (((struct hr_thread_role *) t->role)->child->run != SIM_T_DEAD) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		{
			struct hr_thread_role *r = t->role;
			int64_t x[3] = { r->child->proc->pid, (int64_t) hr_user_buffer(t) + 0x40, 0 };

			sim_syscall_exit(sim, t, SIM_SYS_WAIT4, x);
			sim_release(sim, r->child, t->cpu);
			r->child = NULL;
		}
	}
	SIM_CO_END(t);
}
