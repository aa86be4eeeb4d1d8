/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.span-attrib: internal structures shared by its files.
 *
 *   span-attrib.c   component and message iterator: parameters, pulling upstream, warnings
 *   inputs.c        input ports in0, in1, ... (common/input-ports.c) and their merge by time
 *   events.c        upstream messages to the thread model and span accounting (event roles)
 *   hosts.c         per-host state (thread model, open spans, clock mapping) and per-stream cache
 *   output.c        the deepspan:span output trace IR and messages (doc/span-attrib.md, "Output")
 *   chain-output.c  their chain member, packed or as fields (doc/critical-path.md, "Encoding")
 *   kernel-events.c lttng-modules event classes resolved once, events decoded by index
 *   thread-state.c  the per-host thread state model and the per-span accounting on top of it
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_H
#define DEEPSPAN_SPAN_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "chain.h"
#include "chain-strings.h"
#include "kernel-events.h"
#include "span-events.h"
#include "thread-state.h"
#include "upstream.h"
#include "sync-filter/sync-merge.h"

#define SPAN_ATTRIB_CLASS_NAME "filter.deepspan.span-attrib"

/* Status of the functions of this filter that can fail (a cause is appended on failure). */
enum span_attrib_status {
	SPAN_ATTRIB_STATUS_OK = 0,
	SPAN_ATTRIB_STATUS_ERROR = -1,
	SPAN_ATTRIB_STATUS_MEMORY_ERROR = -12,
};

/* Parameter `chain-encoding` (doc/critical-path.md, "Encoding"). */
enum chain_encoding {
	CHAIN_ENCODING_PACKED,		/* the string `chain_packed` (common/chain-packed.h) */
	CHAIN_ENCODING_FIELDS,		/* the array of structures `chain` */
};

struct span_attrib_component {
	bt_self_component *self_comp;	/* borrowed */
	bool pass_through;
	bool segments;
	enum ds_state_rule state_rule;
	bool follow_wakeups;		/* chains (doc/critical-path.md) */
	unsigned int chain_depth;
	enum chain_encoding chain_encoding;
	int64_t chain_window;		/* ns */
	bool layers;			/* block requests and page cache (doc/storage-network.md) */
	bool host_context;		/* doc/host-context.md */
	char *cross_host_file;		/* owned; NULL: the whole graph (cross-host.c) */
	int64_t end_time;		/* ns; INT64_MIN: none (spans open at the end: the latest event time) */
	char *clock_formula_path;	/* owned; NULL: the inputs' own clocks (clock-fit.c) */
	struct ds_json_value *clock_formula;	/* owned; the parsed `clock-formula` */
};

/* Per-host output: a trace of its own (env domain=deepspan, hostname) holding one stream. */
struct host_output {
	bt_trace_class *trace_class;		/* owned */
	bt_clock_class *clock_class;		/* owned; copy of the host's upstream clock */
	bt_stream_class *stream_class;		/* owned */
	bt_event_class *event_class;		/* owned; deepspan:span */
	bt_event_class *disk_class;		/* owned; deepspan:disk (layers), NULL without */
	bt_trace *trace;			/* owned */
	bt_stream *stream;			/* owned */
	bool begun;				/* stream beginning message emitted */
	uint64_t hc_member;			/* index of `host_window` (host context on), then `host_context` */
	uint64_t reads_member;			/* layers: index of `cache_reads` */
};

/* A clock class's mapping from cycles to ns from origin. */
struct clock_map {
	const bt_clock_class *clock_class;	/* borrowed; NULL: no clock */
	uint64_t frequency;
	int64_t offset_ns;			/* offset (seconds + cycles) in ns */
};

struct host {
	char *name;				/* owned */
	struct ds_model *model;			/* owned */
	GHashTable *spans;			/* owned; struct sa_span * (owned, key = its ids) */
	struct host_output output;
	struct clock_map out_clock;		/* clock the output copies (first span stream's) */
	struct clock_map kernel_clock;		/* layers: the first kernel stream's (hosts without spans);
						 * its clock class owned (a reference) */
	bool has_kernel;			/* saw kernel events */
	bool has_spans;
	unsigned int families;			/* layers: DS_FAMILY_* whose event classes exist (families.c) */
	int64_t last_ns;
	uint64_t spans_emitted;
};

struct stream_info {
	struct host *host;			/* borrowed */
	struct clock_map clock;
	struct ds_field_ref cpu_id;		/* packet context cpu_id */
	int64_t cpu;				/* of the current packet, -1 unknown */
	bool warned;				/* its no-clock / no-cpu_id warning was given */
};

/* Counted warnings, one summary line each at the end. */
struct span_attrib_counters {
	uint64_t unmatched_ends;
	uint64_t unmatched_activations;
	uint64_t duplicate_starts;
	uint64_t truncated_spans;
	uint64_t out_of_order;
	uint64_t discarded_messages;
	uint64_t discarded_events;
	uint64_t discarded_packet_messages;
	uint64_t discarded_packets;
	uint64_t spans_without_thread;		/* no vtid context */
	uint64_t spans_invalid_vtid;		/* a negative vtid value */
};

/* The last string a packed chain wrote for one member (chain-output.c). */
struct chain_packer_last {
	struct ds_chain_string_key key;
	const char *text;			/* borrowed: in the span's chain entries */
	uint32_t number;			/* 0: none yet */
};

/* The packed chain writer's buffers, reused from span to span (chain-output.c). */
struct chain_packer {
	GByteArray *text;			/* owned; room for the packed chain (its first `length` bytes) */
	size_t length;
	struct chain_packer_slot *slots;	/* owned; the span's string table (CHAIN_PACKER_SLOTS, chain-output.c) */
	uint32_t generation;			/* slots of another generation are free */
	uint32_t strings;			/* strings numbered so far (literals written) */
	uint32_t in_table;			/* of them, in the table */
	struct chain_packer_last last[4];	/* host, comm, process, detail */
};

#define ROLE_CACHE_SIZE 256
#define STREAM_CACHE_SIZE 64

struct span_attrib_iterator {
	struct span_attrib_component *comp;	/* borrowed */
	bt_self_message_iterator *self_msg_iter;	/* borrowed */
	struct ds_upstream_owner owner;		/* names it in upstream.h's causes */
	GArray *upstreams;			/* owned; struct upstream (inputs.c), one per connected port */
	/* several upstreams: those with a head message, a min-heap by head (inputs.c), NULL before the first call */
	guint *ready;				/* owned; `ready_len` indices in `upstreams` (room for all) */
	guint ready_len;
	bool taken;				/* the last message came from ready[0], whose next head is not known yet */
	struct ds_kernel_events *kernel_events;	/* owned */
	struct ds_span_events *span_events;	/* owned */
	GHashTable *roles;			/* owned; const bt_event_class * -> struct event_role * (owned) */
	GHashTable *trace_classes;		/* owned; const bt_trace_class * (borrowed) -> destruction listener id */
	GHashTable *streams;			/* owned; const bt_stream * -> struct stream_info * (owned) */
	/* direct-mapped cache of `roles` (no hashing per event) */
	const bt_event_class *role_cache_class[ROLE_CACHE_SIZE];	/* borrowed */
	const void *role_cache_role[ROLE_CACHE_SIZE];		/* borrowed; struct event_role */
	/* direct-mapped cache of `streams` (events of many streams interleave; no hashing per event) */
	const bt_stream *stream_cache_stream[STREAM_CACHE_SIZE];	/* borrowed */
	struct stream_info *stream_cache_info[STREAM_CACHE_SIZE];	/* borrowed */
	GHashTable *hosts;			/* owned; name -> struct host * (owned) */
	GPtrArray *queue;			/* owned; messages to return (owned references) */
	guint queue_head;
	bool upstream_ended;
	bool flushed;
	int64_t last_ns;			/* latest event time seen, all hosts */
	struct ds_chain_ctx *chain;		/* owned; NULL when follow-wakeups is false */
	struct chain_packer packer;		/* its buffers owned (chain-output.c) */
	struct span_attrib_counters counters;
	char *error;				/* owned; first fatal decoding problem */
	struct ds_sync_merge *fit;		/* owned; `clock-formula`: the inputs merged on the fit, else NULL */
	uint64_t fit_cycles;			/* with `fit`: the current message's time on its clock */
	int64_t events_last_ns;			/* cross-host.c: last_ns before `end-time` (INT64_MIN: none) */
	uint64_t open_at_end;			/* cross-host.c: spans still open at the end of the input */
};

/* hosts.c */
struct host *host_for_trace(struct span_attrib_iterator *it, const bt_trace *trace);
/* The stream's cached info; NULL (cause appended) when its clock's offset overflows. */
struct stream_info *stream_info_get(struct span_attrib_iterator *it, const bt_stream *stream);
/* The slot of `stream` in the iterator's stream cache. */
static inline unsigned int stream_cache_slot(const bt_stream *stream)
{
	return (unsigned int) (((uintptr_t) stream >> 4) ^ ((uintptr_t) stream >> 12)) % STREAM_CACHE_SIZE;
}
void host_destroy(gpointer data);
void stream_info_destroy(gpointer data);
/* -1 when the clock's offset does not fit in int64 ns (nothing appended). */
int clock_map_init(struct clock_map *map, const bt_clock_class *clock_class);
/* cycles to ns from origin; false on int64 overflow (nothing appended). */
bool clock_map_ns(const struct clock_map *map, uint64_t cycles, int64_t *ns);
/* ns from origin to cycles, saturated to 0 … UINT64_MAX. */
uint64_t clock_map_cycles(const struct clock_map *map, int64_t ns);
/* Appends "`what` of clock … of host … does not fit" naming the trace and clock. */
void clock_map_append_overflow(struct span_attrib_iterator *it, const struct host *host,
		const bt_stream *stream, const bt_clock_class *clock_class, const char *what);
guint span_key_hash(gconstpointer key);
gboolean span_key_equal(gconstpointer a, gconstpointer b);

/* families.c: kernel event families seen per host (doc/storage-network.md, "Recording the events") */
#define DS_FAMILY_SCHED 1u
#define DS_FAMILY_TIMER 2u
#define DS_FAMILY_BLOCK 4u
#define DS_FAMILY_NET 8u
#define DS_FAMILY_ALL 15u
/* Adds to host->families those of the event classes of `sc` (once per new stream). */
void span_attrib_note_families(struct host *host, const bt_stream_class *sc);
/* The same for one event class (first event of a class created later). */
void span_attrib_note_class_family(struct host *host, const bt_event_class *ec);
/* One warning per host with kernel events but missing families (layers only). */
void span_attrib_report_families(struct span_attrib_iterator *it);

/* disk-output.c: deepspan:disk (layers, doc/storage-network.md) */
bt_field_class *disk_payload_create(bt_trace_class *tc);
bool disk_output_wanted(struct span_attrib_iterator *it, struct host *host);
enum span_attrib_status disk_output_emit(struct span_attrib_iterator *it, struct host *host, uint64_t cycles);

/* output.c */
enum span_attrib_status output_emit_span(struct span_attrib_iterator *it, struct host *host,
		const struct sa_span *span, uint64_t end_cycles);
enum span_attrib_status output_end_streams(struct span_attrib_iterator *it);
void output_fini(struct host_output *out);
void queue_push(struct span_attrib_iterator *it, bt_message *msg);

/* chain-output.c: the member `chain_packed` or `chain` (doc/critical-path.md, "Encoding"); 0 or -1 (memory). */
int chain_output_append_member(bt_trace_class *tc, bt_field_class *payload, enum chain_encoding encoding,
		bool with_layers);
int chain_output_fill(bt_field *field, struct chain_packer *packer, const struct sa_span *span,
		enum chain_encoding encoding, bool with_layers);
void chain_packer_init(struct chain_packer *packer);
void chain_packer_fini(struct chain_packer *packer);

/* host-context-output.c: the members after every other (doc/host-context.md, "Encoding"); -1: out of memory. */
/* output.c: appends member `name` of a new field class `fc` (reference moved into the structure); 0 or -1. */
int output_fc_append(bt_field_class *structure, const char *name, bt_field_class *fc);
/* output.c: member `index` of `structure`, an unsigned or a signed integer field, set to `value`. */
void output_set_u64(bt_field *structure, int index, uint64_t value);
void output_set_s64(bt_field *structure, int index, int64_t value);
/* output.c: the enumeration class of a `state` member (enum ds_state values and names); NULL on error. */
bt_field_class *output_state_enum_create(bt_trace_class *tc);
/* output.c: an unsigned enumeration class mapping 0..count-1 to name(i); NULL on error. */
bt_field_class *output_enum_create(bt_trace_class *tc, int count, const char *(*name)(unsigned int));
int hc_output_append_members(bt_trace_class *tc, bt_field_class *payload, uint64_t *index);
int hc_output_fill(bt_field *payload, uint64_t index, const struct host *host, const struct sa_span *span);
/* cache-reads-output.c: the layers member `cache_reads`, after cache_miss_time (doc/storage-network.md); -1: no memory. */
int reads_output_append_member(bt_trace_class *tc, bt_field_class *payload, uint64_t *index);
int reads_output_fill(bt_field *payload, uint64_t index, const struct sa_span *span);



/* inputs.c */
int inputs_init(struct span_attrib_iterator *it, bt_self_component_filter *self_comp_filter);
void inputs_fini(struct span_attrib_iterator *it);
/* One message (reference moved to the caller) in time order across the inputs; END when all ended. */
bt_message_iterator_class_next_method_status inputs_next(struct span_attrib_iterator *it,
		const bt_message **out);

/* clock-fit.c: parameter `clock-formula` (doc/span-attrib.md, "Parameters") */
/* Reads and checks the file at component initialization; ERROR with the cause appended. */
enum span_attrib_status clock_fit_load(struct span_attrib_component *comp, const char *path);
void clock_fit_free(struct span_attrib_component *comp);
/* The merge of the upstreams `iters` (references moved in) on the fit; ERROR with the cause appended. */
enum span_attrib_status clock_fit_start(struct span_attrib_iterator *it, bt_message_iterator **iters,
		unsigned int count);
/* The clock a stream's times are read on: the synchronized one with `clock-formula`, else its own. */
const bt_clock_class *clock_fit_stream_clock(const struct span_attrib_iterator *it, const bt_clock_class *own);

/* events.c */
void span_attrib_forget_trace_classes(struct span_attrib_iterator *it);
enum span_attrib_status span_attrib_handle_message(struct span_attrib_iterator *it,
		const bt_message *msg);
enum span_attrib_status span_attrib_flush(struct span_attrib_iterator *it);
/* net-report.c: the network terminal's warnings at the end of the run (NULL chain: none). */
void ds_chain_net_report(bt_self_component *sc, const struct ds_chain_ctx *chain);

/* cross-host.c: parameter `cross-host-file` (one host's pass, doc/scale.md "Per-host analysis") */
void span_attrib_cross_host_init(struct span_attrib_iterator *it);
/* A chain walk needed another host: the record written, an error (cause appended). */
enum span_attrib_status span_attrib_cross_host_check(struct span_attrib_iterator *it);
/* Something else needs another host (`what`): with `cross-host-file`, the record written and an error. */
enum span_attrib_status span_attrib_cross_host_need(struct span_attrib_iterator *it, const char *host,
		int64_t tid, int64_t ts, const char *what);
/* Before the flush: `end-time` applied; without it, spans still open need the other hosts' latest time. */
enum span_attrib_status span_attrib_cross_host_flush(struct span_attrib_iterator *it);
/* After the flush: a chain that needed another host stops the pass, else the record of a pass that ended. */
enum span_attrib_status span_attrib_cross_host_end(struct span_attrib_iterator *it);

#endif /* DEEPSPAN_SPAN_ATTRIB_H */
