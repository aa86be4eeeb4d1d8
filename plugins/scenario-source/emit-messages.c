/* SPDX-License-Identifier: MIT */
/* Simulator records -> babeltrace2 messages (payload filled in descriptor order). */
#include "emit.h"

#include "sim.h"

static inline bt_field *member(bt_field *st, uint64_t index)
{
	return bt_field_structure_borrow_member_field_by_index(st, index);
}

static void set_uint(bt_field *field, int64_t value)
{
	bt_field_integer_unsigned_set_value(field, (uint64_t) value);
}

static uint16_t ipv4_checksum(const int64_t *v)
{
	uint32_t words[10] = {
		0x4500, (uint32_t) v[SIM_NET_TOT_LEN] & 0xffff, (uint32_t) v[SIM_NET_IP_ID] & 0xffff,
		0x4000, (64u << 8) | 6u, 0,
		((uint32_t) v[SIM_NET_SADDR] >> 16) & 0xffff, (uint32_t) v[SIM_NET_SADDR] & 0xffff,
		((uint32_t) v[SIM_NET_DADDR] >> 16) & 0xffff, (uint32_t) v[SIM_NET_DADDR] & 0xffff,
	};
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		sum += words[i];
	}
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t) ~sum;
}

static void set_addr(bt_field *array, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		set_uint(bt_field_array_borrow_element_field_by_index(array, i), (addr >> (24 - 8 * i)) & 0xff);
	}
}

/* network_header_type = _ipv4 and the IPv4/TCP header; `v` = the SIM_NET_* values. */
static bool fill_net_header(bt_field *type_field, bt_field *variant, const int64_t *v)
{
	bt_field *ip;
	bt_field *tcp;
	bt_field *transport;

	set_uint(type_field, 1);
	if (bt_field_variant_select_option_by_index(variant, 1) != BT_FIELD_VARIANT_SELECT_OPTION_STATUS_OK) {
		return false;
	}
	ip = bt_field_variant_borrow_selected_option_field(variant);
	set_uint(member(ip, 0), 4);
	set_uint(member(ip, 1), 5);
	set_uint(member(ip, 2), 0);
	set_uint(member(ip, 3), v[SIM_NET_TOT_LEN]);
	set_uint(member(ip, 4), v[SIM_NET_IP_ID]);
	set_uint(member(ip, 5), 0x4000);
	set_uint(member(ip, 6), 64);
	set_uint(member(ip, 7), 6);
	set_uint(member(ip, 8), ipv4_checksum(v));
	set_addr(member(ip, 10), (uint32_t) v[SIM_NET_SADDR]);
	set_addr(member(ip, 12), (uint32_t) v[SIM_NET_DADDR]);
	set_uint(member(ip, 13), 1);
	transport = member(ip, 14);
	if (bt_field_variant_select_option_by_index(transport, 1) != BT_FIELD_VARIANT_SELECT_OPTION_STATUS_OK) {
		return false;
	}
	tcp = bt_field_variant_borrow_selected_option_field(transport);
	set_uint(member(tcp, 0), v[SIM_NET_SPORT]);
	set_uint(member(tcp, 1), v[SIM_NET_DPORT]);
	set_uint(member(tcp, 2), v[SIM_NET_SEQ]);
	set_uint(member(tcp, 3), v[SIM_NET_ACK_SEQ]);
	set_uint(member(tcp, 4), 8);
	set_uint(member(tcp, 5), 0);
	set_uint(member(tcp, 6), v[SIM_NET_FLAGS]);
	set_uint(member(tcp, 7), v[SIM_NET_WINDOW]);
	set_uint(member(tcp, 8), v[SIM_NET_TCP_CHECKSUM]);
	set_uint(member(tcp, 9), 0);
	return true;
}

/* fds_length, overflow, fds[]: `v[0]` = count (0 or 1), `v[1]` = fd. */
static bool fill_epoll_fds(bt_field *payload, uint64_t index, const int64_t *v)
{
	bt_field *array = member(payload, index + 2);
	uint64_t count = v[0] > 0 ? 1 : 0;

	set_uint(member(payload, index), (int64_t) count);
	set_uint(member(payload, index + 1), 0);
	if (bt_field_array_dynamic_set_length(array, count) != BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK) {
		return false;
	}
	if (count) {
		bt_field *ev = bt_field_array_borrow_element_field_by_index(array, 0);
		bt_field *data = member(ev, 0);
		bt_field *flags = member(ev, 2);

		set_uint(member(data, 0), v[1]);
		bt_field_integer_signed_set_value(member(data, 1), v[1]);
		set_uint(member(ev, 1), 1);
		set_uint(member(flags, 0), 1);
		set_uint(member(flags, 1), 0);
		set_uint(member(flags, 2), 0);
		set_uint(member(flags, 3), 0);
		set_uint(member(flags, 4), 0);
	}
	return true;
}

static bool fill_payload(bt_field *payload, const struct sim_record *rec)
{
	const struct sim_event_desc *desc = sim_event_desc((enum sim_event_id) rec->event);
	const struct sim_field_desc *f;
	uint64_t m = 0;
	unsigned int vi = 0, si = 0;

	for (f = desc->fields; f->name; f++) {
		bt_field *field = member(payload, m);

		switch (f->type) {
		case SIM_F_STRING:
			if (bt_field_string_set_value(field, rec->s[si] ? rec->s[si] : "") !=
					BT_FIELD_STRING_SET_VALUE_STATUS_OK) {
				return false;
			}
			si++;
			m++;
			break;
		case SIM_F_S32:
		case SIM_F_S64:
			bt_field_integer_signed_set_value(field, rec->v[vi++]);
			m++;
			break;
		case SIM_F_VTIDS:
			set_uint(field, 1);
			field = member(payload, m + 1);
			if (bt_field_array_dynamic_set_length(field, 1) != BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK) {
				return false;
			}
			bt_field_integer_signed_set_value(bt_field_array_borrow_element_field_by_index(field, 0),
				rec->v[vi++]);
			m += 2;
			break;
		case SIM_F_NET_HEADER:
			if (!fill_net_header(field, member(payload, m + 1), &rec->v[vi])) {
				return false;
			}
			vi += SIM_NET_VALUES;
			m += 2;
			break;
		case SIM_F_EPOLL_FDS:
			if (!fill_epoll_fds(payload, m, &rec->v[vi])) {
				return false;
			}
			vi += 2;
			m += 3;
			break;
		default:
			set_uint(field, rec->v[vi++]);
			m++;
			break;
		}
	}
	return true;
}

static uint64_t raw_value(const struct scn_port_ir *ir, int64_t ts)
{
	return (uint64_t) (ts - ir->clock_origin_ns);
}

static bool make_event(struct scn_port_ir *ir, bt_self_message_iterator *iter,
		const struct sim_record *rec, const bt_message **out)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(iter,
		ir->event_classes[rec->event], ir->packets[rec->stream], raw_value(ir, rec->ts));
	bt_event *event;
	bt_field *context;

	if (!msg) {
		return false;
	}
	event = bt_message_event_borrow_event(msg);
	context = bt_event_borrow_common_context_field(event);
	if (context) {
		bt_field_integer_signed_set_value(member(context, 0), rec->vpid);
		bt_field_integer_signed_set_value(member(context, 1), rec->vtid);
		if (bt_field_string_set_value(member(context, 2), rec->procname ? rec->procname : "") !=
				BT_FIELD_STRING_SET_VALUE_STATUS_OK) {
			bt_message_put_ref(msg);
			return false;
		}
	}
	if (!fill_payload(bt_event_borrow_payload_field(event), rec)) {
		bt_message_put_ref(msg);
		return false;
	}
	*out = msg;
	return true;
}

bool scn_emitter_message(struct scn_emitter *emitter, bt_self_message_iterator *iter,
		unsigned int port, const struct sim_record *rec, const bt_message **out)
{
	struct scn_port_ir *ir = &emitter->port[port];
	bt_stream *stream = ir->streams[rec->stream];
	bt_message *msg = NULL;

	switch (rec->kind) {
	case SIM_REC_EVENT:
		return make_event(ir, iter, rec, out);
	case SIM_REC_STREAM_BEGIN:
		msg = bt_message_stream_beginning_create(iter, stream);
		break;
	case SIM_REC_STREAM_END:
		msg = bt_message_stream_end_create(iter, stream);
		break;
	case SIM_REC_PACKET_BEGIN:
		BT_PACKET_PUT_REF_AND_RESET(ir->packets[rec->stream]);
		ir->packets[rec->stream] = bt_packet_create(stream);
		if (!ir->packets[rec->stream]) {
			return false;
		}
		set_uint(member(bt_packet_borrow_context_field(ir->packets[rec->stream]), 0), rec->stream);
		msg = bt_message_packet_beginning_create_with_default_clock_snapshot(iter,
			ir->packets[rec->stream], raw_value(ir, rec->ts));
		break;
	case SIM_REC_PACKET_END:
		msg = bt_message_packet_end_create_with_default_clock_snapshot(iter,
			ir->packets[rec->stream], raw_value(ir, rec->ts));
		BT_PACKET_PUT_REF_AND_RESET(ir->packets[rec->stream]);
		break;
	case SIM_REC_DISCARDED:
		msg = bt_message_discarded_events_create_with_default_clock_snapshots(iter, stream,
			raw_value(ir, rec->ts), raw_value(ir, rec->ts_end));
		if (msg) {
			bt_message_discarded_events_set_count(msg, rec->count);
		}
		break;
	}
	if (!msg) {
		return false;
	}
	*out = msg;
	return true;
}
