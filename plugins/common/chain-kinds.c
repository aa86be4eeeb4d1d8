/* SPDX-License-Identifier: MIT */
#include "chain-kinds.h"

static const char *const kind_names[DS_CHAIN_KIND_COUNT] = {
	[DS_CHAIN_RUNNING] = "running", [DS_CHAIN_WAIT_CPU] = "wait-cpu", [DS_CHAIN_WAIT] = "wait",
	[DS_CHAIN_TIMER] = "timer", [DS_CHAIN_IRQ] = "irq", [DS_CHAIN_SOFTIRQ] = "softirq",
	[DS_CHAIN_NETWORK] = "network", [DS_CHAIN_IN_FLIGHT] = "in-flight", [DS_CHAIN_DISK] = "disk",
	[DS_CHAIN_UNKNOWN] = "unknown", [DS_CHAIN_DEADLOCK] = "deadlock",
	[DS_CHAIN_DEPTH_LIMIT] = "depth-limit",
};

const char *ds_chain_kind_name(unsigned int kind)
{
	return kind < DS_CHAIN_KIND_COUNT ? kind_names[kind] : "unknown";
}
