/*
 * In-memory store of `deepspan:span` records (DESIGN §4) for the diff and
 * metrics sinks: compact span structs, their segments and syscall totals in
 * flat arrays, and interned strings (host, service, operation, details).
 */
#ifndef DEEPSPAN_DIFF_SPAN_STORE_H
#define DEEPSPAN_DIFF_SPAN_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

/* The six thread states of DESIGN §5, in the payload's field order. */
enum ds_state {
	DS_STATE_USER = 0,
	DS_STATE_SYSCALL,
	DS_STATE_BLOCKED,
	DS_STATE_WAIT_CPU,
	DS_STATE_INTERRUPTED,
	DS_STATE_UNKNOWN,
	DS_STATE_COUNT,
};

#define DS_NO_SPAN UINT32_MAX

/* Interned strings: id 0 is always the empty string. */
struct ds_strings {
	GHashTable *ids;	/* owned: char * (owned by `texts`) -> id + 1 */
	GPtrArray *texts;	/* owned: id -> owned char * */
};

struct ds_segment {
	int64_t begin;
	int64_t end;
	uint32_t detail;	/* interned string id, 0 = none */
	uint8_t state;		/* enum ds_state */
};

struct ds_syscall_total {
	uint32_t name;		/* interned string id */
	uint64_t count;
	uint64_t duration;
};

struct ds_span {
	uint64_t trace_id_high;
	uint64_t trace_id_low;
	uint64_t span_id;
	uint64_t parent_span_id;
	uint32_t host;		/* interned */
	uint32_t service;	/* interned */
	uint32_t operation;	/* interned */
	uint32_t input;		/* input port index (0 = `a`, 1 = `b`) */
	int64_t pid;
	int64_t tid;
	int64_t begin;
	int64_t end;
	uint64_t states[DS_STATE_COUNT];
	uint32_t first_segment;	/* index into ds_span_store.segments */
	uint32_t segment_count;
	uint32_t first_syscall;	/* index into ds_span_store.syscalls */
	uint32_t syscall_count;
	bool truncated;
	/* Tree links, set by ds_requests_build(). */
	uint32_t parent;	/* span index or DS_NO_SPAN */
	uint32_t first_child;	/* index into ds_requests.children */
	uint32_t child_count;
	uint32_t request;	/* request index or DS_NO_SPAN */
};

struct ds_span_store {
	GArray *spans;		/* owned: struct ds_span */
	GArray *segments;	/* owned: struct ds_segment */
	GArray *syscalls;	/* owned: struct ds_syscall_total */
	struct ds_strings strings;
};

void ds_strings_init(struct ds_strings *strings);
void ds_strings_fini(struct ds_strings *strings);
uint32_t ds_strings_intern(struct ds_strings *strings, const char *text);
const char *ds_strings_get(const struct ds_strings *strings, uint32_t id);
/* The id of `text` or UINT32_MAX when it was never interned. */
uint32_t ds_strings_find(const struct ds_strings *strings, const char *text);

void ds_span_store_init(struct ds_span_store *store);
void ds_span_store_fini(struct ds_span_store *store);

static inline struct ds_span *ds_store_span(const struct ds_span_store *store,
		uint32_t index)
{
	return &g_array_index(store->spans, struct ds_span, index);
}

static inline const struct ds_segment *ds_store_segments(
		const struct ds_span_store *store, const struct ds_span *span)
{
	return &g_array_index(store->segments, struct ds_segment,
		span->first_segment);
}

static inline const struct ds_syscall_total *ds_store_syscalls(
		const struct ds_span_store *store, const struct ds_span *span)
{
	return &g_array_index(store->syscalls, struct ds_syscall_total,
		span->first_syscall);
}

static inline const char *ds_store_string(const struct ds_span_store *store,
		uint32_t id)
{
	return ds_strings_get(&store->strings, id);
}

/* Short state names ("User", "System call", ...) and tags ("user", "syscall", ...). */
const char *ds_state_title(unsigned int state);
const char *ds_state_tag(unsigned int state);

#endif /* DEEPSPAN_DIFF_SPAN_STORE_H */
