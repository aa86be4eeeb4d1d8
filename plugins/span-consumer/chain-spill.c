/* SPDX-License-Identifier: MIT */
#include "chain-spill.h"

#include <stdbool.h>
#include <string.h>

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80u) {
		*p++ = (uint8_t) (v | 0x80u);
		v >>= 7;
	}
	*p++ = (uint8_t) v;
	return p;
}

/* ZigZag of the difference x - previous (mod 2^64, read as signed). */
static inline uint8_t *put_delta(uint8_t *p, uint64_t x, uint64_t previous)
{
	uint64_t d = x - previous;

	return put_varint(p, (d << 1) ^ (0 - (d >> 63)));
}

/* False when the bytes end first or the varint has more than 10 bytes. */
static inline bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t value = 0;
	unsigned int shift;
	bool more = true;

	for (shift = 0; more && shift < 70 && *p < end; shift += 7) {
		uint8_t byte = *(*p)++;

		value |= (uint64_t) (byte & 0x7fu) << shift;
		more = (byte & 0x80u) != 0;
	}
	*v = value;
	return !more;
}

static inline bool get_delta(const uint8_t **p, const uint8_t *end, uint64_t previous, uint64_t *x)
{
	uint64_t z = 0;
	bool ok = get_varint(p, end, &z);

	*x = previous + ((z >> 1) ^ (0 - (z & 1u)));
	return ok;
}

static inline bool same_thread(const struct ds_stored_chain_entry *e, const struct ds_stored_chain_entry *prev)
{
	return e->host == prev->host && e->process == prev->process && e->comm == prev->comm &&
		e->tid == prev->tid;
}

static uint8_t *encode_entry(const struct ds_stored_chain_entry *e, const struct ds_stored_chain_entry *prev, uint8_t *p)
{
	uint8_t *head = p++;
	unsigned int flags = e->begin == prev->end ? DS_CHAIN_SPILL_BEGIN_AT_END :
		e->begin == prev->begin ? DS_CHAIN_SPILL_BEGIN_AT_BEGIN : DS_CHAIN_SPILL_BEGIN_GIVEN;

	if (flags == DS_CHAIN_SPILL_BEGIN_GIVEN) {
		p = put_delta(p, (uint64_t) e->begin, (uint64_t) prev->end);
	}
	p = put_varint(p, (uint64_t) e->end - (uint64_t) e->begin);
	p = put_delta(p, (uint64_t) (int64_t) e->parent, (uint64_t) (int64_t) prev->parent);
	p = put_varint(p, e->segment);
	p = put_varint(p, e->frame);
	p = put_varint(p, e->step);
	p = put_varint(p, e->detail);
	p = put_varint(p, e->note);
	p = put_varint(p, e->ran_comm);
	p = put_delta(p, (uint64_t) e->ran_tid, 0);
	if (same_thread(e, prev)) {
		flags |= DS_CHAIN_SPILL_SAME_THREAD;
	} else {
		p = put_varint(p, e->host);
		p = put_varint(p, e->process);
		p = put_varint(p, e->comm);
		p = put_delta(p, (uint64_t) e->tid, (uint64_t) prev->tid);
	}
	p = put_delta(p, (uint64_t) (int64_t) e->cpu, 0);
	p = put_varint(p, e->depth);
	if (e->state < 16 && e->kind < 16) {
		flags |= DS_CHAIN_SPILL_PACKED_KIND;
		*p++ = (uint8_t) (e->state | e->kind << 4);
	} else {
		*p++ = e->state;
		*p++ = e->kind;
	}
	p = put_varint(p, e->bytes + 1);
	*head = (uint8_t) (flags | (e->leaf ? DS_CHAIN_SPILL_LEAF : 0u));
	return p;
}

uint8_t *ds_chain_spill_encode_part(const struct ds_stored_chain_entry *entries, uint32_t from, uint32_t to,
		int64_t base, uint8_t *out)
{
	struct ds_stored_chain_entry first = { .begin = base, .end = base };
	const struct ds_stored_chain_entry *prev = from > 0 ? &entries[from - 1] : &first;
	uint32_t i;

	for (i = from; i < to; i++) {
		out = encode_entry(&entries[i], prev, out);
		prev = &entries[i];
	}
	return out;
}

uint8_t *ds_chain_spill_encode(const struct ds_stored_chain_entry *entries, uint32_t count, int64_t base,
		uint8_t *out)
{
	return ds_chain_spill_encode_part(entries, 0, count, base, out);
}

/* Reads the members from `parent` to `ran_tid`. */
static bool decode_labels(const uint8_t **p, const uint8_t *end, const struct ds_stored_chain_entry *prev,
		struct ds_stored_chain_entry *e)
{
	uint64_t parent = 0, segment = 0, frame = 0, step = 0, detail = 0, note = 0, ran_comm = 0, ran_tid = 0;
	bool ok = get_delta(p, end, (uint64_t) (int64_t) prev->parent, &parent) &&
		get_varint(p, end, &segment) && get_varint(p, end, &frame) && get_varint(p, end, &step) &&
		get_varint(p, end, &detail) && get_varint(p, end, &note) && get_varint(p, end, &ran_comm) &&
		get_delta(p, end, 0, &ran_tid);

	e->parent = (int32_t) parent;
	e->segment = (uint32_t) segment;
	e->frame = (uint32_t) frame;
	e->step = (uint32_t) step;
	e->detail = (uint32_t) detail;
	e->note = (uint32_t) note;
	e->ran_comm = (uint32_t) ran_comm;
	e->ran_tid = (int64_t) ran_tid;
	return ok;
}

/* Reads host, process, comm and tid (or takes `prev`'s). */
static bool decode_thread(const uint8_t **p, const uint8_t *end, unsigned int head,
		const struct ds_stored_chain_entry *prev, struct ds_stored_chain_entry *e)
{
	uint64_t host = prev->host, process = prev->process, comm = prev->comm, tid = (uint64_t) prev->tid;
	bool ok = (head & DS_CHAIN_SPILL_SAME_THREAD) ||
		(get_varint(p, end, &host) && get_varint(p, end, &process) && get_varint(p, end, &comm) &&
		get_delta(p, end, (uint64_t) prev->tid, &tid));

	e->host = (uint32_t) host;
	e->process = (uint32_t) process;
	e->comm = (uint32_t) comm;
	e->tid = (int64_t) tid;
	return ok;
}

/* Reads cpu, depth, state, kind and bytes. */
static bool decode_tail(const uint8_t **p, const uint8_t *end, unsigned int head, struct ds_stored_chain_entry *e)
{
	uint64_t cpu = 0, depth = 0, bytes = 0;
	size_t kind_bytes = head & DS_CHAIN_SPILL_PACKED_KIND ? 1 : 2;
	bool ok = get_delta(p, end, 0, &cpu) && get_varint(p, end, &depth) && (size_t) (end - *p) >= kind_bytes;

	if (ok) {
		e->state = kind_bytes == 1 ? (**p & 15u) : (*p)[0];
		e->kind = kind_bytes == 1 ? (**p >> 4) : (*p)[1];
		*p += kind_bytes;
		ok = get_varint(p, end, &bytes);
		e->cpu = (int32_t) cpu;
		e->depth = (uint16_t) depth;
	}
	e->bytes = bytes - 1;
	return ok;
}

/* The entry's begin from the head's mode; false on a bad mode or a short read. */
static bool decode_begin(const uint8_t **p, const uint8_t *end, unsigned int head,
		const struct ds_stored_chain_entry *prev, uint64_t *begin)
{
	bool ok = true;

	switch (head & DS_CHAIN_SPILL_BEGIN_MASK) {
	case DS_CHAIN_SPILL_BEGIN_AT_END:
		*begin = (uint64_t) prev->end;
		break;
	case DS_CHAIN_SPILL_BEGIN_AT_BEGIN:
		*begin = (uint64_t) prev->begin;
		break;
	case DS_CHAIN_SPILL_BEGIN_GIVEN:
		ok = get_delta(p, end, (uint64_t) prev->end, begin);
		break;
	default:
		ok = false;
		break;
	}
	return ok;
}

static const uint8_t *decode_entry(const uint8_t *p, const uint8_t *end, const struct ds_stored_chain_entry *prev,
		struct ds_stored_chain_entry *e)
{
	unsigned int head = p < end ? *p++ : DS_CHAIN_SPILL_BEGIN_MASK;
	uint64_t begin = 0, length = 0;
	bool ok;

	memset(e, 0, sizeof(*e));
	ok = decode_begin(&p, end, head, prev, &begin) && get_varint(&p, end, &length) &&
		decode_labels(&p, end, prev, e) && decode_thread(&p, end, head, prev, e) &&
		decode_tail(&p, end, head, e);
	e->begin = (int64_t) begin;
	e->end = (int64_t) (begin + length);
	e->leaf = (head & DS_CHAIN_SPILL_LEAF) != 0;
	return ok ? p : NULL;
}

const uint8_t *ds_chain_spill_decode(const uint8_t *in, const uint8_t *end, uint32_t count, int64_t base,
		struct ds_stored_chain_entry *out)
{
	struct ds_stored_chain_entry first = { .begin = base, .end = base };
	const struct ds_stored_chain_entry *prev = &first;
	uint32_t i;

	for (i = 0; i < count && in; i++) {
		in = decode_entry(in, end, prev, &out[i]);
		prev = &out[i];
	}
	return in;
}
