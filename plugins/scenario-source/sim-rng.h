/* SPDX-License-Identifier: MIT */
/*
 * Deterministic pseudo-random numbers for the scenario simulator:
 * splitmix64 to seed, xoshiro256** to draw.  Same seed, same sequence,
 * on every platform.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_RNG_H
#define DEEPSPAN_SCENARIO_SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t sim_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Seeds from `seed` and a stream number, so sub-generators are independent. */
static inline void sim_rng_init(struct sim_rng *rng, uint64_t seed, uint64_t stream)
{
	uint64_t state = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
	unsigned int i;

	for (i = 0; i < 4; i++) {
		rng->s[i] = sim_splitmix64(&state);
	}
}

static inline uint64_t sim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(struct sim_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = sim_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1). */
static inline double sim_rng_unit(struct sim_rng *rng)
{
	return (double) (sim_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi] (hi >= lo). */
static inline int64_t sim_rng_range(struct sim_rng *rng, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t) (hi - lo) + 1;

	return span == 0 ? (int64_t) sim_rng_next(rng) : lo + (int64_t) (sim_rng_next(rng) % span);
}

/* Exponentially distributed with the given mean, at least 1. */
static inline int64_t sim_rng_exp(struct sim_rng *rng, double mean)
{
	double v = -log(1.0 - sim_rng_unit(rng)) * mean;

	return v < 1.0 ? 1 : (int64_t) v;
}

/* `mean` jittered uniformly by +-`jitter` (a fraction, e.g. 0.2), at least 1. */
static inline int64_t sim_rng_jitter(struct sim_rng *rng, int64_t mean, double jitter)
{
	double f = 1.0 + jitter * (2.0 * sim_rng_unit(rng) - 1.0);
	double v = (double) mean * f;

	return v < 1.0 ? 1 : (int64_t) v;
}

#endif /* DEEPSPAN_SCENARIO_SIM_RNG_H */
