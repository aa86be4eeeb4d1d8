/* SPDX-License-Identifier: MIT */
/*
 * The `kind` of a chain entry (doc/critical-path.md, "Encoding"), shared by
 * the producer of `deepspan:span` chains (span-attrib's walk), their readers
 * (the span consumer of the diff and metrics sinks) and the scenario's chain
 * truth.  The order is the payload's enumeration mapping order.
 */
#ifndef DEEPSPAN_COMMON_CHAIN_KINDS_H
#define DEEPSPAN_COMMON_CHAIN_KINDS_H

enum ds_chain_kind {
	DS_CHAIN_RUNNING = 0,
	DS_CHAIN_WAIT_CPU,
	DS_CHAIN_WAIT,
	DS_CHAIN_TIMER,
	DS_CHAIN_IRQ,
	DS_CHAIN_SOFTIRQ,
	DS_CHAIN_NETWORK,
	DS_CHAIN_IN_FLIGHT,
	DS_CHAIN_DISK,
	DS_CHAIN_UNKNOWN,
	DS_CHAIN_DEADLOCK,
	DS_CHAIN_DEPTH_LIMIT,
	DS_CHAIN_KIND_COUNT,
};

/* The deepest `chain-depth` span-attrib accepts (its parameter's maximum). */
#define DS_CHAIN_MAX_DEPTH 64

/* Label of a kind in the payload's enumeration ("wait-cpu"); "unknown" out of range. */
const char *ds_chain_kind_name(unsigned int kind);

#endif /* DEEPSPAN_COMMON_CHAIN_KINDS_H */
