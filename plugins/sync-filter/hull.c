/* SPDX-License-Identifier: MIT */
/*
 * Convex-hull clock synchronization of one host pair (see hull.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hull.h"

typedef __int128 i128;

static const char *const quality_names[] = {
	[DS_SYNC_QUALITY_ACCURATE] = "ACCURATE",
	[DS_SYNC_QUALITY_APPROXIMATE] = "APPROXIMATE",
	[DS_SYNC_QUALITY_INCOMPLETE] = "INCOMPLETE",
	[DS_SYNC_QUALITY_ABSENT] = "ABSENT",
	[DS_SYNC_QUALITY_FAIL] = "FAIL",
};

const char *ds_sync_quality_name(enum ds_sync_quality quality)
{
	return quality_names[quality];
}

bool ds_sync_quality_from_name(const char *name, enum ds_sync_quality *out)
{
	size_t i;

	for (i = 0; i < sizeof(quality_names) / sizeof(quality_names[0]); i++) {
		if (strcmp(name, quality_names[i]) == 0) {
			*out = (enum ds_sync_quality) i;
			return true;
		}
	}
	return false;
}

/* ---- transforms ---- */

bool ds_transform_apply_checked(const struct ds_transform *tf, int64_t t, int64_t *out)
{
	int64_t d, r;
	double corr;

	if (__builtin_sub_overflow(t, tf->x0, &d)) {
		return false;
	}
	/* y0 + d + (slope - 1) d: exact for slope 1, and the product stays small */
	corr = (tf->slope - 1.0) * (double) d;
	if (!(corr > -0x1p63 && corr < 0x1p63)) {
		return false;	/* also NaN */
	}
	return !__builtin_add_overflow(tf->y0, d, &r) &&
		!__builtin_add_overflow(r, (int64_t) llround(corr), out);
}

int64_t ds_transform_apply(const struct ds_transform *tf, int64_t t)
{
	int64_t out;
	long double v;

	if (ds_transform_apply_checked(tf, t, &out)) {
		return out;
	}
	/* only the direction matters when saturating */
	v = (long double) tf->y0 + (long double) tf->slope * ((long double) t - tf->x0);
	return v > 0 || isnan(v) ? INT64_MAX : INT64_MIN;
}

int64_t ds_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r)) {
		return a > b ? INT64_MAX : INT64_MIN;
	}
	return r;
}

/* nearest int64 of v, saturated (llroundl is unspecified beyond the range) */
static int64_t round_saturated(long double v)
{
	if (isnan(v)) {
		return 0;
	}
	if (v >= 0x1p63L) {
		return INT64_MAX;
	}
	if (v <= -0x1p63L) {
		return INT64_MIN;
	}
	return (int64_t) llroundl(v);
}

double ds_transform_offset_at_zero(const struct ds_transform *tf)
{
	/* y0 - x0 - (slope - 1) x0: the two large terms cancel exactly first */
	long double d = (long double) ((i128) tf->y0 - tf->x0);

	return (double) (d - ((long double) tf->slope - 1.0L) * (long double) tf->x0);
}

struct ds_transform ds_transform_compose(const struct ds_transform *outer,
		const struct ds_transform *inner)
{
	struct ds_transform tf = {
		.x0 = inner->x0,
		.y0 = ds_transform_apply(outer, inner->y0),
		.slope = outer->slope * inner->slope,
	};

	return tf;
}

struct ds_transform ds_transform_inverse(const struct ds_transform *tf)
{
	struct ds_transform inv = {
		.x0 = tf->y0,
		.y0 = tf->x0,
		.slope = 1.0 / tf->slope,
	};

	return inv;
}

struct ds_transform ds_transform_identity(void)
{
	struct ds_transform tf = { .x0 = 0, .y0 = 0, .slope = 1.0 };

	return tf;
}

/* ---- exact geometry ---- */

/* > 0 when c is left of (above, for b.x > a.x) the directed line a→b */
static i128 cross(struct ds_point a, struct ds_point b, struct ds_point c)
{
	return ((i128) b.x - a.x) * ((i128) c.y - a.y) -
		((i128) b.y - a.y) * ((i128) c.x - a.x);
}

/* A slope as a fraction num/den with den > 0. */
struct frac {
	i128 num;
	i128 den;
};

static struct frac slope_of(struct ds_point left, struct ds_point right)
{
	struct frac f = {
		.num = (i128) right.y - left.y,
		.den = (i128) right.x - left.x,
	};

	return f;
}

/*
 * < 0, 0, > 0 as a <, ==, > b (den > 0).  Exact when both products fit 127
 * bits (always for differences of points within DS_SYNC_POINT_LIMIT); the
 * envelope search probes lines a little beyond that, compared in long double.
 */
static int frac_cmp(struct frac a, struct frac b)
{
	i128 l, r;
	long double lv, rv;

	if (!__builtin_mul_overflow(a.num, b.den, &l) &&
			!__builtin_mul_overflow(b.num, a.den, &r)) {
		return l < r ? -1 : (l > r ? 1 : 0);
	}
	lv = (long double) a.num / (long double) a.den;
	rv = (long double) b.num / (long double) b.den;
	return lv < rv ? -1 : (lv > rv ? 1 : 0);
}

static double frac_value(struct frac f)
{
	return (double) ((long double) f.num / (long double) f.den);
}

/* ---- hulls ---- */

static bool hull_reserve(struct ds_hull *hull)
{
	size_t cap;
	struct ds_point *points;

	if (hull->len < hull->cap) {
		return true;
	}
	cap = hull->cap ? hull->cap * 2 : 16;
	points = realloc(hull->points, cap * sizeof(*points));
	if (!points) {
		return false;
	}
	hull->points = points;
	hull->cap = cap;
	return true;
}

/* true when `mid` does not poke out of the hull between `a` and `b` */
static bool redundant(const struct ds_hull *hull, struct ds_point a,
		struct ds_point mid, struct ds_point b)
{
	i128 c = cross(a, b, mid);

	return hull->upper ? c <= 0 : c >= 0;
}

static void hull_remove(struct ds_hull *hull, size_t i)
{
	memmove(&hull->points[i], &hull->points[i + 1],
		(hull->len - i - 1) * sizeof(hull->points[0]));
	hull->len--;
}

/* index of the first point whose x >= x */
static size_t hull_lower_bound(const struct ds_hull *hull, int64_t x)
{
	size_t lo = 0, hi = hull->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hull->points[mid].x < x) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* Inserts `pt` keeping the hull convex; false only on allocation failure. */
static bool hull_insert(struct ds_hull *hull, struct ds_point pt)
{
	size_t i = hull_lower_bound(hull, pt.x);

	if (i < hull->len && hull->points[i].x == pt.x) {
		bool keep_old = hull->upper ? hull->points[i].y >= pt.y :
			hull->points[i].y <= pt.y;

		if (keep_old) {
			return true;
		}
		hull_remove(hull, i);
	}
	if (i > 0 && i < hull->len &&
			redundant(hull, hull->points[i - 1], pt, hull->points[i])) {
		return true;
	}
	if (!hull_reserve(hull)) {
		return false;
	}
	memmove(&hull->points[i + 1], &hull->points[i],
		(hull->len - i) * sizeof(hull->points[0]));
	hull->points[i] = pt;
	hull->len++;
	while (i >= 2 && redundant(hull, hull->points[i - 2],
			hull->points[i - 1], pt)) {
		hull_remove(hull, i - 1);
		i--;
	}
	while (i + 2 < hull->len && redundant(hull, pt,
			hull->points[i + 1], hull->points[i + 2])) {
		hull_remove(hull, i + 1);
	}
	return true;
}

/* ---- pairs ---- */

void ds_sync_pair_init(struct ds_sync_pair *pair)
{
	memset(pair, 0, sizeof(*pair));
	pair->below.upper = true;
}

void ds_sync_pair_fini(struct ds_sync_pair *pair)
{
	free(pair->above.points);
	free(pair->below.points);
	memset(pair, 0, sizeof(*pair));
}

/*
 * Tightens the slope bounds with the new point against the other set's hull;
 * writes the new bounds to the out parameters, returns false on contradiction.
 */
static bool tighten(const struct ds_sync_pair *pair, bool above,
		struct ds_point pt, bool *has_max, struct ds_point *max_l,
		struct ds_point *max_r, bool *has_min, struct ds_point *min_l,
		struct ds_point *min_r)
{
	const struct ds_hull *other = above ? &pair->below : &pair->above;
	size_t i;

	for (i = 0; i < other->len; i++) {
		struct ds_point o = other->points[i];
		/* the point above (q) and the point below (p) of this pair */
		struct ds_point q = above ? pt : o;
		struct ds_point p = above ? o : pt;

		if (p.x == q.x) {
			if (q.y < p.y) {
				return false;
			}
		} else if (p.x < q.x) {
			/* every separating line has slope <= slope(p, q) */
			if (!*has_max || frac_cmp(slope_of(p, q),
					slope_of(*max_l, *max_r)) < 0) {
				*has_max = true;
				*max_l = p;
				*max_r = q;
			}
		} else {
			/* every separating line has slope >= slope(q, p) */
			if (!*has_min || frac_cmp(slope_of(q, p),
					slope_of(*min_l, *min_r)) > 0) {
				*has_min = true;
				*min_l = q;
				*min_r = p;
			}
		}
	}
	return !(*has_min && *has_max) ||
		frac_cmp(slope_of(*min_l, *min_r), slope_of(*max_l, *max_r)) <= 0;
}

bool ds_sync_pair_add(struct ds_sync_pair *pair, bool above, struct ds_point pt,
		bool *oom)
{
	bool has_max = pair->has_max, has_min = pair->has_min;
	struct ds_point max_l = pair->max_p, max_r = pair->max_q;
	struct ds_point min_l = pair->min_p, min_r = pair->min_q;

	*oom = false;
	if (pt.x <= -DS_SYNC_POINT_LIMIT || pt.x >= DS_SYNC_POINT_LIMIT ||
			pt.y <= -DS_SYNC_POINT_LIMIT || pt.y >= DS_SYNC_POINT_LIMIT) {
		pair->out_of_range++;
		return false;
	}
	if (!tighten(pair, above, pt, &has_max, &max_l, &max_r, &has_min,
			&min_l, &min_r)) {
		pair->rejected++;
		return false;
	}
	if (!hull_insert(above ? &pair->above : &pair->below, pt)) {
		*oom = true;
		return false;
	}
	pair->has_max = has_max;
	pair->max_p = max_l;
	pair->max_q = max_r;
	pair->has_min = has_min;
	pair->min_p = min_l;
	pair->min_q = min_r;
	if (pair->count_above + pair->count_below == 0) {
		pair->x_first = pair->x_last = pt.x;
	} else {
		if (pt.x < pair->x_first) {
			pair->x_first = pt.x;
		}
		if (pt.x > pair->x_last) {
			pair->x_last = pt.x;
		}
	}
	if (above) {
		pair->count_above++;
	} else {
		pair->count_below++;
	}
	return true;
}

/* ---- envelope of the separating lines ---- */

/* Is there a separating line through (x, y)? Exact. */
static bool feasible_through(const struct ds_sync_pair *pair, int64_t x, int64_t y)
{
	bool has_lower = false, has_upper = false;
	struct frac lower = { 0, 1 }, upper = { 0, 1 };
	int set;

	for (set = 0; set < 2; set++) {
		const struct ds_hull *hull = set == 0 ? &pair->above : &pair->below;
		bool is_above = set == 0;
		size_t i;

		for (i = 0; i < hull->len; i++) {
			i128 dx = (i128) hull->points[i].x - x;
			i128 dy = (i128) hull->points[i].y - y;
			/* above: a*dx <= dy; below: a*dx >= dy */
			bool gives_upper;
			struct frac f;

			if (dx == 0) {
				if (is_above ? dy < 0 : dy > 0) {
					return false;
				}
				continue;
			}
			gives_upper = (dx > 0) == is_above;
			f.num = dx > 0 ? dy : -dy;
			f.den = dx > 0 ? dx : -dx;
			if (gives_upper) {
				if (!has_upper || frac_cmp(f, upper) < 0) {
					upper = f;
					has_upper = true;
				}
			} else if (!has_lower || frac_cmp(f, lower) > 0) {
				lower = f;
				has_lower = true;
			}
		}
	}
	return !(has_lower && has_upper) || frac_cmp(lower, upper) <= 0;
}

#define SEARCH_LIMIT ((int64_t) 1 << 61)

static bool feasible_at(const struct ds_sync_pair *pair, bool vary_x,
		int64_t fixed, int64_t v)
{
	return vary_x ? feasible_through(pair, v, fixed) :
		feasible_through(pair, fixed, v);
}

/*
 * The last feasible value from `start` (feasible) in direction `dir`
 * (+1/-1); false when feasible values go on beyond SEARCH_LIMIT.
 */
static bool search_edge(const struct ds_sync_pair *pair, bool vary_x,
		int64_t fixed, int64_t start, int dir, int64_t *edge)
{
	int64_t good = 0, bad, step = 1;

	while (feasible_at(pair, vary_x, fixed, start + dir * step)) {
		good = step;
		if (step >= SEARCH_LIMIT) {
			return false;
		}
		step *= 2;
	}
	bad = step;
	while (bad - good > 1) {
		int64_t mid = good + (bad - good) / 2;

		if (feasible_at(pair, vary_x, fixed, start + dir * mid)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	*edge = start + dir * good;
	return true;
}

static void envelope(const struct ds_sync_pair *pair, bool vary_x, int64_t fixed,
		int64_t guess, bool *has_lo, int64_t *lo, bool *has_hi, int64_t *hi)
{
	static const int64_t nudges[] = { 0, -1, 1, -2, 2 };
	size_t i;

	if (fixed < -DS_SYNC_POINT_LIMIT || fixed > DS_SYNC_POINT_LIMIT ||
			guess < -DS_SYNC_POINT_LIMIT || guess > DS_SYNC_POINT_LIMIT) {
		/* beyond the data's domain: the search steps (up to 2^61) could overflow */
		*has_lo = *has_hi = false;
		*lo = *hi = guess;
		return;
	}
	for (i = 0; i < sizeof(nudges) / sizeof(nudges[0]); i++) {
		if (feasible_at(pair, vary_x, fixed, guess + nudges[i])) {
			guess += nudges[i];
			break;
		}
	}
	if (i == sizeof(nudges) / sizeof(nudges[0])) {
		/* the band holds no integer here: it is narrower than 1 ns */
		*has_lo = *has_hi = true;
		*lo = *hi = guess;
		return;
	}
	*has_lo = search_edge(pair, vary_x, fixed, guess, -1, lo);
	*has_hi = search_edge(pair, vary_x, fixed, guess, +1, hi);
}

void ds_sync_pair_envelope_at(const struct ds_sync_pair *pair, int64_t x,
		int64_t guess, bool *has_lo, int64_t *lo, bool *has_hi, int64_t *hi)
{
	envelope(pair, false, x, guess, has_lo, lo, has_hi, hi);
}

void ds_sync_pair_envelope_at_y(const struct ds_sync_pair *pair, int64_t y,
		int64_t guess, bool *has_lo, int64_t *lo, bool *has_hi, int64_t *hi)
{
	envelope(pair, true, y, guess, has_lo, lo, has_hi, hi);
}

/* ---- the fit ---- */

/* y of the line through l and r at x, in long double */
static long double line_at(struct ds_point l, struct ds_point r, int64_t x)
{
	long double dy = (long double) ((i128) r.y - l.y);
	long double dx = (long double) ((i128) r.x - l.x);

	return (long double) l.y + dy / dx * (long double) ((i128) x - l.x);
}

/*
 * The middle of the separating band at x0 for a given slope: above the
 * below points, under the above points.
 */
static long double band_middle(const struct ds_sync_pair *pair, double slope,
		int64_t x0)
{
	long double lo = 0, hi = 0;
	bool has_lo = false, has_hi = false;
	size_t i;

	for (i = 0; i < pair->below.len; i++) {
		struct ds_point p = pair->below.points[i];
		long double v = (long double) p.y + slope * (long double) ((i128) x0 - p.x);

		if (!has_lo || v > lo) {
			lo = v;
			has_lo = true;
		}
	}
	for (i = 0; i < pair->above.len; i++) {
		struct ds_point q = pair->above.points[i];
		long double v = (long double) q.y + slope * (long double) ((i128) x0 - q.x);

		if (!has_hi || v < hi) {
			hi = v;
			has_hi = true;
		}
	}
	if (has_lo && has_hi) {
		return (lo + hi) / 2;
	}
	return has_lo ? lo : hi;
}

static void fit_central(const struct ds_sync_pair *pair, struct ds_sync_fit *fit)
{
	int64_t x0 = (int64_t) (((i128) pair->x_first + pair->x_last) / 2);
	double slope;

	fit->central.x0 = x0;
	if (fit->quality_of_kept == DS_SYNC_QUALITY_ACCURATE) {
		long double y = (line_at(pair->min_p, pair->min_q, x0) +
			line_at(pair->max_p, pair->max_q, x0)) / 2;

		fit->central.slope = (fit->slope_min + fit->slope_max) / 2;
		fit->central.y0 = round_saturated(y);
		return;
	}
	/* one extreme line or one direction: the slope closest to 1 allowed */
	slope = 1.0;
	if (fit->has_max && fit->slope_max < slope) {
		slope = fit->slope_max;
	}
	if (fit->has_min && fit->slope_min > slope) {
		slope = fit->slope_min;
	}
	fit->central.slope = slope;
	fit->central.y0 = round_saturated(band_middle(pair, slope, x0));
}

static void fit_bounds(const struct ds_sync_pair *pair, struct ds_sync_fit *fit)
{
	bool lo1, hi1, lo2, hi2;
	int64_t c1 = ds_transform_apply(&fit->central, fit->x_first);
	int64_t c2 = ds_transform_apply(&fit->central, fit->x_last);

	ds_sync_pair_envelope_at(pair, fit->x_first, c1, &lo1, &fit->lo_first,
		&hi1, &fit->hi_first);
	ds_sync_pair_envelope_at(pair, fit->x_last, c2, &lo2, &fit->lo_last,
		&hi2, &fit->hi_last);
	fit->bounded_low = lo1 && lo2;
	fit->bounded_high = hi1 && hi2;
	fit->accuracy_ns = -1;
	if (fit->bounded_low && fit->bounded_high) {
		int64_t acc = 0;
		int64_t d[4] = {
			ds_sat_sub(c1, fit->lo_first), ds_sat_sub(fit->hi_first, c1),
			ds_sat_sub(c2, fit->lo_last), ds_sat_sub(fit->hi_last, c2),
		};
		size_t i;

		for (i = 0; i < 4; i++) {
			if (d[i] > acc) {
				acc = d[i];
			}
		}
		fit->accuracy_ns = acc;
	}
}

void ds_sync_pair_fit(const struct ds_sync_pair *pair, struct ds_sync_fit *fit)
{
	memset(fit, 0, sizeof(*fit));
	fit->central = ds_transform_identity();
	fit->accuracy_ns = -1;
	fit->has_min = pair->has_min;
	fit->has_max = pair->has_max;
	if (pair->has_min) {
		fit->slope_min = frac_value(slope_of(pair->min_p, pair->min_q));
	}
	if (pair->has_max) {
		fit->slope_max = frac_value(slope_of(pair->max_p, pair->max_q));
	}
	if (pair->count_above == 0 && pair->count_below == 0) {
		fit->quality_of_kept = DS_SYNC_QUALITY_ABSENT;
	} else if (pair->count_above == 0 || pair->count_below == 0) {
		fit->quality_of_kept = DS_SYNC_QUALITY_INCOMPLETE;
	} else if (pair->has_min && pair->has_max) {
		fit->quality_of_kept = DS_SYNC_QUALITY_ACCURATE;
	} else {
		fit->quality_of_kept = DS_SYNC_QUALITY_APPROXIMATE;
	}
	fit->quality = pair->rejected ? DS_SYNC_QUALITY_FAIL : fit->quality_of_kept;
	if (fit->quality_of_kept == DS_SYNC_QUALITY_ABSENT) {
		return;
	}
	fit->x_first = pair->x_first;
	fit->x_last = pair->x_last;
	fit_central(pair, fit);
	fit_bounds(pair, fit);
}
