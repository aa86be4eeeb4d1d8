/* SPDX-License-Identifier: MIT */
/*
 * The simulator's event queue: a binary min-heap of timed actions ordered by
 * (time, insertion sequence), so equal times pop in insertion order and the
 * simulation is deterministic.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_QUEUE_H
#define DEEPSPAN_SCENARIO_SIM_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_action {
	int64_t time;		/* true time, ns since the Unix epoch */
	uint64_t seq;		/* insertion order (tie-break) */
	uint32_t kind;		/* what to do (owner-defined) */
	uint32_t arg;		/* small argument (CPU index, ...) */
	uint64_t gen;		/* generation, to ignore stale actions */
	void *target;		/* borrowed: the object acted upon */
};

struct sim_queue {
	struct sim_action *items;	/* owned */
	size_t len;
	size_t cap;
	uint64_t next_seq;
};

void sim_queue_init(struct sim_queue *queue);
void sim_queue_fini(struct sim_queue *queue);
/* Returns false when memory is exhausted. */
bool sim_queue_push(struct sim_queue *queue, int64_t time, uint32_t kind,
		uint32_t arg, uint64_t gen, void *target);
/* Removes the earliest action into `out`; false when empty. */
bool sim_queue_pop(struct sim_queue *queue, struct sim_action *out);
static inline bool sim_queue_empty(const struct sim_queue *queue)
{
	return queue->len == 0;
}

#endif /* DEEPSPAN_SCENARIO_SIM_QUEUE_H */
