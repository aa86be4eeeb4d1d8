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

/* mysqld's background thread: holds the table lock for `hold_ns` when asked (cause `lock`). */
struct sim_step hr_holder_fn(struct sim *sim, struct sim_thread *t)
{

	SIM_CO_BEGIN(t);
	for (;;) {
		if (t->started) {
			futex_wait_entry(sim, t, HR_LOCK_ADDR + 256);
		}
		t->started = true;
		((struct hr_thread_role *) t->role)->idle = true;
		while (((struct hr_thread_role *) t->role)->inst->lock_rounds_done >=
				((struct hr_thread_role *) t->role)->inst->lock_rounds_wanted) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		((struct hr_thread_role *) t->role)->idle = false;
		((struct hr_thread_role *) t->role)->timer_armed = false;
		futex_wait_exit(sim, t, HR_LOCK_ADDR + 256);
		SIM_CO_YIELD(t, step_run(12000));
		nanosleep_entry(sim, t, ((struct hr_thread_role *) t->role)->inst->hold_ns);
		while (!t->io_done) {
			SIM_CO_YIELD(t, step_block(SIM_PREV_STATE_SLEEPING));
		}
		nanosleep_exit(sim, t);
		release_lock(sim, t, ((struct hr_thread_role *) t->role)->inst);
	}
	SIM_CO_END(t);
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

void hr_lock_trigger(struct sim *sim, struct hr_instance *inst, int64_t hold)
{
	struct hr_thread_role *holder = inst->holder->role;

	inst->lock_rounds_wanted++;
	inst->hold_ns = hold;
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
