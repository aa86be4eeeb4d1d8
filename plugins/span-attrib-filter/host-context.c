/* SPDX-License-Identifier: MIT */
/*
 * Host context counters and windows (host-context.h, doc/host-context.md "Definition").
 *
 * Exactness: a counter's value is piecewise linear, `acc + active * (t - since)` between two changes.  For a
 * window opened at b, the value at b is read from the counter's state just before its first change after b:
 * that state is logged (a pre-change record) whenever a counter changes while its last change is not after
 * the latest window begin (so every open window finds it), and a counter created while windows are open logs
 * a creation record (value 0 before).  A counter that did not change during the window
 * contributes `active * (end - b)` when it is active, nothing otherwise.
 */
#include "host-context.h"

#include <string.h>

/* What identifies a counter. */
struct hc_key {
	uint32_t kind;
	uint32_t pad;
	int64_t pid;
	const char *name;
	uint64_t dev;
};

/* A counter's state just before a change (logged for the open windows). */
struct hc_record {
	struct ds_hc_counter *counter;	/* borrowed */
	uint64_t acc;
	int64_t since;
	uint32_t active;
};

struct ds_host_context {
	GHashTable *counters;		/* owned; struct hc_key * (owned, the counter's own) -> struct hc_entry */
	GPtrArray *active;		/* owned array; struct ds_hc_counter * (borrowed) with active > 0 */
	GArray *log;			/* owned; struct hc_record, absolute index log_base + i */
	uint64_t log_base;
	int64_t last_begin;		/* latest window begin (INT64_MIN: none) */
	GQueue open;			/* open windows in begin order (links embedded in the windows) */
	uint64_t serial;		/* window closes so far (counter marks) */
};

/* The hash table's value: the key first, so the table owns both through one allocation. */
struct hc_entry {
	struct hc_key key;
	struct ds_hc_counter counter;
};

static const char *const kind_names[DS_HC_KIND_COUNT] = {
	[DS_HC_CPU] = "cpu", [DS_HC_IRQ] = "irq", [DS_HC_SOFTIRQ] = "softirq", [DS_HC_VECTOR] = "vector",
	[DS_HC_RUN_QUEUE] = "run-queue", [DS_HC_DISK] = "disk",
};

const char *ds_hc_kind_name(unsigned int kind)
{
	return kind < DS_HC_KIND_COUNT ? kind_names[kind] : "unknown";
}

static guint key_hash(gconstpointer p)
{
	const struct hc_key *k = p;
	uint64_t h = (uint64_t) k->kind * UINT64_C(0x9e3779b97f4a7c15);

	h ^= (uint64_t) k->pid * UINT64_C(0xff51afd7ed558ccd);
	h ^= (uint64_t) (uintptr_t) k->name * UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= k->dev * UINT64_C(0x2545f4914f6cdd1d);
	return (guint) (h ^ (h >> 32));
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct hc_key *x = a, *y = b;

	return x->kind == y->kind && x->pid == y->pid && x->name == y->name && x->dev == y->dev;
}

struct ds_host_context *ds_host_context_create(void)
{
	struct ds_host_context *hc = g_new0(struct ds_host_context, 1);

	hc->counters = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	hc->active = g_ptr_array_new();
	hc->log = g_array_new(FALSE, FALSE, sizeof(struct hc_record));
	hc->last_begin = INT64_MIN;
	g_queue_init(&hc->open);
	return hc;
}

void ds_host_context_destroy(struct ds_host_context *hc)
{
	if (!hc) {
		return;
	}
	while (hc->open.head) {
		struct ds_hc_window *window = hc->open.head->data;

		g_queue_unlink(&hc->open, &window->link);
		window->hc = NULL;
	}
	g_hash_table_destroy(hc->counters);
	g_ptr_array_free(hc->active, TRUE);
	g_array_free(hc->log, TRUE);
	g_free(hc);
}

guint ds_host_context_log_length(const struct ds_host_context *hc)
{
	return hc->log->len;
}

struct ds_hc_counter *ds_hc_counter_get(struct ds_host_context *hc, enum ds_hc_kind kind, int64_t pid,
		const char *name, uint64_t dev, const char *comm, int64_t ts)
{
	struct hc_key key = { (uint32_t) kind, 0, pid, name, dev };
	struct hc_entry *entry = g_hash_table_lookup(hc->counters, &key);

	if (!entry) {
		entry = g_new0(struct hc_entry, 1);
		entry->key = key;
		entry->counter.kind = kind;
		entry->counter.pid = pid;
		entry->counter.name = name;
		entry->counter.dev = dev;
		entry->counter.since = ts;
		entry->counter.active_index = G_MAXUINT;
		if (comm) {
			strncpy(entry->counter.comm, comm, sizeof(entry->counter.comm) - 1);
		}
		g_hash_table_insert(hc->counters, &entry->key, entry);
		if (hc->open.length) {
			/* value 0 at every earlier time: the open windows take it from 0 */
			struct hc_record record = { &entry->counter, 0, INT64_MIN, 0 };

			g_array_append_val(hc->log, record);
		}
	}
	return &entry->counter;
}

static void active_remove(struct ds_host_context *hc, struct ds_hc_counter *c)
{
	guint last = hc->active->len - 1;

	if (c->active_index != last) {
		struct ds_hc_counter *moved = g_ptr_array_index(hc->active, last);

		g_ptr_array_index(hc->active, c->active_index) = moved;
		moved->active_index = c->active_index;
	}
	g_ptr_array_set_size(hc->active, last);
	c->active_index = G_MAXUINT;
}

void ds_hc_change(struct ds_host_context *hc, struct ds_hc_counter *c, int64_t ts, int delta_active,
		uint64_t add)
{
	if (ts < c->since) {
		ts = c->since;	/* the model clamps time: never happens */
	}
	if (hc->open.length && c->since <= hc->last_begin) {
		struct hc_record record = { c, c->acc, c->since, c->active };

		g_array_append_val(hc->log, record);
	}
	c->acc += (uint64_t) c->active * (uint64_t) (ts - c->since) + add;
	c->since = ts;
	if (delta_active < 0 && (uint32_t) -delta_active > c->active) {
		delta_active = -(int) c->active;
	}
	c->active = (uint32_t) ((int64_t) c->active + delta_active);
	if (c->active && c->active_index == G_MAXUINT) {
		c->active_index = hc->active->len;
		g_ptr_array_add(hc->active, c);
	} else if (!c->active && c->active_index != G_MAXUINT) {
		active_remove(hc, c);
	}
}

void ds_hc_window_open(struct ds_host_context *hc, struct ds_hc_window *window, int64_t begin)
{
	window->hc = hc;
	window->begin = begin;
	window->log_pos = hc->log_base + hc->log->len;
	window->link.data = window;
	window->link.next = window->link.prev = NULL;
	if (begin > hc->last_begin) {
		hc->last_begin = begin;
	}
	g_queue_push_tail_link(&hc->open, &window->link);
}

/* Drops the records no open window needs (amortized: only when at least half of the log goes). */
static void log_trim(struct ds_host_context *hc)
{
	uint64_t keep_from;
	guint drop;

	if (!hc->open.head) {
		hc->log_base += hc->log->len;
		g_array_set_size(hc->log, 0);
		return;
	}
	keep_from = ((struct ds_hc_window *) hc->open.head->data)->log_pos;
	drop = (guint) (keep_from - hc->log_base);
	if (drop && drop >= hc->log->len / 2) {
		g_array_remove_range(hc->log, 0, drop);
		hc->log_base = keep_from;
	}
}

static void window_unlink(struct ds_hc_window *window)
{
	struct ds_host_context *hc = window->hc;
	bool was_head = hc->open.head == &window->link;

	g_queue_unlink(&hc->open, &window->link);
	window->hc = NULL;
	if (was_head) {
		log_trim(hc);
	}
}

void ds_hc_window_close(struct ds_hc_window *window, int64_t end)
{
	struct ds_host_context *hc = window->hc;
	int64_t b = window->begin;
	uint64_t serial;
	guint i;

	if (!hc) {
		return;
	}
	if (end < b) {
		end = b;
	}
	serial = ++hc->serial;
	if (!window->deltas) {
		window->deltas = g_array_new(FALSE, FALSE, sizeof(struct ds_hc_delta));
	}
	g_array_set_size(window->deltas, 0);
	/* Counters that changed during the window: the first record of each whose piece holds b. */
	for (i = (guint) (window->log_pos - hc->log_base); i < hc->log->len; i++) {
		const struct hc_record *r = &g_array_index(hc->log, struct hc_record, i);
		struct ds_hc_counter *c = r->counter;
		uint64_t at_begin, at_end;

		if (r->since > b || c->mark == serial) {
			continue;
		}
		c->mark = serial;
		at_begin = r->active ? r->acc + (uint64_t) r->active * (uint64_t) (b - r->since) : r->acc;
		at_end = c->acc + (uint64_t) c->active * (uint64_t) (end - c->since);
		if (at_end > at_begin) {
			struct ds_hc_delta delta = { c, at_end - at_begin };

			g_array_append_val(window->deltas, delta);
		}
	}
	/* Counters active all along (no change since before b). */
	for (i = 0; i < hc->active->len; i++) {
		struct ds_hc_counter *c = g_ptr_array_index(hc->active, i);

		if (c->mark != serial && end > b) {
			struct ds_hc_delta delta = { c, (uint64_t) c->active * (uint64_t) (end - b) };

			c->mark = serial;
			g_array_append_val(window->deltas, delta);
		}
	}
	window_unlink(window);
}

void ds_hc_window_fini(struct ds_hc_window *window)
{
	if (window->hc) {
		window_unlink(window);
	}
	if (window->deltas) {
		g_array_free(window->deltas, TRUE);
		window->deltas = NULL;
	}
}
