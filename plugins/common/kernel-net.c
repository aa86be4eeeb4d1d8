/* SPDX-License-Identifier: MIT */
/*
 * Kernel network events as TCP segment keys (see kernel-net.h).
 */
#include <string.h>

#include "kernel-net.h"

static uint64_t member_index(const bt_field_class *st, const char *name)
{
	uint64_t i, n;

	if (!st || bt_field_class_get_type(st) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return DS_NET_NO_INDEX;
	}
	n = bt_field_class_structure_get_member_count(st);
	for (i = 0; i < n; i++) {
		if (strcmp(bt_field_class_structure_member_get_name(
				bt_field_class_structure_borrow_member_by_index_const(st, i)),
				name) == 0) {
			return i;
		}
	}
	return DS_NET_NO_INDEX;
}

static const bt_field_class *member_fc(const bt_field_class *st, uint64_t index)
{
	return bt_field_class_structure_member_borrow_field_class_const(
		bt_field_class_structure_borrow_member_by_index_const(st, index));
}

static uint64_t option_index(const bt_field_class *var, const char *name)
{
	uint64_t i, n;

	if (!var || !bt_field_class_type_is(bt_field_class_get_type(var),
			BT_FIELD_CLASS_TYPE_VARIANT)) {
		return DS_NET_NO_INDEX;
	}
	n = bt_field_class_variant_get_option_count(var);
	for (i = 0; i < n; i++) {
		if (strcmp(bt_field_class_variant_option_get_name(
				bt_field_class_variant_borrow_option_by_index_const(var, i)),
				name) == 0) {
			return i;
		}
	}
	return DS_NET_NO_INDEX;
}

static bool is_integer(const bt_field_class *fc)
{
	return bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_INTEGER);
}

/* Resolves the TCP header members of `tcp` (a struct) into slot k; false if incomplete. */
static bool resolve_tcp_members(const bt_field_class *tcp, struct ds_kernel_net_class *out,
		int k, bool need_ports)
{
	out->seq[k] = member_index(tcp, "seq");
	out->ack_seq[k] = member_index(tcp, "ack_seq");
	out->flags[k] = member_index(tcp, "flags");
	out->source_port[k] = member_index(tcp, "source_port");
	out->dest_port[k] = member_index(tcp, "dest_port");
	if (out->seq[k] == DS_NET_NO_INDEX || out->ack_seq[k] == DS_NET_NO_INDEX ||
			out->flags[k] == DS_NET_NO_INDEX) {
		return false;
	}
	if (!is_integer(member_fc(tcp, out->seq[k])) ||
			!is_integer(member_fc(tcp, out->ack_seq[k])) ||
			!is_integer(member_fc(tcp, out->flags[k]))) {
		return false;
	}
	return !need_ports || (out->source_port[k] != DS_NET_NO_INDEX &&
		out->dest_port[k] != DS_NET_NO_INDEX);
}

static bool classify_nested(const bt_field_class *payload, struct ds_kernel_net_class *out)
{
	static const char *const ip_names[2] = { "ipv4", "ipv6" };
	const bt_field_class *net;
	bool any = false;
	int k;

	out->network_header = member_index(payload, "network_header");
	if (out->network_header == DS_NET_NO_INDEX) {
		return false;
	}
	net = member_fc(payload, out->network_header);
	for (k = 0; k < 2; k++) {
		const bt_field_class *ip, *th;

		out->ip_option[k] = option_index(net, ip_names[k]);
		if (out->ip_option[k] == DS_NET_NO_INDEX) {
			continue;
		}
		ip = bt_field_class_variant_option_borrow_field_class_const(
			bt_field_class_variant_borrow_option_by_index_const(net, out->ip_option[k]));
		out->transport_header[k] = member_index(ip, "transport_header");
		if (out->transport_header[k] == DS_NET_NO_INDEX) {
			out->ip_option[k] = DS_NET_NO_INDEX;
			continue;
		}
		th = member_fc(ip, out->transport_header[k]);
		out->tcp_option[k] = option_index(th, "tcp");
		if (out->tcp_option[k] == DS_NET_NO_INDEX ||
				!resolve_tcp_members(bt_field_class_variant_option_borrow_field_class_const(
					bt_field_class_variant_borrow_option_by_index_const(th,
						out->tcp_option[k])), out, k, true)) {
			out->ip_option[k] = DS_NET_NO_INDEX;
			continue;
		}
		any = true;
	}
	return any;
}

void ds_kernel_net_classify(const bt_event_class *ec, struct ds_kernel_net_class *out)
{
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	bool ok = false;

	memset(out, 0xff, sizeof(*out));
	out->direction = DS_NET_NONE;
	out->nested = false;
	if (!name || !payload) {
		return;
	}
	if (strcmp(name, "net_dev_queue") == 0 || strcmp(name, "net_if_receive_skb") == 0) {
		out->nested = true;
		ok = classify_nested(payload, out);
		if (ok) {
			out->direction = name[4] == 'd' ? DS_NET_SEND : DS_NET_RECEIVE;
		}
	} else if (strcmp(name, "inet_sock_local_out") == 0 ||
			strcmp(name, "inet_sock_local_in") == 0) {
		ok = resolve_tcp_members(payload, out, 0, false);
		if (ok) {
			out->direction = strcmp(name + 16, "out") == 0 ? DS_NET_SEND : DS_NET_RECEIVE;
		}
	}
}

static uint64_t read_uint(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f),
			BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return (uint64_t) bt_field_integer_signed_get_value(f);
	}
	return bt_field_integer_unsigned_get_value(f);
}

static uint64_t read_member(const bt_field *st, uint64_t index)
{
	return read_uint(bt_field_structure_borrow_member_field_by_index_const(st, index));
}

static void read_key(const bt_field *tcp, const struct ds_kernel_net_class *cls, int k,
		struct ds_tcp_key *key)
{
	key->seq = (uint32_t) read_member(tcp, cls->seq[k]);
	key->ack_seq = (uint32_t) read_member(tcp, cls->ack_seq[k]);
	key->flags = (uint32_t) read_member(tcp, cls->flags[k]);
	key->source_port = 0;
	key->dest_port = 0;
	if (cls->source_port[k] != DS_NET_NO_INDEX && cls->dest_port[k] != DS_NET_NO_INDEX) {
		key->source_port = (uint16_t) read_member(tcp, cls->source_port[k]);
		key->dest_port = (uint16_t) read_member(tcp, cls->dest_port[k]);
	}
}

bool ds_kernel_net_decode(const struct ds_kernel_net_class *cls, const bt_event *event,
		struct ds_tcp_key *key)
{
	const bt_field *payload, *net, *ip, *th;
	uint64_t sel;
	int k;

	if (cls->direction == DS_NET_NONE) {
		return false;
	}
	payload = bt_event_borrow_payload_field_const(event);
	if (!cls->nested) {
		read_key(payload, cls, 0, key);
		return true;
	}
	net = bt_field_structure_borrow_member_field_by_index_const(payload, cls->network_header);
	sel = bt_field_variant_get_selected_option_index(net);
	if (sel == cls->ip_option[0]) {
		k = 0;
	} else if (sel == cls->ip_option[1]) {
		k = 1;
	} else {
		return false;
	}
	ip = bt_field_variant_borrow_selected_option_field_const(net);
	th = bt_field_structure_borrow_member_field_by_index_const(ip, cls->transport_header[k]);
	if (bt_field_variant_get_selected_option_index(th) != cls->tcp_option[k]) {
		return false;
	}
	read_key(bt_field_variant_borrow_selected_option_field_const(th), cls, k, key);
	return true;
}
