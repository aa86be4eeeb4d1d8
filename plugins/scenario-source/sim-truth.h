/* SPDX-License-Identifier: MIT */
/*
 * The ground-truth JSON file of a scenario run (schema in CONVENTIONS.md and
 * doc/scenario.md), written while the simulation runs: spans stream into the
 * file as they end, requests into a temporary file appended at the end, so
 * memory does not grow with the number of requests.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_TRUTH_H
#define DEEPSPAN_SCENARIO_SIM_TRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim-state.h"

struct sim;
struct sim_thread;

struct sim_truth_request {
	uint64_t trace_id_high, trace_id_low;
	const char *root_operation;
	const char *root_service;
	int64_t begin, end;
	const char *cause;
	bool slow;
	bool open;			/* still open at the end of the trace (end unknown: -1) */
	const struct sim_thread *culprit;	/* borrowed: chain causes: the thread the cause injects */
	const struct sim_thread *cycle_peer;	/* borrowed: deadlock: the other thread of the cycle */
};

struct sim_truth;

/* Opens `path` and writes the header (generator, parameters, hosts); NULL + `error` on failure. */
struct sim_truth *sim_truth_open(const char *path, const struct sim *sim,
		char *error, size_t error_size);
void sim_truth_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span);
/* A span still open at the end of the trace, `end` = its host's last event (into "open_spans"). */
void sim_truth_open_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span,
		int64_t end);
void sim_truth_request(struct sim_truth *truth, const struct sim *sim,
		const struct sim_truth_request *request);
/* Writes the requests and totals and closes the file; false on an I/O error. */
bool sim_truth_close(struct sim_truth *truth, uint64_t tcp_segments, uint64_t discarded_events);
/* Closes without completing (error path). */
void sim_truth_abort(struct sim_truth *truth);

#endif /* DEEPSPAN_SCENARIO_SIM_TRUTH_H */
