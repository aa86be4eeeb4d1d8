/* SPDX-License-Identifier: MIT */
/*
 * Minimal TAP-style unit test helpers (one header, no dependency).
 * Each check prints `ok N - what` or `not ok N - what (details)`;
 * `unit_finish()` prints the plan and returns the exit status.
 */
#ifndef DEEPSPAN_TESTS_UNIT_H
#define DEEPSPAN_TESTS_UNIT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static unsigned int unit_count;
static unsigned int unit_failures;

static inline bool unit_report(bool ok, const char *what, const char *file, int line)
{
	unit_count++;
	if (ok) {
		printf("ok %u - %s\n", unit_count, what);
	} else {
		unit_failures++;
		printf("not ok %u - %s (%s:%d)\n", unit_count, what, file, line);
	}
	return ok;
}

#define UNIT_CHECK(cond, what) unit_report((cond), (what), __FILE__, __LINE__)

#define UNIT_EQ_INT(actual, expected, what) do {				\
	long long unit_a_ = (long long) (actual);				\
	long long unit_e_ = (long long) (expected);				\
	if (!unit_report(unit_a_ == unit_e_, (what), __FILE__, __LINE__))	\
		printf("#   got %lld, expected %lld\n", unit_a_, unit_e_);	\
} while (0)

#define UNIT_EQ_UINT(actual, expected, what) do {				\
	unsigned long long unit_a_ = (unsigned long long) (actual);		\
	unsigned long long unit_e_ = (unsigned long long) (expected);		\
	if (!unit_report(unit_a_ == unit_e_, (what), __FILE__, __LINE__))	\
		printf("#   got %llu, expected %llu\n", unit_a_, unit_e_);	\
} while (0)

#define UNIT_EQ_STR(actual, expected, what) do {				\
	const char *unit_a_ = (actual);						\
	const char *unit_e_ = (expected);					\
	bool unit_ok_ = unit_a_ && unit_e_ && strcmp(unit_a_, unit_e_) == 0;	\
	if (!unit_report(unit_ok_, (what), __FILE__, __LINE__))		\
		printf("#   got \"%s\", expected \"%s\"\n",			\
			unit_a_ ? unit_a_ : "(null)", unit_e_ ? unit_e_ : "(null)"); \
} while (0)

#define UNIT_NEAR(actual, expected, tolerance, what) do {			\
	double unit_a_ = (double) (actual);					\
	double unit_e_ = (double) (expected);					\
	double unit_d_ = unit_a_ > unit_e_ ? unit_a_ - unit_e_ : unit_e_ - unit_a_; \
	if (!unit_report(unit_d_ <= (tolerance), (what), __FILE__, __LINE__))	\
		printf("#   got %.17g, expected %.17g (tolerance %g)\n",	\
			unit_a_, unit_e_, (double) (tolerance));		\
} while (0)

static inline int unit_finish(void)
{
	printf("1..%u\n", unit_count);
	if (unit_count == 0) {
		printf("# no checks ran\n");
		return 1;
	}
	return unit_failures ? 1 : 0;
}

#endif /* DEEPSPAN_TESTS_UNIT_H */
