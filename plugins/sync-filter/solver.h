/* SPDX-License-Identifier: MIT */
/*
 * Synchronization of N hosts: one convex-hull pair per host pair, then a
 * fewest-hops spanning tree rooted at the reference host; each host's
 * transform to the reference clock is the composition along its tree path.
 */
#ifndef DEEPSPAN_SYNC_SOLVER_H
#define DEEPSPAN_SYNC_SOLVER_H

#include <stdbool.h>
#include <stdint.h>

#include "hull.h"

/*
 * In the pair of hosts a and b, the host of lower rank is x (its clock is the
 * abscissa) and the other y, as Trace Compass orders the two hosts of a convex
 * hull (the host whose clock UUID sorts first is x).  The central line is
 * fitted in that orientation, so which host is x changes the result (by
 * several ppm when the hull is wide).
 */
struct ds_sync_solver {
	unsigned int host_count;
	unsigned int *rank;		/* owned; host_count entries, a permutation; default: the index */
	struct ds_sync_pair *pairs;	/* owned; host_count² entries, used at [x][y] */
};

/* Per host: how its clock maps onto the reference clock. */
struct ds_sync_host_result {
	enum ds_sync_quality quality;	/* worst quality along the path; reference: ACCURATE */
	int parent;			/* next host towards the reference, -1 for the root/ABSENT */
	unsigned int hops;
	bool fail_on_path;		/* a FAIL pair kept its last good formula */
	struct ds_transform to_ref;	/* host-local ns -> reference ns */
	/* envelope of the true transform at two host-local times (edge data range) */
	bool bounded;
	int64_t at[2];
	int64_t lo[2], hi[2];
	int64_t accuracy_ns;		/* max |to_ref - envelope| at `at`; -1 unbounded */
};

/* false on allocation failure */
bool ds_sync_solver_init(struct ds_sync_solver *solver, unsigned int host_count);
void ds_sync_solver_fini(struct ds_sync_solver *solver);

/*
 * Sets the ranks (a permutation of 0..host_count-1, copied) before any pair is
 * added; false, nothing changed, when `rank` is not a permutation.
 */
bool ds_sync_solver_set_rank(struct ds_sync_solver *solver, const unsigned int *rank);

/* Is host a the x of the pair of hosts a and b (a != b)? */
bool ds_sync_solver_is_x(const struct ds_sync_solver *solver, unsigned int a, unsigned int b);

/* The pair of hosts x and y, x the host of lower rank (see ds_sync_solver_is_x()). */
struct ds_sync_pair *ds_sync_solver_pair(struct ds_sync_solver *solver,
		unsigned int x, unsigned int y);

/*
 * Records a message sent by `send_host` at `send_ts` and received by
 * `recv_host` at `recv_ts` (host-local ns; the hosts differ).  Returns false
 * when the point contradicts earlier ones (counted) or on allocation failure
 * (`*oom`).
 */
bool ds_sync_solver_add(struct ds_sync_solver *solver, unsigned int send_host,
		int64_t send_ts, unsigned int recv_host, int64_t recv_ts, bool *oom);

/* Fills results[host_count]; hosts not joined to `reference` are ABSENT (identity). */
void ds_sync_solver_solve(const struct ds_sync_solver *solver,
		unsigned int reference, struct ds_sync_host_result *results);

#endif /* DEEPSPAN_SYNC_SOLVER_H */
