/* SPDX-License-Identifier: MIT */
#include "span-store.h"

#include <stdlib.h>
#include <string.h>

void ds_strings_init(struct ds_strings *strings)
{
	strings->ids = g_hash_table_new(g_str_hash, g_str_equal);
	strings->texts = g_ptr_array_new_with_free_func(g_free);
	memset(strings->cache, 0, sizeof(strings->cache));
	ds_strings_intern(strings, "");
}

void ds_strings_fini(struct ds_strings *strings)
{
	if (strings->ids) {
		g_hash_table_destroy(strings->ids);
		strings->ids = NULL;
	}
	if (strings->texts) {
		g_ptr_array_free(strings->texts, TRUE);
		strings->texts = NULL;
	}
}

/* The cache slot of a text of length `n` (the length multiplied too: see chain-strings.h). */
static inline uint32_t *cache_slot(struct ds_strings *strings, const char *text, size_t n)
{
	uint64_t head = 0, tail = 0;

	memcpy(&head, text, MIN(n, sizeof(head)));
	if (n > sizeof(tail)) {
		memcpy(&tail, text + n - sizeof(tail), sizeof(tail));
	}
	return &strings->cache[((head * UINT64_C(0x9e3779b97f4a7c15)) ^ (tail * UINT64_C(0xc2b2ae3d27d4eb4f)) ^
		((uint64_t) n * UINT64_C(0x165667b19e3779f9))) >> 40 & (DS_STRINGS_CACHE - 1)];
}

uint32_t ds_strings_intern(struct ds_strings *strings, const char *text)
{
	gpointer found;
	char *copy;
	uint32_t id, *slot;

	if (text[0] == '\0' && strings->texts->len > 0) {
		return 0;	/* the empty string, the most common detail */
	}
	slot = cache_slot(strings, text, strlen(text));
	if (*slot && strcmp(g_ptr_array_index(strings->texts, *slot - 1), text) == 0) {
		return *slot - 1;
	}
	found = g_hash_table_lookup(strings->ids, text);
	if (found) {
		id = (uint32_t) GPOINTER_TO_UINT(found) - 1;
	} else {
		copy = g_strdup(text);
		id = strings->texts->len;
		g_ptr_array_add(strings->texts, copy);
		g_hash_table_insert(strings->ids, copy, GUINT_TO_POINTER(id + 1));
	}
	*slot = id + 1;
	return id;
}

uint32_t ds_strings_find(const struct ds_strings *strings, const char *text)
{
	gpointer found = g_hash_table_lookup(strings->ids, text);

	return found ? (uint32_t) GPOINTER_TO_UINT(found) - 1 : UINT32_MAX;
}

const char *ds_strings_get(const struct ds_strings *strings, uint32_t id)
{
	return id < strings->texts->len ?
		(const char *) g_ptr_array_index(strings->texts, id) : "";
}

/* `t` as an offset into the span, clipped to it and to 48 bits (end >= begin). */
static uint64_t clipped_offset(int64_t t, int64_t span_begin, int64_t span_end)
{
	uint64_t length = (uint64_t) span_end - (uint64_t) span_begin;
	uint64_t limit = length < DS_SEGMENT_MAX_OFFSET ? length : DS_SEGMENT_MAX_OFFSET;
	uint64_t offset;

	if (t <= span_begin) {
		return 0;
	}
	offset = (uint64_t) t - (uint64_t) span_begin;
	return offset < limit ? offset : limit;
}

void ds_segment_pack(int64_t span_begin, int64_t span_end,
		const struct ds_wide_segment *wide, struct ds_segment *out)
{
	uint64_t begin = clipped_offset(wide->begin, span_begin, span_end);
	uint64_t end = clipped_offset(wide->end, span_begin, span_end);
	uint32_t detail = wide->detail <= DS_SEGMENT_MAX_DETAIL ? wide->detail : 0;

	out->begin_low = (uint32_t) begin;
	out->begin_high = (uint16_t) (begin >> 32);
	out->end_low = (uint32_t) end;
	out->end_high = (uint16_t) (end >> 32);
	out->detail_state = detail << 3 | (wide->state & 7u);
}

/*
 * Bytes per arena block.  Blocks are reused after a reset (the request
 * stream empties its store after each batch), so each page is faulted in
 * once; untouched pages of a block cost no memory.
 */
#define ARENA_BLOCK_BYTES ((size_t) 2 << 20)

/* `bytes` of uninitialized memory, cache-line aligned; free() it. */
static void *alloc_block(size_t bytes)
{
	void *block = NULL;

	if (posix_memalign(&block, 64, bytes) != 0) {
		g_error("deepspan: out of memory allocating %zu bytes for spans", bytes);
	}
	return block;
}

void ds_arena_init(struct ds_arena *arena, size_t element_size)
{
	arena->blocks = g_ptr_array_new_with_free_func(free);
	arena->spare = g_ptr_array_new_with_free_func(free);
	arena->own_runs = g_ptr_array_new_with_free_func(free);
	arena->element_size = element_size;
	arena->next = NULL;
	arena->left = 0;
	arena->used = 0;
}

void ds_arena_fini(struct ds_arena *arena)
{
	if (arena->blocks) {
		g_ptr_array_free(arena->blocks, TRUE);
		g_ptr_array_free(arena->spare, TRUE);
		g_ptr_array_free(arena->own_runs, TRUE);
		arena->blocks = arena->spare = arena->own_runs = NULL;
	}
	arena->next = NULL;
	arena->left = 0;
}

void ds_arena_reset(struct ds_arena *arena)
{
	guint i;

	for (i = 0; i < arena->blocks->len; i++) {
		g_ptr_array_add(arena->spare, g_ptr_array_index(arena->blocks, i));
	}
	g_ptr_array_set_free_func(arena->blocks, NULL);
	g_ptr_array_set_size(arena->blocks, 0);
	g_ptr_array_set_free_func(arena->blocks, free);
	g_ptr_array_set_size(arena->own_runs, 0);
	arena->next = NULL;
	arena->left = 0;
	arena->used = 0;
}

/* A standard block: a spare one when there is one. */
static char *standard_block(struct ds_arena *arena, size_t elements)
{
	char *block;

	if (arena->spare->len > 0) {
		block = g_ptr_array_steal_index(arena->spare, arena->spare->len - 1);
	} else {
		block = alloc_block(elements * arena->element_size);
	}
	g_ptr_array_add(arena->blocks, block);
	return block;
}

void *ds_arena_alloc(struct ds_arena *arena, size_t count)
{
	size_t per_block = ARENA_BLOCK_BYTES / arena->element_size;
	void *run;

	if (count == 0) {
		return NULL;
	}
	if (count > arena->left) {
		if (count >= per_block) {
			/* A run of its own: the current block keeps its free space. */
			if (count > SIZE_MAX / arena->element_size) {
				g_error("deepspan: a run of %zu elements does not fit in memory", count);
			}
			run = alloc_block(count * arena->element_size);
			g_ptr_array_add(arena->own_runs, run);
			arena->used += count;
			return run;
		}
		arena->next = standard_block(arena, per_block);
		arena->left = per_block;
	}
	run = arena->next;
	arena->next += count * arena->element_size;
	arena->left -= count;
	arena->used += count;
	return run;
}

void ds_span_store_init(struct ds_span_store *store, struct ds_strings *strings)
{
	store->span_chunks = g_ptr_array_new_with_free_func(free);
	store->span_count = 0;
	ds_arena_init(&store->segments, sizeof(struct ds_segment));
	ds_arena_init(&store->syscalls, sizeof(struct ds_syscall_total));
	ds_arena_init(&store->chains, sizeof(struct ds_stored_chain_entry));
	ds_arena_init(&store->host_items, sizeof(struct ds_host_item));
	ds_arena_init(&store->reads, sizeof(struct ds_cache_read));
	store->strings = strings;
}

void ds_span_store_fini(struct ds_span_store *store)
{
	if (store->span_chunks) {
		g_ptr_array_free(store->span_chunks, TRUE);
		store->span_chunks = NULL;
	}
	store->span_count = 0;
	ds_arena_fini(&store->segments);
	ds_arena_fini(&store->syscalls);
	ds_arena_fini(&store->chains);
	ds_arena_fini(&store->host_items);
	ds_arena_fini(&store->reads);
	store->strings = NULL;
}

uint32_t ds_store_append_span(struct ds_span_store *store, const struct ds_span *span)
{
	uint32_t index = store->span_count;

	if ((index >> DS_SPAN_CHUNK_SHIFT) >= store->span_chunks->len) {
		g_ptr_array_add(store->span_chunks,
			alloc_block((size_t) DS_SPAN_CHUNK * sizeof(struct ds_span)));
	}
	*ds_store_span(store, index) = *span;
	store->span_count++;
	return index;
}

uint32_t ds_store_copy_span(struct ds_span_store *store, const struct ds_span *span)
{
	struct ds_span copy = *span;
	struct ds_segment *segments = ds_arena_alloc(&store->segments, span->segment_count);
	struct ds_syscall_total *syscalls = ds_arena_alloc(&store->syscalls,
		span->syscall_count);

	if (span->segment_count) {
		memcpy(segments, span->segments,
			span->segment_count * sizeof(struct ds_segment));
	}
	if (span->syscall_count) {
		memcpy(syscalls, span->syscalls,
			span->syscall_count * sizeof(struct ds_syscall_total));
	}
	copy.segments = segments;
	copy.syscalls = syscalls;
	if (span->chain_count) {
		struct ds_stored_chain_entry *chain = ds_arena_alloc(&store->chains,
			span->chain_count);

		memcpy(chain, span->chain, span->chain_count * sizeof(struct ds_stored_chain_entry));
		copy.chain = chain;
	}
	if (span->host_item_count) {
		struct ds_host_item *items = ds_arena_alloc(&store->host_items, span->host_item_count);

		memcpy(items, span->host_items, span->host_item_count * sizeof(struct ds_host_item));
		copy.host_items = items;
	}
	if (span->read_count) {
		struct ds_cache_read *reads = ds_arena_alloc(&store->reads, span->read_count);

		memcpy(reads, span->reads, span->read_count * sizeof(struct ds_cache_read));
		copy.reads = reads;
		/* ids unique in this store too (a compaction copies live spans back after a reset) */
		copy.read_base = (uint32_t) (store->reads.used - span->read_count);
	}
	return ds_store_append_span(store, &copy);
}

void ds_span_store_reset(struct ds_span_store *store)
{
	store->span_count = 0;
	ds_arena_reset(&store->segments);
	ds_arena_reset(&store->syscalls);
	ds_arena_reset(&store->chains);
	ds_arena_reset(&store->host_items);
	ds_arena_reset(&store->reads);
}

void ds_store_drop_last_span(struct ds_span_store *store)
{
	if (store->span_count > 0) {
		store->span_count--;
	}
}
