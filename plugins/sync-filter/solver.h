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

struct ds_sync_solver {
	unsigned int host_count;
	struct ds_sync_pair *pairs;	/* owned; host_count² entries, used for i < j */
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

/* The pair of hosts i < j (x = i, y = j). */
struct ds_sync_pair *ds_sync_solver_pair(struct ds_sync_solver *solver,
		unsigned int i, unsigned int j);

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
