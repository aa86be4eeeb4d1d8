/* SPDX-License-Identifier: MIT */
/*
 * The event classes the scenario simulator emits, with lttng-modules 2.13 /
 * lttng-ust 2.13 payload layouts (field names as babeltrace2 shows them, one
 * leading `_` stripped).  The table is the single source of truth shared by
 * the kernel model (which fills values in field order) and the trace-IR
 * emitter (which builds the event classes and fields from it).
 */
#ifndef DEEPSPAN_SCENARIO_SIM_EVENTS_H
#define DEEPSPAN_SCENARIO_SIM_EVENTS_H

#include <stdint.h>

enum sim_domain {
	SIM_DOMAIN_KERNEL = 0,
	SIM_DOMAIN_UST = 1,
};

enum sim_ftype {
	SIM_F_U8, SIM_F_U16, SIM_F_U32, SIM_F_U64,
	SIM_F_X16, SIM_F_X32, SIM_F_X64,	/* unsigned, hexadecimal display base */
	SIM_F_S32, SIM_F_S64,
	SIM_F_STRING,				/* consumes one string value */
	/* `_vtids_length` (u8) + `vtids` (dynamic array of s32): consumes one value, the vtid */
	SIM_F_VTIDS,
	/* `network_header_type` enum + `network_header` variant (IPv4/TCP): consumes SIM_NET_VALUES */
	SIM_F_NET_HEADER,
	/* `fds_length` (u32) + `overflow` (u8) + `fds` array of epoll events: consumes 2 (count 0/1, fd) */
	SIM_F_EPOLL_FDS,
};

/* Value slots of SIM_F_NET_HEADER, in order. */
enum sim_net_value {
	SIM_NET_SADDR, SIM_NET_DADDR, SIM_NET_TOT_LEN, SIM_NET_IP_ID,
	SIM_NET_SPORT, SIM_NET_DPORT, SIM_NET_SEQ, SIM_NET_ACK_SEQ,
	SIM_NET_FLAGS, SIM_NET_WINDOW, SIM_NET_TCP_CHECKSUM,
	SIM_NET_VALUES,
};

struct sim_field_desc {
	const char *name;	/* IR member name (NULL ends the list) */
	enum sim_ftype type;
};

#define SIM_EVENT_MAX_FIELDS 16

struct sim_event_desc {
	const char *name;
	enum sim_domain domain;
	struct sim_field_desc fields[SIM_EVENT_MAX_FIELDS];
};

enum sim_event_id {
	SIM_EV_SCHED_SWITCH,
	SIM_EV_SCHED_WAKING,
	SIM_EV_SCHED_WAKEUP,
	SIM_EV_SCHED_WAKEUP_NEW,
	SIM_EV_SCHED_MIGRATE_TASK,
	SIM_EV_SCHED_PROCESS_FORK,
	SIM_EV_SCHED_PROCESS_EXEC,
	SIM_EV_SCHED_PROCESS_EXIT,
	SIM_EV_SCHED_PROCESS_FREE,
	SIM_EV_IRQ_HANDLER_ENTRY,
	SIM_EV_IRQ_HANDLER_EXIT,
	SIM_EV_SOFTIRQ_RAISE,
	SIM_EV_SOFTIRQ_ENTRY,
	SIM_EV_SOFTIRQ_EXIT,
	SIM_EV_BLOCK_RQ_ISSUE,
	SIM_EV_BLOCK_RQ_COMPLETE,
	SIM_EV_BLOCK_RQ_INSERT,
	SIM_EV_NET_DEV_QUEUE,
	SIM_EV_NET_IF_RECEIVE_SKB,
	SIM_EV_STATEDUMP_START,
	SIM_EV_STATEDUMP_PROCESS_STATE,
	SIM_EV_STATEDUMP_PROCESS_PID_NS,
	SIM_EV_STATEDUMP_END,
	/* syscalls: entry/exit pairs, in enum sim_syscall order */
	SIM_EV_SYSCALL_FIRST,
	/* UST */
	SIM_EV_DS_SPAN_START = SIM_EV_SYSCALL_FIRST + 2 * 15,
	SIM_EV_DS_SPAN_END,
	SIM_EV_JAEGER_START_SPAN,
	SIM_EV_JAEGER_END_SPAN,
	SIM_EV_COUNT,
};

enum sim_syscall {
	SIM_SYS_READ, SIM_SYS_WRITE, SIM_SYS_PREAD64, SIM_SYS_FUTEX,
	SIM_SYS_EPOLL_WAIT, SIM_SYS_SENDTO, SIM_SYS_RECVFROM, SIM_SYS_OPENAT,
	SIM_SYS_CLOSE, SIM_SYS_MMAP, SIM_SYS_CLONE, SIM_SYS_EXIT_GROUP,
	SIM_SYS_NANOSLEEP, SIM_SYS_WAIT4, SIM_SYS_EXECVE,
	SIM_SYS_COUNT,
	SIM_SYS_NONE = -1,
};

static inline enum sim_event_id sim_syscall_entry_event(enum sim_syscall sys)
{
	return (enum sim_event_id) (SIM_EV_SYSCALL_FIRST + 2 * (int) sys);
}

static inline enum sim_event_id sim_syscall_exit_event(enum sim_syscall sys)
{
	return (enum sim_event_id) (SIM_EV_SYSCALL_FIRST + 2 * (int) sys + 1);
}

/* The descriptor of event `id` (never NULL for id < SIM_EV_COUNT). */
const struct sim_event_desc *sim_event_desc(enum sim_event_id id);

/* The syscall's name without prefix ("read"). */
const char *sim_syscall_name(enum sim_syscall sys);

/* Number of integer / string values an event of `id` consumes. */
unsigned int sim_event_int_count(enum sim_event_id id);
unsigned int sim_event_string_count(enum sim_event_id id);

/* Softirq vectors (kernel numbering). */
enum sim_softirq_vec {
	SIM_SOFTIRQ_HI = 0, SIM_SOFTIRQ_TIMER = 1, SIM_SOFTIRQ_NET_TX = 2,
	SIM_SOFTIRQ_NET_RX = 3, SIM_SOFTIRQ_BLOCK = 4, SIM_SOFTIRQ_SCHED = 7,
	SIM_SOFTIRQ_RCU = 9,
};

#endif /* DEEPSPAN_SCENARIO_SIM_EVENTS_H */
