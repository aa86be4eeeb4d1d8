/* SPDX-License-Identifier: MIT */
/*
 * Reading a span's chain (chain-reader.h, doc/critical-path.md "Reading chains"): one always-inlined
 * read_entry in two loops, the checks of the invariants, the labels, the ends counted.
 */
#include "chain-reader.h"
#include "chain-labels.h"

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
 * Interns a chain string (chain-strings.h): the last string of that member first (hosts and threads
 * repeat), then a cache slot chosen by a hash of the key (cheaper than the store's hash table), then the
 * store.
 */
/* Always inlined: a call costs a fifth of it (prologue, epilogue; callgrind, doc/performance.md). */
static inline __attribute__((always_inline)) uint32_t intern_chain_string(struct ds_span_store *store,
		struct ds_span_reader *reader,
		unsigned int member, const bt_field *field)
{
	const char *text = bt_field_string_get_value(field);
	struct ds_chain_string_key key;
	struct ds_chain_string_slot *slot;

	ds_chain_string_key_of(&key, text, bt_field_string_get_length(field));
	if (slot_holds(store, &reader->last_chain_string[member], &key, text)) {
		return reader->last_chain_string[member].id;
	}
	slot = &reader->chain_strings[ds_chain_string_hash(&key, DS_SPAN_READER_STRINGS - 1)];
	if (!slot_holds(store, slot, &key, text)) {
		slot->id = ds_strings_intern(store->strings, text);
		slot->key = key;
	}
	reader->last_chain_string[member] = *slot;
	return slot->id;
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

/*
 * Reads the chain into the store's arena when it keeps the invariants;
 * otherwise the span keeps no chain and the chain is counted as invalid.
 */
void ds_chain_read(const struct ds_span_layout *layout, const bt_field *array,
		struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader)
{
	uint64_t n = bt_field_array_get_length(array);
	struct ds_stored_chain_entry *chain;
	const struct ds_wide_segment *wide =
		(const struct ds_wide_segment *) (void *) reader->wide->data;
	struct raw_entry *raw;
	int64_t *cursor;
	uint32_t *stored_of, *stack;
	uint64_t i;

	if (n == 0 || span->invalid) {
		return;
	}
	if (n > UINT32_MAX / 2 || span->segment_count == 0) {
		goto invalid;
	}
	g_byte_array_set_size(reader->chain_scratch, (guint) (n *
		(sizeof(struct ds_stored_chain_entry) + sizeof(struct raw_entry) +
		sizeof(int64_t) + sizeof(uint32_t)) + span->segment_count * sizeof(uint32_t)));
	chain = (struct ds_stored_chain_entry *) (void *) reader->chain_scratch->data;
	raw = (struct raw_entry *) (void *) (chain + n);
	cursor = (int64_t *) (void *) (raw + n);
	stack = (uint32_t *) (void *) (cursor + n);
	stored_of = stack + n;
	if (reader->chain_strings_of != store->strings) {
		/* the cached ids are of other strings */
		memset(reader->last_chain_string, 0, sizeof(reader->last_chain_string));
		memset(reader->chain_strings, 0, sizeof(reader->chain_strings));
		reader->chain_strings_of = store->strings;
	}
	/* The segments may have been sorted: read index -> stored index. */
	for (i = 0; i < span->segment_count; i++) {
		stored_of[wide[i].index] = (uint32_t) i;
	}
	/* two copies of the loop: span-attrib's integer types known, or each member's read from the layout */
	if (layout->chain_standard) {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&chain[i], &raw[i], store, reader, true);
		}
	} else {
		for (i = 0; i < n; i++) {
			read_entry(layout, bt_field_array_borrow_element_field_by_index_const(array, i),
				&chain[i], &raw[i], store, reader, false);
		}
	}
	if (!check_chain(chain, raw, (uint32_t) n, wide, stored_of,
			span->segment_count, cursor, stack)) {
		goto invalid;
	}
	ds_chain_label(reader->label_cache, reader->scratch, store, chain, (uint32_t) n);
	note_chain_ends(reader, store, span, chain, (uint32_t) n);
	span->chain = ds_arena_alloc(&store->chains, n);
	memcpy((void *) span->chain, chain, n * sizeof(struct ds_stored_chain_entry));
	span->chain_count = (uint32_t) n;
	reader->chains_read++;
	return;

invalid:
	reader->invalid_chains++;
}
