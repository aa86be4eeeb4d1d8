/* SPDX-License-Identifier: MIT */
#include "kernel-events.h"

#include <glib.h>
#include <string.h>

struct ds_kernel_events {
	GHashTable *by_class;	/* owned; const bt_event_class * (borrowed) -> struct ds_kernel_class * (owned) */
	GHashTable *names;	/* owned; interned syscall/vector names (owned keys), kept until destroyed */
};

/* One field a kind reads. */
struct field_spec {
	enum ds_kev_field slot;
	const char *name;
	enum ds_field_kind want;	/* UNSIGNED means any integer */
	bool required;
};

#define MAX_SPECS 8

struct kind_spec {
	struct field_spec fields[MAX_SPECS];
};

#define INT DS_FIELD_KIND_UNSIGNED
#define STR DS_FIELD_KIND_STRING
#define ARR DS_FIELD_KIND_ARRAY

static const struct kind_spec kind_specs[DS_KEV_COUNT] = {
	[DS_KEV_SCHED_SWITCH] = { { { DS_KF_COMM, "prev_comm", STR, false }, { DS_KF_TID, "prev_tid", INT, true },
		{ DS_KF_PREV_STATE, "prev_state", INT, true }, { DS_KF_NEXT_COMM, "next_comm", STR, false },
		{ DS_KF_NEXT_TID, "next_tid", INT, true } } },
	[DS_KEV_SCHED_WAKING] = { { { DS_KF_COMM, "comm", STR, false }, { DS_KF_TID, "tid", INT, true },
		{ DS_KF_CPU, "target_cpu", INT, false } } },
	[DS_KEV_SCHED_WAKEUP] = { { { DS_KF_COMM, "comm", STR, false }, { DS_KF_TID, "tid", INT, true },
		{ DS_KF_CPU, "target_cpu", INT, false } } },
	[DS_KEV_SCHED_WAKEUP_NEW] = { { { DS_KF_COMM, "comm", STR, false }, { DS_KF_TID, "tid", INT, true },
		{ DS_KF_CPU, "target_cpu", INT, false } } },
	[DS_KEV_SCHED_MIGRATE_TASK] = { { { DS_KF_TID, "tid", INT, true }, { DS_KF_ORIG_CPU, "orig_cpu", INT, false },
		{ DS_KF_CPU, "dest_cpu", INT, true } } },
	[DS_KEV_SCHED_PROCESS_FORK] = { { { DS_KF_PARENT_TID, "parent_tid", INT, true },
		{ DS_KF_PARENT_PID, "parent_pid", INT, false }, { DS_KF_COMM, "child_comm", STR, false },
		{ DS_KF_TID, "child_tid", INT, true }, { DS_KF_PID, "child_pid", INT, false },
		{ DS_KF_VTIDS, "vtids", ARR, false } } },
	[DS_KEV_SCHED_PROCESS_EXIT] = { { { DS_KF_COMM, "comm", STR, false }, { DS_KF_TID, "tid", INT, true } } },
	[DS_KEV_SCHED_PROCESS_FREE] = { { { DS_KF_COMM, "comm", STR, false }, { DS_KF_TID, "tid", INT, true } } },
	[DS_KEV_SYSCALL_EXIT] = { { { DS_KF_NUMBER, "ret", INT, false } } },
	[DS_KEV_IRQ_ENTRY] = { { { DS_KF_NUMBER, "irq", INT, true }, { DS_KF_NAME, "name", STR, false } } },
	[DS_KEV_IRQ_EXIT] = { { { DS_KF_NUMBER, "irq", INT, false } } },
	[DS_KEV_SOFTIRQ_ENTRY] = { { { DS_KF_NUMBER, "vec", INT, true } } },
	[DS_KEV_SOFTIRQ_EXIT] = { { { DS_KF_NUMBER, "vec", INT, true } } },
	[DS_KEV_SOFTIRQ_RAISE] = { { { DS_KF_NUMBER, "vec", INT, true } } },
	[DS_KEV_VECTOR_ENTRY] = { { { DS_KF_NUMBER, "vector", INT, false } } },
	[DS_KEV_VECTOR_EXIT] = { { { DS_KF_NUMBER, "vector", INT, false } } },
	[DS_KEV_BLOCK_RQ_ISSUE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_TID, "tid", INT, false },
		{ DS_KF_BYTES, "bytes", INT, false }, { DS_KF_RWBS, "rwbs", INT, false },
		{ DS_KF_COMM, "comm", STR, false } } },
	[DS_KEV_BLOCK_RQ_INSERT] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_TID, "tid", INT, false },
		{ DS_KF_BYTES, "bytes", INT, false }, { DS_KF_RWBS, "rwbs", INT, false },
		{ DS_KF_COMM, "comm", STR, false } } },
	[DS_KEV_BLOCK_RQ_MERGE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_BYTES, "bytes", INT, false },
		{ DS_KF_RWBS, "rwbs", INT, false } } },
	[DS_KEV_BLOCK_RQ_REQUEUE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_RWBS, "rwbs", INT, false } } },
	[DS_KEV_BLOCK_BIO_BACKMERGE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_TID, "tid", INT, false },
		{ DS_KF_RWBS, "rwbs", INT, false }, { DS_KF_COMM, "comm", STR, false } } },
	[DS_KEV_BLOCK_BIO_FRONTMERGE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_TID, "tid", INT, false },
		{ DS_KF_RWBS, "rwbs", INT, false }, { DS_KF_COMM, "comm", STR, false } } },
	[DS_KEV_STATEDUMP_BLOCK_DEVICE] = { { { DS_KF_DEV, "dev", INT, true }, { DS_KF_NAME, "diskname", STR, false } } },
	[DS_KEV_BLOCK_RQ_COMPLETE] = { { { DS_KF_DEV, "dev", INT, false }, { DS_KF_SECTOR, "sector", INT, false },
		{ DS_KF_NR_SECTOR, "nr_sector", INT, false }, { DS_KF_STATUS, "error", INT, false } } },
	[DS_KEV_STATEDUMP_PROCESS_STATE] = { { { DS_KF_TID, "tid", INT, true }, { DS_KF_PID, "pid", INT, false },
		{ DS_KF_COMM, "name", STR, false }, { DS_KF_STATUS, "status", INT, true },
		{ DS_KF_CPU, "cpu", INT, false } } },
	[DS_KEV_STATEDUMP_PID_NS] = { { { DS_KF_TID, "tid", INT, true }, { DS_KF_VTID, "vtid", INT, true },
		{ DS_KF_VPID, "vpid", INT, false }, { DS_KF_NS_LEVEL, "ns_level", INT, false } } },
};

struct exact_name {
	const char *name;
	enum ds_kernel_event_kind kind;
};

static const struct exact_name exact_names[] = {
	{ "sched_switch", DS_KEV_SCHED_SWITCH },
	{ "sched_waking", DS_KEV_SCHED_WAKING },
	{ "sched_wakeup", DS_KEV_SCHED_WAKEUP },
	{ "sched_wakeup_new", DS_KEV_SCHED_WAKEUP_NEW },
	{ "sched_migrate_task", DS_KEV_SCHED_MIGRATE_TASK },
	{ "sched_process_fork", DS_KEV_SCHED_PROCESS_FORK },
	{ "sched_process_exit", DS_KEV_SCHED_PROCESS_EXIT },
	{ "sched_process_free", DS_KEV_SCHED_PROCESS_FREE },
	{ "irq_handler_entry", DS_KEV_IRQ_ENTRY },
	{ "irq_handler_exit", DS_KEV_IRQ_EXIT },
	{ "irq_softirq_entry", DS_KEV_SOFTIRQ_ENTRY },
	{ "irq_softirq_exit", DS_KEV_SOFTIRQ_EXIT },
	{ "irq_softirq_raise", DS_KEV_SOFTIRQ_RAISE },
	{ "timer_hrtimer_expire_entry", DS_KEV_TIMER_ENTRY },
	{ "timer_hrtimer_expire_exit", DS_KEV_TIMER_EXIT },
	{ "timer_expire_entry", DS_KEV_TIMER_ENTRY },
	{ "timer_expire_exit", DS_KEV_TIMER_EXIT },
	{ "block_rq_issue", DS_KEV_BLOCK_RQ_ISSUE },
	{ "block_rq_complete", DS_KEV_BLOCK_RQ_COMPLETE },
	{ "block_rq_insert", DS_KEV_BLOCK_RQ_INSERT },
	{ "block_rq_requeue", DS_KEV_BLOCK_RQ_REQUEUE },
	{ "block_rq_merge", DS_KEV_BLOCK_RQ_MERGE },
	{ "block_bio_backmerge", DS_KEV_BLOCK_BIO_BACKMERGE },
	{ "block_bio_frontmerge", DS_KEV_BLOCK_BIO_FRONTMERGE },
	{ "lttng_statedump_block_device", DS_KEV_STATEDUMP_BLOCK_DEVICE },
	{ "lttng_statedump_process_state", DS_KEV_STATEDUMP_PROCESS_STATE },
	{ "lttng_statedump_process_pid_ns", DS_KEV_STATEDUMP_PID_NS },
};

static bool has_prefix(const char *s, const char *prefix, size_t *len)
{
	*len = strlen(prefix);
	return strncmp(s, prefix, *len) == 0;
}

static bool has_suffix(const char *s, size_t s_len, const char *suffix, size_t *len)
{
	*len = strlen(suffix);
	return s_len > *len && strcmp(s + s_len - *len, suffix) == 0;
}

enum ds_kernel_event_kind ds_kernel_event_kind_from_name(const char *name,
		const char **name_start, size_t *name_len, bool *compat)
{
	size_t i, plen, slen, len;

	*name_start = NULL;
	*name_len = 0;
	*compat = false;
	if (!name) {
		return DS_KEV_NONE;
	}
	for (i = 0; i < G_N_ELEMENTS(exact_names); i++) {
		if (strcmp(name, exact_names[i].name) == 0) {
			return exact_names[i].kind;
		}
	}
	if (has_prefix(name, "compat_", &plen)) {
		*compat = true;
		name += plen;
	}
	if (has_prefix(name, "syscall_entry_", &plen) && name[plen]) {
		*name_start = name + plen;
		*name_len = strlen(name + plen);
		return DS_KEV_SYSCALL_ENTRY;
	}
	if (has_prefix(name, "syscall_exit_", &plen) && name[plen]) {
		*name_start = name + plen;
		*name_len = strlen(name + plen);
		return DS_KEV_SYSCALL_EXIT;
	}
	*compat = false;
	if (has_prefix(name, "x86_irq_vectors_", &plen)) {
		len = strlen(name);
		if (has_suffix(name + plen, len - plen, "_entry", &slen)) {
			*name_start = name + plen;
			*name_len = len - plen - slen;
			return DS_KEV_VECTOR_ENTRY;
		}
		if (has_suffix(name + plen, len - plen, "_exit", &slen)) {
			*name_start = name + plen;
			*name_len = len - plen - slen;
			return DS_KEV_VECTOR_EXIT;
		}
	}
	return DS_KEV_NONE;
}

const char *ds_softirq_name(int64_t vec)
{
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
		"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	if (vec >= 0 && vec < (int64_t) G_N_ELEMENTS(names)) {
		return names[vec];
	}
	return "UNKNOWN";
}

static bool kind_acceptable(struct ds_field_ref ref, enum ds_field_kind want)
{
	if (want == DS_FIELD_KIND_UNSIGNED) {
		return ds_field_ref_is_int(ref);
	}
	return ref.kind == want;
}

static const char *intern_name(struct ds_kernel_events *cache, const char *start, size_t len)
{
	char *name = g_strndup(start, len);
	char *interned = g_hash_table_lookup(cache->names, name);

	if (interned) {
		g_free(name);
		return interned;
	}
	g_hash_table_add(cache->names, name);
	return name;
}

static void class_init(struct ds_kernel_events *cache, struct ds_kernel_class *cls, const bt_event_class *ec)
{
	const char *name_start;
	size_t name_len, i;
	const struct kind_spec *spec;

	memset(cls, 0, sizeof(*cls));
	cls->kind = ds_kernel_event_kind_from_name(bt_event_class_get_name(ec),
		&name_start, &name_len, &cls->compat);
	if (cls->kind == DS_KEV_NONE) {
		return;
	}
	if (name_len) {
		cls->name = intern_name(cache, name_start, name_len);
	}
	if (cls->kind == DS_KEV_SYSCALL_ENTRY && cls->name) {
		static const char *const reads[] = { "read", "pread64", "readv", "preadv", "preadv2" };

		for (i = 0; i < G_N_ELEMENTS(reads); i++) {
			cls->read_family = cls->read_family || strcmp(cls->name, reads[i]) == 0;
		}
	}
	spec = &kind_specs[cls->kind];
	for (i = 0; i < MAX_SPECS && spec->fields[i].name; i++) {
		const struct field_spec *fs = &spec->fields[i];
		struct ds_field_ref ref = ds_field_ref_find_any(ec, fs->name);

		if (!kind_acceptable(ref, fs->want)) {
			if (fs->required && !cls->missing) {
				cls->missing = fs->name;
			}
			continue;
		}
		cls->fields[fs->slot] = ref;
		cls->present[cls->present_count++] = (uint8_t) fs->slot;
	}
}

static void decode_vtids(struct ds_event_scopes *scopes, struct ds_field_ref ref, struct ds_kernel_event *out)
{
	const bt_field *array = ds_scoped_borrow(scopes, ref);
	uint64_t count, i;

	out->vtid_count = 0;
	if (!array) {
		return;
	}
	count = bt_field_array_get_length(array);
	for (i = 0; i < count && i < DS_KEV_MAX_VTIDS; i++) {
		const bt_field *elem = bt_field_array_borrow_element_field_by_index_const(array, i);
		bt_field_class_type type = bt_field_get_class_type(elem);

		if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
			out->vtids[i] = bt_field_integer_signed_get_value(elem);
		} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
			out->vtids[i] = (int64_t) bt_field_integer_unsigned_get_value(elem);
		} else {
			break;
		}
		out->vtid_count++;
	}
}

void ds_kernel_event_decode(const struct ds_kernel_class *cls, const bt_event *event,
		struct ds_kernel_event *out)
{
	struct ds_event_scopes scopes;
	unsigned int i;

	ds_event_scopes_init(&scopes, event);
	out->kind = cls->kind;
	out->read_family = cls->read_family;
	out->name = cls->name;
	out->comm = NULL;
	out->next_comm = NULL;
	out->tid = -1;
	out->vtid_count = 0;
	out->bytes = 0;
	out->rwbs = 0;
	out->dev = 0;
	out->sector = 0;
	out->nr_sector = 0;
	for (i = 0; i < cls->present_count; i++) {
		enum ds_kev_field slot = cls->present[i];
		struct ds_field_ref ref = cls->fields[slot];

		switch (slot) {
		case DS_KF_COMM: out->comm = ds_scoped_read_string(&scopes, ref, NULL); break;
		case DS_KF_NEXT_COMM: out->next_comm = ds_scoped_read_string(&scopes, ref, NULL); break;
		case DS_KF_NAME: out->name = ds_scoped_read_string(&scopes, ref, NULL); break;
		case DS_KF_TID: out->tid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_NEXT_TID: out->next_tid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_PREV_STATE: out->prev_state = ds_scoped_read_int(&scopes, ref, 0); break;
		case DS_KF_PID: out->pid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_PARENT_TID: out->parent_tid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_PARENT_PID: out->parent_pid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_CPU: out->cpu = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_ORIG_CPU: out->orig_cpu = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_NUMBER: out->number = ds_scoped_read_int(&scopes, ref, 0); break;
		case DS_KF_STATUS: out->status = ds_scoped_read_int(&scopes, ref, 0); break;
		case DS_KF_VTID: out->vtid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_VPID: out->vpid = ds_scoped_read_int(&scopes, ref, -1); break;
		case DS_KF_NS_LEVEL: out->ns_level = ds_scoped_read_int(&scopes, ref, 0); break;
		case DS_KF_DEV: out->dev = ds_scoped_read_uint(&scopes, ref, 0); break;
		case DS_KF_SECTOR: out->sector = ds_scoped_read_uint(&scopes, ref, 0); break;
		case DS_KF_NR_SECTOR: out->nr_sector = ds_scoped_read_uint(&scopes, ref, 0); break;
		case DS_KF_BYTES: out->bytes = ds_scoped_read_uint(&scopes, ref, 0); break;
		case DS_KF_RWBS: out->rwbs = ds_scoped_read_uint(&scopes, ref, 0); break;
		case DS_KF_VTIDS: decode_vtids(&scopes, ref, out); break;
		default: break;
		}
	}
}

struct ds_kernel_events *ds_kernel_events_create(void)
{
	struct ds_kernel_events *cache = g_new0(struct ds_kernel_events, 1);

	cache->by_class = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	cache->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return cache;
}

void ds_kernel_events_destroy(struct ds_kernel_events *cache)
{
	if (!cache) {
		return;
	}
	g_hash_table_destroy(cache->by_class);
	g_hash_table_destroy(cache->names);
	g_free(cache);
}

const struct ds_kernel_class *ds_kernel_events_resolve(struct ds_kernel_events *cache,
		const bt_event_class *ec)
{
	struct ds_kernel_class *cls = g_hash_table_lookup(cache->by_class, ec);

	if (!cls) {
		cls = g_new(struct ds_kernel_class, 1);
		class_init(cache, cls, ec);
		g_hash_table_insert(cache->by_class, (gpointer) ec, cls);
	}
	return cls;
}

void ds_kernel_events_forget(struct ds_kernel_events *cache, const bt_event_class *ec)
{
	g_hash_table_remove(cache->by_class, ec);
}
