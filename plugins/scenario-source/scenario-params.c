/* SPDX-License-Identifier: MIT */
#include "scenario-params.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sim-presets.h"

#define MAX_DRIFT_PPB 1000000	/* 0.1 %: keeps two events 2 ns apart in distinct local ns */
#define MAX_OFFSET_NS INT64_C(3600000000000)

static const char *const known_names[] = {
	"preset", "hosts", "cpus", "requests", "seed", "slow-ratio", "cause", "span-schema",
	"clock", "truth", "packet-events", "interarrival", "max-inflight", "discard-every",
	"truth-chains", NULL,
};

static bool parse_int(const char *text, int64_t *out)
{
	char *end = NULL;
	long long value;

	errno = 0;
	value = strtoll(text, &end, 10);
	if (errno || end == text || *end) {
		return false;
	}
	*out = value;
	return true;
}

bool scn_parse_clock_spec(const char *text, struct sim_config *cfg, char *error, size_t error_size)
{
	gchar **items;
	unsigned int h, count;
	bool ok = true;

	if (strcmp(text, "random") == 0) {
		sim_config_random_clocks(cfg);
		return true;
	}
	if (strcmp(text, "none") == 0) {
		memset(cfg->clocks, 0, sizeof(cfg->clocks));
		return true;
	}
	items = g_strsplit(text, ",", -1);
	count = g_strv_length(items);
	if (count != cfg->hosts) {
		snprintf(error, error_size, "%u OFFSET_NS:DRIFT_PPB pairs for %u hosts", count, cfg->hosts);
		ok = false;
	}
	for (h = 0; ok && h < count; h++) {
		gchar **pair = g_strsplit(g_strstrip(items[h]), ":", -1);
		int64_t offset, drift;

		if (g_strv_length(pair) != 2 || !parse_int(pair[0], &offset) || !parse_int(pair[1], &drift)) {
			snprintf(error, error_size, "host %u: \"%s\" is not OFFSET_NS:DRIFT_PPB (integers)",
				h, items[h]);
			ok = false;
		} else if (offset < -MAX_OFFSET_NS || offset > MAX_OFFSET_NS ||
				drift < -MAX_DRIFT_PPB || drift > MAX_DRIFT_PPB) {
			snprintf(error, error_size, "host %u: offset must be within +-1 h and drift within "
				"+-%d ppb", h, MAX_DRIFT_PPB);
			ok = false;
		} else {
			cfg->clocks[h].offset_ns = offset;
			cfg->clocks[h].drift_ppb = drift;
		}
		g_strfreev(pair);
	}
	g_strfreev(items);
	return ok;
}

/* `interarrival`, `requests` and `discard-every` together: what the simulated clock and a burst allow. */
static bool check_arrivals(bt_self_component *self_comp, const struct sim_config *cfg, int64_t interarrival)
{
	if (interarrival < 1000) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `interarrival`: expected a duration of at least 1us, got %" PRId64 " ns.",
			SCN_CLASS_NAME, interarrival);
		return false;
	}
	if ((__int128) cfg->requests * interarrival > SCN_MAX_ARRIVAL_SPAN_NS) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `requests`: %" PRIu64 " requests every %" PRId64 " ns (`interarrival`) "
			"would arrive over more than %" PRId64 " s of simulated time, the most the simulated "
			"clock can hold: lower `requests` or `interarrival`.", SCN_CLASS_NAME, cfg->requests,
			interarrival, SCN_MAX_ARRIVAL_SPAN_NS / INT64_C(1000000000));
		return false;
	}
	if (cfg->discard_every != 0 && cfg->discard_every <= 64) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `discard-every`: expected 0 (never) or more than 64 (a burst loses 64 "
			"events), got %" PRIu64 ".", SCN_CLASS_NAME, cfg->discard_every);
		return false;
	}
	return true;
}

/* `clock` (drawn from the seed when "random") and `truth` (`*truth_path`, owned by the caller). */
static bool parse_clock_and_truth(bt_self_component *self_comp, struct sim_config *cfg, const char *clock,
		const char *truth, char **truth_path)
{
	char why[160];

	/* the default clocks depend on the seed: draw them again now that it is known */
	sim_config_random_clocks(cfg);
	if (!scn_parse_clock_spec(clock, cfg, why, sizeof(why))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `clock`: expected \"random\", \"none\" or one OFFSET_NS:DRIFT_PPB "
			"pair per host separated by commas (e.g. \"0:0,1500000:-20000,-300000:12000\"), "
			"got \"%s\": %s.", SCN_CLASS_NAME, clock, why);
		return false;
	}
	if (truth) {
		if (!*truth) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
				"%s: parameter `truth`: expected a file path, got an empty string.",
				SCN_CLASS_NAME);
			return false;
		}
		*truth_path = g_strdup(truth);
	}
	return true;
}

bool scn_params_parse(bt_self_component *self_comp, const bt_value *map,
		struct sim_config *cfg, char **truth_path)
{
	static const char *const presets[] = { "hotrod", NULL };
	static const char *const causes[] = { "none", "lock", "cpu", "disk", "irq", "mixed",
		"lock-hog", "lock-sleep", "lock-remote", "handoff", "deadlock", "net-delay",
		"net-retransmit", "disk-contention", "cache-miss", NULL };
	static const char *const schemas[] = { "deepspan_ust", "jaeger_ust", NULL };
	struct ds_params params = ds_params_make(self_comp, map, SCN_CLASS_NAME);
	unsigned int preset, cause, schema;
	uint64_t hosts, cpus, packet_events, inflight;
	const char *clock, *truth;
	int64_t interarrival;

	*truth_path = NULL;
	sim_config_defaults(cfg);
	if (ds_params_check_names(&params, known_names) ||
			ds_params_get_choice(&params, "preset", presets, 0, &preset) ||
			ds_params_get_uint(&params, "hosts", 3, 1, SIM_MAX_HOSTS, &hosts) ||
			ds_params_get_uint(&params, "cpus", 4, 1, SIM_MAX_CPUS, &cpus) ||
			ds_params_get_uint(&params, "requests", 200, 0, SCN_MAX_REQUESTS, &cfg->requests) ||
			ds_params_get_uint(&params, "seed", 1, 0, UINT64_MAX, &cfg->seed) ||
			ds_params_get_double(&params, "slow-ratio", 0.05, 0.0, 1.0, &cfg->slow_ratio) ||
			ds_params_get_choice(&params, "cause", causes, SIM_CAUSE_MIXED, &cause) ||
			ds_params_get_choice(&params, "span-schema", schemas, 0, &schema) ||
			ds_params_get_string(&params, "clock", "random", &clock) ||
			ds_params_get_string(&params, "truth", NULL, &truth) ||
			ds_params_get_uint(&params, "packet-events", 4096, 16, 1000000, &packet_events) ||
			ds_params_get_duration(&params, "interarrival", 4000000, &interarrival) ||
			ds_params_get_uint(&params, "max-inflight", 16, 1, 4096, &inflight) ||
			ds_params_get_uint(&params, "discard-every", 0, 0, UINT64_MAX, &cfg->discard_every) ||
			ds_params_get_bool(&params, "truth-chains", false, &cfg->truth_chains)) {
		return false;
	}
	cfg->preset = sim_preset_find(presets[preset]);
	if (!cfg->preset) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `preset`: \"%s\" has no simulator in this build: "
			"see doc/scenario.md for the presets.", SCN_CLASS_NAME, presets[preset]);
		return false;
	}
	cfg->hosts = (unsigned int) hosts;
	cfg->cpus = (unsigned int) cpus;
	cfg->cause = (enum sim_cause) cause;
	cfg->span_schema = schema == 1 ? SIM_SPANS_JAEGER : SIM_SPANS_DEEPSPAN;
	cfg->packet_events = (uint32_t) packet_events;
	cfg->max_inflight = (unsigned int) inflight;
	if (!check_arrivals(self_comp, cfg, interarrival)) {
		return false;
	}
	cfg->interarrival_ns = interarrival;
	return parse_clock_and_truth(self_comp, cfg, clock, truth, truth_path);
}
