/* SPDX-License-Identifier: MIT */
/*
 * The workload presets of source.deepspan.scenario (sim-presets.c), for whoever configures the
 * simulator: the engine itself only sees the chosen preset's operations (sim.h).
 */
#ifndef DEEPSPAN_SCENARIO_SIM_PRESETS_H
#define DEEPSPAN_SCENARIO_SIM_PRESETS_H

#include "sim.h"

/* The presets, NULL-terminated; the first is the default. */
extern const struct sim_preset_ops *const sim_presets[];

/* The preset named `name`, or NULL. */
const struct sim_preset_ops *sim_preset_find(const char *name);

#endif /* DEEPSPAN_SCENARIO_SIM_PRESETS_H */
