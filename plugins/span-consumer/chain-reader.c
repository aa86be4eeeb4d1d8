/* SPDX-License-Identifier: MIT */
/*
 * Reading a span's chain (chain-reader.h, doc/critical-path.md "Reading chains"), packed (one pass over the
 * string of chain-packed.h) or as fields (one always-inlined read_entry in two loops); then the checks of the
 * invariants, the labels, the ends counted.
 */
#include "chain-reader.h"
#include "chain-labels.h"
#include "chain-packed.h"

#include <string.h>

/* The signedness of each chain member as filter.deepspan.span-attrib writes it (output.c). */
static const bool standard_signed[CH_COUNT + 1] = {
	[CH_PARENT] = true, [CH_BEGIN] = true, [CH_END] = true, [CH_TID] = true, [CH_CPU] = true,
};

/* Whether every integer member of a chain entry has the signedness span-attrib writes (standard_signed). */
bool ds_chain_is_standard(const struct element_layout *el)
{
	static const bool is_int[CH_COUNT + 1] = {
		[CH_SEGMENT] = true, [CH_PARENT] = true, [CH_DEPTH] = true, [CH_BEGIN] = true, [CH_END] = true,
		[CH_TID] = true, [CH_CPU] = true, [CH_STATE] = true, [CH_KIND] = true, [CH_BYTES] = true,
	};
	unsigned int m;

	for (m = 0; m <= CH_BYTES; m++) {
		if (is_int[m] && el->index[m] != NO_MEMBER && el->is_signed[m] != standard_signed[m]) {
			return false;
		}
	}
	return true;
}

/* Whether `slot` holds `text` of key `key` (chain-strings.h). */
static inline bool slot_holds(const struct ds_span_store *store, const struct ds_chain_string_slot *slot,
		const struct ds_chain_string_key *key, const char *text)
{
	return ds_chain_string_slot_has(slot, key) && (key->length <= DS_CHAIN_STRING_EXACT ||
		memcmp(text, ds_store_string(store, slot->id), key->length) == 0);
}

/*
 * Interns chain string `text` of `length` bytes (chain-strings.h; followed by a NUL when `terminated`, else
 * copied before the store keeps it): the last string of that member first (hosts and threads repeat), then a
 * cache slot chosen by a hash of the key (cheaper than the store's hash table), then the store.
 */
/* Always inlined: a call costs a fifth of it (prologue, epilogue; callgrind, doc/performance.md). */
static inline __attribute__((always_inline)) uint32_t intern_text(struct ds_span_store *store,
		struct ds_span_reader *reader, unsigned int member, const char *text, uint64_t length,
		bool terminated)
{
	struct ds_chain_string_key key;
	struct ds_chain_string_slot *slot;

	ds_chain_string_key_of(&key, text, length);
	if (slot_holds(store, &reader->last_chain_string[member], &key, text)) {
		return reader->last_chain_string[member].id;
	}
	slot = &reader->chain_strings[ds_chain_string_hash(&key, DS_SPAN_READER_STRINGS - 1)];
	if (!slot_holds(store, slot, &key, text)) {
		if (terminated) {
			slot->id = ds_strings_intern(store->strings, text);
		} else if (length < 256) {
			char copy[256];

			memcpy(copy, text, length);
			copy[length] = '\0';
			slot->id = ds_strings_intern(store->strings, copy);
		} else {
			char *copy = g_strndup(text, (gsize) length);

			slot->id = ds_strings_intern(store->strings, copy);
			g_free(copy);
		}
		slot->key = key;
	}
	reader->last_chain_string[member] = *slot;
	return slot->id;
}

static inline __attribute__((always_inline)) uint32_t intern_chain_string(struct ds_span_store *store,
		struct ds_span_reader *reader, unsigned int member, const bt_field *field)
{
	return intern_text(store, reader, member, bt_field_string_get_value(field),
		bt_field_string_get_length(field), true);
}

/* A chain entry as read, before the checks and the labels. */
struct raw_entry {
	int64_t segment;
	int64_t parent;
	int64_t depth;
};

static inline bool is_waited(unsigned int state)
{
	return state == DS_STATE_BLOCKED || state == DS_STATE_WAIT_CPU;
}

/*
 * Checks the invariants of doc/critical-path.md on the chain read into
 * `chain` (`raw`: the indices as read) against the span's segments as read
 * (`wide`, in stored order; `stored_of`: read index -> stored index):
 * depth-first order, parent before child, depths, the children of an entry
 * partitioning it and the depth-0 entries of a segment partitioning it,
 * entries exactly on the waited segments.
 */
static bool check_chain(struct ds_stored_chain_entry *chain, const struct raw_entry *raw,
		uint32_t count, const struct ds_wide_segment *wide, const uint32_t *stored_of,
		uint32_t segment_count, int64_t *cursor, uint32_t *stack)
{
	uint32_t depth = 0, i, covered = 0, waited = 0;
	int64_t segment = -1, segment_cursor = 0;

	for (i = 0; i < count; i++) {
		struct ds_stored_chain_entry *e = &chain[i];
		int64_t parent = raw[i].parent;

		if (raw[i].segment < 0 || raw[i].segment >= segment_count ||
				parent < -1 || parent >= (int64_t) i || e->begin > e->end) {
			return false;
		}
		e->segment = stored_of[raw[i].segment];
		e->parent = (int32_t) parent;
		/* Close the entries that are not ancestors of this one. */
		while (depth > 0 && (int64_t) stack[depth - 1] != parent) {
			uint32_t done = stack[--depth];

			if (done + 1 < count && raw[done + 1].parent == (int64_t) done &&
					cursor[done] != chain[done].end) {
				return false;	/* its children do not reach its end */
			}
		}
		if (parent >= 0 && depth == 0) {
			return false;	/* its parent is closed: not depth-first */
		}
		if (parent < 0) {
			const struct ds_wide_segment *seg = &wide[e->segment];

			if (raw[i].depth != 0) {
				return false;
			}
			if ((int64_t) e->segment != segment) {
				if ((segment >= 0 && (segment_cursor != wide[segment].end ||
						(int64_t) e->segment < segment)) ||
						!is_waited(seg->state)) {
					return false;
				}
				segment = e->segment;
				segment_cursor = seg->begin;
				covered++;
			}
			if (e->begin != segment_cursor) {
				return false;
			}
			segment_cursor = e->end;
			e->depth = 0;
		} else {
			const struct ds_stored_chain_entry *p = &chain[parent];

			if (raw[i].depth != (int64_t) p->depth + 1 || e->segment != p->segment ||
					e->begin != cursor[parent] ||
					p->depth + 1u >= DS_CHAIN_MAX_READ_DEPTH) {
				return false;
			}
			cursor[parent] = e->end;
			e->depth = (uint16_t) (p->depth + 1);
		}
		cursor[i] = e->begin;
		stack[depth++] = i;
	}
	while (depth > 0) {
		uint32_t done = stack[--depth];

		if (done + 1 < count && raw[done + 1].parent == (int64_t) done &&
				cursor[done] != chain[done].end) {
			return false;
		}
	}
	if (segment >= 0 && segment_cursor != wide[segment].end) {
		return false;
	}
	for (i = 0; i < segment_count; i++) {
		waited += is_waited(wide[i].state);
	}
	return covered == waited;
}

static void count_detail(GHashTable *counts, uint32_t detail)
{
	gpointer key = GUINT_TO_POINTER(detail);

	g_hash_table_insert(counts, key, GUINT_TO_POINTER(
		GPOINTER_TO_UINT(g_hash_table_lookup(counts, key)) + 1));
}

/*
 * Counts the deadlocks a chain ends in, and for a span still open at the end
 * of the trace the threads still blocked then (once per span and detail).
 */
static void note_chain_ends(struct ds_span_reader *reader, struct ds_span_store *store,
		const struct ds_span *span, const struct ds_stored_chain_entry *chain, uint32_t count)
{
	uint32_t i, last_deadlock = 0, last_stuck = 0;

	for (i = 0; i < count; i++) {
		const struct ds_stored_chain_entry *e = &chain[i];

		if (!e->leaf) {
			continue;
		}
		if (e->kind == DS_CHAIN_DEADLOCK && e->detail != last_deadlock) {
			count_detail(reader->deadlocks, e->detail);
			last_deadlock = e->detail;
		} else if (span->truncated && e->kind == DS_CHAIN_UNKNOWN && e->detail != last_stuck &&
				g_str_has_prefix(ds_store_string(store, e->detail),
					"unknown: still blocked at end of trace")) {
			count_detail(reader->stuck, e->detail);
			last_stuck = e->detail;
		}
	}
}

/*
 * Reads chain entry `e` into `out` and `raw`.  With `standard` (a constant at each call: the compiler keeps
 * two copies), the members' signedness is span-attrib's, known without a look-up in the layout.
 */
static inline __attribute__((always_inline)) void read_entry(const struct ds_span_layout *layout,
		const bt_field *e, struct ds_stored_chain_entry *out, struct raw_entry *raw, struct ds_span_store *store,
		struct ds_span_reader *reader, bool standard)
{
	const struct element_layout *el = &layout->chain;
	int64_t state, kind;

#define CH_SIGNED(m) (standard ? standard_signed[m] : el->is_signed[m])
#define CH_INT(m) read_int(member_at(e, el->index[m]), CH_SIGNED(m))
#define CH_STRING(m) intern_chain_string(store, reader, m, member_at(e, el->index[m]))
	state = CH_INT(CH_STATE);
	kind = CH_INT(CH_KIND);
	memset(out, 0, sizeof(*out));
	raw->segment = CH_SIGNED(CH_SEGMENT) ? CH_INT(CH_SEGMENT) :
		(int64_t) MIN(read_uint(member_at(e, el->index[CH_SEGMENT]), false), (uint64_t) INT64_MAX);
	raw->parent = CH_INT(CH_PARENT);
	raw->depth = CH_SIGNED(CH_DEPTH) ? CH_INT(CH_DEPTH) :
		(int64_t) MIN(read_uint(member_at(e, el->index[CH_DEPTH]), false), (uint64_t) INT64_MAX);
	out->begin = CH_INT(CH_BEGIN);
	out->end = CH_INT(CH_END);
	out->tid = CH_INT(CH_TID);
	out->cpu = (int32_t) CLAMP(CH_INT(CH_CPU), -1, INT32_MAX);
	out->state = state >= 0 && state < 256 ? layout->chain_state_of_value[state] : DS_STATE_UNKNOWN;
	out->kind = kind >= 0 && kind < 256 ? layout->kind_of_value[kind] : DS_CHAIN_UNKNOWN;
	out->host = CH_STRING(CH_HOST);
	out->comm = CH_STRING(CH_COMM);
	out->process = CH_STRING(CH_PROCESS);
	out->detail = CH_STRING(CH_DETAIL);
	out->bytes = el->index[CH_BYTES] == NO_MEMBER ? DS_CHAIN_BYTES_UNKNOWN :
		read_uint(member_at(e, el->index[CH_BYTES]), CH_SIGNED(CH_BYTES));
#undef CH_SIGNED
#undef CH_INT
#undef CH_STRING
}

/* The scratch arrays of one chain being read (in reader->chain_scratch). */
struct chain_scratch {
	struct ds_stored_chain_entry *chain;
	struct raw_entry *raw;
	int64_t *cursor;
	uint32_t *stack;
	uint32_t *stored_of;	/* read index of a segment -> stored index */
};

/* Sizes the scratch for `n` entries and resets the strings cache when the store's strings changed. */
static struct chain_scratch chain_scratch_of(struct ds_span_reader *reader, struct ds_span_store *store,
		const struct ds_span *span, uint64_t n)
{
	const struct ds_wide_segment *wide = (const struct ds_wide_segment *) (void *) reader->wide->data;
	struct chain_scratch s;
	uint32_t i;

	g_byte_array_set_size(reader->chain_scratch, (guint) (n *
		(sizeof(struct ds_stored_chain_entry) + sizeof(struct raw_entry) +
		sizeof(int64_t) + sizeof(uint32_t)) + span->segment_count * sizeof(uint32_t)));
	s.chain = (struct ds_stored_chain_entry *) (void *) reader->chain_scratch->data;
	s.raw = (struct raw_entry *) (void *) (s.chain + n);
	s.cursor = (int64_t *) (void *) (s.raw + n);
	s.stack = (uint32_t *) (void *) (s.cursor + n);
	s.stored_of = s.stack + n;
	if (reader->chain_strings_of != store->strings) {
		/* the cached ids are of other strings */
		memset(reader->last_chain_string, 0, sizeof(reader->last_chain_string));
		memset(reader->chain_strings, 0, sizeof(reader->chain_strings));
		reader->chain_strings_of = store->strings;
	}
	/* The segments may have been sorted: read index -> stored index. */
	for (i = 0; i < span->segment_count; i++) {
		s.stored_of[wide[i].index] = i;
	}
	return s;
}

/* Checks the chain read into `s`, labels it and keeps it in the store's arena; else counts it invalid. */
static void chain_keep(struct ds_span_reader *reader, struct ds_span_store *store, struct ds_span *span,
		const struct chain_scratch *s, uint32_t n)
{
	const struct ds_wide_segment *wide = (const struct ds_wide_segment *) (void *) reader->wide->data;

	if (!check_chain(s->chain, s->raw, n, wide, s->stored_of, span->segment_count, s->cursor, s->stack)) {
		reader->invalid_chains++;
		return;
	}
	ds_chain_label(reader->label_cache, reader->scratch, store, s->chain, n);
	note_chain_ends(reader, store, span, s->chain, n);
	span->chain = ds_arena_alloc(&store->chains, n);
	memcpy((void *) span->chain, s->chain, n * sizeof(struct ds_stored_chain_entry));
	span->chain_count = n;
	reader->chains_read++;
}

void ds_chain_read(const struct ds_span_layout *layout, const bt_field *array,
		struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader)
{
	uint64_t n = bt_field_array_get_length(array), i;
	struct chain_scratch s;

	if (n == 0 || span->invalid) {
		return;
	}
	if (n > UINT32_MAX / 2 || span->segment_count == 0) {
		reader->invalid_chains++;
		return;
	}
	s = chain_scratch_of(reader, store, span, n);
	/* two copies of the loop: span-attrib's integer types known, or each member's read from the layout */
	if (layout->chain_standard) {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&s.chain[i], &s.raw[i], store, reader, true);
		}
	} else {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&s.chain[i], &s.raw[i], store, reader, false);
		}
	}
	chain_keep(reader, store, span, &s, (uint32_t) n);
}

/* The fewest characters of a packed entry: 9 integers and 4 string references of one character each. */
#define PACKED_ENTRY_MIN 13

/* The interned id of the string reference at `cur` (a literal joins the table); 0 with `cur->bad` set. */
static inline __attribute__((always_inline)) uint32_t unpack_string(struct ds_packed_cursor *cur,
		struct ds_span_store *store, struct ds_span_reader *reader, unsigned int member)
{
	GArray *table = reader->packed_strings;
	uint64_t ref = ds_packed_get_uint(cur);
	struct ds_packed_string *string;

	if (ref == 0) {
		uint64_t length = ds_packed_get_uint(cur);
		struct ds_packed_string literal = { cur->at, length, 0 };

		if (cur->bad || literal.length == 0 || literal.length > (uint64_t) (cur->end - cur->at)) {
			cur->bad = true;
			return 0;
		}
		cur->at += literal.length;
		g_array_append_val(table, literal);
		ref = table->len;
	} else if (ref > table->len) {
		cur->bad = true;
		return 0;
	}
	string = &g_array_index(table, struct ds_packed_string, ref - 1);
	if (string->id == 0) {
		string->id = intern_text(store, reader, member, string->text, string->length,
			string->text + string->length == cur->end);
	}
	return string->id;
}

/*
 * Reads packed entry `i` (after `begin`, the previous entry's begin) into s->chain[i] and s->raw[i] (parents
 * before children: `raw` of the parent is read); false when it is not of the format or a time overflows.
 */
static inline __attribute__((always_inline)) bool unpack_entry(struct ds_packed_cursor *cur,
		struct chain_scratch *s, uint64_t i, int64_t *begin, bool with_bytes, struct ds_span_store *store,
		struct ds_span_reader *reader)
{
	struct raw_entry *raw = &s->raw[i];
	uint64_t segment = ds_packed_get_uint(cur), parent = ds_packed_get_uint(cur), state, kind;
	int64_t delta = ds_packed_get_int(cur), duration = ds_packed_get_int(cur), first, last, tid, cpu;
	uint32_t host, comm, process, detail;

	if (parent > i || __builtin_add_overflow(*begin, delta, &first) ||
			__builtin_add_overflow(first, duration, &last)) {
		return false;
	}
	*begin = first;
	raw->segment = (int64_t) MIN(segment, (uint64_t) INT64_MAX);
	raw->parent = (int64_t) parent - 1;
	raw->depth = parent == 0 ? 0 : s->raw[parent - 1].depth + 1;
	host = unpack_string(cur, store, reader, CH_HOST);
	tid = ds_packed_get_int(cur);
	(void) ds_packed_get_int(cur);	/* pid - tid: the pid is not used by the sinks */
	comm = unpack_string(cur, store, reader, CH_COMM);
	process = unpack_string(cur, store, reader, CH_PROCESS);
	cpu = ds_packed_get_int(cur);
	state = ds_packed_get_uint(cur);
	kind = ds_packed_get_uint(cur);
	detail = unpack_string(cur, store, reader, CH_DETAIL);
	/* every member set (the checks and the labels set the others): no memset */
	s->chain[i] = (struct ds_stored_chain_entry) {
		.begin = first, .end = last, .tid = tid, .host = host, .comm = comm, .process = process,
		.cpu = (int32_t) CLAMP(cpu, -1, INT32_MAX),
		.state = state < DS_STATE_COUNT ? (uint8_t) state : DS_STATE_UNKNOWN,
		.kind = kind < DS_CHAIN_KIND_COUNT ? (uint8_t) kind : DS_CHAIN_UNKNOWN,
		.detail = detail, .bytes = with_bytes ? ds_packed_get_uint(cur) : DS_CHAIN_BYTES_UNKNOWN,
	};
	return !cur->bad;
}

void ds_chain_read_packed(const bt_field *text, struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader)
{
	const char *at = bt_field_string_get_value(text);
	uint64_t length = bt_field_string_get_length(text), n, i;
	struct ds_packed_cursor cur = { at + 1, at + length, false };
	int64_t begin = span->begin;
	struct chain_scratch s;
	bool with_bytes;

	if (span->invalid) {
		return;
	}
	if (length == 0 || (at[0] != DS_PACKED_HEADER && at[0] != DS_PACKED_HEADER_BYTES)) {
		goto invalid;
	}
	with_bytes = at[0] == DS_PACKED_HEADER_BYTES;
	n = ds_packed_get_uint(&cur);
	if (cur.bad || n > (uint64_t) (cur.end - cur.at) / PACKED_ENTRY_MIN || n > UINT32_MAX / 2) {
		goto invalid;
	}
	if (n == 0) {
		if (cur.at != cur.end) {
			goto invalid;
		}
		return;
	}
	if (span->segment_count == 0) {
		goto invalid;
	}
	s = chain_scratch_of(reader, store, span, n);
	g_array_set_size(reader->packed_strings, 0);
	for (i = 0; i < n; i++) {
		if (!unpack_entry(&cur, &s, i, &begin, with_bytes, store, reader)) {
			goto invalid;
		}
	}
	if (cur.at != cur.end) {
		goto invalid;
	}
	chain_keep(reader, store, span, &s, (uint32_t) n);
	return;

invalid:
	reader->invalid_chains++;
}
