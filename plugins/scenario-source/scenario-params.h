/* SPDX-License-Identifier: MIT */
/* Parameters of source.deepspan.scenario -> a validated simulator configuration. */
#ifndef DEEPSPAN_SCENARIO_PARAMS_H
#define DEEPSPAN_SCENARIO_PARAMS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "sim.h"

#define SCN_CLASS_NAME "source.deepspan.scenario"
/* Most `requests` (doc/scenario.md): 1e9, about 450e9 events. */
#define SCN_MAX_REQUESTS UINT64_C(1000000000)
/* Most simulated time the arrivals may span (`requests` x `interarrival`), about 31 years:
 * the simulated clock starts at 1.7e18 ns and must stay within int64. */
#define SCN_MAX_ARRIVAL_SPAN_NS INT64_C(1000000000000000000)

/*
 * Reads and validates `params` into `cfg`; `*truth_path` is a new string
 * (g_free it) or NULL.  Returns false after appending an error cause.
 */
bool scn_params_parse(bt_self_component *self_comp, const bt_value *params,
		struct sim_config *cfg, char **truth_path);

/*
 * Parses a `clock` parameter value: "random", "none", or a comma-separated
 * list of OFFSET_NS:DRIFT_PPB per host.  On error writes why into `error`.
 */
bool scn_parse_clock_spec(const char *text, struct sim_config *cfg, char *error, size_t error_size);

#endif /* DEEPSPAN_SCENARIO_PARAMS_H */
