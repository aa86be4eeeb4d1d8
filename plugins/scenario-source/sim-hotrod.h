/*
 * The `hotrod` preset: a HotROD-like service graph (frontend -> customer ->
 * mysql; frontend -> driver -> redis; frontend -> route in parallel) spread
 * over the hosts, an open stream of external requests, spans around every
 * server and client call, background daemons, and the injected causes of
 * slow requests (lock, cpu, disk, irq).
 */
#ifndef DEEPSPAN_SCENARIO_SIM_HOTROD_H
#define DEEPSPAN_SCENARIO_SIM_HOTROD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim-queue.h"

struct sim;

/* Creates processes and threads on every host; false (and sim->failed) on error. */
bool sim_hotrod_create(struct sim *sim);
/* Starts the request stream and the daemons (after the statedump). */
void sim_hotrod_start(struct sim *sim);
void sim_hotrod_act(struct sim *sim, const struct sim_action *action);
/* True once every request has completed. */
bool sim_hotrod_finished(const struct sim *sim);
/* Requests completed so far. */
uint64_t sim_hotrod_completed(const struct sim *sim);
void sim_hotrod_destroy(struct sim *sim);

/* The name of host `index` for `hosts` hosts (after its first service). */
const char *sim_hotrod_host_name(unsigned int index, unsigned int hosts);

#endif /* DEEPSPAN_SCENARIO_SIM_HOTROD_H */
