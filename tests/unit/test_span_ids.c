/* SPDX-License-Identifier: MIT */
/* The id generator of libdeepspan-ust: never zero, deterministic per seed, distinct streams. */
#include "ids.h"
#include "unit.h"

#include <stdlib.h>

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	enum { COUNT = 100000 };
	static uint64_t ids[2 * COUNT];
	struct deepspan_id_generator a, b;
	size_t zeros = 0, duplicates = 0;

	deepspan_id_generator_seed(&a, 1);
	deepspan_id_generator_seed(&b, 1);
	UNIT_EQ_UINT(deepspan_id_generator_next(&a), deepspan_id_generator_next(&b), "same seed, same stream");

	/* The state that mixes to zero is skipped: seed just before it. */
	deepspan_id_generator_seed(&a, UINT64_C(0) - UINT64_C(0x9e3779b97f4a7c15));
	UNIT_CHECK(deepspan_id_generator_next(&a) != 0, "the zero output is skipped");

	deepspan_id_generator_seed(&a, deepspan_id_fresh_seed());
	deepspan_id_generator_seed(&b, deepspan_id_fresh_seed());
	for (size_t i = 0; i < COUNT; i++) {
		ids[i] = deepspan_id_generator_next(&a);
		ids[COUNT + i] = deepspan_id_generator_next(&b);
	}
	qsort(ids, 2 * COUNT, sizeof(ids[0]), compare_u64);
	for (size_t i = 0; i < 2 * COUNT; i++) {
		zeros += ids[i] == 0;
		duplicates += i > 0 && ids[i] == ids[i - 1];
	}
	UNIT_EQ_UINT(zeros, 0, "no zero id in 200000");
	UNIT_EQ_UINT(duplicates, 0, "no duplicate id across two freshly seeded streams");
	UNIT_CHECK(deepspan_id_fresh_seed() != deepspan_id_fresh_seed(), "two fresh seeds differ");
	return unit_finish();
}
