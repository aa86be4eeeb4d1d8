/* SPDX-License-Identifier: MIT */
/* filter.deepspan.span-attrib: upstream messages to the thread model and span accounting. */
#include "span-attrib.h"
#include "log.h"
#include "syscall-table-x86_64.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define APPEND_CAUSE(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((it)->comp->self_comp, __VA_ARGS__)

enum role_type {
	ROLE_NONE = 0,
	ROLE_KERNEL,
	ROLE_SPAN,
	ROLE_NET,		/* chains: a TCP segment sent or received (kernel-net.h) */
};

struct event_role {
	enum role_type type;
	const struct ds_kernel_class *kernel;	/* borrowed from it->kernel_events */
	const struct ds_span_class *span;	/* borrowed from it->span_events */
	struct ds_kernel_net_class net;		/* ROLE_NET */
	bool invalid;				/* a required field is missing: never decoded */
	bool unknown_syscall;			/* syscall_entry_unknown: name it from its `id` field */
	struct ds_field_ref syscall_id;		/* its `id` field */
	const bt_trace_class *trace_class;	/* borrowed; the class's trace class */
	bool family_noted;			/* layers: its family added to its host's (families.c) */
};

/* A trace class is being destroyed: its event class addresses may be reused, drop their roles. */
static void trace_class_destroyed(const bt_trace_class *tc, void *data)
{
	struct span_attrib_iterator *it = data;
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, it->roles);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		const struct event_role *role = value;

		if (role->trace_class == tc) {
			ds_span_events_forget(it->span_events, key);
			ds_kernel_events_forget(it->kernel_events, key);
			g_hash_table_iter_remove(&iter);
		}
	}
	memset(it->role_cache_class, 0, sizeof(it->role_cache_class));
	g_hash_table_remove(it->trace_classes, tc);
}

/* Removes the destruction listeners of the trace classes that outlive the iterator. */
void span_attrib_forget_trace_classes(struct span_attrib_iterator *it)
{
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, it->trace_classes);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		bt_trace_class_remove_destruction_listener(key, (bt_listener_id) GPOINTER_TO_SIZE(value));
	}
	g_hash_table_remove_all(it->trace_classes);
}

/* MEMORY_ERROR (cause appended) when the listener cannot be added. */
static enum span_attrib_status watch_trace_class(struct span_attrib_iterator *it, const bt_trace_class *tc)
{
	bt_listener_id id;

	if (g_hash_table_contains(it->trace_classes, tc)) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	if (bt_trace_class_add_destruction_listener(tc, trace_class_destroyed, it, &id) !=
			BT_TRACE_CLASS_ADD_LISTENER_STATUS_OK) {
		APPEND_CAUSE(it, "%s: cannot watch an input trace class for its destruction (out of memory).",
			SPAN_ATTRIB_CLASS_NAME);
		return SPAN_ATTRIB_STATUS_MEMORY_ERROR;
	}
	g_hash_table_insert(it->trace_classes, (gpointer) tc, GSIZE_TO_POINTER(id));
	return SPAN_ATTRIB_STATUS_OK;
}

/* The role of an event class, resolved once; NULL (cause appended) for a class that cannot be decoded. */
static const struct event_role *role_get(struct span_attrib_iterator *it, const bt_event_class *ec)
{
	struct event_role *role;
	const char *missing = NULL;
	unsigned int slot = (unsigned int) (((uintptr_t) ec >> 4) ^ ((uintptr_t) ec >> 12)) % ROLE_CACHE_SIZE;

	if (it->role_cache_class[slot] == ec) {
		return it->role_cache_role[slot];
	}
	role = g_hash_table_lookup(it->roles, ec);
	if (role) {
		if (role->invalid) {
			return NULL;
		}
		goto end;
	}
	role = g_new0(struct event_role, 1);
	role->trace_class = bt_stream_class_borrow_trace_class_const(bt_event_class_borrow_stream_class_const(ec));
	if (watch_trace_class(it, role->trace_class)) {
		g_free(role);
		return NULL;
	}
	role->span = ds_span_events_resolve(it->span_events, ec);
	if (role->span->kind != DS_SPAN_EVENT_NONE) {
		role->type = ROLE_SPAN;
		missing = role->span->missing;
	} else {
		role->kernel = ds_kernel_events_resolve(it->kernel_events, ec);
		if (role->kernel->kind != DS_KEV_NONE) {
			role->type = ROLE_KERNEL;
			missing = role->kernel->missing;
		} else if (it->chain) {
			ds_kernel_net_classify(ec, &role->net);
			if (role->net.direction != DS_NET_NONE) {
				role->type = ROLE_NET;
			}
		}
		/* lttng-modules records syscalls it has no probe for as syscall_entry_unknown { id, args }:
		 * name them from the x86_64 table (compat ones are i386 numbers: left "unknown"). */
		if (role->kernel->kind == DS_KEV_SYSCALL_ENTRY && !role->kernel->compat && role->kernel->name &&
				strcmp(role->kernel->name, "unknown") == 0) {
			role->syscall_id = ds_field_ref_find_any(ec, "id");
			role->unknown_syscall = ds_field_ref_is_int(role->syscall_id);
		}
	}
	g_hash_table_insert(it->roles, (gpointer) ec, role);
	if (missing) {
		role->invalid = true;
		APPEND_CAUSE(it, "Event class `%s` has no integer/string field `%s` where the %s schema requires one: "
			"cannot attribute spans from this trace (is it corrupt, or written by another tracer version?).",
			bt_event_class_get_name(ec), missing, role->type == ROLE_SPAN ? "span (doc/instrumentation.md, \"The span schemas\")" :
				"kernel (doc/span-attrib.md, \"Input\")");
		return NULL;
	}
end:
	it->role_cache_class[slot] = ec;
	it->role_cache_role[slot] = role;
	return role;
}

/* Kinds whose payload the model reads (the others are dispatched on their kind alone). */
static const bool kind_needs_fields[DS_KEV_COUNT] = {
	[DS_KEV_SCHED_SWITCH] = true, [DS_KEV_SCHED_WAKING] = true, [DS_KEV_SCHED_WAKEUP] = true,
	[DS_KEV_SCHED_WAKEUP_NEW] = true, [DS_KEV_SCHED_MIGRATE_TASK] = true,
	[DS_KEV_SCHED_PROCESS_FORK] = true, [DS_KEV_SCHED_PROCESS_FREE] = true,
	[DS_KEV_IRQ_ENTRY] = true, [DS_KEV_SOFTIRQ_ENTRY] = true,
	[DS_KEV_STATEDUMP_PROCESS_STATE] = true, [DS_KEV_STATEDUMP_PID_NS] = true,
	[DS_KEV_BLOCK_RQ_COMPLETE] = true,
	[DS_KEV_BLOCK_RQ_ISSUE] = true, [DS_KEV_BLOCK_RQ_INSERT] = true, [DS_KEV_BLOCK_RQ_REQUEUE] = true,
	[DS_KEV_BLOCK_BIO_BACKMERGE] = true, [DS_KEV_BLOCK_BIO_FRONTMERGE] = true,
	[DS_KEV_STATEDUMP_BLOCK_DEVICE] = true, [DS_KEV_BLOCK_RQ_MERGE] = true,
};

/* The block operation of each block kind (layers, doc/storage-network.md). */
static const int block_ops[DS_KEV_COUNT] = {
	[DS_KEV_BLOCK_RQ_INSERT] = DS_BLOCK_INSERT + 1, [DS_KEV_BLOCK_RQ_ISSUE] = DS_BLOCK_ISSUE + 1,
	[DS_KEV_BLOCK_RQ_REQUEUE] = DS_BLOCK_REQUEUE + 1, [DS_KEV_BLOCK_BIO_BACKMERGE] = DS_BLOCK_BACKMERGE + 1,
	[DS_KEV_BLOCK_BIO_FRONTMERGE] = DS_BLOCK_FRONTMERGE + 1, [DS_KEV_BLOCK_RQ_COMPLETE] = DS_BLOCK_COMPLETE + 1,
	[DS_KEV_BLOCK_RQ_MERGE] = DS_BLOCK_RQ_MERGE + 1,
};

static void dispatch_block(struct ds_model *m, const struct ds_kernel_event *ev, int64_t ns, int64_t cpu)
{
	struct ds_block_io io = {
		.dev = ev->dev, .sector = ev->sector, .nr_sector = ev->nr_sector, .bytes = ev->bytes,
		.tid = ev->tid, .comm = ev->comm, .write = (ev->rwbs & 1) != 0,
	};

	ds_model_block_event(m, ns, cpu, (enum ds_block_op) (block_ops[ev->kind] - 1), &io);
}

static void dispatch_kernel(struct host *host, const struct ds_kernel_event *ev, int64_t ns, int64_t cpu)
{
	struct ds_model *m = host->model;

	switch (ev->kind) {
	case DS_KEV_SCHED_SWITCH:
		ds_model_sched_switch(m, ns, cpu, ev->tid, ev->comm, ev->prev_state, ev->next_tid, ev->next_comm);
		break;
	case DS_KEV_SCHED_WAKING:
	case DS_KEV_SCHED_WAKEUP:
	case DS_KEV_SCHED_WAKEUP_NEW:
		ds_model_wakeup_target(m, ns, cpu, ev->tid, ev->comm, ev->cpu);
		break;
	case DS_KEV_SCHED_MIGRATE_TASK:
		ds_model_migrate(m, ns, ev->tid, ev->cpu);
		break;
	case DS_KEV_SCHED_PROCESS_FORK:
		ds_model_fork(m, ns, ev->parent_tid, ev->tid, ev->pid, ev->comm, ev->vtids, ev->vtid_count);
		break;
	case DS_KEV_SCHED_PROCESS_FREE:
		ds_model_process_free(m, ns, ev->tid);
		break;
	case DS_KEV_SYSCALL_ENTRY:
		ds_model_syscall_entry(m, ns, cpu, ev->name);
		if (ev->read_family) {
			ds_model_syscall_read(m, cpu);
		}
		break;
	case DS_KEV_SYSCALL_EXIT:
		ds_model_syscall_exit(m, ns, cpu);
		break;
	case DS_KEV_IRQ_ENTRY:
		ds_model_irq_entry(m, ns, cpu, DS_IRQ_HARD, ev->name);
		break;
	case DS_KEV_IRQ_EXIT:
		ds_model_irq_exit(m, ns, cpu, DS_IRQ_HARD);
		break;
	case DS_KEV_SOFTIRQ_ENTRY:
		ds_model_irq_entry(m, ns, cpu, DS_IRQ_SOFT, ds_softirq_name(ev->number));
		break;
	case DS_KEV_SOFTIRQ_EXIT:
		ds_model_irq_exit(m, ns, cpu, DS_IRQ_SOFT);
		break;
	case DS_KEV_VECTOR_ENTRY:
		ds_model_irq_entry(m, ns, cpu, DS_IRQ_VECTOR, ev->name);
		break;
	case DS_KEV_VECTOR_EXIT:
		ds_model_irq_exit(m, ns, cpu, DS_IRQ_VECTOR);
		break;
	case DS_KEV_TIMER_ENTRY:
		ds_model_timer_entry(m, cpu);
		break;
	case DS_KEV_TIMER_EXIT:
		ds_model_timer_exit(m, cpu);
		break;
	case DS_KEV_STATEDUMP_PROCESS_STATE:
		ds_model_statedump_process(m, ns, ev->tid, ev->pid, ev->status, ev->comm);
		break;
	case DS_KEV_STATEDUMP_PID_NS:
		ds_model_statedump_pid_ns(m, ev->tid, ev->vpid, ev->vtid, ev->ns_level);
		break;
	case DS_KEV_BLOCK_RQ_ISSUE:
		ds_model_block_issue(m, ns, ev->tid, ev->dev, ev->nr_sector);	/* host context */
		dispatch_block(m, ev, ns, cpu);	/* layers */
		break;
	case DS_KEV_BLOCK_RQ_COMPLETE:
	case DS_KEV_BLOCK_RQ_INSERT:
	case DS_KEV_BLOCK_RQ_REQUEUE:
	case DS_KEV_BLOCK_BIO_BACKMERGE:
	case DS_KEV_BLOCK_BIO_FRONTMERGE:
	case DS_KEV_BLOCK_RQ_MERGE:
		dispatch_block(m, ev, ns, cpu);
		break;
	case DS_KEV_STATEDUMP_BLOCK_DEVICE:
		if (ds_model_block(m)) {
			ds_block_set_device_name(ds_model_block(m), ev->dev, ev->name);
		}
		break;
	default:
		/* exit, softirq raise, block events: no state change of their own */
		break;
	}
}

static struct sa_span *span_lookup(struct host *host, const struct ds_span_event *ev)
{
	struct sa_span key;

	key.trace_id_high = ev->trace_id_high;
	key.trace_id_low = ev->trace_id_low;
	key.span_id = ev->span_id;
	return g_hash_table_lookup(host->spans, &key);
}

static struct ds_thread *span_event_thread(struct host *host, const struct ds_span_event *ev)
{
	int64_t tid = ev->vtid >= 0 ? ds_model_tid_for_vtid(host->model, ev->vpid, ev->vtid) : -1;

	return ds_model_thread(host->model, tid, true);
}

static void span_start(struct span_attrib_iterator *it, struct host *host,
		const struct ds_span_class *cls, const struct ds_span_event *ev, int64_t ns)
{
	struct ds_thread *thread;
	struct sa_span *span;

	if (span_lookup(host, ev)) {
		it->counters.duplicate_starts++;
		return;
	}
	span = sa_span_new(host->model, ns);
	span->trace_id_high = ev->trace_id_high;
	span->trace_id_low = ev->trace_id_low;
	span->span_id = ev->span_id;
	span->parent_span_id = ev->parent_span_id;
	span->operation = g_strdup(ev->operation);
	thread = span_event_thread(host, ev);
	if (ev->service && ev->service[0]) {
		span->service = g_strdup(ev->service);
	} else if (ev->procname) {
		span->service = g_strdup(ev->procname);
	} else if (thread && thread->comm[0]) {
		span->service = g_strdup(thread->comm);
	}
	if (thread) {
		span->tid = thread->tid;
		span->pid = thread->pid >= 0 ? thread->pid :
			(ev->vpid >= 0 ? ds_model_tid_for_vtid(host->model, ev->vpid, ev->vpid) : -1);
		sa_span_attach(host->model, span, thread, ns);
	} else if (cls->vtid.scope != DS_FIELD_SCOPE_NONE && ev->vtid < 0) {
		it->counters.spans_invalid_vtid++;
	} else {
		it->counters.spans_without_thread++;
	}
	if (ds_model_host_context(host->model)) {
		/* Host context (doc/host-context.md): the spans whose parent is not open on this host carry it. */
		struct sa_span parent_key = { .trace_id_high = ev->trace_id_high, .trace_id_low = ev->trace_id_low,
			.span_id = ev->parent_span_id };

		if (ev->parent_span_id == 0 || !g_hash_table_contains(host->spans, &parent_key)) {
			sa_span_open_host_window(host->model, span, ns);
		}
	}
	g_hash_table_add(host->spans, span);
}

static enum span_attrib_status span_emit_and_free(struct span_attrib_iterator *it, struct host *host,
		struct sa_span *span)
{
	enum span_attrib_status status =
		output_emit_span(it, host, span, clock_map_cycles(&host->out_clock, span->end));

	g_hash_table_remove(host->spans, span);
	return status;
}

static enum span_attrib_status handle_span_event(struct span_attrib_iterator *it, struct host *host,
		const struct stream_info *info, const struct ds_span_class *cls,
		const struct ds_span_event *ev, int64_t ns)
{
	struct sa_span *span;

	host->has_spans = true;
	if (!host->out_clock.clock_class) {
		host->out_clock = info->clock;
	}
	if (ev->kind == DS_SPAN_EVENT_START) {
		span_start(it, host, cls, ev, ns);
		return SPAN_ATTRIB_STATUS_OK;
	}
	span = span_lookup(host, ev);
	if (!span) {
		if (ev->kind == DS_SPAN_EVENT_END) {
			it->counters.unmatched_ends++;
		} else {
			it->counters.unmatched_activations++;
		}
		return SPAN_ATTRIB_STATUS_OK;
	}
	switch (ev->kind) {
	case DS_SPAN_EVENT_END:
		sa_span_finish(host->model, span, ns);
		return span_emit_and_free(it, host, span);
	case DS_SPAN_EVENT_ACTIVATE: {
		struct ds_thread *thread = span_event_thread(host, ev);

		if (thread) {
			sa_span_attach(host->model, span, thread, ns);
		}
		break;
	}
	case DS_SPAN_EVENT_DEACTIVATE:
		if (span->thread) {
			sa_span_detach(host->model, span, ns, DS_STATE_BLOCKED, "inactive");
		}
		break;
	default:
		break;
	}
	return SPAN_ATTRIB_STATUS_OK;
}

/* Names a stream for a warning: `name` (id N) of trace `T`. */
static void stream_label(const bt_stream *stream, char *buf, size_t size)
{
	const char *name = bt_stream_get_name(stream);
	const char *trace = bt_trace_get_name(bt_stream_borrow_trace_const(stream));

	snprintf(buf, size, "`%s` (id %" PRIu64 ") of trace `%s`", name ? name : "(unnamed)",
		bt_stream_get_id(stream), trace ? trace : "(unnamed)");
}

/* Warns once per stream: "<kind>stream <label> (host `H`) <problem>". */
static void warn_stream_once(struct span_attrib_iterator *it, struct stream_info *info,
		const bt_stream *stream, const char *kind, const char *problem)
{
	char label[512];

	if (info->warned) {
		return;
	}
	info->warned = true;
	stream_label(stream, label, sizeof(label));
	DS_LOG_WARN(it->comp->self_comp, SPAN_ATTRIB_CLASS_NAME, "%sstream %s (host `%s`) %s", kind,
		label, info->host->name, problem);
}

/* A stream without a clock carries kernel or span events: they cannot be placed in time. */
static void warn_unclocked(struct span_attrib_iterator *it, struct stream_info *info,
		const bt_stream *stream)
{
	warn_stream_once(it, info, stream, "", "has no default clock: its kernel and span events "
		"are ignored (no span comes from it). Record it with a clock (LTTng always does), see "
		"doc/span-attrib.md.");
}

/* A kernel stream whose packets do not say their CPU: its threads' CPU time is Unknown. */
static void warn_no_cpu_id(struct span_attrib_iterator *it, struct stream_info *info,
		const bt_stream *stream)
{
	warn_stream_once(it, info, stream, "kernel ", "has no integer `cpu_id` member in its packet "
		"context: the CPU of its events is unknown, so the time of its threads is Unknown. Use a "
		"kernel trace written by lttng-modules (one stream per CPU with `cpu_id`), see "
		"doc/span-attrib.md.");
}

/* The event's time in ns from the origin (after the clock fit); false, with the cause appended, on overflow. */
static bool event_ns(struct span_attrib_iterator *it, const struct stream_info *info, const bt_message *msg,
		const bt_event *event, int64_t *ns)
{
	uint64_t cycles = it->fit ? it->fit_cycles :
		bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(msg));
	const char *name;
	char what[256];

	if (clock_map_ns(&info->clock, cycles, ns)) {
		return true;
	}
	name = bt_event_class_get_name(bt_event_borrow_class_const(event));
	snprintf(what, sizeof(what), "the timestamp of event `%s` (%" PRIu64 " cycles)", name ? name : "(unnamed)",
		cycles);
	clock_map_append_overflow(it, info->host, bt_event_borrow_stream_const(event), info->clock.clock_class, what);
	return false;
}

/* An event of `host` at `ns` was read: the host's and the filter's latest times, events out of order. */
static void note_event_time(struct span_attrib_iterator *it, struct host *host, int64_t ns)
{
	if (ns < host->last_ns) {
		it->counters.out_of_order++;
	} else {
		host->last_ns = ns;
	}
	if (ns > it->last_ns) {
		it->last_ns = ns;
		if (it->chain) {
			ds_chain_advance(it->chain, ns);
		}
	}
}

static void handle_net_event(const struct event_role *role, struct host *host, const struct stream_info *info,
		const bt_event *event, int64_t ns)
{
	struct ds_tcp_key key;

	if (ds_kernel_net_decode(&role->net, event, &key)) {
		if (role->net.direction == DS_NET_SEND) {
			ds_model_net_send(host->model, ns, info->cpu, &key);
		} else {
			ds_model_net_receive(host->model, ns, info->cpu, &key);
		}
	}
}

static void handle_kernel_event(struct span_attrib_iterator *it, const struct event_role *role, struct host *host,
		struct stream_info *info, const bt_event *event, int64_t ns)
{
	struct ds_kernel_event kev;

	host->has_kernel = true;
	if (info->cpu < 0 && !ds_field_ref_is_int(info->cpu_id)) {
		warn_no_cpu_id(it, info, bt_event_borrow_stream_const(event));
	}
	if (kind_needs_fields[role->kernel->kind]) {
		ds_kernel_event_decode(role->kernel, event, &kev);
	} else {
		kev.kind = role->kernel->kind;
		kev.name = role->kernel->name;
		kev.read_family = role->kernel->read_family;
	}
	if (role->unknown_syscall) {
		const char *name = ds_syscall_name_x86_64(ds_field_ref_read_int(event, role->syscall_id, -1));

		kev.name = name ? name : kev.name;
	}
	dispatch_kernel(host, &kev, ns, info->cpu);
}

static enum span_attrib_status handle_event(struct span_attrib_iterator *it, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct event_role *role = (struct event_role *) role_get(it, bt_event_borrow_class_const(event));
	struct stream_info *info;
	struct ds_span_event sev;
	int64_t ns;

	if (!role) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	if (role->type == ROLE_NONE) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	info = stream_info_get(it, bt_event_borrow_stream_const(event));
	if (!info) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	if (!role->family_noted) {
		/* classes created after the stream was first seen (families.c) */
		role->family_noted = true;
		if (it->comp->layers) {
			span_attrib_note_class_family(info->host, bt_event_borrow_class_const(event));
		}
	}
	if (!info->clock.clock_class) {
		warn_unclocked(it, info, bt_event_borrow_stream_const(event));
		return SPAN_ATTRIB_STATUS_OK;
	}
	if (!event_ns(it, info, msg, event, &ns)) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	note_event_time(it, info->host, ns);
	switch (role->type) {
	case ROLE_NET:
		handle_net_event(role, info->host, info, event, ns);
		return SPAN_ATTRIB_STATUS_OK;
	case ROLE_KERNEL:
		handle_kernel_event(it, role, info->host, info, event, ns);
		return SPAN_ATTRIB_STATUS_OK;
	default:
		ds_span_event_decode(role->span, event, &sev);
		return handle_span_event(it, info->host, info, role->span, &sev, ns);
	}
}

static enum span_attrib_status handle_packet_beginning(struct span_attrib_iterator *it, const bt_message *msg)
{
	const bt_packet *packet = bt_message_packet_beginning_borrow_packet_const(msg);
	struct stream_info *info = stream_info_get(it, bt_packet_borrow_stream_const(packet));
	const bt_field *context, *cpu_field;

	if (!info) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	info->cpu = -1;
	if (info->cpu_id.scope == DS_FIELD_SCOPE_NONE || !ds_field_ref_is_int(info->cpu_id)) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	context = bt_packet_borrow_context_field_const(packet);
	if (!context) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	cpu_field = bt_field_structure_borrow_member_field_by_index_const(context, info->cpu_id.index);
	info->cpu = info->cpu_id.kind == DS_FIELD_KIND_UNSIGNED ?
		(int64_t) bt_field_integer_unsigned_get_value(cpu_field) :
		bt_field_integer_signed_get_value(cpu_field);
	return SPAN_ATTRIB_STATUS_OK;
}

/*
 * Discarded events or packets: the threads of the host are Unknown from the loss on until
 * their next defining event (the lost events may have changed their state).
 */
static enum span_attrib_status handle_discarded(struct span_attrib_iterator *it, const bt_message *msg)
{
	bool packets = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	const bt_stream *stream = packets ? bt_message_discarded_packets_borrow_stream_const(msg) :
		bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	struct stream_info *info = stream_info_get(it, stream);
	const bt_clock_snapshot *cs = NULL;
	uint64_t count = 0;
	int64_t ns;

	if (!info) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	ns = info->host->last_ns;
	if (packets) {
		if (bt_message_discarded_packets_get_count(msg, &count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			it->counters.discarded_packets += count;
		}
		it->counters.discarded_packet_messages++;
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
		}
	} else {
		if (bt_message_discarded_events_get_count(msg, &count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			it->counters.discarded_events += count;
		}
		it->counters.discarded_messages++;
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
		}
	}
	if (info->clock.clock_class && cs &&
			!clock_map_ns(&info->clock, it->fit ? it->fit_cycles : bt_clock_snapshot_get_value(cs), &ns)) {
		char what[128];

		snprintf(what, sizeof(what), "the beginning of a discarded-%s message (%" PRIu64
			" cycles)", packets ? "packets" : "events", bt_clock_snapshot_get_value(cs));
		clock_map_append_overflow(it, info->host, stream, info->clock.clock_class, what);
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	if (ns == INT64_MIN) {
		if (span_attrib_cross_host_need(it, info->host->name, -1, it->last_ns,
				"events discarded before the host's first time: the whole graph uses every host's latest time")) {
			return SPAN_ATTRIB_STATUS_ERROR;
		}
		ns = it->last_ns;
	}
	ds_model_discarded(info->host->model, ns);
	return SPAN_ATTRIB_STATUS_OK;
}

enum span_attrib_status span_attrib_handle_message(struct span_attrib_iterator *it,
		const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return handle_event(it, msg);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return handle_packet_beginning(it, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return stream_info_get(it, bt_message_stream_beginning_borrow_stream_const(msg)) ?
			SPAN_ATTRIB_STATUS_OK : SPAN_ATTRIB_STATUS_ERROR;
	case BT_MESSAGE_TYPE_STREAM_END:
		if (it->stream_cache_stream[stream_cache_slot(bt_message_stream_end_borrow_stream_const(msg))] ==
				bt_message_stream_end_borrow_stream_const(msg)) {
			it->stream_cache_stream[stream_cache_slot(bt_message_stream_end_borrow_stream_const(msg))] = NULL;
		}
		g_hash_table_remove(it->streams, bt_message_stream_end_borrow_stream_const(msg));
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return handle_discarded(it, msg);
	default:
		break;
	}
	return SPAN_ATTRIB_STATUS_OK;
}

/* End of input: every open span is emitted, truncated at the latest time seen. */
enum span_attrib_status span_attrib_flush(struct span_attrib_iterator *it)
{
	GHashTableIter hosts;
	gpointer value;

	if (it->chain) {
		/* in one host's pass, `end-time`: the latest event time of every host (cross-host.c) */
		ds_chain_advance(it->chain, it->last_ns);
	}
	g_hash_table_iter_init(&hosts, it->hosts);
	while (g_hash_table_iter_next(&hosts, NULL, &value)) {
		struct host *host = value;
		GList *spans = g_hash_table_get_values(host->spans), *l;
		enum span_attrib_status status = SPAN_ATTRIB_STATUS_OK;

		for (l = spans; l && status == SPAN_ATTRIB_STATUS_OK; l = l->next) {
			struct sa_span *span = l->data;

			span->truncated = true;
			it->counters.truncated_spans++;
			sa_span_finish(host->model, span, it->last_ns);
			status = span_emit_and_free(it, host, span);
		}
		g_list_free(spans);
		if (status != SPAN_ATTRIB_STATUS_OK) {
			return status;
		}
	}
	return output_end_streams(it);
}
