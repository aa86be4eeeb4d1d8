/* SPDX-License-Identifier: MIT */
/* Trace-IR classes of the scenario source: LTTng-shaped field classes, env, clocks, streams. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

#include "sim.h"

#define UPTIME_BASE_NS INT64_C(86400000000000)

static bt_field_class *int_fc(bt_trace_class *tc, bool is_signed, unsigned int bits, bool hex)
{
	bt_field_class *fc = is_signed ? bt_field_class_integer_signed_create(tc) :
		bt_field_class_integer_unsigned_create(tc);

	if (!fc) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(fc, bits);
	bt_field_class_integer_set_preferred_display_base(fc,
		hex ? BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL :
		BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL);
	return fc;
}

/* Appends `member` (reference moved) to `st`; false on error. */
static bool append(bt_field_class *st, const char *name, bt_field_class *member)
{
	bool ok = member && bt_field_class_structure_append_member(st, name, member) ==
		BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(member);
	return ok;
}

static bool append_int(bt_trace_class *tc, bt_field_class *st, const char *name,
		bool is_signed, unsigned int bits, bool hex)
{
	return append(st, name, int_fc(tc, is_signed, bits, hex));
}

/* Unsigned enumeration with one mapping per label (ranges [lo, hi] pairs, `count` of them). */
static bt_field_class *enum_fc(bt_trace_class *tc, unsigned int bits, const char *const *labels,
		const uint64_t (*ranges)[2], unsigned int count)
{
	bt_field_class *fc = bt_field_class_enumeration_unsigned_create(tc);
	unsigned int i, j;

	if (!fc) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(fc, bits);
	for (i = 0; i < count; i++) {
		bt_integer_range_set_unsigned *set;
		bool ok;

		if (i > 0 && strcmp(labels[i], labels[i - 1]) == 0) {
			continue;	/* ranges of a repeated label were added with its first entry */
		}
		set = bt_integer_range_set_unsigned_create();
		if (!set) {
			goto error;
		}
		for (j = i; j < count && strcmp(labels[j], labels[i]) == 0; j++) {
			bt_integer_range_set_unsigned_add_range(set, ranges[j][0], ranges[j][1]);
		}
		ok = bt_field_class_enumeration_unsigned_add_mapping(fc, labels[i], set) ==
			BT_FIELD_CLASS_ENUMERATION_ADD_MAPPING_STATUS_OK;
		bt_integer_range_set_unsigned_put_ref(set);
		if (!ok) {
			goto error;
		}
	}
	return fc;

error:
	bt_field_class_put_ref(fc);
	return NULL;
}

static bool add_variant_option(bt_field_class *variant, const char *name, bt_field_class *option,
		uint64_t lo, uint64_t hi)
{
	bt_integer_range_set_unsigned *set = bt_integer_range_set_unsigned_create();
	bool ok = false;

	if (set && option) {
		bt_integer_range_set_unsigned_add_range(set, lo, hi);
		ok = bt_field_class_variant_with_selector_field_integer_unsigned_append_option(
			variant, name, option, set) ==
			BT_FIELD_CLASS_VARIANT_WITH_SELECTOR_FIELD_APPEND_OPTION_STATUS_OK;
	}
	bt_integer_range_set_unsigned_put_ref(set);
	bt_field_class_put_ref(option);
	return ok;
}

/* An option of a variant: its name and the function creating its field class. */
struct variant_option {
	const char *name;
	bt_field_class *(*create)(bt_trace_class *tc);
};

#define MAX_VARIANT_OPTIONS 4

/*
 * Appends to `st` the 8-bit enumeration `selector_name` (label `labels[i]` for value i) and the
 * variant `name` it selects, option i (`options[i]`) for value i: how lttng-modules 2.13 declares
 * its network and transport headers.
 */
static bool append_selected_variant(bt_trace_class *tc, bt_field_class *st, const char *selector_name,
		const char *name, const char *const *labels, const struct variant_option *options,
		unsigned int count)
{
	uint64_t ranges[MAX_VARIANT_OPTIONS][2];
	bt_field_class *selector;
	bt_field_class *variant;
	unsigned int i;

	for (i = 0; i < count; i++) {
		ranges[i][0] = ranges[i][1] = i;
	}
	selector = enum_fc(tc, 8, labels, (const uint64_t (*)[2]) ranges, count);
	if (!selector || bt_field_class_structure_append_member(st, selector_name, selector) !=
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
		bt_field_class_put_ref(selector);
		return false;
	}
	variant = bt_field_class_variant_create(tc, selector);
	bt_field_class_put_ref(selector);
	for (i = 0; variant && i < count; i++) {
		if (!add_variant_option(variant, options[i].name, options[i].create(tc), i, i)) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(variant);
		}
	}
	return append(st, name, variant);
}

static bt_field_class *tcp_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "source_port", false, 16, false) &&
		append_int(tc, st, "dest_port", false, 16, false) &&
		append_int(tc, st, "seq", false, 32, false) &&
		append_int(tc, st, "ack_seq", false, 32, false) &&
		append_int(tc, st, "data_offset", false, 4, false) &&
		append_int(tc, st, "reserved", false, 3, false) &&
		append_int(tc, st, "flags", false, 9, true) &&
		append_int(tc, st, "window_size", false, 16, false) &&
		append_int(tc, st, "checksum", false, 16, true) &&
		append_int(tc, st, "urg_ptr", false, 16, false);

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bt_field_class *udp_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "source_port", false, 16, false) &&
		append_int(tc, st, "dest_port", false, 16, false) &&
		append_int(tc, st, "len", false, 16, false) &&
		append_int(tc, st, "check", false, 16, false);

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bt_field_class *icmp_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "type", false, 8, false) &&
		append_int(tc, st, "code", false, 8, false) &&
		append_int(tc, st, "checksum", false, 16, false) &&
		append_int(tc, st, "gateway", false, 32, false);

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

/*
 * `transport_header_type` + `transport_header` members appended to an IP header struct, as
 * lttng-modules 2.13 declares them (tcp, udp and icmp options; the simulator emits TCP only).
 */
static bool append_transport(bt_trace_class *tc, bt_field_class *ip)
{
	static const char *const labels[] = { "_unknown", "_tcp", "_udp", "_icmp" };
	static const struct variant_option options[] = {
		{ "unknown", bt_field_class_structure_create }, { "tcp", tcp_struct }, { "udp", udp_struct },
		{ "icmp", icmp_struct },
	};

	return append_selected_variant(tc, ip, "transport_header_type", "transport_header", labels, options, 4);
}

static bt_field_class *byte_array(bt_trace_class *tc, unsigned int bits, bool hex, uint64_t length)
{
	bt_field_class *elem = int_fc(tc, false, bits, hex);
	bt_field_class *array = elem ? bt_field_class_array_static_create(tc, elem, length) : NULL;

	bt_field_class_put_ref(elem);
	return array;
}

static bt_field_class *protocol_enum(bt_trace_class *tc)
{
	static const char *const labels[] = { "_unknown", "_unknown", "_unknown", "_unknown", "_icmp", "_tcp",
		"_udp" };
	static const uint64_t ranges[][2] = { { 0, 0 }, { 2, 5 }, { 7, 16 }, { 18, 255 }, { 1, 1 }, { 6, 6 },
		{ 17, 17 } };

	return enum_fc(tc, 8, labels, ranges, 7);
}

static bt_field_class *ipv4_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "version", false, 4, false) &&
		append_int(tc, st, "ihl", false, 4, false) &&
		append_int(tc, st, "tos", false, 8, false) &&
		append_int(tc, st, "tot_len", false, 16, false) &&
		append_int(tc, st, "id", false, 16, true) &&
		append_int(tc, st, "frag_off", false, 16, false) &&
		append_int(tc, st, "ttl", false, 8, false) &&
		append(st, "protocol", protocol_enum(tc)) &&
		append_int(tc, st, "checksum", false, 16, true) &&
		append(st, "saddr_padding", bt_field_class_structure_create(tc)) &&
		append(st, "saddr", byte_array(tc, 8, false, 4)) &&
		append(st, "daddr_padding", bt_field_class_structure_create(tc)) &&
		append(st, "daddr", byte_array(tc, 8, false, 4)) &&
		append_transport(tc, st);

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bt_field_class *ipv6_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "version", false, 4, false) &&
		append_int(tc, st, "prio", false, 4, false) &&
		append(st, "flow_lbl_padding", bt_field_class_structure_create(tc)) &&
		append(st, "flow_lbl", byte_array(tc, 8, true, 3)) &&
		append_int(tc, st, "payload_len", false, 16, false) &&
		append(st, "nexthdr", protocol_enum(tc)) &&
		append_int(tc, st, "hop_limit", false, 8, false) &&
		append(st, "saddr_padding", bt_field_class_structure_create(tc)) &&
		append(st, "saddr", byte_array(tc, 16, true, 8)) &&
		append(st, "daddr_padding", bt_field_class_structure_create(tc)) &&
		append(st, "daddr", byte_array(tc, 16, true, 8)) &&
		append_transport(tc, st);

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bool append_net_header(bt_trace_class *tc, bt_field_class *payload)
{
	static const char *const labels[] = { "_unknown", "_ipv4", "_ipv6" };
	static const struct variant_option options[] = {
		{ "unknown", bt_field_class_structure_create }, { "ipv4", ipv4_struct }, { "ipv6", ipv6_struct },
	};

	return append_selected_variant(tc, payload, "network_header_type", "network_header", labels, options, 3);
}

/* `<prefix>_length` + dynamic array `<prefix>` of `elem` (reference moved). */
static bool append_dynamic_array(bt_trace_class *tc, bt_field_class *payload, const char *length_name,
		unsigned int length_bits, const char *name, bt_field_class *elem)
{
	bt_field_class *length = int_fc(tc, false, length_bits, false);
	bt_field_class *array;

	if (!length || !elem || bt_field_class_structure_append_member(payload, length_name, length) !=
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
		bt_field_class_put_ref(length);
		bt_field_class_put_ref(elem);
		return false;
	}
	array = bt_field_class_array_dynamic_create(tc, elem, length);
	bt_field_class_put_ref(length);
	bt_field_class_put_ref(elem);
	return append(payload, name, array);
}

static bt_field_class *epoll_event_struct(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bt_field_class *data = bt_field_class_structure_create(tc);
	bt_field_class *flags = bt_field_class_structure_create(tc);
	bool ok = st && data && flags &&
		append_int(tc, data, "u64", false, 64, true) &&
		append_int(tc, data, "fd", true, 32, false) &&	/* signed in lttng-modules 2.13 */
		append_int(tc, flags, "EPOLLIN", false, 1, false) &&
		append_int(tc, flags, "EPOLLPRI", false, 1, false) &&
		append_int(tc, flags, "EPOLLOUT", false, 1, false) &&
		append_int(tc, flags, "EPOLLERR", false, 1, false) &&
		append_int(tc, flags, "padding", false, 4, false);

	ok = ok && append(st, "data_union", data);
	data = NULL;
	ok = ok && append_int(tc, st, "raw_events", false, 32, true);
	ok = ok && append(st, "events", flags);
	flags = NULL;
	bt_field_class_put_ref(data);
	bt_field_class_put_ref(flags);
	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

/* `fds_length` (u32), `overflow` (u8), then `fds[fds_length]`, as lttng-modules lays them out. */
static bool append_epoll_fds(bt_trace_class *tc, bt_field_class *payload)
{
	bt_field_class *length = int_fc(tc, false, 32, false);
	bt_field_class *elem;
	bt_field_class *array;

	if (!length || bt_field_class_structure_append_member(payload, "fds_length", length) !=
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK ||
			!append_int(tc, payload, "overflow", false, 8, false)) {
		bt_field_class_put_ref(length);
		return false;
	}
	elem = epoll_event_struct(tc);
	array = elem ? bt_field_class_array_dynamic_create(tc, elem, length) : NULL;
	bt_field_class_put_ref(elem);
	bt_field_class_put_ref(length);
	return append(payload, "fds", array);
}

static bool append_field(bt_trace_class *tc, bt_field_class *payload, const struct sim_field_desc *f)
{
	switch (f->type) {
	case SIM_F_U8: return append_int(tc, payload, f->name, false, 8, false);
	case SIM_F_U16: return append_int(tc, payload, f->name, false, 16, false);
	case SIM_F_U32: return append_int(tc, payload, f->name, false, 32, false);
	case SIM_F_U64: return append_int(tc, payload, f->name, false, 64, false);
	case SIM_F_X16: return append_int(tc, payload, f->name, false, 16, true);
	case SIM_F_X32: return append_int(tc, payload, f->name, false, 32, true);
	case SIM_F_X64: return append_int(tc, payload, f->name, false, 64, true);
	case SIM_F_S32: return append_int(tc, payload, f->name, true, 32, false);
	case SIM_F_S64: return append_int(tc, payload, f->name, true, 64, false);
	case SIM_F_STRING: return append(payload, f->name, bt_field_class_string_create(tc));
	case SIM_F_VTIDS:
		return append_dynamic_array(tc, payload, "_vtids_length", 8, "vtids",
			int_fc(tc, true, 32, false));
	case SIM_F_NET_HEADER: return append_net_header(tc, payload);
	case SIM_F_EPOLL_FDS: return append_epoll_fds(tc, payload);
	}
	return false;
}

static bt_event_class *make_event_class(bt_stream_class *sc, enum sim_event_id id)
{
	const struct sim_event_desc *desc = sim_event_desc(id);
	bt_trace_class *tc = bt_stream_class_borrow_trace_class(sc);
	bt_event_class *ec = bt_event_class_create(sc);
	bt_field_class *payload = bt_field_class_structure_create(tc);
	const struct sim_field_desc *f;

	if (!ec || !payload || bt_event_class_set_name(ec, desc->name) != BT_EVENT_CLASS_SET_NAME_STATUS_OK) {
		goto error;
	}
	for (f = desc->fields; f->name; f++) {
		if (!append_field(tc, payload, f)) {
			goto error;
		}
	}
	if (bt_event_class_set_payload_field_class(ec, payload) !=
			BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK) {
		goto error;
	}
	if (desc->domain == SIM_DOMAIN_UST) {
		bt_event_class_set_log_level(ec, BT_EVENT_CLASS_LOG_LEVEL_DEBUG_LINE);
	}
	bt_field_class_put_ref(payload);
	return ec;

error:
	bt_field_class_put_ref(payload);
	bt_event_class_put_ref(ec);
	return NULL;
}

static bt_clock_class *make_clock_class(bt_self_component *self_comp, const struct sim *sim,
		unsigned int host, int64_t origin_ns)
{
	bt_clock_class *cc = bt_clock_class_create(self_comp);
	uint8_t uuid[16];

	if (!cc) {
		return NULL;
	}
	sim_host_clock_uuid(sim, host, uuid);
	bt_clock_class_set_name(cc, "monotonic");
	bt_clock_class_set_description(cc, "Monotonic Clock");
	bt_clock_class_set_frequency(cc, 1000000000);
	bt_clock_class_set_precision(cc, 0);
	bt_clock_class_set_offset(cc, origin_ns / 1000000000, (uint64_t) (origin_ns % 1000000000));
	bt_clock_class_set_origin_is_unix_epoch(cc, BT_TRUE);
	bt_clock_class_set_uuid(cc, uuid);
	return cc;
}

static bt_field_class *packet_context_fc(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	if (st && !append_int(tc, st, "cpu_id", false, 32, false)) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bt_field_class *ust_context_fc(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bool ok = st &&
		append_int(tc, st, "vpid", true, 32, false) &&
		append_int(tc, st, "vtid", true, 32, false) &&
		append(st, "procname", bt_field_class_string_create(tc));

	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static bool set_env(bt_trace *trace, const struct sim *sim, unsigned int host, enum sim_domain domain)
{
	bool ok = true;

#define ENV_STR(k, v) ok = ok && bt_trace_set_environment_entry_string(trace, (k), (v)) == \
		BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK
#define ENV_INT(k, v) ok = ok && bt_trace_set_environment_entry_integer(trace, (k), (v)) == \
		BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK
	ENV_STR("hostname", sim->host[host].name);
	if (domain == SIM_DOMAIN_KERNEL) {
		ENV_STR("domain", "kernel");
		ENV_STR("sysname", "Linux");
		ENV_STR("kernel_release", "5.15.0-91-generic");
		ENV_STR("kernel_version", "#101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023");
		ENV_STR("tracer_name", "lttng-modules");
		ENV_INT("tracer_major", 2);
		ENV_INT("tracer_minor", 13);
		ENV_INT("tracer_patchlevel", 9);
		ENV_STR("trace_buffering_scheme", "global");
	} else {
		ENV_STR("domain", "ust");
		ENV_STR("tracer_name", "lttng-ust");
		ENV_INT("tracer_major", 2);
		ENV_INT("tracer_minor", 13);
		ENV_INT("tracer_patchlevel", 5);
		ENV_STR("tracer_buffering_scheme", "uid");
		ENV_INT("tracer_buffering_id", 1000);
		ENV_INT("architecture_bit_width", 64);
	}
	ENV_STR("trace_name", "deepspan-hotrod");
	ENV_STR("trace_creation_datetime", "20231114T221320+0000");
#undef ENV_STR
#undef ENV_INT
	return ok;
}

static bool init_port(struct scn_emitter *emitter, bt_self_component *self_comp,
		const struct sim *sim, unsigned int host, enum sim_domain domain)
{
	struct scn_port_ir *ir = &emitter->port[sim_port_index(host, domain)];
	bt_field_class *fc;
	unsigned int e, c;
	char name[64];

	ir->trace_class = bt_trace_class_create(self_comp);
	if (!ir->trace_class) {
		return false;
	}
	bt_trace_class_set_assigns_automatic_stream_class_id(ir->trace_class, BT_TRUE);
	ir->stream_class = bt_stream_class_create(ir->trace_class);
	if (!ir->stream_class) {
		return false;
	}
	bt_stream_class_set_default_clock_class(ir->stream_class, emitter->clock_classes[host]);
	bt_stream_class_set_supports_packets(ir->stream_class, BT_TRUE, BT_TRUE, BT_TRUE);
	bt_stream_class_set_supports_discarded_events(ir->stream_class, BT_TRUE, BT_TRUE);
	bt_stream_class_set_supports_discarded_packets(ir->stream_class, BT_TRUE, BT_TRUE);
	fc = packet_context_fc(ir->trace_class);
	if (!fc || bt_stream_class_set_packet_context_field_class(ir->stream_class, fc) !=
			BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK) {
		bt_field_class_put_ref(fc);
		return false;
	}
	bt_field_class_put_ref(fc);
	if (domain == SIM_DOMAIN_UST) {
		fc = ust_context_fc(ir->trace_class);
		if (!fc || bt_stream_class_set_event_common_context_field_class(ir->stream_class, fc) !=
				BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK) {
			bt_field_class_put_ref(fc);
			return false;
		}
		bt_field_class_put_ref(fc);
	}
	for (e = 0; e < SIM_EV_COUNT; e++) {
		if (sim_event_desc((enum sim_event_id) e)->domain != domain) {
			continue;
		}
		ir->event_classes[e] = make_event_class(ir->stream_class, (enum sim_event_id) e);
		if (!ir->event_classes[e]) {
			return false;
		}
	}
	ir->trace = bt_trace_create(ir->trace_class);
	if (!ir->trace) {
		return false;
	}
	snprintf(name, sizeof(name), "%s/%s", sim->host[host].name,
		domain == SIM_DOMAIN_KERNEL ? "kernel" : "ust");
	bt_trace_set_name(ir->trace, name);
	if (!set_env(ir->trace, sim, host, domain)) {
		return false;
	}
	for (c = 0; c < emitter->cpus; c++) {
		ir->streams[c] = bt_stream_create(ir->stream_class, ir->trace);
		if (!ir->streams[c]) {
			return false;
		}
		snprintf(name, sizeof(name), "channel0_%u", c);
		bt_stream_set_name(ir->streams[c], name);
	}
	return true;
}

bool scn_emitter_init(struct scn_emitter *emitter, bt_self_component *self_comp,
		const struct sim *sim)
{
	unsigned int h;

	memset(emitter, 0, sizeof(*emitter));
	emitter->ports = 2 * sim->cfg.hosts;
	emitter->cpus = sim->cfg.cpus;
	for (h = 0; h < sim->cfg.hosts; h++) {
		/* the host booted some days before the trace: raw clock values are ns since boot */
		int64_t start_local = sim_clock_local(&sim->cfg.clocks[h], sim->start);
		int64_t uptime = UPTIME_BASE_NS + (int64_t) ((sim->cfg.seed * 7919 + h * 104729) % 997) *
			INT64_C(3600000000000) / 10 + h * INT64_C(1234567891);
		int64_t origin = start_local - uptime;

		emitter->clock_classes[h] = make_clock_class(self_comp, sim, h, origin);
		if (!emitter->clock_classes[h]) {
			goto error;
		}
		emitter->port[sim_port_index(h, SIM_DOMAIN_KERNEL)].clock_origin_ns = origin;
		emitter->port[sim_port_index(h, SIM_DOMAIN_UST)].clock_origin_ns = origin;
		if (!init_port(emitter, self_comp, sim, h, SIM_DOMAIN_KERNEL) ||
				!init_port(emitter, self_comp, sim, h, SIM_DOMAIN_UST)) {
			goto error;
		}
	}
	return true;

error:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
		"source.deepspan.scenario: cannot create the trace IR classes (out of memory?).");
	scn_emitter_fini(emitter);
	return false;
}

void scn_emitter_fini(struct scn_emitter *emitter)
{
	unsigned int p, e, c;

	for (p = 0; p < 2 * SIM_MAX_HOSTS; p++) {
		struct scn_port_ir *ir = &emitter->port[p];

		for (c = 0; c < SIM_MAX_CPUS; c++) {
			BT_PACKET_PUT_REF_AND_RESET(ir->packets[c]);
			BT_STREAM_PUT_REF_AND_RESET(ir->streams[c]);
		}
		BT_TRACE_PUT_REF_AND_RESET(ir->trace);
		for (e = 0; e < SIM_EV_COUNT; e++) {
			BT_EVENT_CLASS_PUT_REF_AND_RESET(ir->event_classes[e]);
		}
		BT_STREAM_CLASS_PUT_REF_AND_RESET(ir->stream_class);
		BT_TRACE_CLASS_PUT_REF_AND_RESET(ir->trace_class);
	}
	for (p = 0; p < SIM_MAX_HOSTS; p++) {
		BT_CLOCK_CLASS_PUT_REF_AND_RESET(emitter->clock_classes[p]);
	}
}
