/* SPDX-License-Identifier: MIT */
/*
 * lttng-modules kernel events used by the thread state model (doc/span-attrib.md, "Input").
 *
 * Use:
 *   struct ds_kernel_events *cache = ds_kernel_events_create();
 *   const struct ds_kernel_class *cls = ds_kernel_events_resolve(cache, event_class);  (cached per class)
 *   if (cls->kind != DS_KEV_NONE && !cls->missing) {
 *           struct ds_kernel_event ev;
 *           ds_kernel_event_decode(cls, event, &ev);   (reads only the fields of that kind)
 *   }
 *
 * Network events are not decoded here.  The syscall name (`read` for `syscall_entry_read`
 * and `compat_syscall_exit_read`) and the x86 vector name (`local_timer`) are extracted once
 * per class and interned by the cache: pointers stay valid until ds_kernel_events_destroy(),
 * even after ds_kernel_events_forget() of their class.
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_KERNEL_EVENTS_H
#define DEEPSPAN_SPAN_ATTRIB_KERNEL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "event-fields.h"

enum ds_kernel_event_kind {
	DS_KEV_NONE = 0,
	DS_KEV_SCHED_SWITCH,
	DS_KEV_SCHED_WAKING,
	DS_KEV_SCHED_WAKEUP,
	DS_KEV_SCHED_WAKEUP_NEW,
	DS_KEV_SCHED_MIGRATE_TASK,
	DS_KEV_SCHED_PROCESS_FORK,
	DS_KEV_SCHED_PROCESS_EXIT,
	DS_KEV_SCHED_PROCESS_FREE,
	DS_KEV_SYSCALL_ENTRY,
	DS_KEV_SYSCALL_EXIT,
	DS_KEV_IRQ_ENTRY,
	DS_KEV_IRQ_EXIT,
	DS_KEV_SOFTIRQ_ENTRY,
	DS_KEV_SOFTIRQ_EXIT,
	DS_KEV_SOFTIRQ_RAISE,
	DS_KEV_VECTOR_ENTRY,		/* x86_irq_vectors_<name>_entry */
	DS_KEV_VECTOR_EXIT,
	DS_KEV_TIMER_ENTRY,		/* timer_hrtimer_expire_entry, timer_expire_entry */
	DS_KEV_TIMER_EXIT,
	DS_KEV_BLOCK_RQ_ISSUE,
	DS_KEV_BLOCK_RQ_COMPLETE,
	DS_KEV_STATEDUMP_PROCESS_STATE,
	DS_KEV_STATEDUMP_PID_NS,
	/* layers (doc/storage-network.md) */
	DS_KEV_BLOCK_RQ_INSERT,
	DS_KEV_BLOCK_RQ_REQUEUE,
	DS_KEV_BLOCK_BIO_BACKMERGE,
	DS_KEV_BLOCK_BIO_FRONTMERGE,
	DS_KEV_STATEDUMP_BLOCK_DEVICE,	/* lttng_statedump_block_device: dev, diskname (in `name`) */
	DS_KEV_BLOCK_RQ_MERGE,
	DS_KEV_COUNT,
};

#define DS_KEV_MAX_VTIDS 8

/* One decoded kernel event: only the members of its kind are set. Strings are borrowed from the event. */
struct ds_kernel_event {
	enum ds_kernel_event_kind kind;
	bool read_family;		/* syscall entry of read, pread64, readv, preadv, preadv2 (page cache) */
	const char *name;		/* syscall / vector name from the class (owned by the cache); irq `name` */
	const char *comm;		/* comm, prev_comm, child_comm, statedump name */
	const char *next_comm;		/* sched_switch */
	int64_t tid;			/* tid, prev_tid, child_tid */
	int64_t next_tid;		/* sched_switch */
	int64_t prev_state;		/* sched_switch */
	int64_t pid;			/* child_pid, statedump pid, pid_ns vpid's kernel pid is `pid` */
	int64_t parent_tid, parent_pid;	/* fork */
	int64_t cpu;			/* target_cpu, dest_cpu, statedump cpu */
	int64_t orig_cpu;		/* migrate */
	int64_t number;			/* irq, vec, ret (syscall exit / irq exit) */
	int64_t status;			/* statedump process status; block error */
	int64_t vtid, vpid, ns_level;	/* pid_ns */
	uint64_t dev, sector, nr_sector;	/* block */
	uint64_t bytes, rwbs;			/* block: 0 when absent */
	uint32_t vtid_count;		/* fork: vtids[] (up to DS_KEV_MAX_VTIDS kept) */
	int64_t vtids[DS_KEV_MAX_VTIDS];
};

enum ds_kev_field {
	DS_KF_COMM, DS_KF_NEXT_COMM, DS_KF_TID, DS_KF_NEXT_TID, DS_KF_PREV_STATE, DS_KF_PID,
	DS_KF_PARENT_TID, DS_KF_PARENT_PID, DS_KF_CPU, DS_KF_ORIG_CPU, DS_KF_NUMBER, DS_KF_NAME,
	DS_KF_STATUS, DS_KF_VTID, DS_KF_VPID, DS_KF_NS_LEVEL, DS_KF_DEV, DS_KF_SECTOR,
	DS_KF_NR_SECTOR, DS_KF_VTIDS, DS_KF_BYTES, DS_KF_RWBS,
	DS_KF_COUNT,
};

struct ds_kernel_class {
	enum ds_kernel_event_kind kind;
	bool compat;			/* compat_syscall_* */
	bool read_family;		/* syscall entry of the read family (doc/storage-network.md, "Page cache") */
	const char *name;		/* syscall or vector name (interned by the cache), NULL for other kinds */
	const char *missing;		/* NULL, or the first required field absent or mistyped (static) */
	struct ds_field_ref fields[DS_KF_COUNT];
	uint8_t present[DS_KF_COUNT];	/* slots (enum ds_kev_field) to decode, in order */
	uint8_t present_count;
};

/* Pure: the kind of an event named `name`; `*name_start`/`*name_len` delimit the syscall or
 * vector name inside `name` (len 0 when none); `*compat` for compat_ syscalls. */
enum ds_kernel_event_kind ds_kernel_event_kind_from_name(const char *name,
		const char **name_start, size_t *name_len, bool *compat);

struct ds_kernel_events;

struct ds_kernel_events *ds_kernel_events_create(void);
void ds_kernel_events_destroy(struct ds_kernel_events *cache);

/* The cached description of `ec` (kind NONE for other classes). */
const struct ds_kernel_class *ds_kernel_events_resolve(struct ds_kernel_events *cache,
		const bt_event_class *ec);

/* Drops the cached description of `ec` (its class is being destroyed); interned names stay valid. */
void ds_kernel_events_forget(struct ds_kernel_events *cache, const bt_event_class *ec);

void ds_kernel_event_decode(const struct ds_kernel_class *cls, const bt_event *event,
		struct ds_kernel_event *out);

/* Softirq vector name ("NET_RX" for 3), or "UNKNOWN". */
const char *ds_softirq_name(int64_t vec);

#endif /* DEEPSPAN_SPAN_ATTRIB_KERNEL_EVENTS_H */
