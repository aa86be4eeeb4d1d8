/* SPDX-License-Identifier: MIT */
#include "host-context.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "states.h"

/* Sum of one request for one row key; kind DS_HOST_KIND_COUNT = the host's window. */
struct ds_host_sum {
	uint32_t host;
	uint32_t name;
	uint32_t device;
	uint32_t kind;
	int64_t pid;
	uint64_t value;
};

struct ds_host_run {
	uint32_t first;
	uint32_t count;
};

/* What identifies a row (and, kind DS_HOST_KIND_COUNT, a host's window). */
struct row_key {
	uint32_t host;
	uint32_t name;
	uint32_t device;
	uint32_t kind;
	int64_t pid;
};

static const char *const kind_tags[DS_HOST_KIND_COUNT] = {
	[DS_HOST_CPU] = "cpu", [DS_HOST_IRQ] = "irq", [DS_HOST_SOFTIRQ] = "softirq", [DS_HOST_VECTOR] = "vector",
	[DS_HOST_RUN_QUEUE] = "run-queue", [DS_HOST_DISK] = "disk",
};

const char *ds_host_kind_tag(unsigned int kind)
{
	return kind < DS_HOST_KIND_COUNT ? kind_tags[kind] : "unknown";
}

unsigned int ds_host_kind_of_label(const char *label)
{
	unsigned int k;

	for (k = 0; k < DS_HOST_KIND_COUNT; k++) {
		const char *a = label, *b = kind_tags[k];

		while (*a && *b && (tolower((unsigned char) *a) == *b || ((*a == '_' || *a == '-') && *b == '-'))) {
			a++;
			b++;
		}
		if (!*a && !*b) {
			return k;
		}
	}
	return DS_HOST_KIND_COUNT;
}

void ds_host_acc_init(struct ds_host_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->runs = g_array_new(FALSE, FALSE, sizeof(struct ds_host_run));
	acc->items = g_array_new(FALSE, FALSE, sizeof(struct ds_host_sum));
}

void ds_host_acc_fini(struct ds_host_acc *acc)
{
	if (acc->runs) {
		g_array_free(acc->runs, TRUE);
	}
	if (acc->items) {
		g_array_free(acc->items, TRUE);
	}
	memset(acc, 0, sizeof(*acc));
}

/* Adds `value` to the run's sum of the key (a run holds a few dozen keys: searched linearly). */
static void run_add(struct ds_host_acc *acc, struct ds_host_run *run, const struct row_key *key, uint64_t value)
{
	struct ds_host_sum sum = { key->host, key->name, key->device, key->kind, key->pid, value };
	uint32_t i;

	for (i = run->first; i < run->first + run->count; i++) {
		struct ds_host_sum *s = &g_array_index(acc->items, struct ds_host_sum, i);

		if (s->host == key->host && s->name == key->name && s->device == key->device &&
				s->kind == key->kind && s->pid == key->pid) {
			s->value += value;
			return;
		}
	}
	g_array_append_val(acc->items, sum);
	run->count++;
}

void ds_host_acc_add_request(struct ds_host_acc *acc, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index)
{
	const struct ds_request *request = ds_request_at(requests, index);
	struct ds_host_run run = { acc->items->len, 0 };
	uint32_t i, j;

	for (i = 0; !request->truncated && !request->invalid && i < request->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, g_array_index(requests->spans, uint32_t,
			request->first_span + i));
		struct row_key window = { span->host, 0, 0, DS_HOST_KIND_COUNT, 0 };

		if (!span->host_window || span->invalid) {
			continue;
		}
		acc->any = true;
		run_add(acc, &run, &window, span->host_window);
		for (j = 0; j < span->host_item_count; j++) {
			const struct ds_host_item *item = &span->host_items[j];
			struct row_key key = { span->host, item->name, item->device, item->kind, item->pid };

			run_add(acc, &run, &key, item->value);
		}
	}
	g_array_append_val(acc->runs, run);
}

static guint key_hash(gconstpointer p)
{
	const struct row_key *k = p;
	uint64_t h = (uint64_t) k->host * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t) k->name * UINT64_C(0xff51afd7ed558ccd) ^
		(uint64_t) k->device * UINT64_C(0xc4ceb9fe1a85ec53) ^ (uint64_t) k->kind * UINT64_C(0x2545f4914f6cdd1d) ^
		(uint64_t) k->pid * UINT64_C(0x94d049bb133111eb);

	return (guint) (h ^ (h >> 32));
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct row_key)) == 0;
}

char *ds_host_row_label(const struct ds_host_row *row, const struct ds_strings *strings)
{
	const char *name = ds_strings_get(strings, row->name);

	switch (row->kind) {
	case DS_HOST_CPU:
	case DS_HOST_RUN_QUEUE:
		return row->pid >= 0 ? g_strdup_printf("%s: %s (pid %" PRId64 ")", ds_host_kind_tag(row->kind), name,
			row->pid) : g_strdup_printf("%s: %s", ds_host_kind_tag(row->kind), name);
	case DS_HOST_DISK:
		return row->pid >= 0 ? g_strdup_printf("disk: %s (pid %" PRId64 ") on %s", name, row->pid,
			ds_strings_get(strings, row->device)) :
			g_strdup_printf("disk: unknown submitter on %s", ds_strings_get(strings, row->device));
	default:
		return g_strdup_printf("%s:%s", ds_host_kind_tag(row->kind), name);
	}
}

static const struct ds_strings *sorting_strings;	/* g_array_sort has no user data in old GLib */

/* Time kinds first, then disk; largest B - A first; ties by host, label. */
static gint compare_rows(gconstpointer a, gconstpointer b)
{
	const struct ds_host_row *x = a, *y = b;
	bool dx = x->kind == DS_HOST_DISK, dy = y->kind == DS_HOST_DISK;
	char *lx, *ly;
	gint order;

	if (dx != dy) {
		return dx ? 1 : -1;
	}
	if (x->diff != y->diff) {
		return x->diff > y->diff ? -1 : 1;
	}
	order = strcmp(ds_strings_get(sorting_strings, x->host), ds_strings_get(sorting_strings, y->host));
	if (order) {
		return order;
	}
	lx = ds_host_row_label(x, sorting_strings);
	ly = ds_host_row_label(y, sorting_strings);
	order = strcmp(lx, ly);
	g_free(lx);
	g_free(ly);
	return order;
}

GArray *ds_host_rows(const struct ds_host_acc *acc, const struct ds_strings *strings,
		const struct ds_selection *selection, bool *overflow)
{
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(struct ds_host_row));
	GHashTable *index = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	GHashTable *windows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	unsigned int g;
	uint32_t i, j;

	*overflow = false;
	for (g = 0; g < 2; g++) {
		const GArray *members = selection->members[g];

		for (i = 0; i < members->len; i++) {
			uint32_t record = g_array_index(members, uint32_t, i);
			const struct ds_host_run *run;

			if (record >= acc->runs->len) {
				continue;
			}
			run = &g_array_index(acc->runs, struct ds_host_run, record);
			for (j = run->first; j < run->first + run->count; j++) {
				const struct ds_host_sum *s = &g_array_index(acc->items, struct ds_host_sum, j);
				struct row_key key = { s->host, s->name, s->device, s->kind, s->pid };
				gpointer found;
				uint64_t *sum;

				if (s->kind == DS_HOST_KIND_COUNT) {
					uint64_t *w = g_hash_table_lookup(windows, GUINT_TO_POINTER(s->host));

					if (!w) {
						w = g_new0(uint64_t, 2);
						g_hash_table_insert(windows, GUINT_TO_POINTER(s->host), w);
					}
					*overflow |= __builtin_add_overflow(w[g], s->value, &w[g]);
					continue;
				}
				found = g_hash_table_lookup(index, &key);
				if (!found) {
					struct ds_host_row row = { .host = s->host, .name = s->name, .device = s->device,
						.pid = s->pid, .kind = (uint8_t) s->kind };

					g_array_append_val(rows, row);
					found = GUINT_TO_POINTER(rows->len);
					g_hash_table_insert(index, g_memdup2(&key, sizeof(key)), found);
				}
				sum = &g_array_index(rows, struct ds_host_row, GPOINTER_TO_UINT(found) - 1).total[g];
				*overflow |= __builtin_add_overflow(*sum, s->value, sum);
			}
		}
	}
	for (i = 0; i < rows->len; i++) {
		struct ds_host_row *row = &g_array_index(rows, struct ds_host_row, i);
		const uint64_t *w = g_hash_table_lookup(windows, GUINT_TO_POINTER(row->host));

		for (g = 0; g < 2; g++) {
			row->window[g] = w ? w[g] : 0;
			row->rate[g] = row->window[g] ? (double) row->total[g] * 1e9 / (double) row->window[g] : 0.0;
		}
		row->diff = row->rate[1] - row->rate[0];
	}
	sorting_strings = strings;
	g_array_sort(rows, compare_rows);
	g_hash_table_destroy(index);
	g_hash_table_destroy(windows);
	return rows;
}

void ds_host_write_text(FILE *file, const GArray *rows, const struct ds_strings *strings, unsigned int top)
{
	unsigned int i, shown = 0;

	if (!rows || !rows->len) {
		return;
	}
	fprintf(file, "\nWhat changed on the machine (per second of the groups' request time on each host, "
		"B vs A; doc/host-context.md):\n");
	for (i = 0; i < rows->len && shown < top; i++) {
		const struct ds_host_row *row = &g_array_index(rows, struct ds_host_row, i);
		bool disk = row->kind == DS_HOST_DISK;
		double scale = disk ? 1024.0 : 1e6;
		const char *unit = disk ? "KiB/s" : "ms/s";
		char *label;

		if (row->diff <= 0) {
			continue;	/* only what grew */
		}
		label = ds_host_row_label(row, strings);
		fprintf(file, "  %s  %s: B %.1f %s, A %.1f %s (%+.1f %s)\n", ds_strings_get(strings, row->host), label,
			row->rate[1] / scale, unit, row->rate[0] / scale, unit, row->diff / scale, unit);
		g_free(label);
		shown++;
	}
	if (!shown) {
		fprintf(file, "  nothing ran more per second during B than during A\n");
	}
}
