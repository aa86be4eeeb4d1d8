#include "span-store.h"

#include <string.h>

static const char *const state_titles[DS_STATE_COUNT] = {
	"User", "System call", "Waited blocked", "Waited CPU", "Interrupted",
	"Unknown",
};

static const char *const state_tags[DS_STATE_COUNT] = {
	"user", "syscall", "blocked", "wait_cpu", "interrupted", "unknown",
};

const char *ds_state_title(unsigned int state)
{
	return state < DS_STATE_COUNT ? state_titles[state] : "Unknown";
}

const char *ds_state_tag(unsigned int state)
{
	return state < DS_STATE_COUNT ? state_tags[state] : "unknown";
}

void ds_strings_init(struct ds_strings *strings)
{
	strings->ids = g_hash_table_new(g_str_hash, g_str_equal);
	strings->texts = g_ptr_array_new_with_free_func(g_free);
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

uint32_t ds_strings_intern(struct ds_strings *strings, const char *text)
{
	gpointer found;
	char *copy;
	uint32_t id;

	if (text[0] == '\0' && strings->texts->len > 0) {
		return 0;	/* the empty string, the most common detail */
	}
	found = g_hash_table_lookup(strings->ids, text);
	if (found) {
		return (uint32_t) GPOINTER_TO_UINT(found) - 1;
	}
	copy = g_strdup(text);
	id = strings->texts->len;
	g_ptr_array_add(strings->texts, copy);
	g_hash_table_insert(strings->ids, copy, GUINT_TO_POINTER(id + 1));
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

void ds_span_store_init(struct ds_span_store *store)
{
	store->spans = g_array_new(FALSE, TRUE, sizeof(struct ds_span));
	store->segments = g_array_new(FALSE, TRUE, sizeof(struct ds_segment));
	store->syscalls = g_array_new(FALSE, TRUE,
		sizeof(struct ds_syscall_total));
	ds_strings_init(&store->strings);
}

void ds_span_store_fini(struct ds_span_store *store)
{
	if (store->spans) {
		g_array_free(store->spans, TRUE);
		store->spans = NULL;
	}
	if (store->segments) {
		g_array_free(store->segments, TRUE);
		store->segments = NULL;
	}
	if (store->syscalls) {
		g_array_free(store->syscalls, TRUE);
		store->syscalls = NULL;
	}
	ds_strings_fini(&store->strings);
}
