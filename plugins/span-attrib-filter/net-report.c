/* SPDX-License-Identifier: MIT */
/*
 * The network terminal's end-of-run warnings (doc/storage-network.md, "Network"): each said once, with what
 * to do.  One function so that a general per-host missing-event-family report can absorb it.
 */
#include "span-attrib.h"
#include "log.h"

#include <inttypes.h>

void ds_chain_net_report(bt_self_component *sc, const struct ds_chain_ctx *chain)
{
	if (!chain) {
		return;
	}
	if (chain->counters.no_net_events) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " wait(s) woken by softirq:NET_RX are `unknown`: "
			"host `%s` (and maybe others) recorded no network events, so the TCP segment, its sender and "
			"its time in flight are not known; record them with "
			"`lttng enable-event -k net_dev_queue,net_if_receive_skb` (doc/storage-network.md, \"Network\").",
			chain->counters.no_net_events, chain->counters.first_no_net_host);
	}
	if (chain->counters.received_before_sent) {
		DS_LOG_WARN(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " TCP segment(s) were received before they were "
			"sent on the hosts' clocks (the sender's clock is ahead): the waits they ended say `no matching "
			"send`; synchronize the hosts with filter.deepspan.sync (doc/storage-network.md, \"Network\").",
			chain->counters.received_before_sent);
	}
	if (chain->counters.received_twice) {
		DS_LOG_INFO(sc, SPAN_ATTRIB_CLASS_NAME, "%" PRIu64 " TCP segment(s) were received twice; a wakeup by a "
			"second copy is charged from the last send before that receive (doc/storage-network.md, "
			"\"Network\").", chain->counters.received_twice);
	}
}
