/* SPDX-License-Identifier: MIT */
/* Random span and trace ids (see ids.h). */
#define _GNU_SOURCE
#include "ids.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define WEYL_INCREMENT UINT64_C(0x9e3779b97f4a7c15)

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void deepspan_id_generator_seed(struct deepspan_id_generator *gen, uint64_t seed)
{
	gen->state = seed;
}

uint64_t deepspan_id_generator_next(struct deepspan_id_generator *gen)
{
	uint64_t id;

	/* mix64 is a bijection: exactly one state of the sequence maps to 0, so this loops at most twice. */
	do {
		gen->state += WEYL_INCREMENT;
		id = mix64(gen->state);
	} while (id == 0);
	return id;
}

uint64_t deepspan_id_fresh_seed(void)
{
	uint64_t entropy = 0;
	struct timespec now = { 0 };

	if (getrandom(&entropy, sizeof(entropy), GRND_NONBLOCK) != (ssize_t) sizeof(entropy)) {
		entropy = 0;	/* no entropy yet (early boot): time and tid still separate the streams */
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	return mix64(entropy ^ mix64((uint64_t) gettid()) ^
		mix64((uint64_t) now.tv_sec * UINT64_C(1000000000) + (uint64_t) now.tv_nsec));
}
