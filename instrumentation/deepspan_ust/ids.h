/* SPDX-License-Identifier: MIT */
/* Random span and trace ids: a small deterministic generator (pure, unit-tested) and its seeding. */
#ifndef DEEPSPAN_UST_IDS_H
#define DEEPSPAN_UST_IDS_H

#include <stdint.h>

/* SplitMix64: a bijective mix of a Weyl sequence; any seed gives a full-period stream. */
struct deepspan_id_generator {
	uint64_t state;
};

void deepspan_id_generator_seed(struct deepspan_id_generator *gen, uint64_t seed);

/* The next id of the stream, never zero. */
uint64_t deepspan_id_generator_next(struct deepspan_id_generator *gen);

/* A seed that differs between processes, threads and calls (kernel entropy, tid, time). */
uint64_t deepspan_id_fresh_seed(void);

#endif /* DEEPSPAN_UST_IDS_H */
