/* SPDX-License-Identifier: MIT */
/*
 * The labels of a span's chain entries (doc/critical-path.md, "Reading chains"): the flame-graph
 * frame (`mysqld [Waited CPU]`, no tids), the step under it, the explain clause, and who ran instead,
 * each interned in the span store and cached by what it depends on.
 */
#include "chain-labels.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* The details of in-flight entries (doc/storage-network.md, "Network"). */
#define SEGMENT_PREFIX "segment "
#define RETRANSMIT_PREFIX "retransmission wait: segment "

/*
 * The network path an in-flight entry is charged to, `in flight A → B` or `retransmission wait A → B`
 * (its frame and its culprit in sink.deepspan.metrics by="culprit"); false for another detail.
 */
static bool append_net_path(GString *out, const char *detail)
{
	const char *path, *end;

	if (g_str_has_prefix(detail, RETRANSMIT_PREFIX)) {
		g_string_append(out, "retransmission wait ");
		path = detail + strlen(RETRANSMIT_PREFIX);
	} else if (g_str_has_prefix(detail, SEGMENT_PREFIX)) {
		g_string_append(out, "in flight ");
		path = detail + strlen(SEGMENT_PREFIX);
	} else {
		return false;
	}
	/* `A → B`, without ` (retransmitted)` and the like */
	end = strstr(path, " (");
	g_string_append_len(out, path, end ? end - path : (gssize) strlen(path));
	return true;
}

/* `process/comm`, or `comm` when they are the same (or the process is unknown). */
static void append_thread(GString *out, const char *process, const char *comm)
{
	if (process[0] && strcmp(process, DS_SPAN_NONE) != 0 &&
			strcmp(process, comm) != 0) {
		g_string_append(out, process);
		g_string_append_c(out, '/');
	}
	g_string_append(out, comm);
}

/*
 * Appends `detail` without thread ids: in each space-separated word, a
 * trailing `/<digits>` after some name (`mysqld/1289`) is dropped, so that
 * one lock wait is one frame whatever thread served it.
 */
static void append_without_tids(GString *out, const char *detail)
{
	const char *word = detail;

	while (*word) {
		const char *end = word, *slash;

		while (*end && *end != ' ') {
			end++;
		}
		slash = end;
		while (slash > word && isdigit((unsigned char) slash[-1])) {
			slash--;
		}
		if (slash < end && slash - 1 > word && slash[-1] == '/') {
			g_string_append_len(out, word, slash - 1 - word);
		} else {
			g_string_append_len(out, word, end - word);
		}
		for (word = end; *word == ' '; word++) {
			g_string_append_c(out, ' ');
		}
	}
}

/* `text` up to and including the first " read" / " write" word in it; false when it has none. */
static bool append_through_operation(GString *out, const char *text)
{
	const char *op = strstr(text, " read");
	const char *write = strstr(text, " write");

	if (write && (!op || write < op)) {
		op = write;
	}
	if (!op) {
		return false;
	}
	op += op[1] == 'r' ? strlen(" read") : strlen(" write");
	g_string_append_len(out, text, op - text);
	return true;
}

/*
 * A disk entry's detail as a frame (doc/storage-network.md, "Reading it"): without what differs from one
 * request to the next (sector, size, durations, counts), so that the disk waits of many requests are one
 * frame: "pread64 ← disk 259:0 read", "queued behind writes of backup.sh", "device 259:0: read".
 */
static void append_disk_frame(GString *out, const char *detail)
{
	const char *behind = strstr(detail, " behind ");
	const char *of = behind ? strstr(behind, ") of ") : NULL;
	const char *scheduler = strstr(detail, " in the I/O scheduler");

	if (g_str_has_prefix(detail, "queued ") && behind && of) {
		const char *what = strchr(behind + strlen(" behind "), ' ');	/* after the count */
		const char *what_end = what ? strchr(what + 1, ' ') : NULL;

		g_string_append(out, "queued behind");
		if (what && what_end && what_end < of) {
			g_string_append_len(out, what, what_end - what);
		}
		const char *others = strstr(of, " (+");	/* "(+2 of others)": a count */
		char *submitter = g_strndup(of + strlen(") of "),
			others ? (gsize) (others - of) - strlen(") of ") : strlen(of));

		g_string_append(out, " of ");
		append_without_tids(out, submitter);
		g_free(submitter);
		if (others) {
			g_string_append(out, " and others");
		}
	} else if (g_str_has_prefix(detail, "queued ") && scheduler) {
		g_string_append(out, "queued in the I/O scheduler");
	} else if (!append_through_operation(out, detail)) {
		append_without_tids(out, detail);
	}
}

/*
 * The detail of entry `i` as a frame: without tids, and for a wait, the
 * waker (its first child's thread) by process and thread name.
 */
static void append_frame_detail(GString *out, struct ds_span_store *store,
		const struct ds_stored_chain_entry *chain, uint32_t count, uint32_t i)
{
	const char *detail = ds_store_string(store, chain[i].detail);
	const char *arrow = NULL, *at;

	if (chain[i].kind == DS_CHAIN_WAIT && i + 1 < count &&
			chain[i + 1].parent == (int32_t) i) {
		for (at = strstr(detail, "\xe2\x86\x90 "); at; at = strstr(at + 1, "\xe2\x86\x90 ")) {
			arrow = at;
		}
	}
	if (chain[i].kind == DS_CHAIN_DISK) {
		append_disk_frame(out, detail);
		return;
	}
	if (!arrow) {
		append_without_tids(out, detail);
		return;
	}
	g_string_append_len(out, detail, arrow + 4 - detail);
	append_thread(out, ds_store_string(store, chain[i + 1].process),
		ds_store_string(store, chain[i + 1].comm));
}

/* The text of `detail` after its first ` ← ` (NULL when none). */
static const char *after_arrow(const char *detail)
{
	const char *arrow = strstr(detail, " \xe2\x86\x90 ");

	return arrow ? arrow + 5 : NULL;
}

/*
 * The clause of a part of a disk wait (doc/storage-network.md, "Storage"): "was queued \x01 behind 412 writes
 * (96 MiB) of backup.sh/3120", "spent \x01 in device 259:0: read 16 KiB", "spent \x01 before the request was
 * queued".
 */
static void append_disk_part(GString *out, const char *detail, const char *slot)
{
	const char *behind = strstr(detail, " behind ");
	const char *scheduler = strstr(detail, " in the I/O scheduler");

	if (g_str_has_prefix(detail, "queued ") && (behind || scheduler)) {
		g_string_append_printf(out, "was queued%s%s", slot, behind ? behind : scheduler);
	} else if (g_str_has_prefix(detail, "device ")) {
		g_string_append_printf(out, "spent%s in %s", slot, detail);
	} else {
		g_string_append_printf(out, "spent%s %s", slot, detail);
	}
}

/*
 * The clause explain.txt says for entry `i` (doc/diff.md, "Chains in
 * explain.txt"): "blocked on futex held by mysqld/1289 (host beta)",
 * "waited \x01 for CPU 1 while compactor/991 ran"; at depth > 0 a \x01
 * marks where the sink writes the entry's duration.
 */
/* A wait-cpu entry's note: the CPU waited for and who ran on it. */
static void append_wait_cpu_note(GString *out, const struct ds_stored_chain_entry *e, const char *detail,
		const char *slot)
{
	const char *cause = g_str_has_prefix(detail, "ran instead: ") ? detail + strlen("ran instead: ") : detail;

	g_string_append_printf(out, "waited%s for ", slot);
	if (e->cpu >= 0) {
		g_string_append_printf(out, "CPU %" PRId32, e->cpu);
	} else {
		g_string_append(out, "a CPU");
	}
	g_string_append_printf(out, " while %s ran", strcmp(cause, "idle") == 0 ? "it was idle" : cause);
}

/* An in-flight entry's note: a retransmission wait, or the segment's flight between two hosts. */
static void append_in_flight_note(GString *out, const char *detail, const char *slot)
{
	if (g_str_has_prefix(detail, RETRANSMIT_PREFIX)) {
		g_string_append_printf(out, "waited%s for the retransmission of a lost segment %s", slot,
			detail + strlen(RETRANSMIT_PREFIX));
	} else if (g_str_has_prefix(detail, SEGMENT_PREFIX)) {
		g_string_append_printf(out, "spent%s in flight %s", slot, detail + strlen(SEGMENT_PREFIX));
	} else {
		g_string_append_printf(out, "spent%s in flight (%s)", slot, detail);
	}
}

static void append_note(GString *out, struct ds_span_store *store,
		const struct ds_stored_chain_entry *chain, uint32_t count, uint32_t i)
{
	const struct ds_stored_chain_entry *e = &chain[i];
	const char *detail = ds_store_string(store, e->detail);
	const char *cause = after_arrow(detail);
	const char *slot = e->depth > 0 ? " \x01" : "";
	const char *was = e->depth > 0 ? "was " : "";
	int call_length = (int) (cause ? (size_t) (cause - 5 - detail) : strlen(detail));
	bool no_syscall = call_length == 0 ||
		(call_length == 1 && detail[0] == DS_SPAN_NONE[0]);
	const char *in = no_syscall ? "" : " in ";
	int n = no_syscall ? 0 : call_length;	/* the syscall: `%.*s` of n, detail */

	switch (e->kind) {
	case DS_CHAIN_WAIT:
		if (i + 1 < count && chain[i + 1].parent == (int32_t) i) {
			g_string_append_printf(out, "%sblocked%s %s%.*s%s by %s/%" PRId64 " (host %s)",
				was, slot, no_syscall ? "until woken" : "on ", n, detail,
				no_syscall ? "" : " held", ds_store_string(store, chain[i + 1].comm),
				chain[i + 1].tid, ds_store_string(store, chain[i + 1].host));
		} else {
			g_string_append_printf(out, "%sblocked%s%s%.*s, woken by %s", was, slot, in,
				n, detail, cause ? cause : "?");
		}
		break;
	case DS_CHAIN_NETWORK:
		g_string_append_printf(out, "%sblocked%s%s%.*s on a TCP segment from %s", was, slot,
			in, n, detail, cause ? cause : "another host");
		break;
	case DS_CHAIN_TIMER:
		g_string_append_printf(out, "%s%s%s%.*s until a timer fired",
			e->depth > 0 ? "slept" : "blocked", slot, in, n, detail);
		break;
	case DS_CHAIN_IRQ:
	case DS_CHAIN_SOFTIRQ:
		if (!cause && g_str_has_prefix(detail, "after arrival: ")) {
			g_string_append_printf(out, "spent%s in %s after the segment arrived", slot,
				detail + strlen("after arrival: "));
		} else {
			g_string_append_printf(out, "%sblocked%s%s%.*s until %s", was, slot, in, n, detail,
				cause ? cause : detail);
		}
		break;
	case DS_CHAIN_DISK:
		if (e->depth > 0 && !cause) {
			append_disk_part(out, detail, slot);
		} else {
			g_string_append_printf(out, "%sblocked%s%s%.*s on %s", was, slot, in, n, detail,
				cause ? cause : "a disk");
		}
		break;
	case DS_CHAIN_WAIT_CPU:
		append_wait_cpu_note(out, e, detail, slot);
		break;
	case DS_CHAIN_RUNNING:
		if (e->state == DS_STATE_INTERRUPTED) {
			g_string_append_printf(out, "was interrupted%s by %s", slot, detail);
		} else if (e->state == DS_STATE_SYSCALL && !no_syscall) {
			g_string_append_printf(out, "ran%s in %s", slot, detail);
		} else {
			g_string_append_printf(out, "ran%s in user space", slot);
		}
		break;
	case DS_CHAIN_IN_FLIGHT:
		append_in_flight_note(out, detail, slot);
		break;
	default:
		if (e->depth > 0) {
			g_string_append_printf(out, "spent \x01 in [%s]", detail);
		} else {
			g_string_append_printf(out, "%s (%s)", ds_state_title(e->state), detail);
		}
		break;
	}
}

/* What an entry's labels depend on (label_chain's cache key; padding zeroed). */
struct label_key {
	uint32_t detail, process, comm;
	uint32_t child_process, child_comm, child_host;	/* a wait's waker, else 0 */
	int64_t child_tid;
	int32_t cpu;
	uint8_t kind, state, deep, has_child;
};

/* An entry's labels (struct ds_stored_chain_entry's members of the same names). */
struct label_value {
	uint32_t frame, step, note, ran_comm;
	int64_t ran_tid;
};

/* Entries' labels cached (the same holders, sleeps and hogs recur): at most this many. */
#define LABEL_CACHE_MAX 65536u

/* Computes the labels of entry `i` (doc/critical-path.md, "Reading chains"). */
static void make_labels(struct ds_span_store *store, GString *scratch,
		const struct ds_stored_chain_entry *chain, uint32_t count, uint32_t i,
		struct label_value *out)
{
	const struct ds_stored_chain_entry *e = &chain[i];
	const char *detail = ds_store_string(store, e->detail);
	bool none = strcmp(detail, DS_SPAN_NONE) == 0 || detail[0] == '\0';

	out->ran_comm = 0;
	out->ran_tid = -1;
	if (e->kind == DS_CHAIN_WAIT_CPU && g_str_has_prefix(detail, "ran instead: ")) {
		const char *name = detail + strlen("ran instead: ");
		const char *slash = strrchr(name, '/');
		char *end = NULL;
		long long tid = slash && isdigit((unsigned char) slash[1]) ?
			strtoll(slash + 1, &end, 10) : -1;

		g_string_truncate(scratch, 0);
		if (end && *end == '\0') {
			g_string_append_len(scratch, name, slash - name);
			out->ran_tid = tid;
		} else {
			g_string_append(scratch, name);
		}
		out->ran_comm = ds_strings_intern(store->strings, scratch->str);
	}
	g_string_truncate(scratch, 0);
	if (e->kind == DS_CHAIN_IN_FLIGHT && append_net_path(scratch, detail)) {
		out->ran_comm = ds_strings_intern(store->strings, scratch->str);
	}
	g_string_truncate(scratch, 0);
	append_note(scratch, store, chain, count, i);
	out->note = ds_strings_intern(store->strings, scratch->str);
	g_string_truncate(scratch, 0);
	out->step = 0;
	if (e->depth == 0) {
		g_string_append_printf(scratch, "[%s]", ds_state_title(e->state));
		if (!none) {
			g_string_append_c(scratch, ' ');
			append_frame_detail(scratch, store, chain, count, i);
		}
		out->frame = ds_strings_intern(store->strings, scratch->str);
		return;
	}
	if (e->kind == DS_CHAIN_IN_FLIGHT && out->ran_comm) {
		/* a segment in flight is no thread's: the frame names the network path */
		g_string_append(scratch, ds_store_string(store, out->ran_comm));
	} else {
		append_thread(scratch, ds_store_string(store, e->process),
			ds_store_string(store, e->comm));
		g_string_append_printf(scratch, " [%s]", ds_state_title(e->state));
	}
	out->frame = ds_strings_intern(store->strings, scratch->str);
	if (!none) {
		g_string_truncate(scratch, 0);
		append_frame_detail(scratch, store, chain, count, i);
		out->step = ds_strings_intern(store->strings, scratch->str);
	}
}

static guint hash_label_key(gconstpointer p)
{
	return (guint) XXH3_64bits(p, sizeof(struct label_key));
}

static gboolean equal_label_key(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct label_key)) == 0;
}

/* Slots of the front of the label cache (a power of 2). */
#define LABEL_FRONT_SLOTS 1024u

/*
 * The labels of chain entries by what they depend on: a direct-mapped front keyed by a multiplicative hash
 * of the key's words (one compare of the key on a hit), over the hash table of every key.
 */
struct ds_chain_label_cache {
	GHashTable *table;		/* owned; owned struct label_key -> owned struct label_value */
	struct label_front {
		struct label_key key;
		struct label_value value;
		bool used;
	} front[LABEL_FRONT_SLOTS];
};

struct ds_chain_label_cache *ds_chain_label_cache_new(void)
{
	struct ds_chain_label_cache *cache = g_new0(struct ds_chain_label_cache, 1);

	cache->table = g_hash_table_new_full(hash_label_key, equal_label_key, g_free, g_free);
	return cache;
}

void ds_chain_label_cache_destroy(struct ds_chain_label_cache *cache)
{
	if (cache) {
		g_hash_table_destroy(cache->table);
		g_free(cache);
	}
}

/* The front slot of `key` (zeroed padding: every byte is the key's). */
static struct label_front *front_slot(struct ds_chain_label_cache *cache, const struct label_key *key)
{
	uint64_t words[5], h;

	/* five words, each multiplied by its own odd constant: independent products, no loop */
	G_STATIC_ASSERT(sizeof(struct label_key) == sizeof(words));
	memcpy(words, key, sizeof(words));
	h = words[0] * UINT64_C(0x9e3779b97f4a7c15) ^ words[1] * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		words[2] * UINT64_C(0x165667b19e3779f9) ^ words[3] * UINT64_C(0x27d4eb2f165667c5) ^
		words[4] * UINT64_C(0xff51afd7ed558ccd);
	return &cache->front[(h >> 40) & (LABEL_FRONT_SLOTS - 1)];
}

void ds_chain_label(struct ds_chain_label_cache *cache, GString *scratch, struct ds_span_store *store,
		struct ds_stored_chain_entry *chain, uint32_t count)
{
	struct label_front *front;
	uint32_t i;

	for (i = 0; i < count; i++) {
		struct ds_stored_chain_entry *e = &chain[i];
		bool has_child = i + 1 < count && chain[i + 1].parent == (int32_t) i;
		struct label_key key;
		struct label_value *value;

		memset(&key, 0, sizeof(key));
		key.detail = e->detail;
		key.process = e->process;
		key.comm = e->comm;
		key.cpu = e->kind == DS_CHAIN_WAIT_CPU ? e->cpu : 0;
		key.kind = e->kind;
		key.state = e->state;
		key.deep = e->depth > 0;
		if (e->kind == DS_CHAIN_WAIT && has_child) {
			key.has_child = 1;
			key.child_process = chain[i + 1].process;
			key.child_comm = chain[i + 1].comm;
			key.child_host = chain[i + 1].host;
			key.child_tid = chain[i + 1].tid;
		}
		e->leaf = !has_child;
		front = front_slot(cache, &key);
		if (front->used && memcmp(&front->key, &key, sizeof(key)) == 0) {
			value = &front->value;
		} else {
			value = g_hash_table_lookup(cache->table, &key);
			if (!value) {
				if (g_hash_table_size(cache->table) >= LABEL_CACHE_MAX) {
					g_hash_table_remove_all(cache->table);
				}
				value = g_new(struct label_value, 1);
				make_labels(store, scratch, chain, count, i, value);
				g_hash_table_insert(cache->table, g_memdup2(&key, sizeof(key)), value);
			}
			front->key = key;
			front->value = *value;
			front->used = true;
		}
		e->frame = value->frame;
		e->step = value->step;
		e->note = value->note;
		e->ran_comm = value->ran_comm;
		e->ran_tid = value->ran_tid;
	}
}
