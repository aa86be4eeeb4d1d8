/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: sink.deepspan.diff and sink.deepspan.metrics over
 * generated `deepspan:span` events (doc/span-attrib.md, "Output").
 *
 * Per input, an in-process babeltrace2 graph: a C source component class
 * (`source.fuzz.spans`, defined here) emits `deepspan:span` events whose
 * field values, and the exact shape of whose payload class, come from the
 * input; its ports feed the diff sink (ports `a` and optionally `b`) and the
 * metrics sink, both loaded from the instrumented plugin that fuzz/build makes
 * (DEEPSPAN_FUZZ_PLUGIN, default: `plugin/babeltrace-plugin-deepspan.so`
 * beside this program).  The sinks' parameters (mode, groups, grace, table)
 * come from the input too.  A graph may fail cleanly (an error status with a
 * cause); a crash, a sanitizer report or a run without a cause is a finding.
 *
 * With DEEPSPAN_FUZZ_CONTRACT=1 every span keeps the producer's contract
 * (doc/span-attrib.md: begin <= end within +-2^62 ns, at most 2^44 ns
 * (4.9 hours) apart, state totals summing
 * to end - begin, segments and syscall times inside the span, pid and tid
 * kernel ids or -1), so that what
 * is found there is not the sinks' missing range checks on corrupt spans.
 *
 * Outputs go to a private temporary directory (in /dev/shm when it exists;
 * DEEPSPAN_FUZZ_TMP overrides), emptied after each input and removed at exit.
 *
 * Input layout: 4 header bytes (ports and modes, sink parameters, payload
 * shape, grace), then span records until the input ends (at most MAX_SPANS).
 * Header bit 7 gives spans a `chain_packed` member (doc/critical-path.md,
 * "Encoding"): a chain of the format over the span's waited segments, some of
 * its bytes overwritten, or raw characters (decode_chain).
 */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "chain-packed.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SPANS 48
#define MAX_SYSCALLS 3
#define MAX_SEGMENTS 5

/* ---- decoded input ---- */

struct fuzz_syscall {
	char *name;		/* owned */
	uint64_t count, duration;
};

struct fuzz_segment {
	int64_t begin, end;
	uint64_t state;
	char *detail;		/* owned */
};

struct fuzz_span {
	unsigned int port;	/* 0: diff `a`, 1: diff `b` (when connected); metrics gets all */
	uint64_t ids[4];	/* trace_id_high, trace_id_low, span_id, parent_span_id */
	char *strings[3];	/* owned: host, service, operation */
	int64_t pid, tid, begin, end;
	uint64_t states[6];
	bool truncated;
	unsigned int syscall_count, segment_count;
	struct fuzz_syscall syscalls[MAX_SYSCALLS];
	struct fuzz_segment segments[MAX_SEGMENTS];
	char *chain_packed;	/* owned; with FUZZ_PACKED_CHAINS, the member `chain_packed`, else NULL */
};

/* Payload shape switches (header byte 2). */
enum {
	SHAPE_NO_SYSCALLS = 1 << 0,
	SHAPE_NO_SEGMENTS = 1 << 1,
	SHAPE_NO_TRUNCATED = 1 << 2,
	SHAPE_TRUNCATED_INT = 1 << 3,
	SHAPE_STATE_PLAIN = 1 << 4,	/* segment state: plain integer, not an enumeration */
	SHAPE_SIGNED_IDS = 1 << 5,
	SHAPE_REVERSED = 1 << 6,	/* payload members in reverse order */
	SHAPE_DROP_ONE = 1 << 7,	/* one required member missing: a clean error */
};

struct fuzz_input {
	bool use_b;
	bool packed_chains;		/* header bit 7: spans have a `chain_packed` member */
	unsigned int shape;
	unsigned int drop;		/* member dropped with SHAPE_DROP_ONE */
	unsigned int span_count;
	struct fuzz_span spans[MAX_SPANS];
};

static struct fuzz_input input;	/* the current input, read by the source's iterators */
static bool contract;		/* DEEPSPAN_FUZZ_CONTRACT: spans as a correct producer writes them */

#define CONTRACT_LIMIT ((int64_t) 1 << 62)
#define CONTRACT_LENGTH ((int64_t) 1 << 44)

static const char *const hosts[] = { "host-a", "host-b", "h" };
static const char *const services[] = { "frontend", "mysql", "redis", "" };
static const char *const operations[] = { "GET /dispatch", "SQL SELECT", "GetDriver", "x" };
static const char *const syscall_names[] = { "futex", "read", "epoll_wait", "" };
static const char *const details[] = {
	"", "futex", "mysqld/4242", "softirq:NET_RX", "irq:eth0", "timer", "read \xe2\x86\x90 a/1",
};

/* A string from `table`, or (rarely) raw input bytes. */
static char *pick_string(struct fuzz_bytes *in, const char *const *table, size_t count)
{
	uint8_t pick = fuzz_u8(in);

	return pick >= 0xf0 ? fuzz_string(in, 12) : g_strdup(table[pick % count]);
}

/* A timestamp: near `base` usually, any 64-bit value sometimes. */
static int64_t pick_time(struct fuzz_bytes *in, int64_t base, bool raw)
{
	uint16_t delta = (uint16_t) (fuzz_u8(in) | fuzz_u8(in) << 8);

	if (raw) {
		return (int64_t) fuzz_u64(in);
	}
	return base + (int64_t) delta * 1000;
}

static char *decode_chain(struct fuzz_bytes *in, const struct fuzz_span *span);

static void decode_span(struct fuzz_bytes *in, struct fuzz_span *span, int64_t *clock)
{
	uint8_t mode = fuzz_u8(in);
	bool raw = (mode & 0x80) != 0;
	uint64_t rest;
	unsigned int i;

	span->port = (mode >> 6) & 1;
	span->ids[0] = mode & 1 ? fuzz_u64(in) : 0;
	span->ids[1] = mode & 2 ? fuzz_u64(in) : fuzz_u8(in) % 4;
	span->ids[2] = fuzz_u8(in) % 12;
	span->ids[3] = fuzz_u8(in) % 12;
	span->strings[0] = pick_string(in, hosts, G_N_ELEMENTS(hosts));
	span->strings[1] = pick_string(in, services, G_N_ELEMENTS(services));
	span->strings[2] = pick_string(in, operations, G_N_ELEMENTS(operations));
	span->pid = mode & 4 ? (int64_t) fuzz_u64(in) : fuzz_u8(in);
	span->tid = mode & 4 ? (int64_t) fuzz_u64(in) : span->pid + fuzz_u8(in) % 3;
	span->begin = pick_time(in, *clock, raw);
	span->end = raw ? (int64_t) fuzz_u64(in) : pick_time(in, span->begin, false);
	*clock = raw ? *clock : span->begin;
	/* the six state totals: a split of end - begin, or raw values */
	rest = (uint64_t) span->end - (uint64_t) span->begin;
	for (i = 0; i < 6; i++) {
		if (mode & 8) {
			span->states[i] = fuzz_u64(in);
		} else {
			span->states[i] = i == 5 ? rest : rest / 256 * fuzz_u8(in) / 2;
			rest -= span->states[i] <= rest ? span->states[i] : rest;
		}
	}
	span->truncated = (mode & 16) != 0;
	span->syscall_count = fuzz_u8(in) % (MAX_SYSCALLS + 1);
	for (i = 0; i < span->syscall_count; i++) {
		span->syscalls[i].name = pick_string(in, syscall_names, G_N_ELEMENTS(syscall_names));
		span->syscalls[i].count = mode & 32 ? fuzz_u64(in) : fuzz_u8(in);
		span->syscalls[i].duration = mode & 32 ? fuzz_u64(in) : (uint64_t) fuzz_u8(in) * 977;
	}
	span->segment_count = fuzz_u8(in) % (MAX_SEGMENTS + 1);
	for (i = 0; i < span->segment_count; i++) {
		struct fuzz_segment *seg = &span->segments[i];

		seg->begin = pick_time(in, span->begin, raw);
		seg->end = pick_time(in, seg->begin, raw);
		seg->state = fuzz_u8(in) % 8;
		seg->detail = pick_string(in, details, G_N_ELEMENTS(details));
	}
	span->chain_packed = input.packed_chains ? decode_chain(in, span) : NULL;
}

/* Appends the packed integer `value` (common/chain-packed.h) to `text`. */
static void put_packed(GString *text, uint64_t value)
{
	char digits[DS_PACKED_UINT_MAX];

	g_string_append_len(text, digits, (gssize) ds_packed_put_uint(digits, value));
}

/* One depth-0 entry (`with_child`: and a child splitting nothing) of the packed chain over `seg`. */
static void put_packed_entries(GString *text, const struct fuzz_span *span, const struct fuzz_segment *seg,
		unsigned int index, unsigned int entry, int64_t *previous, uint8_t how, bool with_child)
{
	unsigned int k;

	for (k = 0; k < (with_child ? 2u : 1u); k++) {
		put_packed(text, index);
		put_packed(text, k == 0 ? 0 : entry + 1);
		put_packed(text, ds_packed_zigzag((int64_t) ((uint64_t) seg->begin - (uint64_t) *previous)));
		put_packed(text, ds_packed_zigzag((int64_t) ((uint64_t) seg->end - (uint64_t) seg->begin)));
		g_string_append(text, entry + k == 0 ? "01h" : "1");	/* host: literal "h", then string 1 */
		put_packed(text, ds_packed_zigzag(span->tid));
		put_packed(text, ds_packed_zigzag((int64_t) ((uint64_t) span->pid - (uint64_t) span->tid)));
		g_string_append(text, entry + k == 0 ? "03app2" : "22");	/* comm and process "app" */
		put_packed(text, ds_packed_zigzag(k == 0 ? -1 : (int64_t) (how >> 5)));
		put_packed(text, k == 0 ? seg->state : (how >> 2) % 8);
		put_packed(text, (how >> 3) % 14);
		g_string_append(text, entry + k == 0 ? "04wait" : "3");	/* detail */
		if (how & 2) {
			put_packed(text, (uint64_t) (how >> 6) << 12);	/* bytes */
		}
		*previous = seg->begin;
	}
}

/*
 * The `chain_packed` of a span (doc/critical-path.md, "Encoding"): raw characters of the integer alphabets
 * and a few others (`how` bit 0), or a chain of the format over the span's waited segments (blocked,
 * wait_cpu), some of whose bytes the input then overwrites.
 */
static char *decode_chain(struct fuzz_bytes *in, const struct fuzz_span *span)
{
	uint8_t how = fuzz_u8(in);
	GString *text = g_string_new(how & 2 ? "D" : "C");
	int64_t previous = span->begin;
	unsigned int i, count = 0, entry = 0, flips;

	if (how & 1) {
		for (i = fuzz_u8(in) % 96; i > 0 && !fuzz_done(in); i--) {
			uint8_t b = fuzz_u8(in);

			g_string_append_c(text, b >= 0xf0 ? (char) (b & 0x7f ? b & 0x7f : '~') : (char) ('0' + b % 64));
		}
		return g_string_free(text, FALSE);
	}
	for (i = 0; i < span->segment_count; i++) {
		count += span->segments[i].state == 2 || span->segments[i].state == 3 ? 1 + ((how >> 2) & 1) : 0;
	}
	put_packed(text, count);
	for (i = 0; i < span->segment_count; i++) {
		if (span->segments[i].state == 2 || span->segments[i].state == 3) {
			put_packed_entries(text, span, &span->segments[i], i, entry, &previous, how, (how >> 2) & 1);
			entry += 1 + ((how >> 2) & 1);
		}
	}
	for (flips = (how >> 4) % 4; flips > 0 && text->len > 1 && !fuzz_done(in); flips--) {
		uint8_t at = fuzz_u8(in), b = fuzz_u8(in);

		text->str[1 + at % (text->len - 1)] = (char) (b ? b : '0');
	}
	return g_string_free(text, FALSE);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Brings a decoded span within the producer's contract (DEEPSPAN_FUZZ_CONTRACT). */
static void keep_contract(struct fuzz_span *span)
{
	uint64_t length, rest;
	unsigned int i;

	span->pid = clamp(span->pid, -1, INT32_MAX);	/* kernel ids, or -1 */
	span->tid = clamp(span->tid, -1, INT32_MAX);
	span->begin = clamp(span->begin, -CONTRACT_LIMIT, CONTRACT_LIMIT);
	/* and a length of at most 2^44 ns (4.9 hours: sums over many requests fit) */
	span->end = clamp(span->end, span->begin, span->begin <= CONTRACT_LIMIT - CONTRACT_LENGTH ?
		span->begin + CONTRACT_LENGTH : CONTRACT_LIMIT);
	length = (uint64_t) span->end - (uint64_t) span->begin;
	rest = length;
	for (i = 0; i < 6; i++) {
		span->states[i] = i == 5 ? rest : span->states[i] % (rest + 1);
		rest -= span->states[i];
	}
	for (i = 0; i < span->syscall_count; i++) {
		span->syscalls[i].count %= (uint64_t) 1 << 32;
		span->syscalls[i].duration %= length + 1;
	}
	for (i = 0; i < span->segment_count; i++) {
		struct fuzz_segment *seg = &span->segments[i];

		seg->begin = clamp(seg->begin, span->begin, span->end);
		seg->end = clamp(seg->end, seg->begin, span->end);
	}
}

static void free_input(struct fuzz_input *in)
{
	unsigned int s, i;

	for (s = 0; s < in->span_count; s++) {
		struct fuzz_span *span = &in->spans[s];

		for (i = 0; i < 3; i++) {
			g_free(span->strings[i]);
		}
		for (i = 0; i < span->syscall_count; i++) {
			g_free(span->syscalls[i].name);
		}
		for (i = 0; i < span->segment_count; i++) {
			g_free(span->segments[i].detail);
		}
		g_free(span->chain_packed);
	}
	memset(in, 0, sizeof(*in));
}

/* ---- the source component class ---- */

enum member_kind { MK_ID, MK_STRING, MK_S64, MK_STATE, MK_SYSCALLS, MK_SEGMENTS, MK_TRUNCATED, MK_CHAIN_PACKED };

struct member {
	const char *name;
	enum member_kind kind;
	unsigned int slot;	/* index in the span's ids/strings/s64s/states */
};

/* The payload of doc/span-attrib.md, in the producer's order. */
static const struct member members[] = {
	{ "trace_id_high", MK_ID, 0 }, { "trace_id_low", MK_ID, 1 },
	{ "span_id", MK_ID, 2 }, { "parent_span_id", MK_ID, 3 },
	{ "host", MK_STRING, 0 }, { "service", MK_STRING, 1 }, { "operation", MK_STRING, 2 },
	{ "pid", MK_S64, 0 }, { "tid", MK_S64, 1 }, { "begin", MK_S64, 2 }, { "end", MK_S64, 3 },
	{ "user", MK_STATE, 0 }, { "syscall", MK_STATE, 1 }, { "blocked", MK_STATE, 2 },
	{ "wait_cpu", MK_STATE, 3 }, { "interrupted", MK_STATE, 4 }, { "unknown", MK_STATE, 5 },
	{ "syscalls", MK_SYSCALLS, 0 }, { "segments", MK_SEGMENTS, 0 },
	{ "truncated", MK_TRUNCATED, 0 }, { "chain_packed", MK_CHAIN_PACKED, 0 },
};
#define MEMBER_COUNT G_N_ELEMENTS(members)
#define NO_INDEX UINT64_MAX

struct source {
	bt_trace_class *trace_class;	/* owned */
	bt_stream_class *stream_class;	/* owned */
	bt_event_class *event_class;	/* owned */
	uint64_t index[MEMBER_COUNT];	/* payload index of each member, or NO_INDEX */
};

struct source_iter {
	struct source *source;		/* borrowed */
	unsigned int port;		/* 0, 1: diff a, b; 2: metrics (all spans) */
	bt_stream *stream;		/* owned */
	bt_trace *trace;		/* owned */
	unsigned int next_span;
	int state;			/* 0: stream beginning due, 1: events, 2: ended */
};

static const char *const state_labels[] = {
	"user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown",
};

static bool append_member(bt_field_class *structure, const char *name, bt_field_class *fc)
{
	bool ok = fc && bt_field_class_structure_append_member(structure, name, fc) ==
		BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(fc);
	return ok;
}

static bt_field_class *state_class(bt_trace_class *tc, unsigned int shape)
{
	bt_field_class *fc;
	uint64_t state;

	if (shape & SHAPE_STATE_PLAIN) {
		fc = bt_field_class_integer_unsigned_create(tc);
		if (fc) {
			bt_field_class_integer_set_field_value_range(fc, 8);
		}
		return fc;
	}
	fc = bt_field_class_enumeration_unsigned_create(tc);
	if (!fc) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(fc, 8);
	for (state = 0; state < G_N_ELEMENTS(state_labels); state++) {
		bt_integer_range_set_unsigned *ranges = bt_integer_range_set_unsigned_create();
		bool ok = ranges && bt_integer_range_set_unsigned_add_range(ranges, state, state) ==
				BT_INTEGER_RANGE_SET_ADD_RANGE_STATUS_OK &&
			bt_field_class_enumeration_unsigned_add_mapping(fc, state_labels[state], ranges) ==
				BT_FIELD_CLASS_ENUMERATION_ADD_MAPPING_STATUS_OK;

		bt_integer_range_set_unsigned_put_ref(ranges);
		if (!ok) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(fc);
			break;
		}
	}
	return fc;
}

static bt_field_class *member_class(bt_trace_class *tc, const struct member *m, unsigned int shape)
{
	bt_field_class *element, *fc = NULL;

	switch (m->kind) {
	case MK_ID:
		return shape & SHAPE_SIGNED_IDS ? bt_field_class_integer_signed_create(tc) :
			bt_field_class_integer_unsigned_create(tc);
	case MK_STRING:
	case MK_CHAIN_PACKED:
		return bt_field_class_string_create(tc);
	case MK_S64:
		return bt_field_class_integer_signed_create(tc);
	case MK_STATE:
		return bt_field_class_integer_unsigned_create(tc);
	case MK_TRUNCATED:
		return shape & SHAPE_TRUNCATED_INT ? bt_field_class_integer_unsigned_create(tc) :
			bt_field_class_bool_create(tc);
	case MK_SYSCALLS:
		element = bt_field_class_structure_create(tc);
		if (element && append_member(element, "name", bt_field_class_string_create(tc)) &&
				append_member(element, "count", bt_field_class_integer_unsigned_create(tc)) &&
				append_member(element, "duration", bt_field_class_integer_unsigned_create(tc))) {
			fc = bt_field_class_array_dynamic_create(tc, element, NULL);
		}
		bt_field_class_put_ref(element);
		return fc;
	case MK_SEGMENTS:
		element = bt_field_class_structure_create(tc);
		if (element && append_member(element, "begin", bt_field_class_integer_signed_create(tc)) &&
				append_member(element, "end", bt_field_class_integer_signed_create(tc)) &&
				append_member(element, "state", state_class(tc, shape)) &&
				append_member(element, "detail", bt_field_class_string_create(tc))) {
			fc = bt_field_class_array_dynamic_create(tc, element, NULL);
		}
		bt_field_class_put_ref(element);
		return fc;
	}
	return NULL;
}

static bool member_present(unsigned int m, unsigned int shape, unsigned int drop)
{
	return !((members[m].kind == MK_CHAIN_PACKED && !input.packed_chains) ||
		(members[m].kind == MK_SYSCALLS && (shape & SHAPE_NO_SYSCALLS)) ||
		(members[m].kind == MK_SEGMENTS && (shape & SHAPE_NO_SEGMENTS)) ||
		(members[m].kind == MK_TRUNCATED && (shape & SHAPE_NO_TRUNCATED)) ||
		((shape & SHAPE_DROP_ONE) && m == drop));
}

static void source_destroy(struct source *source)
{
	if (!source) {
		return;
	}
	BT_EVENT_CLASS_PUT_REF_AND_RESET(source->event_class);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(source->stream_class);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(source->trace_class);
	g_free(source);
}

static bt_component_class_initialize_method_status source_init(
		bt_self_component_source *self_source,
		bt_self_component_source_configuration *configuration,
		const bt_value *params, void *init_data)
{
	bt_self_component *self_comp = bt_self_component_source_as_self_component(self_source);
	struct source *source = g_new0(struct source, 1);
	bt_field_class *payload = NULL;
	uint64_t next = 0;
	unsigned int k, m;
	static unsigned int port_ids[3] = { 0, 1, 2 };
	static const char *const port_names[3] = { "out-a", "out-b", "out-metrics" };

	(void) configuration;
	(void) params;
	(void) init_data;
	source->trace_class = bt_trace_class_create(self_comp);
	source->stream_class = source->trace_class ?
		bt_stream_class_create(source->trace_class) : NULL;
	source->event_class = source->stream_class ?
		bt_event_class_create(source->stream_class) : NULL;
	payload = source->event_class ? bt_field_class_structure_create(source->trace_class) : NULL;
	if (!payload || bt_event_class_set_name(source->event_class, "deepspan:span") !=
			BT_EVENT_CLASS_SET_NAME_STATUS_OK) {
		goto error;
	}
	for (k = 0; k < MEMBER_COUNT; k++) {
		m = input.shape & SHAPE_REVERSED ? (unsigned int) (MEMBER_COUNT - 1 - k) : k;
		source->index[m] = NO_INDEX;
		if (!member_present(m, input.shape, input.drop)) {
			continue;
		}
		if (!append_member(payload, members[m].name,
				member_class(source->trace_class, &members[m], input.shape))) {
			goto error;
		}
		source->index[m] = next++;
	}
	if (bt_event_class_set_payload_field_class(source->event_class, payload) !=
			BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK) {
		goto error;
	}
	for (k = 0; k < 3; k++) {
		if (bt_self_component_source_add_output_port(self_source, port_names[k],
				&port_ids[k], NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
			goto error;
		}
	}
	bt_field_class_put_ref(payload);
	bt_self_component_set_data(self_comp, source);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	bt_field_class_put_ref(payload);
	source_destroy(source);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
}

static void source_finalize(bt_self_component_source *self_source)
{
	source_destroy(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_source)));
}

static bt_message_iterator_class_initialize_method_status iter_init(
		bt_self_message_iterator *self_iter,
		bt_self_message_iterator_configuration *configuration,
		bt_self_component_port_output *port)
{
	struct source_iter *it = g_new0(struct source_iter, 1);

	(void) configuration;
	it->source = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self_iter));
	it->port = *(unsigned int *) bt_self_component_port_get_data(
		bt_self_component_port_output_as_self_component_port(port));
	it->trace = bt_trace_create(it->source->trace_class);
	it->stream = it->trace ? bt_stream_create(it->source->stream_class, it->trace) : NULL;
	if (!it->stream) {
		BT_TRACE_PUT_REF_AND_RESET(it->trace);
		g_free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	bt_self_message_iterator_set_data(self_iter, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_finalize(bt_self_message_iterator *self_iter)
{
	struct source_iter *it = bt_self_message_iterator_get_data(self_iter);

	BT_STREAM_PUT_REF_AND_RESET(it->stream);
	BT_TRACE_PUT_REF_AND_RESET(it->trace);
	g_free(it);
}

static bool set_string(bt_field *field, const char *value)
{
	return bt_field_string_set_value(field, value) == BT_FIELD_STRING_SET_VALUE_STATUS_OK;
}

static bool fill_member(bt_field *field, const struct member *m, const struct fuzz_span *span,
		unsigned int shape)
{
	unsigned int i;

	switch (m->kind) {
	case MK_ID:
		if (shape & SHAPE_SIGNED_IDS) {
			bt_field_integer_signed_set_value(field, (int64_t) span->ids[m->slot]);
		} else {
			bt_field_integer_unsigned_set_value(field, span->ids[m->slot]);
		}
		return true;
	case MK_STRING:
		return set_string(field, span->strings[m->slot]);
	case MK_CHAIN_PACKED:
		return set_string(field, span->chain_packed);
	case MK_S64:
		bt_field_integer_signed_set_value(field, m->slot == 0 ? span->pid :
			m->slot == 1 ? span->tid : m->slot == 2 ? span->begin : span->end);
		return true;
	case MK_STATE:
		bt_field_integer_unsigned_set_value(field, span->states[m->slot]);
		return true;
	case MK_TRUNCATED:
		if (shape & SHAPE_TRUNCATED_INT) {
			bt_field_integer_unsigned_set_value(field, span->truncated);
		} else {
			bt_field_bool_set_value(field, span->truncated);
		}
		return true;
	case MK_SYSCALLS:
		if (bt_field_array_dynamic_set_length(field, span->syscall_count) !=
				BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK) {
			return false;
		}
		for (i = 0; i < span->syscall_count; i++) {
			bt_field *e = bt_field_array_borrow_element_field_by_index(field, i);

			if (!set_string(bt_field_structure_borrow_member_field_by_index(e, 0),
					span->syscalls[i].name)) {
				return false;
			}
			bt_field_integer_unsigned_set_value(
				bt_field_structure_borrow_member_field_by_index(e, 1), span->syscalls[i].count);
			bt_field_integer_unsigned_set_value(
				bt_field_structure_borrow_member_field_by_index(e, 2), span->syscalls[i].duration);
		}
		return true;
	case MK_SEGMENTS:
		if (bt_field_array_dynamic_set_length(field, span->segment_count) !=
				BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK) {
			return false;
		}
		for (i = 0; i < span->segment_count; i++) {
			bt_field *e = bt_field_array_borrow_element_field_by_index(field, i);

			bt_field_integer_signed_set_value(
				bt_field_structure_borrow_member_field_by_index(e, 0), span->segments[i].begin);
			bt_field_integer_signed_set_value(
				bt_field_structure_borrow_member_field_by_index(e, 1), span->segments[i].end);
			bt_field_integer_unsigned_set_value(
				bt_field_structure_borrow_member_field_by_index(e, 2), span->segments[i].state);
			if (!set_string(bt_field_structure_borrow_member_field_by_index(e, 3),
					span->segments[i].detail)) {
				return false;
			}
		}
		return true;
	}
	return false;
}

static bt_message *span_message(bt_self_message_iterator *self_iter, struct source_iter *it,
		const struct fuzz_span *span)
{
	bt_message *msg = bt_message_event_create(self_iter, it->source->event_class, it->stream);
	bt_field *payload;
	unsigned int m;

	if (!msg) {
		return NULL;
	}
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	for (m = 0; m < MEMBER_COUNT; m++) {
		if (it->source->index[m] != NO_INDEX && !fill_member(
				bt_field_structure_borrow_member_field_by_index(payload, it->source->index[m]),
				&members[m], span, input.shape)) {
			BT_MESSAGE_PUT_REF_AND_RESET(msg);
			return NULL;
		}
	}
	return msg;
}

/* Whether port `port` carries span `span`. */
static bool port_carries(unsigned int port, const struct fuzz_span *span)
{
	return port == 2 || !input.use_b || span->port == port;
}

static bt_message_iterator_class_next_method_status iter_next(
		bt_self_message_iterator *self_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct source_iter *it = bt_self_message_iterator_get_data(self_iter);
	uint64_t n = 0;

	if (it->state == 2) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	if (it->state == 0) {
		msgs[n] = bt_message_stream_beginning_create(self_iter, it->stream);
		if (!msgs[n]) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		}
		n++;
		it->state = 1;
	}
	while (n < capacity && it->next_span < input.span_count) {
		const struct fuzz_span *span = &input.spans[it->next_span++];

		if (!port_carries(it->port, span)) {
			continue;
		}
		msgs[n] = span_message(self_iter, it, span);
		if (!msgs[n]) {
			goto memory_error;
		}
		n++;
	}
	if (n < capacity && it->next_span == input.span_count) {
		msgs[n] = bt_message_stream_end_create(self_iter, it->stream);
		if (!msgs[n]) {
			goto memory_error;
		}
		n++;
		it->state = 2;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;

memory_error:
	while (n > 0) {
		bt_message_put_ref(msgs[--n]);
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
}

/* ---- the graph ---- */

static bt_component_class_source *source_class;			/* owned */
static const bt_component_class_sink *diff_class, *metrics_class;	/* owned */
static char *tmp_dir;							/* owned */

static void remove_tree(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	const char *name;

	if (dir) {
		while ((name = g_dir_read_name(dir))) {
			char *child = g_build_filename(path, name, NULL);

			remove_tree(child);
			g_free(child);
		}
		g_dir_close(dir);
	}
	(void) g_remove(path);
}

/* The sinks' outputs of one input: removed after it, so a crash leaves one small directory. */
static void clear_outputs(void)
{
	char *dir = g_build_filename(tmp_dir, "diff", NULL);
	char *file = g_build_filename(tmp_dir, "metrics.out", NULL);

	remove_tree(dir);
	(void) g_remove(file);
	g_free(file);
	g_free(dir);
}

static void cleanup(void)
{
	if (tmp_dir && !getenv("DEEPSPAN_FUZZ_TMP")) {
		remove_tree(tmp_dir);
	}
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_spans: %s\n", what);
	exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const bt_plugin_set *set = fuzz_load_plugin((*argv)[0], "fuzz_spans");
	const bt_plugin *plugin = bt_plugin_set_borrow_plugin_by_index_const(set, 0);
	bt_message_iterator_class *iter_class;

	(void) argc;
	diff_class = bt_plugin_borrow_sink_component_class_by_name_const(plugin, "diff");
	metrics_class = bt_plugin_borrow_sink_component_class_by_name_const(plugin, "metrics");
	if (!diff_class || !metrics_class) {
		die("the plugin has no sink.deepspan.diff or sink.deepspan.metrics");
	}
	bt_component_class_sink_get_ref(diff_class);
	bt_component_class_sink_get_ref(metrics_class);
	bt_plugin_set_put_ref(set);

	iter_class = bt_message_iterator_class_create(iter_next);
	source_class = iter_class ? bt_component_class_source_create("spans", iter_class) : NULL;
	if (!source_class ||
			bt_message_iterator_class_set_initialize_method(iter_class, iter_init) ||
			bt_message_iterator_class_set_finalize_method(iter_class, iter_finalize) ||
			bt_component_class_source_set_initialize_method(source_class, source_init) ||
			bt_component_class_source_set_finalize_method(source_class, source_finalize)) {
		die("cannot create the source component class");
	}
	bt_message_iterator_class_put_ref(iter_class);

	contract = getenv("DEEPSPAN_FUZZ_CONTRACT") && strcmp(getenv("DEEPSPAN_FUZZ_CONTRACT"), "0");
	tmp_dir = fuzz_tmp_dir("deepspan-fuzz");
	if (!tmp_dir) {
		die("cannot create a temporary directory");
	}
	atexit(cleanup);
	return 0;
}

static void insert(bt_value *map, const char *key, bt_value *value)
{
	if (!value || bt_value_map_insert_entry(map, key, value) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		die("out of memory");
	}
	bt_value_put_ref(value);
}

/* A group map from one byte: percentiles, a latency bound, a root or a trace id. */
static bt_value *group_map(struct fuzz_bytes *in)
{
	static const char *const durations[] = { "0", "1ns", "5ms", "1s", "9.2e18ns" };
	bt_value *map = bt_value_map_create();
	uint8_t b = fuzz_u8(in);
	bt_value *pct;

	if (!map) {
		die("out of memory");
	}
	switch (b % 5) {
	case 0:
		pct = bt_value_array_create();
		if (!pct || bt_value_array_append_real_element(pct, fuzz_u8(in) % 101) ||
				bt_value_array_append_real_element(pct, fuzz_u8(in) % 101)) {
			die("out of memory");
		}
		insert(map, "percentiles", pct);
		break;
	case 1:
		insert(map, b & 8 ? "min-duration" : "max-duration",
			bt_value_string_create_init(durations[(b >> 4) % G_N_ELEMENTS(durations)]));
		break;
	case 2:
		insert(map, b & 8 ? "min-self" : "max-self",
			bt_value_integer_signed_create_init((int64_t) fuzz_u64(in) & INT64_MAX));
		break;
	case 3:
		insert(map, "root", bt_value_string_create_init(
			operations[(b >> 4) % G_N_ELEMENTS(operations)]));
		break;
	default:
		insert(map, "trace-id", bt_value_integer_unsigned_create_init(fuzz_u8(in) % 4));
		break;
	}
	return map;
}

static bt_value *diff_params(struct fuzz_bytes *in, uint8_t header, uint8_t sink_byte,
		const char *grace)
{
	static const char *const modes[] = { "critical-path", "inclusive", "self" };
	bt_value *map = bt_value_map_create();
	char *dir = g_build_filename(tmp_dir, "diff", NULL);

	if (!map) {
		die("out of memory");
	}
	insert(map, "output-dir", bt_value_string_create_init(dir));
	insert(map, "mode", bt_value_string_create_init(modes[(header >> 1) % 3]));
	insert(map, "summary", bt_value_bool_create_init(BT_FALSE));
	insert(map, "grace", bt_value_string_create_init(grace));
	insert(map, "waterfalls", bt_value_integer_unsigned_create_init(sink_byte & 3));
	insert(map, "top", bt_value_integer_unsigned_create_init(1 + (sink_byte >> 2) % 4));
	if (sink_byte & 0x40) {
		insert(map, "group-a", group_map(in));
	}
	if (sink_byte & 0x80) {
		insert(map, "group-b", group_map(in));
	}
	g_free(dir);
	return map;
}

static bt_value *metrics_params(uint8_t header, const char *grace)
{
	static const char *const bys[] = { "operation", "request", "syscall", "thread" };
	static const char *const formats[] = { "text", "csv", "json", "markdown" };
	bt_value *map = bt_value_map_create();
	char *out = g_build_filename(tmp_dir, "metrics.out", NULL);

	if (!map) {
		die("out of memory");
	}
	insert(map, "by", bt_value_string_create_init(bys[(header >> 3) % 4]));
	insert(map, "format", bt_value_string_create_init(formats[(header >> 5) % 4]));
	insert(map, "output", bt_value_string_create_init(out));
	insert(map, "grace", bt_value_string_create_init(grace));
	g_free(out);
	return map;
}

static void connect(bt_graph *graph, const bt_component_source *src, const char *out_name,
		const bt_component_sink *sink, const char *in_name)
{
	if (bt_graph_connect_ports(graph,
			bt_component_source_borrow_output_port_by_name_const(src, out_name),
			bt_component_sink_borrow_input_port_by_name_const(sink, in_name), NULL) !=
			BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		die("cannot connect the ports");
	}
}

/* A failed graph must say why: its error has at least one cause with a message. */
static void check_failure(const char *where)
{
	const bt_error *error = bt_current_thread_take_error();

	if (!error || bt_error_get_cause_count(error) == 0 ||
			!*bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0))) {
		fprintf(stderr, "fuzz_spans: %s failed without an error cause\n", where);
		abort();
	}
	if (getenv("DEEPSPAN_FUZZ_VERBOSE")) {
		fprintf(stderr, "fuzz_spans: %s: %s\n", where,
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0)));
	}
	bt_error_release(error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const graces[] = { "1s", "10us", "0", "1ns", "2m" };
	struct fuzz_bytes in = { .data = data, .size = size };
	uint8_t header = fuzz_u8(&in), sink_byte = fuzz_u8(&in);
	const char *grace;
	const bt_component_source *src;
	const bt_component_sink *diff = NULL, *metrics = NULL;
	bt_value *dparams, *mparams;
	bt_graph *graph;
	int64_t clock = 1000000000;
	bt_graph_run_status status;

	input.use_b = header & 1;
	input.packed_chains = (header & 0x80) != 0;
	input.shape = fuzz_u8(&in);
	/* dropping a member is a tested error path: keep it rare */
	if ((input.shape & SHAPE_DROP_ONE) && (input.shape & 0x0f) != 0x0f) {
		input.shape &= ~SHAPE_DROP_ONE;
	}
	grace = graces[fuzz_u8(&in) % G_N_ELEMENTS(graces)];
	input.drop = fuzz_u8(&in) % 17;
	dparams = diff_params(&in, header, sink_byte, grace);
	mparams = metrics_params(header, grace);
	while (!fuzz_done(&in) && input.span_count < MAX_SPANS) {
		decode_span(&in, &input.spans[input.span_count], &clock);
		if (contract) {
			keep_contract(&input.spans[input.span_count]);
		}
		input.span_count++;
	}

	graph = bt_graph_create(0);
	if (!graph || bt_graph_add_source_component(graph, source_class, "spans", NULL,
			BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		die("cannot create the graph or its source");
	}
	if (bt_graph_add_sink_component(graph, diff_class, "diff", dparams,
				BT_LOGGING_LEVEL_NONE, &diff) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		check_failure("sink.deepspan.diff initialization");
		goto end;
	}
	if (bt_graph_add_sink_component(graph, metrics_class, "metrics", mparams,
				BT_LOGGING_LEVEL_NONE, &metrics) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		check_failure("sink.deepspan.metrics initialization");
		goto end;
	}
	connect(graph, src, "out-a", diff, "a");
	if (input.use_b) {
		connect(graph, src, "out-b", diff, "b");
	}
	connect(graph, src, "out-metrics", metrics, "in");
	do {
		status = bt_graph_run(graph);
	} while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	switch (status) {
	case BT_GRAPH_RUN_STATUS_OK:
		if (bt_current_thread_take_error()) {
			fprintf(stderr, "fuzz_spans: the graph succeeded with an error left on the thread\n");
			abort();
		}
		break;
	case BT_GRAPH_RUN_STATUS_ERROR:
	case BT_GRAPH_RUN_STATUS_MEMORY_ERROR:
		check_failure("the graph");
		break;
	default:
		fprintf(stderr, "fuzz_spans: unexpected graph status\n");
		abort();
	}
end:
	bt_graph_put_ref(graph);
	bt_value_put_ref(dparams);
	bt_value_put_ref(mparams);
	free_input(&input);
	clear_outputs();
	return 0;
}
