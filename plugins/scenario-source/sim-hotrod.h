/* SPDX-License-Identifier: MIT */
/*
 * The `hotrod` preset: a HotROD-like service graph (frontend -> customer ->
 * mysql; frontend -> driver -> redis; frontend -> route in parallel) spread
 * over the hosts, an open stream of external requests, spans around every
 * server and client call, background daemons, and the injected causes of
 * slow requests (lock, cpu, disk, irq).
 */
#ifndef DEEPSPAN_SCENARIO_SIM_HOTROD_H
#define DEEPSPAN_SCENARIO_SIM_HOTROD_H

#include "sim.h"

/* The preset's operations (listed in sim-presets.c). */
extern const struct sim_preset_ops sim_preset_hotrod;

#endif /* DEEPSPAN_SCENARIO_SIM_HOTROD_H */
