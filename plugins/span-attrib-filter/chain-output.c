/* SPDX-License-Identifier: MIT */
/*
 * The chain of a `deepspan:span` event (doc/critical-path.md, "Encoding"): with `chain-encoding="packed"` (the
 * default) the string member `chain_packed` (common/chain-packed.h), with "fields" the array of structures
 * `chain`.  Both are the last payload member before the layers' members.
 */
#include "span-attrib.h"
#include "chain-packed.h"
#include "chain-strings.h"

#include <string.h>

/* Members of a `chain` entry ("fields"). */
enum {
	C_SEGMENT, C_PARENT, C_DEPTH, C_BEGIN, C_END, C_HOST, C_PID, C_TID, C_COMM, C_PROCESS, C_CPU, C_STATE,
	C_KIND, C_DETAIL,
	C_BYTES,	/* only with layers */
};

/* A string of the chain being packed: in the table of the span (numbered from 1) when `generation` is now. */
struct chain_packer_slot {
	struct ds_chain_string_key key;
	const char *text;	/* borrowed: in the span's chain entries */
	uint32_t number;
	uint32_t generation;
};

/* The structure of one `chain` entry (C_* order). */
static bt_field_class *chain_entry_create(bt_trace_class *tc, bool with_layers)
{
	bt_field_class *entry = bt_field_class_structure_create(tc);

	if (!entry || output_fc_append(entry, "segment", bt_field_class_integer_unsigned_create(tc)) ||
			output_fc_append(entry, "parent", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "depth", bt_field_class_integer_unsigned_create(tc)) ||
			output_fc_append(entry, "begin", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "end", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "host", bt_field_class_string_create(tc)) ||
			output_fc_append(entry, "pid", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "tid", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "comm", bt_field_class_string_create(tc)) ||
			output_fc_append(entry, "process", bt_field_class_string_create(tc)) ||
			output_fc_append(entry, "cpu", bt_field_class_integer_signed_create(tc)) ||
			output_fc_append(entry, "state", output_state_enum_create(tc)) ||
			output_fc_append(entry, "kind", output_enum_create(tc, DS_CHAIN_KIND_COUNT, ds_chain_kind_name)) ||
			output_fc_append(entry, "detail", bt_field_class_string_create(tc)) ||
			(with_layers && output_fc_append(entry, "bytes", bt_field_class_integer_unsigned_create(tc)))) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(entry);
	}
	return entry;
}

int chain_output_append_member(bt_trace_class *tc, bt_field_class *payload, enum chain_encoding encoding,
		bool with_layers)
{
	bt_field_class *entry;
	int err;

	if (encoding == CHAIN_ENCODING_PACKED) {
		return output_fc_append(payload, "chain_packed", bt_field_class_string_create(tc));
	}
	entry = chain_entry_create(tc, with_layers);
	err = !entry || output_fc_append(payload, "chain", bt_field_class_array_dynamic_create(tc, entry, NULL));
	bt_field_class_put_ref(entry);
	return err ? -1 : 0;
}

/* ---- "fields" ---- */

/*
 * The text of a chain entry string whose length `*len` chain.h keeps (UINT8_MAX: 255 or more), "-" for an
 * empty one (empty strings do not survive a save, doc/span-attrib.md "No empty strings"); `*len` its length.
 */
static const char *entry_text(const char *text, uint8_t keep, size_t *len)
{
	*len = keep == UINT8_MAX ? strlen(text) : keep;
	if (*len == 0) {
		*len = 1;
		return DS_SPAN_NONE;
	}
	return text;
}

static int set_text(bt_field *field, const char *value, uint8_t keep)
{
	size_t len;

	value = entry_text(value, keep, &len);
	bt_field_string_clear(field);
	return bt_field_string_append_with_length(field, value, len) == BT_FIELD_STRING_APPEND_STATUS_OK ? 0 : -1;
}

static int fill_fields(bt_field *array, const struct sa_span *span, bool with_layers)
{
	guint count = span->chain ? span->chain->len : 0;
	guint i;

	if (bt_field_array_dynamic_set_length(array, count)) {
		return -1;
	}
	for (i = 0; i < count; i++) {
		const struct ds_chain_entry *e = &g_array_index(span->chain, struct ds_chain_entry, i);
		bt_field *elem = bt_field_array_borrow_element_field_by_index(array, i);

		output_set_u64(elem, C_SEGMENT, e->segment);
		output_set_s64(elem, C_PARENT, e->parent);
		output_set_u64(elem, C_DEPTH, e->depth);
		output_set_s64(elem, C_BEGIN, e->begin);
		output_set_s64(elem, C_END, e->end);
		output_set_s64(elem, C_PID, e->pid);
		output_set_s64(elem, C_TID, e->tid);
		output_set_s64(elem, C_CPU, e->cpu);
		output_set_u64(elem, C_STATE, (uint64_t) e->state);
		output_set_u64(elem, C_KIND, (uint64_t) e->kind);
		if (with_layers) {
			output_set_u64(elem, C_BYTES, e->bytes);
		}
		if (set_text(bt_field_structure_borrow_member_field_by_index(elem, C_HOST), e->host, e->host_len) ||
				set_text(bt_field_structure_borrow_member_field_by_index(elem, C_COMM), e->comm,
					e->comm_len) ||
				set_text(bt_field_structure_borrow_member_field_by_index(elem, C_PROCESS), e->process,
					e->process_len) ||
				set_text(bt_field_structure_borrow_member_field_by_index(elem, C_DETAIL), e->detail,
					e->detail_len)) {
			return -1;
		}
	}
	return 0;
}

/* ---- "packed" ---- */

/* Room for one entry but its host name: its integers, four string references and the texts of three. */
#define ENTRY_ROOM (11 * DS_PACKED_UINT_MAX + 4 * 2 * DS_PACKED_UINT_MAX + \
	sizeof(((struct ds_chain_entry *) NULL)->comm) + sizeof(((struct ds_chain_entry *) NULL)->process) + \
	sizeof(((struct ds_chain_entry *) NULL)->detail))

/* The string table of a packed chain: CHAIN_PACKER_SLOTS slots, at most half of them numbered strings
 * (a chain has few distinct strings; past that, strings are written as literals again, which is allowed). */
#define CHAIN_PACKER_SLOTS 64

static void packer_reset(struct chain_packer *p)
{
	if (++p->generation == 0) {
		memset(p->slots, 0, CHAIN_PACKER_SLOTS * sizeof(*p->slots));
		p->generation = 1;
	}
	p->strings = 0;
	p->in_table = 0;
	memset(p->last, 0, sizeof(p->last));
}

static inline bool same_key(const struct ds_chain_string_key *a, const struct ds_chain_string_key *b)
{
	return a->head == b->head && a->tail == b->tail && a->length == b->length;
}

/*
 * Writes a reference to chain entry string `text` (chain.h's `keep` length) of member `member` at `out`: its
 * number when the chain wrote it before (the member's last string first, then the table), else the literal.
 */
/* Always inlined: four calls per entry, whose prologues and epilogues cost a fifth of it (callgrind). */
static inline __attribute__((always_inline)) size_t put_string(struct chain_packer *p, char *out,
		unsigned int member, const char *text, uint8_t keep)
{
	struct ds_chain_string_key key;
	struct chain_packer_last *last = &p->last[member];
	size_t length, i, n;

	text = entry_text(text, keep, &length);
	if (last->number && last->text == text && last->key.length == length) {
		/* the same bytes as the member's last string (a host name: the model's, borrowed by every entry) */
		return ds_packed_put_uint(out, last->number);
	}
	ds_chain_string_key_of(&key, text, length);
	if (last->number && same_key(&last->key, &key) &&
			(length <= DS_CHAIN_STRING_EXACT || memcmp(last->text, text, length) == 0)) {
		return ds_packed_put_uint(out, last->number);
	}
	for (i = (size_t) ds_chain_string_hash(&key, CHAIN_PACKER_SLOTS - 1);; i = (i + 1) & (CHAIN_PACKER_SLOTS - 1)) {
		struct chain_packer_slot *slot = &p->slots[i];

		if (slot->generation != p->generation) {
			p->strings++;
			if (p->in_table < CHAIN_PACKER_SLOTS / 2) {
				*slot = (struct chain_packer_slot) { key, text, p->strings, p->generation };
				p->in_table++;
			}
			*last = (struct chain_packer_last) { key, text, p->strings };
			break;
		}
		if (same_key(&slot->key, &key) && (length <= DS_CHAIN_STRING_EXACT ||
				memcmp(slot->text, text, length) == 0)) {
			*last = (struct chain_packer_last) { key, slot->text, slot->number };
			return ds_packed_put_uint(out, slot->number);
		}
	}
	n = ds_packed_put_uint(out, 0);
	n += ds_packed_put_uint(out + n, length);
	memcpy(out + n, text, length);
	return n + length;
}

/* The packed text of the span's chain in p->text. */
static void pack_chain(struct chain_packer *p, const struct sa_span *span, bool with_layers)
{
	guint count = span->chain ? span->chain->len : 0, i;
	int64_t previous_begin = span->begin;
	size_t n = 0;
	char *out;

	packer_reset(p);
	if (p->text->len < 2 + DS_PACKED_UINT_MAX) {
		g_byte_array_set_size(p->text, 2 + DS_PACKED_UINT_MAX);
	}
	out = (char *) p->text->data;
	out[n++] = with_layers ? DS_PACKED_HEADER_BYTES : DS_PACKED_HEADER;
	n += ds_packed_put_uint(out + n, count);
	for (i = 0; i < count; i++) {
		const struct ds_chain_entry *e = &g_array_index(span->chain, struct ds_chain_entry, i);
		size_t host_len;

		entry_text(e->host, e->host_len, &host_len);
		if (n + ENTRY_ROOM + host_len > p->text->len) {
			g_byte_array_set_size(p->text, (guint) (2 * (n + ENTRY_ROOM + host_len)));
			out = (char *) p->text->data;
		}
		n += ds_packed_put_uint(out + n, e->segment);
		n += ds_packed_put_uint(out + n, (uint64_t) (e->parent + 1));
		n += ds_packed_put_uint(out + n, ds_packed_zigzag((int64_t) ((uint64_t) e->begin -
			(uint64_t) previous_begin)));
		n += ds_packed_put_uint(out + n, ds_packed_zigzag((int64_t) ((uint64_t) e->end - (uint64_t) e->begin)));
		n += put_string(p, out + n, 0, e->host, e->host_len);
		n += ds_packed_put_uint(out + n, ds_packed_zigzag(e->tid));
		n += ds_packed_put_uint(out + n, ds_packed_zigzag((int64_t) ((uint64_t) e->pid - (uint64_t) e->tid)));
		n += put_string(p, out + n, 1, e->comm, e->comm_len);
		n += put_string(p, out + n, 2, e->process, e->process_len);
		n += ds_packed_put_uint(out + n, ds_packed_zigzag(e->cpu));
		n += ds_packed_put_uint(out + n, (uint64_t) e->state);
		n += ds_packed_put_uint(out + n, (uint64_t) e->kind);
		n += put_string(p, out + n, 3, e->detail, e->detail_len);
		if (with_layers) {
			n += ds_packed_put_uint(out + n, e->bytes);
		}
		previous_begin = e->begin;
	}
	p->length = n;
}

int chain_output_fill(bt_field *field, struct chain_packer *packer, const struct sa_span *span,
		enum chain_encoding encoding, bool with_layers)
{
	if (encoding == CHAIN_ENCODING_FIELDS) {
		return fill_fields(field, span, with_layers);
	}
	pack_chain(packer, span, with_layers);
	bt_field_string_clear(field);
	return bt_field_string_append_with_length(field, (const char *) packer->text->data, packer->length) ==
		BT_FIELD_STRING_APPEND_STATUS_OK ? 0 : -1;
}

void chain_packer_init(struct chain_packer *packer)
{
	packer->text = g_byte_array_new();
	packer->slots = g_new0(struct chain_packer_slot, CHAIN_PACKER_SLOTS);
}

void chain_packer_fini(struct chain_packer *packer)
{
	if (packer->text) {
		g_byte_array_free(packer->text, TRUE);
		packer->text = NULL;
	}
	g_free(packer->slots);
	packer->slots = NULL;
}
