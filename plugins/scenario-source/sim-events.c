/* SPDX-License-Identifier: MIT */
#include "sim-events.h"

#include <stddef.h>

#define F(n, t) { (n), SIM_F_##t }

#define COMM_TID_PRIO F("comm", STRING), F("tid", S32), F("prio", S32)

static const struct sim_event_desc event_descs[SIM_EV_COUNT] = {
	[SIM_EV_SCHED_SWITCH] = { "sched_switch", SIM_DOMAIN_KERNEL, {
		F("prev_comm", STRING), F("prev_tid", S32), F("prev_prio", S32),
		F("prev_state", S64), F("next_comm", STRING), F("next_tid", S32),
		F("next_prio", S32) } },
	[SIM_EV_SCHED_WAKING] = { "sched_waking", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO, F("target_cpu", S32) } },
	[SIM_EV_SCHED_WAKEUP] = { "sched_wakeup", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO, F("target_cpu", S32) } },
	[SIM_EV_SCHED_WAKEUP_NEW] = { "sched_wakeup_new", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO, F("target_cpu", S32) } },
	[SIM_EV_SCHED_MIGRATE_TASK] = { "sched_migrate_task", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO, F("orig_cpu", S32), F("dest_cpu", S32) } },
	[SIM_EV_SCHED_PROCESS_FORK] = { "sched_process_fork", SIM_DOMAIN_KERNEL, {
		F("parent_comm", STRING), F("parent_tid", S32), F("parent_pid", S32),
		F("parent_ns_inum", U32), F("child_comm", STRING), F("child_tid", S32),
		F("vtids", VTIDS), F("child_pid", S32), F("child_ns_inum", U32) } },
	[SIM_EV_SCHED_PROCESS_EXEC] = { "sched_process_exec", SIM_DOMAIN_KERNEL, {
		F("filename", STRING), F("tid", S32), F("old_tid", S32) } },
	[SIM_EV_SCHED_PROCESS_EXIT] = { "sched_process_exit", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO } },
	[SIM_EV_SCHED_PROCESS_FREE] = { "sched_process_free", SIM_DOMAIN_KERNEL, {
		COMM_TID_PRIO } },
	[SIM_EV_IRQ_HANDLER_ENTRY] = { "irq_handler_entry", SIM_DOMAIN_KERNEL, {
		F("irq", S32), F("name", STRING) } },
	[SIM_EV_IRQ_HANDLER_EXIT] = { "irq_handler_exit", SIM_DOMAIN_KERNEL, {
		F("irq", S32), F("ret", S32) } },
	[SIM_EV_SOFTIRQ_RAISE] = { "irq_softirq_raise", SIM_DOMAIN_KERNEL, { F("vec", U32) } },
	[SIM_EV_SOFTIRQ_ENTRY] = { "irq_softirq_entry", SIM_DOMAIN_KERNEL, { F("vec", U32) } },
	[SIM_EV_SOFTIRQ_EXIT] = { "irq_softirq_exit", SIM_DOMAIN_KERNEL, { F("vec", U32) } },
	[SIM_EV_BLOCK_RQ_ISSUE] = { "block_rq_issue", SIM_DOMAIN_KERNEL, {
		F("dev", U32), F("sector", U64), F("nr_sector", U32), F("bytes", U32),
		F("tid", S32), F("rwbs", U32), F("comm", STRING) } },
	[SIM_EV_BLOCK_RQ_INSERT] = { "block_rq_insert", SIM_DOMAIN_KERNEL, {
		F("dev", U32), F("sector", U64), F("nr_sector", U32), F("bytes", U32),
		F("tid", S32), F("rwbs", U32), F("comm", STRING) } },
	[SIM_EV_BLOCK_RQ_COMPLETE] = { "block_rq_complete", SIM_DOMAIN_KERNEL, {
		F("dev", U32), F("sector", U64), F("nr_sector", U32), F("error", S32),
		F("rwbs", U32) } },
	[SIM_EV_NET_DEV_QUEUE] = { "net_dev_queue", SIM_DOMAIN_KERNEL, {
		F("skbaddr", X64), F("len", U32), F("name", STRING), F("network_header", NET_HEADER) } },
	[SIM_EV_NET_IF_RECEIVE_SKB] = { "net_if_receive_skb", SIM_DOMAIN_KERNEL, {
		F("skbaddr", X64), F("len", U32), F("name", STRING), F("network_header", NET_HEADER) } },
	[SIM_EV_STATEDUMP_START] = { "lttng_statedump_start", SIM_DOMAIN_KERNEL, { { NULL, 0 } } },
	/* lttng-modules 2.13 (as recorded on Linux 6.1, tests/fixtures/real-kernel): the namespace
	 * ids moved out of process_state into one process_pid_ns event per thread and namespace level. */
	[SIM_EV_STATEDUMP_PROCESS_STATE] = { "lttng_statedump_process_state", SIM_DOMAIN_KERNEL, {
		F("tid", S32), F("pid", S32), F("ppid", S32), F("name", STRING), F("type", S32),
		F("mode", S32), F("submode", S32), F("status", S32), F("cpu", U32),
		F("file_table_address", X64) } },
	[SIM_EV_STATEDUMP_PROCESS_PID_NS] = { "lttng_statedump_process_pid_ns", SIM_DOMAIN_KERNEL, {
		F("tid", S32), F("vtid", S32), F("vpid", S32), F("vppid", S32), F("ns_level", S32),
		F("ns_inum", U32) } },
	[SIM_EV_STATEDUMP_END] = { "lttng_statedump_end", SIM_DOMAIN_KERNEL, { { NULL, 0 } } },

#define SYSCALL(sys, entry_name, exit_name, entry_fields, exit_fields)			\
	[SIM_EV_SYSCALL_FIRST + 2 * (sys)] = { entry_name, SIM_DOMAIN_KERNEL, entry_fields },	\
	[SIM_EV_SYSCALL_FIRST + 2 * (sys) + 1] = { exit_name, SIM_DOMAIN_KERNEL, exit_fields }
#define FIELDS(...) { __VA_ARGS__ }

	SYSCALL(SIM_SYS_READ, "syscall_entry_read", "syscall_exit_read",
		FIELDS(F("fd", U32), F("count", U64)),
		FIELDS(F("ret", S64), F("buf", U64))),
	SYSCALL(SIM_SYS_WRITE, "syscall_entry_write", "syscall_exit_write",
		FIELDS(F("fd", U32), F("buf", U64), F("count", U64)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_PREAD64, "syscall_entry_pread64", "syscall_exit_pread64",
		FIELDS(F("fd", U32), F("count", U64), F("pos", S64)),
		FIELDS(F("ret", S64), F("buf", U64))),
	SYSCALL(SIM_SYS_FUTEX, "syscall_entry_futex", "syscall_exit_futex",
		FIELDS(F("uaddr", U64), F("op", S32), F("val", U32), F("utime", U64),
			F("uaddr2", U64), F("val3", U32)),
		FIELDS(F("ret", S64), F("uaddr", U64), F("uaddr2", U64))),
	SYSCALL(SIM_SYS_EPOLL_WAIT, "syscall_entry_epoll_wait", "syscall_exit_epoll_wait",
		FIELDS(F("epfd", S32), F("maxevents", S32), F("timeout", S32)),
		FIELDS(F("ret", S64), F("fds", EPOLL_FDS))),
	SYSCALL(SIM_SYS_SENDTO, "syscall_entry_sendto", "syscall_exit_sendto",
		FIELDS(F("fd", S32), F("buff", U64), F("len", U64), F("flags", U32),
			F("addr", U64), F("addr_len", S32)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_RECVFROM, "syscall_entry_recvfrom", "syscall_exit_recvfrom",
		FIELDS(F("fd", S32), F("size", U64), F("flags", U32), F("addr_len", U64)),
		FIELDS(F("ret", S64), F("ubuf", U64), F("addr", U64), F("addr_len", U64))),
	SYSCALL(SIM_SYS_OPENAT, "syscall_entry_openat", "syscall_exit_openat",
		FIELDS(F("dfd", S32), F("filename", STRING), F("flags", S32), F("mode", U16)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_CLOSE, "syscall_entry_close", "syscall_exit_close",
		FIELDS(F("fd", U32)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_MMAP, "syscall_entry_mmap", "syscall_exit_mmap",
		FIELDS(F("addr", X64), F("len", U64), F("prot", S32), F("flags", S32),
			F("fd", S32), F("offset", S64)),
		FIELDS(F("ret", X64))),
	SYSCALL(SIM_SYS_CLONE, "syscall_entry_clone", "syscall_exit_clone",
		FIELDS(F("clone_flags", X64), F("newsp", X64), F("parent_tid", X64),
			F("child_tid", X64)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_EXIT_GROUP, "syscall_entry_exit_group", "syscall_exit_exit_group",
		FIELDS(F("error_code", S32)),
		FIELDS(F("ret", S64))),
	SYSCALL(SIM_SYS_NANOSLEEP, "syscall_entry_nanosleep", "syscall_exit_nanosleep",
		FIELDS(F("rqtp", U64)),
		FIELDS(F("ret", S64), F("rmtp", U64))),
	SYSCALL(SIM_SYS_WAIT4, "syscall_entry_wait4", "syscall_exit_wait4",
		FIELDS(F("upid", S32), F("options", S32)),
		FIELDS(F("ret", S64), F("stat_addr", U64), F("ru", U64))),
	SYSCALL(SIM_SYS_EXECVE, "syscall_entry_execve", "syscall_exit_execve",
		FIELDS(F("filename", STRING), F("argv", X64), F("envp", X64)),
		FIELDS(F("ret", S64))),

	[SIM_EV_DS_SPAN_START] = { "deepspan_ust:span_start", SIM_DOMAIN_UST, {
		F("trace_id_high", U64), F("trace_id_low", U64), F("span_id", U64),
		F("parent_span_id", U64), F("service", STRING), F("operation", STRING),
		F("kind", U8) } },
	[SIM_EV_DS_SPAN_END] = { "deepspan_ust:span_end", SIM_DOMAIN_UST, {
		F("trace_id_high", U64), F("trace_id_low", U64), F("span_id", U64),
		F("status", U8) } },
	[SIM_EV_JAEGER_START_SPAN] = { "jaeger_ust:start_span", SIM_DOMAIN_UST, {
		F("trace_id_high", U64), F("trace_id_low", U64), F("span_id", U64),
		F("parent_span_id", U64), F("op_name", STRING), F("start_time", S64) } },
	[SIM_EV_JAEGER_END_SPAN] = { "jaeger_ust:end_span", SIM_DOMAIN_UST, {
		F("trace_id_high", U64), F("trace_id_low", U64), F("span_id", U64),
		F("duration", S64) } },
};

_Static_assert(SIM_SYS_COUNT == 15, "SIM_EV_DS_SPAN_START assumes 15 syscalls");

const struct sim_event_desc *sim_event_desc(enum sim_event_id id)
{
	return &event_descs[id];
}

const char *sim_syscall_name(enum sim_syscall sys)
{
	/* "syscall_entry_" is 14 characters long */
	return event_descs[sim_syscall_entry_event(sys)].name + 14;
}

unsigned int sim_event_int_count(enum sim_event_id id)
{
	const struct sim_field_desc *field;
	unsigned int count = 0;

	for (field = event_descs[id].fields; field->name; field++) {
		switch (field->type) {
		case SIM_F_STRING:
			break;
		case SIM_F_NET_HEADER:
			count += SIM_NET_VALUES;
			break;
		case SIM_F_EPOLL_FDS:
			count += 2;
			break;
		default:
			count++;
			break;
		}
	}
	return count;
}

unsigned int sim_event_string_count(enum sim_event_id id)
{
	const struct sim_field_desc *field;
	unsigned int count = 0;

	for (field = event_descs[id].fields; field->name; field++) {
		count += field->type == SIM_F_STRING;
	}
	return count;
}
