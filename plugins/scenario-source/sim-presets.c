/* SPDX-License-Identifier: MIT */
/* The workload presets of source.deepspan.scenario: add a preset's operations here. */
#include "sim-presets.h"

#include <string.h>

#include "sim-hotrod.h"

const struct sim_preset_ops *const sim_presets[] = {
	&sim_preset_hotrod,
	NULL,
};

const struct sim_preset_ops *sim_preset_find(const char *name)
{
	const struct sim_preset_ops *const *preset;

	for (preset = sim_presets; *preset; preset++) {
		if (strcmp((*preset)->name, name) == 0) {
			break;
		}
	}
	return *preset;
}
