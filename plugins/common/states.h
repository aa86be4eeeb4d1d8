/* SPDX-License-Identifier: MIT */
/*
 * The six thread states (doc/span-attrib.md, "The six states"), shared by the
 * producer of `deepspan:span` (span-attrib's thread-state model), its
 * consumers (the diff and metrics sinks) and the scenario's ground truth.
 * The order is the payload's field order and the output enum's mapping order.
 */
#ifndef DEEPSPAN_COMMON_STATES_H
#define DEEPSPAN_COMMON_STATES_H

enum ds_state {
	DS_STATE_USER = 0,
	DS_STATE_SYSCALL,
	DS_STATE_BLOCKED,
	DS_STATE_WAIT_CPU,
	DS_STATE_INTERRUPTED,
	DS_STATE_UNKNOWN,
	DS_STATE_COUNT,
};

/*
 * What a `deepspan:span` string field holds for "none" (a segment without a
 * detail, a span without a service name): never an empty string, which
 * babeltrace2 2.0.4's CTF decoder may fill with an earlier event's text when
 * a trace saved with sink.ctf.fs is read back (doc/span-attrib.md).  Readers
 * take both this and "" (traces written before) as "none".
 */
#define DS_SPAN_NONE "-"

/*
 * The states' tags in enum order, as a list of string literals: the one table
 * of names, also usable in static initializers (the metrics columns).
 */
#define DS_STATE_NAMES "user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown"

/* Tag of a state as in the output enum and payload ("wait_cpu"); "unknown" out of range. */
const char *ds_state_name(enum ds_state state);

/* Display title of a state ("User", "System call", "Waited CPU", ...); "Unknown" out of range. */
const char *ds_state_title(unsigned int state);

#endif /* DEEPSPAN_COMMON_STATES_H */
