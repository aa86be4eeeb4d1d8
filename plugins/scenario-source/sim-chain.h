/* SPDX-License-Identifier: MIT */
/*
 * The chain truth (doc/scenario.md "Chain truth"): the critical-path walk of
 * doc/critical-path.md applied to the simulator's own bookkeeping — every
 * thread's exact state pieces with what woke each blocked one, every CPU's
 * current threads, every TCP message's sender — never to the trace.  It is an
 * implementation independent of filter.deepspan.span-attrib's, so the tests
 * can compare the two to the nanosecond.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_CHAIN_H
#define DEEPSPAN_SCENARIO_SIM_CHAIN_H

#include <glib.h>
#include <stdint.h>

#include "chain-kinds.h"

struct sim;
struct sim_thread;

/* A leaf of a chain: an interval of one thread, times on the span's host clock. */
struct sim_chain_leaf {
	int64_t segment_begin;		/* begin of the span thread's waited segment it belongs to */
	int64_t begin, end;
	unsigned int host;
	int32_t pid, tid;
	const char *comm;		/* borrowed (interned) */
	uint8_t state;			/* enum sim_tstate */
	uint8_t kind;			/* enum ds_chain_kind */
	uint32_t depth;
	char detail[160];
	uint64_t bytes;			/* disk: device time: the request's bytes; queue time behind a submitter:
					 * the top submitter's bytes served ahead; 0 otherwise */
};

/*
 * Appends to `leaves` (struct sim_chain_leaf) the leaves of every waited
 * segment (blocked, wait_cpu) of thread `t` within [begin, end) (local ts of
 * its host).  For a span still open at the end of the trace, `end` is the
 * host's last event: a thread still blocked then (no wake-up) is a leaf
 * "still blocked", or "deadlock" when it is on a cycle (sim_thread.deadlock_peer).
 */
void sim_chain_span(const struct sim *sim, const struct sim_thread *t, int64_t begin, int64_t end,
		GArray *leaves);

#endif /* DEEPSPAN_SCENARIO_SIM_CHAIN_H */
