/* SPDX-License-Identifier: MIT */
/* Functions shared by the scheduler (sim-kernel.c) and the interrupt code (sim-irq.c) only. */
#ifndef DEEPSPAN_SCENARIO_SIM_KERNEL_PRIV_H
#define DEEPSPAN_SCENARIO_SIM_KERNEL_PRIV_H

#include "sim-kernel.h"

/* sched_switch from the CPU's current thread (or idle) to its run queue's head (or idle). */
void sim_cpu_switch(struct sim *sim, struct sim_cpu *cpu, int64_t prev_state);
/* Runs the current thread's behaviour until it consumes CPU or the CPU goes idle. */
void sim_cpu_dispatch(struct sim *sim, struct sim_cpu *cpu);
/* An interrupt arrives on `cpu` (queued behind the one being served, if any). */
void sim_irq_on_raise(struct sim *sim, struct sim_cpu *cpu, struct sim_irq_work *work);
/* The next step of the interrupt being served on `cpu`. */
void sim_irq_on_step(struct sim *sim, struct sim_cpu *cpu);

#endif /* DEEPSPAN_SCENARIO_SIM_KERNEL_PRIV_H */
