/* SPDX-License-Identifier: MIT */
/*
 * Convex-hull clock synchronization of one pair of hosts (the fully
 * incremental method of Duda et al., Jabbarifar et al., as Trace Compass
 * uses it), in exact integer arithmetic.
 *
 * For hosts A (x axis) and B (y axis), a message sent by A at x and received
 * by B at y gives a point (x, y) that lies *above* the true clock line
 * y = f(x) (a receive comes after its send); a message sent by B at y and
 * received by A at x gives a point *below* it.  Only the lower hull of the
 * points above and the upper hull of the points below can bind a separating
 * line, so only they are kept (memory is bounded by the hull sizes, not by
 * the number of messages).  A point that no separating line can satisfy
 * together with the earlier ones is rejected and counted: the pair keeps the
 * formula of its consistent points and is reported FAIL.
 *
 * Timestamps are nanoseconds from the clock origin (epoch ns, ~2^61): every
 * orientation test uses 128-bit products, and transforms are applied around
 * a reference point, t' = y0 + a * (t - x0).
 */
#ifndef DEEPSPAN_SYNC_HULL_H
#define DEEPSPAN_SYNC_HULL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum ds_sync_quality {
	DS_SYNC_QUALITY_ACCURATE,	/* both extreme lines exist */
	DS_SYNC_QUALITY_APPROXIMATE,	/* both directions, one extreme line missing */
	DS_SYNC_QUALITY_INCOMPLETE,	/* messages in one direction only */
	DS_SYNC_QUALITY_ABSENT,		/* no message at all */
	DS_SYNC_QUALITY_FAIL,		/* contradicting messages were rejected */
};

const char *ds_sync_quality_name(enum ds_sync_quality quality);
/* Parses a name written by ds_sync_quality_name(); false when unknown. */
bool ds_sync_quality_from_name(const char *name, enum ds_sync_quality *out);

struct ds_point {
	int64_t x;
	int64_t y;
};

/* t' = y0 + slope * (t - x0) */
struct ds_transform {
	int64_t x0;
	int64_t y0;
	double slope;
};

/*
 * The image of t in checked arithmetic: false, *out unchanged, when it does
 * not fit int64 (or the slope is not finite).
 */
bool ds_transform_apply_checked(const struct ds_transform *tf, int64_t t, int64_t *out);
/* The image of t, saturated to INT64_MIN / INT64_MAX when it does not fit. */
int64_t ds_transform_apply(const struct ds_transform *tf, int64_t t);
/* a - b saturated to the int64 range */
int64_t ds_sat_sub(int64_t a, int64_t b);
/*
 * The offset b of the same line written t' = slope t + b (Trace Compass's
 * TmfTimestampTransformLinear form): y0 - slope x0, in long double, rounded
 * to a double (exact to a fraction of a ns for epoch times).
 */
double ds_transform_offset_at_zero(const struct ds_transform *tf);
/* (outer ∘ inner)(t) = outer(inner(t)) */
struct ds_transform ds_transform_compose(const struct ds_transform *outer,
		const struct ds_transform *inner);
struct ds_transform ds_transform_inverse(const struct ds_transform *tf);
struct ds_transform ds_transform_identity(void);

/* A hull: points sorted by x, kept convex (lower or upper). */
struct ds_hull {
	struct ds_point *points;	/* owned */
	size_t len;
	size_t cap;
	bool upper;			/* upper hull (points below the line) */
};

/* The state of one pair: x = host A, y = host B. */
/*
 * Points are kept only strictly within ±2^62 ns (±146 years around the clock
 * origin): there every difference of two coordinates is below 2^63 and every
 * cross product below 2^127, so the exact tests cannot overflow.
 */
#define DS_SYNC_POINT_LIMIT (INT64_C(1) << 62)

struct ds_sync_pair {
	struct ds_hull above;		/* A→B messages: (send on A, receive on B) */
	struct ds_hull below;		/* B→A messages: (receive on A, send on B) */
	uint64_t count_above;		/* accepted points */
	uint64_t count_below;
	uint64_t rejected;		/* contradicting points (FAIL) */
	uint64_t out_of_range;		/* points not within ±DS_SYNC_POINT_LIMIT, ignored */
	/*
	 * Slope bounds of the separating lines so far: max_slope is the
	 * smallest slope of (below point p, above point q) with p.x < q.x,
	 * min_slope the largest with q.x < p.x; each kept as its point pair.
	 */
	bool has_max;
	struct ds_point max_p, max_q;
	bool has_min;
	struct ds_point min_p, min_q;
	int64_t x_first, x_last;	/* x range of accepted points */
};

void ds_sync_pair_init(struct ds_sync_pair *pair);
void ds_sync_pair_fini(struct ds_sync_pair *pair);

/*
 * Adds a message A→B (above = true: sent on A at x, received on B at y) or
 * B→A (above = false: received on A at x, sent on B at y).  Returns false
 * when the point contradicts the accepted ones (then it is counted in
 * `rejected` and not kept), or on allocation failure (then `*oom` is set).
 */
bool ds_sync_pair_add(struct ds_sync_pair *pair, bool above, struct ds_point pt,
		bool *oom);

/* The result for one pair, in the orientation x = A → y = B. */
struct ds_sync_fit {
	enum ds_sync_quality quality;	/* FAIL when points were rejected */
	enum ds_sync_quality quality_of_kept;	/* quality of the kept points */
	struct ds_transform central;	/* valid unless quality_of_kept is ABSENT */
	bool has_min, has_max;
	double slope_min, slope_max;	/* when has_min / has_max */
	/* Envelope of every separating line at x_first and x_last (when bounded). */
	int64_t x_first, x_last;
	bool bounded_low, bounded_high;
	int64_t lo_first, hi_first, lo_last, hi_last;
	/* max distance from the central line to the envelope over [x_first, x_last];
	 * -1 when one side is unbounded. */
	int64_t accuracy_ns;
};

void ds_sync_pair_fit(const struct ds_sync_pair *pair, struct ds_sync_fit *fit);

/*
 * Envelope of the separating lines at abscissa x: every line that leaves the
 * above points on or above it and the below points on or under it passes
 * through [*lo, *hi] at x.  `has_lo`/`has_hi` say which sides are bounded.
 * Needs a consistent pair with at least one point; `guess` must be on a
 * separating line at x (e.g. the central line's value).
 */
void ds_sync_pair_envelope_at(const struct ds_sync_pair *pair, int64_t x,
		int64_t guess, bool *has_lo, int64_t *lo, bool *has_hi, int64_t *hi);

/* Same in the other orientation: the x range of separating lines at ordinate y. */
void ds_sync_pair_envelope_at_y(const struct ds_sync_pair *pair, int64_t y,
		int64_t guess, bool *has_lo, int64_t *lo, bool *has_hi, int64_t *hi);

#endif /* DEEPSPAN_SYNC_HULL_H */
