/* SPDX-License-Identifier: MIT */
/*
 * The scenario simulator: configuration, the world (hosts, event queue,
 * output queues, workload, truth) and the step function that advances it by
 * one action in true time.  No babeltrace2 dependency: the component feeds
 * its ports from the output queues, and unit tests drive it directly.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_H
#define DEEPSPAN_SCENARIO_SIM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim-kernel.h"
#include "sim-output.h"
#include "sim-queue.h"
#include "sim-rng.h"

enum sim_span_schema {
	SIM_SPANS_DEEPSPAN,
	SIM_SPANS_JAEGER,
};

enum sim_cause {
	SIM_CAUSE_NONE,
	SIM_CAUSE_LOCK,
	SIM_CAUSE_CPU,
	SIM_CAUSE_DISK,
	SIM_CAUSE_IRQ,
	SIM_CAUSE_MIXED,	/* each slow request draws one of lock, cpu, disk, irq */
	/* chain causes (never drawn by `mixed`): doc/scenario.md */
	SIM_CAUSE_LOCK_HOG,	/* the lock holder computes while CPU hogs share its CPU */
	SIM_CAUSE_LOCK_SLEEP,	/* the lock holder sleeps on a timer (as `lock`) */
	SIM_CAUSE_LOCK_REMOTE,	/* the lock holder waits for a remote call (redis, another host) */
	SIM_CAUSE_HANDOFF,	/* the mysql worker hands the query to a pool thread and waits for it */
	SIM_CAUSE_DEADLOCK,	/* a mysql worker and a replica on another host wait for each other */
	SIM_CAUSE_NET_DELAY,	/* the customer's reply to the frontend is delayed in flight (a slow path) */
	SIM_CAUSE_NET_RETRANSMIT,	/* the customer's reply to the frontend is lost, retransmitted after an RTO */
	SIM_CAUSE_DISK_CONTENTION,	/* the mysql read queues on the device behind backup.sh's burst of writes */
	SIM_CAUSE_CACHE_MISS,	/* the mysql read of the same file misses the page cache (a slow device read) */
	SIM_CAUSE_COUNT,
};

/* True for the chain causes (their truth has spans[].chain and requests[].culprit). */
static inline bool sim_cause_is_chain(enum sim_cause cause)
{
	return cause >= SIM_CAUSE_LOCK_HOG && cause < SIM_CAUSE_COUNT;
}

const char *sim_cause_name(enum sim_cause cause);

struct sim;

/*
 * A workload preset: the engine (sim.c) drives it through these operations only.  Each preset
 * defines its table (sim-hotrod.c: sim_preset_hotrod); sim-presets.h lists them, for the caller
 * that fills sim_config.preset.
 */
struct sim_preset_ops {
	const char *name;		/* the `preset` parameter's value */
	/* The name of host `index` for `hosts` hosts. */
	const char *(*host_name)(unsigned int index, unsigned int hosts);
	/* Creates processes and threads on every host, its state in sim->preset_state; false (and sim->failed) on error. */
	bool (*create)(struct sim *sim);
	/* Starts the workload (after the statedump). */
	void (*start)(struct sim *sim);
	/* Handles an action of kind >= SIM_ACT_WORKLOAD. */
	void (*act)(struct sim *sim, const struct sim_action *action);
	/* True once the workload is over. */
	bool (*finished)(const struct sim *sim);
	/* Requests completed so far. */
	uint64_t (*completed)(const struct sim *sim);
	/* Optional: writes the truth of requests still open at the end (sim->truth is set). */
	void (*truth_open)(struct sim *sim);
	/* Frees sim->preset_state (may be NULL: create failed early). */
	void (*destroy)(struct sim *sim);
};

struct sim_config {
	const struct sim_preset_ops *preset;	/* borrowed (static); required (sim-presets.h) */
	unsigned int hosts;		/* 2..8 */
	unsigned int cpus;		/* per host, 1..SIM_MAX_CPUS */
	uint64_t requests;
	uint64_t seed;
	double slow_ratio;		/* share of slow requests, 0..1 */
	enum sim_cause cause;
	enum sim_span_schema span_schema;
	struct sim_clock clocks[SIM_MAX_HOSTS];	/* per-host transform (reference set by sim_create) */
	const char *truth_path;		/* borrowed; NULL = no truth file */
	uint32_t packet_events;		/* events per packet */
	uint64_t discard_every;		/* kernel streams lose 64 events every that many (0: never) */
	int64_t interarrival_ns;	/* mean time between two requests */
	unsigned int max_inflight;	/* concurrent external requests */
	bool truth_chains;		/* every span's chain in the truth (else: chain causes only) */
	unsigned int chain_depth;	/* chain truth: span-attrib's `chain-depth` (1..64) */
	int64_t chain_window_ns;	/* chain truth: span-attrib's `chain-window` */
};

/* Fills `cfg` with the defaults (clocks: random, from the seed); the caller sets `preset`. */
void sim_config_defaults(struct sim_config *cfg);
/* Draws per-host offsets in +-50 ms and drifts in +-50 ppm from the seed (host 0 stays exact). */
void sim_config_random_clocks(struct sim_config *cfg);

struct sim_truth;

struct sim {
	struct sim_config cfg;
	struct sim_rng rng;		/* kernel randomness */
	struct sim_queue queue;
	struct sim_output out;
	struct sim_host host[SIM_MAX_HOSTS];
	int64_t start;			/* true time of the trace start */
	int64_t now;			/* true time of the action being handled */
	int64_t deadline;		/* true time after which the run is declared stalled */
	GHashTable *strings;		/* owned: interned strings (keys owned) */
	struct sim_irq_work *free_irq_works;	/* borrowed free list (blocks owned by `pool`) */
	GPtrArray *pool;		/* owned: every pooled object (irq works, jobs, spans, ...) */
	void *preset_state;		/* owned by the preset (cfg.preset->create/destroy) */
	struct sim_truth *truth;	/* owned; NULL without a truth file */
	uint64_t tcp_segments;		/* net_dev_queue events */
	GHashTable *chain_threads;	/* owned: (host << 32 | tid) -> struct sim_thread (borrowed); chain truth only */
	bool done;
	bool failed;
	char error[256];		/* why `failed` */
};

/* Creates the world; on failure returns NULL and writes a message into `error`. */
struct sim *sim_create(const struct sim_config *cfg, char *error, size_t error_size);
void sim_destroy(struct sim *sim);

/* Handles the next action; returns false once the simulation is over (or failed). */
bool sim_step(struct sim *sim);

/* An interned copy of `text`, alive as long as the simulator. */
const char *sim_intern(struct sim *sim, const char *text);

/* Schedules an action (kind >= SIM_ACT_WORKLOAD goes to the workload). */
void sim_schedule(struct sim *sim, int64_t time, uint32_t kind, uint32_t arg,
		uint64_t gen, void *target);

/* The clock UUID of `host`: derived from the seed and the host index (version-4 layout). */
void sim_host_clock_uuid(const struct sim *sim, unsigned int host, uint8_t out[16]);

/* Allocates `size` zeroed bytes owned by the simulator (freed by sim_destroy); NULL + failed on error. */
void *sim_pool_alloc(struct sim *sim, size_t size);

/* Marks the simulation failed (out of memory, I/O error) with a message. */
void sim_fail(struct sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* DEEPSPAN_SCENARIO_SIM_H */
