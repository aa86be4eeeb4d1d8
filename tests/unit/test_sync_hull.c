/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the convex-hull synchronization (plugins/sync-filter/hull.c,
 * solver.c) on hand vectors and on seeded drifting clocks.
 */
#include <math.h>
#include <stdlib.h>

#include "unit.h"
#include "sync-filter/hull.h"
#include "sync-filter/solver.h"

#define EPOCH INT64_C(1700000000000000000)

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int64_t rng_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t) (rng_next() % (uint64_t) (hi - lo + 1));
}

static bool add(struct ds_sync_pair *pair, bool above, int64_t x, int64_t y)
{
	struct ds_point pt = { x, y };
	bool oom;

	return ds_sync_pair_add(pair, above, pt, &oom);
}

/* The quality sequence of a growing exchange, as Trace Compass's own tests walk it. */
static void test_quality_sequence(void)
{
	struct ds_sync_pair pair;
	struct ds_sync_fit fit;

	ds_sync_pair_init(&pair);
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ABSENT, "no message: ABSENT");

	UNIT_CHECK(add(&pair, true, 1, 3), "A->B (1,3) accepted");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_INCOMPLETE, "one direction: INCOMPLETE");
	UNIT_CHECK(fit.bounded_high && !fit.bounded_low,
		"one direction: bounded on one side only");
	UNIT_EQ_INT(fit.accuracy_ns, -1, "one direction: no accuracy");

	UNIT_CHECK(add(&pair, false, 2, 1), "B->A (recv 2, sent 1) accepted");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_APPROXIMATE,
		"both directions, one extreme line: APPROXIMATE");
	UNIT_CHECK(fit.has_min && !fit.has_max, "only the minimum slope exists");
	UNIT_NEAR(fit.slope_min, -2.0, 1e-12, "minimum slope through (1,3) and (2,1)");

	UNIT_CHECK(add(&pair, true, 3, 5), "A->B (3,5) accepted");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ACCURATE, "both lines: ACCURATE");
	UNIT_NEAR(fit.slope_max, 4.0, 1e-12, "maximum slope through (2,1) and (3,5)");
	UNIT_NEAR(fit.central.slope, 1.0, 1e-12, "central slope = mean of -2 and 4");

	UNIT_CHECK(add(&pair, false, 4, 7), "B->A (4,7) is consistent");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_NEAR(fit.slope_min, 2.0, 1e-12, "minimum slope tightened to 2");
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ACCURATE, "still ACCURATE");

	UNIT_CHECK(!add(&pair, false, 5, 30), "B->A (5,30) contradicts: rejected");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_FAIL, "contradiction: FAIL");
	UNIT_EQ_INT(fit.quality_of_kept, DS_SYNC_QUALITY_ACCURATE,
		"the kept points still give an accurate formula");
	UNIT_NEAR(fit.slope_min, 2.0, 1e-12, "last good minimum slope kept");
	UNIT_NEAR(fit.slope_max, 4.0, 1e-12, "last good maximum slope kept");
	UNIT_EQ_UINT(pair.rejected, 1, "one rejected point");
	ds_sync_pair_fini(&pair);
}

/* Same clocks, same latency both ways: the identity, exactly. */
static void test_symmetric(void)
{
	struct ds_sync_pair pair;
	struct ds_sync_fit fit;
	int i;

	ds_sync_pair_init(&pair);
	for (i = 0; i < 10; i++) {
		int64_t t = EPOCH + i * 1000;

		add(&pair, true, t, t + 10);		/* A->B, 10 ns */
		add(&pair, false, t + 510, t + 500);	/* B->A, 10 ns */
	}
	ds_sync_pair_fit(&pair, &fit);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ACCURATE, "symmetric: ACCURATE");
	UNIT_CHECK(fit.slope_min <= 1.0 && 1.0 <= fit.slope_max,
		"symmetric: slope 1 between the extreme slopes");
	UNIT_NEAR(fit.central.slope, 1.0, 20.0 / 9000, "symmetric: slope within 20 ns over the 9 us span");
	UNIT_EQ_INT(ds_transform_apply(&fit.central, EPOCH + 4321), EPOCH + 4321,
		"symmetric: identity at epoch scale");
	UNIT_CHECK(fit.lo_first <= fit.x_first && fit.x_first <= fit.hi_first,
		"symmetric: identity inside the bounds at the first point");
	UNIT_CHECK(fit.accuracy_ns >= 0 && fit.accuracy_ns <= 20,
		"symmetric: accuracy within the 10 ns latencies");
	UNIT_EQ_UINT(pair.above.len, 2, "collinear A->B points: hull keeps the two ends");
	ds_sync_pair_fini(&pair);
}

/* Drifting clock: B = A + 50 ms + 50 ppm, random latencies; truth inside the bounds. */
static void test_drift(double drift_ppm, int64_t offset_ns)
{
	struct ds_sync_pair pair;
	struct ds_sync_fit fit;
	double slope = 1.0 + drift_ppm * 1e-6;
	int i, inside = 0, within = 0;
	char what[128];

	ds_sync_pair_init(&pair);
#define TRUE_B(a) ((a) + offset_ns + (int64_t) llround(((a) - EPOCH) * (slope - 1.0)))
	for (i = 0; i < 2000; i++) {
		int64_t a_send = EPOCH + (int64_t) i * 5000000 + rng_range(0, 1000000);
		int64_t lat = rng_range(20000, 400000);
		int64_t b_send = TRUE_B(EPOCH + (int64_t) i * 5000000 + 2500000);
		int64_t a_recv_lat = rng_range(20000, 400000);
		int64_t a_of_b_send = EPOCH + (int64_t) i * 5000000 + 2500000;

		add(&pair, true, a_send, TRUE_B(a_send + lat));
		add(&pair, false, a_of_b_send + a_recv_lat, b_send);
	}
	ds_sync_pair_fit(&pair, &fit);
	snprintf(what, sizeof(what), "drift %+g ppm, offset %+lld ns: ACCURATE",
		drift_ppm, (long long) offset_ns);
	UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ACCURATE, what);
	UNIT_CHECK(fit.slope_min <= slope && slope <= fit.slope_max,
		"true slope between the extreme slopes");
	UNIT_CHECK(fit.lo_first <= TRUE_B(fit.x_first) && TRUE_B(fit.x_first) <= fit.hi_first,
		"truth inside the envelope at the first point");
	UNIT_CHECK(fit.lo_last <= TRUE_B(fit.x_last) && TRUE_B(fit.x_last) <= fit.hi_last,
		"truth inside the envelope at the last point");
	for (i = 0; i <= 100; i++) {
		int64_t x = fit.x_first + (fit.x_last - fit.x_first) / 100 * i;
		int64_t err = ds_transform_apply(&fit.central, x) - TRUE_B(x);

		within += llabs(err) <= fit.accuracy_ns;
		inside++;
	}
	UNIT_EQ_INT(within, inside, "central line within the reported accuracy everywhere");
	UNIT_CHECK(fit.accuracy_ns < 30000, "accuracy well under the 20 us minimum latency");
	printf("# drift %+g ppm: accuracy %lld ns, hull sizes %zu/%zu\n", drift_ppm,
		(long long) fit.accuracy_ns, pair.above.len, pair.below.len);
#undef TRUE_B
	ds_sync_pair_fini(&pair);
}

/* Random inserts keep a convex lower hull under every point. */
static void test_hull_invariant(void)
{
	struct ds_sync_pair pair;
	struct ds_point pts[500];
	bool ok_under = true, ok_convex = true;
	size_t i, k;

	ds_sync_pair_init(&pair);
	for (i = 0; i < 500; i++) {
		pts[i].x = rng_range(0, 100000);
		pts[i].y = pts[i].x + rng_range(10, 5000);
		add(&pair, true, pts[i].x, pts[i].y);
	}
	for (k = 0; k + 2 < pair.above.len; k++) {
		struct ds_point a = pair.above.points[k], b = pair.above.points[k + 1],
			c = pair.above.points[k + 2];
		__int128 cr = ((__int128) b.x - a.x) * (c.y - a.y) -
			((__int128) b.y - a.y) * (c.x - a.x);

		ok_convex = ok_convex && cr > 0 && a.x < b.x;
	}
	for (i = 0; i < 500; i++) {
		for (k = 0; k + 1 < pair.above.len; k++) {
			struct ds_point a = pair.above.points[k], b = pair.above.points[k + 1];

			if (pts[i].x >= a.x && pts[i].x <= b.x) {
				__int128 cr = ((__int128) b.x - a.x) * (pts[i].y - a.y) -
					((__int128) b.y - a.y) * (pts[i].x - a.x);

				ok_under = ok_under && cr >= 0;
			}
		}
	}
	UNIT_CHECK(ok_convex, "random inserts: lower hull strictly convex");
	UNIT_CHECK(ok_under, "random inserts: every point on or above the hull");
	UNIT_CHECK(pair.above.len < 60, "random inserts: hull stays small");
	ds_sync_pair_fini(&pair);
}

static void test_transform(void)
{
	struct ds_transform tf = { EPOCH, EPOCH + 50000000, 1.0 + 50e-6 };
	struct ds_transform inv = ds_transform_inverse(&tf), id;
	int64_t t = EPOCH + INT64_C(1000000000000);

	UNIT_EQ_INT(ds_transform_apply(&tf, t), EPOCH + 50000000 + INT64_C(1000050000000),
		"epoch-scale transform exact to the ns");
	UNIT_NEAR((double) (ds_transform_apply(&inv, ds_transform_apply(&tf, t)) - t), 0, 1,
		"inverse undoes the transform");
	id = ds_transform_compose(&inv, &tf);
	UNIT_NEAR((double) (ds_transform_apply(&id, t + 12345) - (t + 12345)), 0, 1,
		"composition with the inverse is the identity");
}

/* Three hosts in a chain and one host alone. */
static void test_solver_chain(void)
{
	struct ds_sync_solver solver;
	struct ds_sync_host_result res[4];
	/* host h's clock = true + h * 10 ms, 20 us latency */
	int64_t off[3] = { 0, 10000000, 20000000 };
	bool oom;
	int i, h;

	UNIT_CHECK(ds_sync_solver_init(&solver, 4), "solver init");
	for (i = 0; i < 50; i++) {
		int64_t t = EPOCH + (int64_t) i * 1000000;

		for (h = 0; h < 2; h++) {
			ds_sync_solver_add(&solver, h, t + off[h], h + 1,
				t + 20000 + rng_range(0, 500) + off[h + 1], &oom);
			ds_sync_solver_add(&solver, h + 1, t + 500000 + off[h + 1], h,
				t + 520000 + rng_range(0, 500) + off[h], &oom);
		}
	}
	ds_sync_solver_solve(&solver, 0, res);
	UNIT_EQ_INT(res[0].hops, 0, "reference: root");
	UNIT_EQ_INT(res[1].parent, 0, "host 1 joins the reference directly");
	UNIT_EQ_INT(res[2].parent, 1, "host 2 joins through host 1");
	UNIT_EQ_INT(res[2].hops, 2, "host 2: two hops");
	UNIT_EQ_INT(res[2].quality, DS_SYNC_QUALITY_ACCURATE, "host 2: ACCURATE");
	UNIT_CHECK(llabs(ds_transform_apply(&res[2].to_ref, EPOCH + 20000000 + 30000000) -
			(EPOCH + 30000000)) <= res[2].accuracy_ns,
		"host 2: composed transform within its accuracy");
	UNIT_CHECK(res[2].lo[0] <= res[2].at[0] - 20000000 &&
		res[2].at[0] - 20000000 <= res[2].hi[0], "host 2: truth inside composed bounds");
	UNIT_EQ_INT(res[3].quality, DS_SYNC_QUALITY_ABSENT, "host without pairs: ABSENT");
	UNIT_EQ_INT(ds_transform_apply(&res[3].to_ref, EPOCH), EPOCH,
		"host without pairs keeps its clock");
	ds_sync_solver_solve(&solver, 2, res);
	UNIT_EQ_INT(res[0].hops, 2, "reference 2: host 0 two hops away");
	UNIT_CHECK(llabs(ds_transform_apply(&res[0].to_ref, EPOCH) - (EPOCH + 20000000)) <=
		res[0].accuracy_ns, "reference 2: inverse direction within accuracy");
	ds_sync_solver_fini(&solver);
}

/* A host reached only by one-way messages joins through them, INCOMPLETE, after two-sided edges. */
static void test_solver_incomplete(void)
{
	struct ds_sync_solver solver;
	struct ds_sync_host_result res[3];
	bool oom;
	int i;

	UNIT_CHECK(ds_sync_solver_init(&solver, 3), "solver init (3 hosts)");
	for (i = 0; i < 20; i++) {
		int64_t t = EPOCH + (int64_t) i * 1000000;

		/* 0 <-> 1 both ways, clocks equal, 10 us latency */
		ds_sync_solver_add(&solver, 0, t, 1, t + 10000, &oom);
		ds_sync_solver_add(&solver, 1, t + 500000, 0, t + 510000, &oom);
		/* 2 -> 0 only: host 2 is 5 ms ahead, latency 20..39 us */
		ds_sync_solver_add(&solver, 2, t + 5000000, 0, t + 20000 + i * 1000, &oom);
	}
	ds_sync_solver_solve(&solver, 0, res);
	UNIT_EQ_INT(res[1].quality, DS_SYNC_QUALITY_ACCURATE, "two-sided edge: ACCURATE");
	UNIT_EQ_INT(res[2].quality, DS_SYNC_QUALITY_INCOMPLETE, "one-way only: INCOMPLETE");
	UNIT_EQ_INT(res[2].parent, 0, "INCOMPLETE host joins through its one-way edge");
	UNIT_EQ_INT(res[2].accuracy_ns, -1, "INCOMPLETE: no two-sided accuracy");
	UNIT_EQ_INT(ds_transform_apply(&res[2].to_ref, EPOCH + 5000000), EPOCH + 20000,
		"INCOMPLETE: slope 1, the tightest send mapped onto its receive");
	ds_sync_solver_fini(&solver);
}

/* Checked and saturating transforms at the int64 limits. */
static void test_transform_limits(void)
{
	struct ds_transform tf = { .x0 = 0, .y0 = INT64_MAX - 10, .slope = 1.0 };
	struct ds_transform huge = { .x0 = INT64_MIN, .y0 = 0, .slope = 1.0 };
	struct ds_transform steep = { .x0 = 0, .y0 = 0, .slope = 1e300 };
	struct ds_transform nan_slope = { .x0 = 0, .y0 = 0, .slope = NAN };
	int64_t out = 7;

	UNIT_CHECK(ds_transform_apply_checked(&tf, 10, &out) && out == INT64_MAX,
		"y0 + d exactly at INT64_MAX fits");
	out = 7;
	UNIT_CHECK(!ds_transform_apply_checked(&tf, 11, &out) && out == 7,
		"one past INT64_MAX refused, output untouched");
	UNIT_EQ_INT(ds_transform_apply(&tf, EPOCH), INT64_MAX, "saturates up");
	UNIT_CHECK(!ds_transform_apply_checked(&huge, EPOCH, &out), "t - x0 overflow refused");
	UNIT_EQ_INT(ds_transform_apply(&huge, EPOCH), INT64_MAX, "t - INT64_MIN saturates up");
	UNIT_CHECK(!ds_transform_apply_checked(&steep, EPOCH, &out), "slope 1e300 refused");
	UNIT_EQ_INT(ds_transform_apply(&steep, -EPOCH), INT64_MIN, "slope 1e300 saturates down");
	UNIT_CHECK(!ds_transform_apply_checked(&nan_slope, EPOCH, &out), "NaN slope refused");
	UNIT_EQ_INT(ds_sat_sub(INT64_MAX, -1), INT64_MAX, "sat_sub up");
	UNIT_EQ_INT(ds_sat_sub(INT64_MIN, 1), INT64_MIN, "sat_sub down");
	UNIT_EQ_INT(ds_sat_sub(5, 7), -2, "sat_sub in range");
}

/* Points at and beyond the exact domain: counted, never undefined (UBSan in the ASan tree). */
static void test_extreme_points(void)
{
	struct ds_sync_pair pair;
	struct ds_sync_fit fit;
	const int64_t L = DS_SYNC_POINT_LIMIT - 1;

	ds_sync_pair_init(&pair);
	UNIT_CHECK(!add(&pair, true, INT64_MIN, INT64_MAX), "(INT64_MIN, INT64_MAX) ignored");
	UNIT_CHECK(!add(&pair, false, INT64_MAX, INT64_MIN), "(INT64_MAX, INT64_MIN) ignored");
	UNIT_CHECK(!add(&pair, true, 0, DS_SYNC_POINT_LIMIT), "y = 2^62 ignored");
	UNIT_EQ_UINT(pair.out_of_range, 3, "counted out of range, not rejected");
	UNIT_EQ_UINT(pair.rejected, 0, "no contradiction counted");
	UNIT_CHECK(add(&pair, true, -L, L), "(-2^62 + 1, 2^62 - 1) kept");
	UNIT_CHECK(add(&pair, false, L, -L), "(2^62 - 1, -2^62 + 1) kept");
	UNIT_CHECK(add(&pair, true, L, L), "(2^62 - 1, 2^62 - 1) kept");
	UNIT_CHECK(add(&pair, false, -L, -L), "(-2^62 + 1, -2^62 + 1) kept");
	ds_sync_pair_fit(&pair, &fit);
	UNIT_CHECK(fit.quality == DS_SYNC_QUALITY_ACCURATE || fit.quality == DS_SYNC_QUALITY_APPROXIMATE,
		"extreme corners fit");
	UNIT_CHECK(fit.accuracy_ns >= -1, "bounds computed without overflow");
	ds_sync_pair_fini(&pair);
}

/*
 * Which host is x changes the central line: a wide hull (slopes 0.997..1.003)
 * fitted with host 1 as x (rank) gives host 0 the inverse of the mean slope
 * of host 1 -> host 0, not the mean slope of host 0 -> host 1.
 */
static void test_solver_rank(void)
{
	static const unsigned int swapped[2] = { 1, 0 }, bad[2] = { 0, 0 };
	struct ds_sync_solver solver;
	struct ds_sync_host_result res[2];
	struct ds_sync_fit fit;
	double slopes[2];
	int order;
	bool oom;

	for (order = 0; order < 2; order++) {
		UNIT_CHECK(ds_sync_solver_init(&solver, 2), "solver init");
		UNIT_CHECK(!ds_sync_solver_set_rank(&solver, bad), "a rank that is no permutation is refused");
		if (order) {
			UNIT_CHECK(ds_sync_solver_set_rank(&solver, swapped), "swapped ranks accepted");
		}
		UNIT_CHECK(ds_sync_solver_is_x(&solver, 0, 1) == !order, "x host follows the rank");
		/* host 0 -> 1 latency 10 µs; 1 -> 0 likewise, 0.12 s of data: a wide hull */
		ds_sync_solver_add(&solver, 0, EPOCH, 1, EPOCH + 10000 + 78000000, &oom);
		ds_sync_solver_add(&solver, 1, EPOCH + 50000 + 78000000, 0, EPOCH + 70000, &oom);
		ds_sync_solver_add(&solver, 0, EPOCH + 120000000, 1, EPOCH + 120020000 + 78000000, &oom);
		ds_sync_solver_add(&solver, 1, EPOCH + 120050000 + 78000000, 0, EPOCH + 120080000, &oom);
		ds_sync_solver_solve(&solver, 1, res);
		slopes[order] = res[0].to_ref.slope;
		ds_sync_pair_fit(order ? ds_sync_solver_pair(&solver, 1, 0) :
			ds_sync_solver_pair(&solver, 0, 1), &fit);
		UNIT_EQ_INT(fit.quality, DS_SYNC_QUALITY_ACCURATE, "two-sided pair");
		if (order) {
			UNIT_NEAR(res[0].to_ref.slope, 1.0 / ((fit.slope_min + fit.slope_max) / 2), 1e-15,
				"host 0 (y) gets the inverse of the central line fitted from host 1 (x)");
		} else {
			UNIT_NEAR(res[0].to_ref.slope, (fit.slope_min + fit.slope_max) / 2, 1e-15,
				"host 0 (x) gets the central line itself");
		}
		ds_sync_solver_fini(&solver);
	}
	UNIT_CHECK(fabs(slopes[0] - slopes[1]) > 1e-8,
		"the orientation changes the slope (wide hull)");
}

int main(void)
{
	enum ds_sync_quality q;

	test_quality_sequence();
	test_symmetric();
	test_drift(50.0, 50000000);
	test_drift(-50.0, -50000000);
	test_drift(0.0, 0);
	test_hull_invariant();
	test_transform();
	test_solver_chain();
	test_solver_incomplete();
	test_transform_limits();
	test_extreme_points();
	test_solver_rank();
	UNIT_CHECK(ds_sync_quality_from_name("APPROXIMATE", &q) &&
		q == DS_SYNC_QUALITY_APPROXIMATE, "quality names round-trip");
	UNIT_CHECK(!ds_sync_quality_from_name("GOOD", &q), "unknown quality name refused");
	return unit_finish();
}
