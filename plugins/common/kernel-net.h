/* SPDX-License-Identifier: MIT */
/*
 * Kernel network events as TCP segment keys (doc/sync.md), used by filter.deepspan.sync (clock pairs) and
 * filter.deepspan.span-attrib (chains across hosts, doc/critical-path.md).
 *
 * Two event families carry TCP headers in LTTng kernel traces:
 * - lttng-modules' `net_dev_queue` (send) and `net_if_receive_skb` (receive):
 *   `network_header` variant -> ipv4/ipv6 -> `transport_header` variant -> tcp
 *   {source_port, dest_port, seq, ack_seq, flags};
 * - the network add-on's `inet_sock_local_out` (send) and
 *   `inet_sock_local_in` (receive): {seq, ack_seq, flags} at the top level.
 * An event class is classified once (member indices resolved from its payload
 * field class); decoding an event then reads fields by index, without any
 * string comparison or allocation.
 */
#ifndef DEEPSPAN_COMMON_KERNEL_NET_H
#define DEEPSPAN_COMMON_KERNEL_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

enum ds_net_direction {
	DS_NET_NONE = 0,	/* not a TCP-carrying network event */
	DS_NET_SEND,
	DS_NET_RECEIVE,
};

/* What identifies one TCP segment on both hosts. */
struct ds_tcp_key {
	uint32_t seq;
	uint32_t ack_seq;
	uint32_t flags;
	uint16_t source_port;	/* 0 when the event has no ports (inet_sock_*) */
	uint16_t dest_port;
};

#define DS_NET_NO_INDEX UINT64_MAX

/* Resolved layout of one event class. */
struct ds_kernel_net_class {
	enum ds_net_direction direction;
	bool nested;			/* net_dev family (variants) vs inet_sock family */
	/* top-level payload member indices */
	uint64_t network_header;	/* nested: the variant member */
	uint64_t ip_option[2];		/* nested: variant option index of ipv4, ipv6 */
	uint64_t transport_header[2];	/* nested: member index in ipv4/ipv6 structs */
	uint64_t tcp_option[2];		/* nested: option index of tcp in each transport variant */
	/* tcp struct (nested) or payload (flat) member indices */
	uint64_t seq[2], ack_seq[2], flags[2], source_port[2], dest_port[2];
};

/*
 * Classifies `ec`: `out->direction` is DS_NET_NONE when it is not one of the
 * four events or its payload lacks the fields a key needs.
 */
void ds_kernel_net_classify(const bt_event_class *ec, struct ds_kernel_net_class *out);

/* Reads the key of one event of a classified class; false when it carries no TCP header. */
bool ds_kernel_net_decode(const struct ds_kernel_net_class *cls, const bt_event *event,
		struct ds_tcp_key *key);

#endif /* DEEPSPAN_COMMON_KERNEL_NET_H */
