/* SPDX-License-Identifier: MIT */
/*
 * N-host synchronization: pairs, fewest-hops spanning tree, composition.
 */
#include <stdlib.h>
#include <string.h>

#include "solver.h"

bool ds_sync_solver_init(struct ds_sync_solver *solver, unsigned int host_count)
{
	size_t i, n = (size_t) host_count * host_count;

	solver->host_count = host_count;
	solver->rank = calloc(host_count ? host_count : 1, sizeof(*solver->rank));
	solver->pairs = calloc(n ? n : 1, sizeof(*solver->pairs));
	if (!solver->pairs || !solver->rank) {
		free(solver->rank);
		free(solver->pairs);
		solver->rank = NULL;
		solver->pairs = NULL;
		return false;
	}
	for (i = 0; i < host_count; i++) {
		solver->rank[i] = (unsigned int) i;
	}
	for (i = 0; i < n; i++) {
		ds_sync_pair_init(&solver->pairs[i]);
	}
	return true;
}

bool ds_sync_solver_set_rank(struct ds_sync_solver *solver, const unsigned int *rank)
{
	unsigned int n = solver->host_count, i;
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	bool ok = seen != NULL;

	for (i = 0; ok && i < n; i++) {
		ok = rank[i] < n && !seen[rank[i]];
		if (ok) {
			seen[rank[i]] = true;
		}
	}
	if (ok) {
		memcpy(solver->rank, rank, n * sizeof(*rank));
	}
	free(seen);
	return ok;
}

bool ds_sync_solver_is_x(const struct ds_sync_solver *solver, unsigned int a, unsigned int b)
{
	return solver->rank[a] < solver->rank[b];
}

void ds_sync_solver_fini(struct ds_sync_solver *solver)
{
	size_t i, n = (size_t) solver->host_count * solver->host_count;

	if (!solver->pairs) {
		return;
	}
	for (i = 0; i < n; i++) {
		ds_sync_pair_fini(&solver->pairs[i]);
	}
	free(solver->pairs);
	free(solver->rank);
	solver->pairs = NULL;
	solver->rank = NULL;
}

struct ds_sync_pair *ds_sync_solver_pair(struct ds_sync_solver *solver,
		unsigned int x, unsigned int y)
{
	return &solver->pairs[(size_t) x * solver->host_count + y];
}

static const struct ds_sync_pair *pair_const(const struct ds_sync_solver *solver,
		unsigned int x, unsigned int y)
{
	return &solver->pairs[(size_t) x * solver->host_count + y];
}

bool ds_sync_solver_add(struct ds_sync_solver *solver, unsigned int send_host,
		int64_t send_ts, unsigned int recv_host, int64_t recv_ts, bool *oom)
{
	struct ds_point pt;

	if (ds_sync_solver_is_x(solver, send_host, recv_host)) {
		pt.x = send_ts;
		pt.y = recv_ts;
		return ds_sync_pair_add(ds_sync_solver_pair(solver, send_host,
			recv_host), true, pt, oom);
	}
	pt.x = recv_ts;
	pt.y = send_ts;
	return ds_sync_pair_add(ds_sync_solver_pair(solver, recv_host, send_host),
		false, pt, oom);
}

static int severity(enum ds_sync_quality q)
{
	switch (q) {
	case DS_SYNC_QUALITY_ACCURATE:
		return 0;
	case DS_SYNC_QUALITY_APPROXIMATE:
		return 1;
	case DS_SYNC_QUALITY_INCOMPLETE:
		return 2;
	case DS_SYNC_QUALITY_FAIL:
		return 3;
	case DS_SYNC_QUALITY_ABSENT:
	default:
		return 4;
	}
}

/* Tier of an edge for the tree: 1 two-sided, 2 one-sided, 0 unusable. */
static int edge_tier(const struct ds_sync_fit *fit)
{
	switch (fit->quality_of_kept) {
	case DS_SYNC_QUALITY_ACCURATE:
	case DS_SYNC_QUALITY_APPROXIMATE:
		return 1;
	case DS_SYNC_QUALITY_INCOMPLETE:
		return 2;
	default:
		return 0;
	}
}

struct solve_ctx {
	const struct ds_sync_solver *solver;
	struct ds_sync_fit *fits;	/* host_count², at [x][y] */
	struct ds_sync_host_result *results;
	bool *reached;
};

static const struct ds_sync_fit *fit_of(const struct solve_ctx *ctx,
		unsigned int a, unsigned int b)
{
	bool a_is_x = ds_sync_solver_is_x(ctx->solver, a, b);
	unsigned int x = a_is_x ? a : b, y = a_is_x ? b : a;

	return &ctx->fits[(size_t) x * ctx->solver->host_count + y];
}

/* child-local ns -> parent ns, along the central line */
static struct ds_transform edge_transform(const struct solve_ctx *ctx,
		unsigned int child, unsigned int parent)
{
	const struct ds_sync_fit *fit = fit_of(ctx, child, parent);

	return ds_sync_solver_is_x(ctx->solver, child, parent) ? fit->central :
		ds_transform_inverse(&fit->central);
}

/* Envelope in the parent's clock of the true image of child-local time v. */
static void edge_envelope(const struct solve_ctx *ctx, unsigned int child,
		unsigned int parent, int64_t v, bool *has_lo, int64_t *lo,
		bool *has_hi, int64_t *hi)
{
	struct ds_transform tf = edge_transform(ctx, child, parent);
	int64_t guess = ds_transform_apply(&tf, v);

	if (ds_sync_solver_is_x(ctx->solver, child, parent)) {
		ds_sync_pair_envelope_at(pair_const(ctx->solver, child, parent), v,
			guess, has_lo, lo, has_hi, hi);
	} else {
		ds_sync_pair_envelope_at_y(pair_const(ctx->solver, parent, child), v,
			guess, has_lo, lo, has_hi, hi);
	}
}

/* Attaches every unreached host that one edge of tier <= max_tier joins; false if none. */
static bool grow_one_level(struct solve_ctx *ctx, int max_tier)
{
	unsigned int n = ctx->solver->host_count, h, r;
	unsigned int best_hops = (unsigned int) -1;
	int *parent = calloc(n, sizeof(*parent));
	bool grew = false;

	if (!parent) {
		return false;
	}
	for (h = 0; h < n; h++) {
		parent[h] = -1;
		if (ctx->reached[h]) {
			continue;
		}
		for (r = 0; r < n; r++) {
			const struct ds_sync_fit *fit;
			int tier;

			if (!ctx->reached[r] || r == h) {
				continue;
			}
			fit = fit_of(ctx, h, r);
			tier = edge_tier(fit);
			if (tier == 0 || tier > max_tier) {
				continue;
			}
			if (parent[h] < 0 ||
					ctx->results[r].hops < ctx->results[parent[h]].hops ||
					(ctx->results[r].hops == ctx->results[parent[h]].hops &&
					 severity(fit->quality) <
					 severity(fit_of(ctx, h, parent[h])->quality))) {
				parent[h] = (int) r;
			}
		}
		if (parent[h] >= 0 && ctx->results[parent[h]].hops + 1 < best_hops) {
			best_hops = ctx->results[parent[h]].hops + 1;
		}
	}
	for (h = 0; h < n; h++) {
		struct ds_sync_host_result *res = &ctx->results[h];
		struct ds_transform edge;

		if (parent[h] < 0 || ctx->results[parent[h]].hops + 1 != best_hops) {
			continue;
		}
		r = (unsigned int) parent[h];
		edge = edge_transform(ctx, h, r);
		res->parent = (int) r;
		res->hops = best_hops;
		res->to_ref = ds_transform_compose(&ctx->results[r].to_ref, &edge);
		res->quality = severity(fit_of(ctx, h, r)->quality) >
			severity(ctx->results[r].quality) ?
			fit_of(ctx, h, r)->quality : ctx->results[r].quality;
		res->fail_on_path = ctx->results[r].fail_on_path ||
			fit_of(ctx, h, r)->quality == DS_SYNC_QUALITY_FAIL;
		grew = true;
	}
	for (h = 0; h < n; h++) {
		if (ctx->results[h].parent >= 0) {
			ctx->reached[h] = true;
		}
	}
	free(parent);
	return grew;
}

/* Envelope of the host's true transform at its edge's data range ends. */
static void host_bounds(struct solve_ctx *ctx, unsigned int h)
{
	struct ds_sync_host_result *res = &ctx->results[h];
	unsigned int parent = (unsigned int) res->parent;
	const struct ds_sync_fit *fit = fit_of(ctx, h, parent);
	struct ds_transform edge = fit->central;
	int k;

	res->at[0] = fit->x_first;
	res->at[1] = fit->x_last;
	if (!ds_sync_solver_is_x(ctx->solver, h, parent)) {
		res->at[0] = ds_transform_apply(&edge, fit->x_first);
		res->at[1] = ds_transform_apply(&edge, fit->x_last);
	}
	res->bounded = true;
	res->accuracy_ns = 0;
	for (k = 0; k < 2; k++) {
		int64_t lo = res->at[k], hi = res->at[k], c;
		unsigned int cur = h;

		while (ctx->results[cur].parent >= 0 && res->bounded) {
			unsigned int up = (unsigned int) ctx->results[cur].parent;
			bool has_lo, has_hi;
			int64_t lo_lo, lo_hi, hi_lo, hi_hi;

			edge_envelope(ctx, cur, up, lo, &has_lo, &lo_lo, &has_hi, &lo_hi);
			res->bounded = res->bounded && has_lo;
			edge_envelope(ctx, cur, up, hi, &has_lo, &hi_lo, &has_hi, &hi_hi);
			res->bounded = res->bounded && has_hi;
			lo = lo_lo;
			hi = hi_hi;
			cur = up;
		}
		res->lo[k] = lo;
		res->hi[k] = hi;
		c = ds_transform_apply(&res->to_ref, res->at[k]);
		if (ds_sat_sub(c, lo) > res->accuracy_ns) {
			res->accuracy_ns = ds_sat_sub(c, lo);
		}
		if (ds_sat_sub(hi, c) > res->accuracy_ns) {
			res->accuracy_ns = ds_sat_sub(hi, c);
		}
	}
	if (!res->bounded) {
		res->accuracy_ns = -1;
	}
}

void ds_sync_solver_solve(const struct ds_sync_solver *solver,
		unsigned int reference, struct ds_sync_host_result *results)
{
	unsigned int n = solver->host_count, i, j;
	struct solve_ctx ctx = { .solver = solver, .results = results };

	ctx.fits = calloc((size_t) n * n, sizeof(*ctx.fits));
	ctx.reached = calloc(n, sizeof(*ctx.reached));
	for (i = 0; i < n; i++) {
		memset(&results[i], 0, sizeof(results[i]));
		results[i].quality = DS_SYNC_QUALITY_ABSENT;
		results[i].parent = -1;
		results[i].to_ref = ds_transform_identity();
		results[i].accuracy_ns = -1;
	}
	if (!ctx.fits || !ctx.reached || reference >= n) {
		goto end;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i != j && ds_sync_solver_is_x(solver, i, j)) {
				ds_sync_pair_fit(pair_const(solver, i, j),
					&ctx.fits[(size_t) i * n + j]);
			}
		}
	}
	results[reference].quality = DS_SYNC_QUALITY_ACCURATE;
	results[reference].accuracy_ns = 0;
	results[reference].bounded = true;
	ctx.reached[reference] = true;
	while (grow_one_level(&ctx, 1)) {
	}
	while (grow_one_level(&ctx, 2)) {
	}
	for (i = 0; i < n; i++) {
		if (results[i].parent >= 0) {
			host_bounds(&ctx, i);
		}
	}
end:
	free(ctx.fits);
	free(ctx.reached);
}
