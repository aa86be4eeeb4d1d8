/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: every host on one synchronized clock (doc/sync.md).
 *
 * Pass 1 (first `next` call) reads every input to its end and collects causal
 * send->receive pairs between hosts (TCP segments, span edges); the convex
 * hulls give each host's transform to the reference host.  The upstreams are
 * then seeked back to the beginning and pass 2 re-emits every message, copied
 * onto one synchronized clock, in non-decreasing corrected time.  With a
 * `formula` (a saved report) pass 1 is skipped.
 */
#ifndef DEEPSPAN_SYNC_SYNC_H
#define DEEPSPAN_SYNC_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "hull.h"
#include "solver.h"
#include "reorder.h"
#include "trace-ir-copy.h"
#include "kernel-net.h"
#include "span-events.h"
#include "json-reader.h"
#include "upstream.h"

#define SYNC_CLASS_NAME "filter.deepspan.sync"
/* Pass 1 forgets an open send/receive key this long after its first event. */
#define SYNC_DEFAULT_PAIR_EXPIRY_NS INT64_C(1000000000)
#define SYNC_MAX_PAIR_EXPIRY_NS (INT64_C(86400) * INT64_C(1000000000))
/* A formula's slopes are within this of 1 (1000 ppm: no real clock drifts more). */
#define SYNC_MAX_SLOPE_DEVIATION 1e-3
/* A formula's reorder window is at most this (1 day). */
#define SYNC_MAX_WINDOW_NS SYNC_MAX_PAIR_EXPIRY_NS

enum sync_pair_kind {
	SYNC_PAIR_TCP,
	SYNC_PAIR_SPANS,
	SYNC_PAIR_HTTP,
	SYNC_PAIR_KIND_COUNT,
};

extern const char *const sync_pair_kind_names[SYNC_PAIR_KIND_COUNT];

struct sync_comp {
	bt_self_component *self_comp;		/* borrowed */
	bt_self_component_filter *self_filter;	/* borrowed */
	char *reference;			/* owned; NULL: first clock UUID */
	bool match[SYNC_PAIR_KIND_COUNT];
	char *report_path;			/* owned; NULL: no report */
	char *formula_path;			/* owned; NULL: two passes */
	bool report_only;			/* pass 1 only: the report, no message out, no seeking */
	struct ds_json_value *formula;		/* owned; parsed `formula` file */
	int64_t pair_expiry_ns;			/* pass 1 forgets open pairs older than this */
	const char *class_name;			/* borrowed, static: names the class in causes (sync's, or
						 * span-attrib's for its `clock-formula`, sync-merge.h) */
	const char *formula_param;		/* borrowed, static: "formula" or "clock-formula" */
};

/* One host = one clock (UUID). */
struct sync_host {
	char *name;				/* owned; env `hostname` */
	char uuid[37];				/* clock UUID text; "" without one */
	bool origin_is_unix_epoch;
	char *clock_name;			/* owned; input clock name (may be NULL) */
	bool has_range;
	int64_t first_ns, last_ns;		/* local timestamps seen in pass 1 */
	uint64_t pairs[SYNC_PAIR_KIND_COUNT];	/* pairs involving this host */
	uint64_t rejected;			/* contradicting pairs involving this host */
	struct ds_sync_host_result result;	/* transform to the reference */
	bool in_formula;			/* formula mode: found in the formula */
	bool seen;				/* formula mode: its clock appeared in the input */
};

enum sync_http_role {
	SYNC_HTTP_NONE = 0,
	SYNC_HTTP_CLIENT_REQUEST,	/* send, client host */
	SYNC_HTTP_SERVER_REQUEST,	/* receive, server host */
	SYNC_HTTP_SERVER_RESPONSE,	/* send, server host */
	SYNC_HTTP_CLIENT_RESPONSE,	/* receive, client host */
};

struct sync_http_class {
	enum sync_http_role role;
	struct ds_field_ref port, local_port;
};

/* Per event class, what pass 1 needs to know (resolved once, sync_event_info_resolve()). */
struct sync_event_info {
	struct ds_kernel_net_class net;
	struct sync_http_class http;
	const struct ds_span_class *span;	/* borrowed from the span cache; NULL if none or incomplete */
};

/* What pass 1 reads of one event (sync_event_decode()), or of one pair record (source.deepspan.clock-fit). */
struct sync_event_view {
	bool tcp;				/* a TCP segment: */
	bool send;				/*   sent (else received) */
	struct ds_tcp_key key;
	enum sync_http_role http_role;		/* a Node.js HTTP message (SYNC_HTTP_NONE: none): */
	uint32_t http_port, http_local_port;
	bool span;				/* a span start or end: */
	struct ds_span_event span_event;
};

/* What both passes read of a message, each library call made once. */
struct sync_msg_view {
	bt_message_type type;
	const bt_event *event;			/* events only */
	const bt_clock_snapshot *cs;		/* the snapshot that orders it (upstream.h's rule), or NULL */
	int64_t ns;				/* cs in ns from origin (when cs) */
};

struct sync_input {
	bt_message_iterator *iter;		/* owned */
	bool ended;
	/* pass 1 */
	int64_t last_raw;			/* last timestamp read */
	bool has_last_raw;
	int64_t max_backstep;			/* largest decrease of raw timestamps */
	bt_message_array_const p1_msgs;		/* the upstream's batch being read; refs owned from p1_head */
	uint64_t p1_count, p1_head;
	bool p1_view_ready;			/* p1_view describes p1_msgs[p1_head] */
	struct sync_msg_view p1_view;
	bool tracked_streams;			/* a stream with untimed packets/discards began */
	GArray *hosts_seen;			/* owned; gboolean per host index */
	/* pass 2 */
	int64_t window;				/* reorder window, ns */
	bool has_key;
	int64_t max_key;			/* largest corrected time read */
	/* the reorder buffer's lane of its last untimed message and, per host index, of its host's last one */
	guint reorder_lane;
	GArray *host_lanes;			/* owned (NULL until needed); guint per host index */
	const bt_message *held_end;		/* owned: a packet end waiting for the next message (sync_push_batch) */
	const bt_stream *key_stream;		/* borrowed: the stream of key_slot (NULL none) */
	int64_t *key_slot;			/* borrowed (owned by stream_keys): its last key */
	/* small cache of the clock classes met (a muxed input alternates between them) */
#define SYNC_CC_CACHE 8
	const bt_clock_class *cc_cache[SYNC_CC_CACHE];	/* borrowed (clock_hosts holds refs) */
	int host_cache[SYNC_CC_CACHE];
	unsigned int cc_cache_len;
};

/* A collected pair, fed to the solver once every host is known. */
struct sync_pair_rec {
	int send_host, recv_host;
	int64_t send_ts, recv_ts;
	enum sync_pair_kind kind;
};

struct sync_iter {
	struct sync_comp *comp;			/* borrowed */
	bt_self_message_iterator *self;		/* borrowed */
	struct ds_upstream_owner owner;		/* names this iterator in upstream.h's causes */
	struct sync_input *inputs;		/* owned; input_count */
	unsigned int input_count;
	enum { SYNC_PHASE_PASS1, SYNC_PHASE_PASS2, SYNC_PHASE_DONE } phase;
	int64_t last_sweep;			/* pass 1 frontier at the last expiry sweep */
	bool has_swept;

	/* hosts */
	GPtrArray *hosts;			/* owned; struct sync_host * */
	GHashTable *clock_hosts;		/* input clock class (ref) -> host index + 1 */
	GHashTable *event_infos;		/* input event class (ref) -> struct sync_event_info * (owned) */
	struct ds_span_events *span_cache;	/* owned */

	/* pass 1 pairs */
	GHashTable *tcp;			/* struct sync_tcp_entry * (owned, key inside) */
	GHashTable *spans;			/* struct sync_span * (owned, key inside) */
	/*
	 * The expiry sweeps' view of `spans` (sync-pass1.c): every span by the time of its first event, the
	 * oldest first (GList nodes owned, spans borrowed); the first one no sweep has visited yet (NULL: none);
	 * the spans visited before their start was read, visited again by each sweep (array owned, spans
	 * borrowed); the last sweep's cut.
	 */
	GQueue *span_order;
	GList *span_unvisited;
	GPtrArray *spans_unsettled;
	int64_t last_cut;
	GArray *pair_recs;			/* owned; struct sync_pair_rec, pass 1 order */
	GHashTable *http;			/* owned; HTTP sends/receives per connection */
	struct ds_sync_solver solver;
	bool solver_ready;
	unsigned int reference;
	uint64_t tcp_pairs, span_pairs, http_pairs, same_host_pairs;
	uint64_t tcp_expired;			/* open TCP keys forgotten (no partner in time) */
	uint64_t spans_expired;			/* span end edges given up (span longer than expiry) */

	/* pass 2 */
	bt_clock_class *out_clock;		/* owned */
	struct ds_ir_copy copy;
	bool copy_ready;
	struct ds_reorder reorder;		/* owned; items: bt_message * (owned), key = corrected ns */
	GHashTable *stream_keys;		/* input stream (ref) -> int64_t * last key (owned), every stream */
	int64_t floor;				/* last key emitted */
	bool has_floor;
	int64_t map_floor;			/* floor used by the time callback */
	uint64_t late;				/* messages clamped because the window was short */
	uint64_t stream_backsteps;		/* messages given their stream's previous key */
	int64_t packet_end_cap;			/* raw ns the packet end being keyed is taken at (INT64_MAX: its own) */
	uint64_t heap_high_water;
	int64_t window_max;
	/*
	 * sync_limiting_input()'s last answer, while `limiting_known`: it changes only with an input's
	 * max_key, end or window (sync_limiting_forget()), not with the pops between two pulls.
	 */
	bool limiting_known;
	int limiting;
	int64_t limiting_bound;
	const bt_message *current_in;		/* borrowed: message being copied */
	struct sync_input *current_input;	/* borrowed: its input */
	const bt_clock_snapshot *current_cs;	/* borrowed: the snapshot its key came from */
	int64_t current_key;
	const bt_error *time_error;		/* owned; taken from the thread when the time callback failed */
};

/*
 * sync-hosts.c: host of a clock class (created on first sight, named from msg's
 * trace); -1 (cause appended) in formula mode when the formula lists hosts but
 * not this one.
 */
int sync_host_of(struct sync_iter *it, struct sync_input *in, const bt_clock_class *cc,
		const bt_message *msg);
/*
 * The host of a clock by what names it (UUID text, "" without one; the trace's `hostname`, NULL without
 * one), made on first sight; -1 (cause appended) as sync_host_of().
 */
int sync_host_by_identity(struct sync_iter *it, const char *uuid, const char *hostname, bool origin_is_unix_epoch,
		const char *clock_name);
/* Input `in` carries messages of host `host` (its reorder window spans its hosts). */
void sync_input_saw_host(struct sync_input *in, int host);
/* The `hostname` environment entry of the stream's trace, NULL without one (or without a stream). */
const char *sync_hostname_of(const bt_stream *stream);
/* A clock UUID as text (lowercase, dashed), as reports name it. */
void sync_format_uuid(const uint8_t *u, char out[37]);
void sync_host_destroy(gpointer host);

/* sync-pass1.c */
int sync_pass1_init(struct sync_iter *it);
bt_message_iterator_class_next_method_status sync_pass1_run(struct sync_iter *it);
/*
 * Pass 1's steps for one message read, in this order (sync_pass1_run(), and source.deepspan.clock-fit on pair
 * records): the expiry sweep when the frontier (the message's time) moved on; the message's time on its host
 * and input; what its event says (its host's TCP segment, span start or end, HTTP message).
 */
void sync_pass1_sweep(struct sync_iter *it, int64_t frontier);
void sync_pass1_timed(struct sync_iter *it, struct sync_input *in, int host, int64_t ns);
void sync_pass1_tcp(struct sync_iter *it, const struct ds_tcp_key *key, bool send, int host, int64_t ts);
void sync_pass1_span(struct sync_iter *it, const struct ds_span_event *ev, int host, int64_t ts);
/* What an event says, each part `match` takes: sync_pass1_tcp(), sync_http_record(), sync_pass1_span(). */
void sync_pass1_event(struct sync_iter *it, const struct sync_event_view *view, int host, int64_t ts);
/*
 * What pass 1 reads of events of class `ec` into *info; true when it reads them at all (a TCP segment, an HTTP
 * message or a span event, complete or not).  A span class that lacks a field is left out (info->span NULL)
 * and, with `warn_comp`, warned about as `class_name`.  Shared by filter.deepspan.sync and sync-extract.
 */
bool sync_event_info_resolve(struct ds_span_events *span_cache, const bt_event_class *ec,
		bt_self_component *warn_comp, const char *class_name, struct sync_event_info *info);
/* What pass 1 reads of `event`, whose class is described by `info`. */
void sync_event_decode(const struct sync_event_info *info, const bt_event *event, struct sync_event_view *view);
/* Adds the span edges and feeds every pair to the solver; -1 on allocation failure. */
int sync_pass1_solve(struct sync_iter *it);
void sync_pass1_fini(struct sync_iter *it);
/* DS_MESSAGE_TIME_STATUS_ERROR (cause appended) when the message's time overflows. */
ds_message_time_status sync_msg_view_make(struct sync_iter *it, struct sync_input *in,
		const bt_message *msg, struct sync_msg_view *view);
/* Does a stream of this class have messages without snapshots that need ordering? */
bool sync_stream_tracks_keys(const bt_stream_class *sc);

void sync_record_pair(struct sync_iter *it, enum sync_pair_kind kind, int send_host,
		int64_t send_ts, int recv_host, int64_t recv_ts);

/* sync-http.c */
GHashTable *sync_http_table_new(void);
void sync_http_classify(const bt_event_class *ec, struct sync_http_class *out);
/* One HTTP message of `role` with the event's `port` and `local_port`. */
void sync_http_record(struct sync_iter *it, enum sync_http_role role, uint32_t port, uint32_t local,
		int host, int64_t ts);
void sync_http_add_pairs(struct sync_iter *it);

/* sync-report.c */
int sync_choose_reference(struct sync_iter *it);
/* Trace Compass's host order: clock UUIDs in text order, hosts without one last. */
bool sync_host_sorts_before(const struct sync_host *a, const struct sync_host *b);
/* Each host's rank in that order (ties by index): the x host of a pair is the one ranked first. */
void sync_host_ranks(struct sync_iter *it, unsigned int *rank);
/* Validates the formula (every field and its range) and makes its hosts; -1 with the cause. */
/* The iterator's hosts, clock and stream tables and reorder buffer, empty (sync-iter.c; also sync-merge.c). */
void sync_iter_tables_init(struct sync_iter *it);
/* Releases everything `it` owns (inputs, buffered messages, tables, pass-1 and solver state), not `it` itself;
 * safe on a partly built iterator (members still zero). */
void sync_iter_release(struct sync_iter *it);

int sync_apply_formula(struct sync_iter *it);
/* Appends the error for an input host the formula lacks; returns -1. */
int sync_formula_unknown_host(struct sync_iter *it, const char *name, const char *uuid);
/* Warns about the formula's hosts that did not appear in the input (at the end). */
void sync_formula_warn_unused(struct sync_iter *it);
int sync_write_report(struct sync_iter *it, bool final);
/*
 * The end of pass 1 (sync-iter.c): the pairs solved, the reference chosen, the warnings of hosts that kept their
 * clock or failed, the reorder windows, the report written; with `report_only` nothing more (else seeks back
 * and starts pass 2).  -1 with the cause appended.
 */
int sync_finish_pass1(struct sync_iter *it);
/*
 * sync-component.c: the parameters of the fit itself (`reference`, `report`, `pair-expiry`, `match`), which
 * filter.deepspan.sync and source.deepspan.clock-fit both take; -1 with the cause (naming p->class_name).
 */
struct ds_params;
int sync_parse_fit_params(struct sync_comp *comp, const struct ds_params *p);
/* Frees what `comp` owns (not `comp`). */
void sync_comp_release(struct sync_comp *comp);
/* Reads comp->formula_path into comp->formula (a JSON object with a `hosts` array); -1 with the cause. */
int sync_load_formula(struct sync_comp *comp);

/*
 * One upstream batch of input `index` (port `in<index>`) into *msgs, *count (refs owned by the
 * caller); at its END the input is marked ended.  Both passes, sync-iter.c and sync-merge.c.
 */
bt_message_iterator_class_next_method_status sync_input_next(struct sync_iter *it, unsigned int index,
		bt_message_array_const *msgs, uint64_t *count);

/* sync-iter.c, pass 2's pieces shared with sync-merge.c (the same merge without the IR copy) */
/* Key of `msg` (corrected time, clamped to the floor and to its stream's previous key; untimed messages
 * by their stream) into *key_out;
 * *timed when it carries a snapshot; -1 (cause appended) when its time overflows or its host is refused. */
/* Takes one message (its reference moved) into the reorder buffer. */
typedef bt_message_iterator_class_next_method_status (*sync_push_fn)(struct sync_iter *it,
		struct sync_input *in, const bt_message *msg);
/* One upstream batch of `in` (references moved) to `push`, in order, each packet end held until the next
 * message of its input (then taken at its stream's next packet beginning when that is earlier). */
bt_message_iterator_class_next_method_status sync_push_batch(struct sync_iter *it, struct sync_input *in,
		bt_message_array_const msgs, uint64_t count, sync_push_fn push);
/* The input ended: its held packet end, if any, to `push`. */
bt_message_iterator_class_next_method_status sync_push_held(struct sync_iter *it, struct sync_input *in,
		sync_push_fn push);
/* Warns, at the end, of the messages sync_message_key() kept in their stream's order. */
void sync_warn_stream_backsteps(const struct sync_iter *it, bt_self_component *self_comp,
		const char *class_name);
/* *host_out: the host index of a timed message's clock, -1 for an untimed one. */
int sync_message_key(struct sync_iter *it, struct sync_input *in, const bt_message *msg,
		int64_t *key_out, bool *timed, int *host_out);
/* The input that limits the release bound (-1: every input ended); *bound receives the bound. */
int sync_limiting_input(struct sync_iter *it, int64_t *bound);

/* An input's max_key, end or window changed: sync_limiting_input() looks again. */
static inline void sync_limiting_forget(struct sync_iter *it)
{
	it->limiting_known = false;
}

/* The lane hint of `in`'s messages of host index `host` (-1: untimed). */
static inline guint *sync_lane_hint(struct sync_input *in, int host)
{
	if (host < 0) {
		return &in->reorder_lane;
	}
	if (!in->host_lanes) {
		in->host_lanes = g_array_new(FALSE, TRUE, sizeof(guint));
	}
	if ((guint) host >= in->host_lanes->len) {
		g_array_set_size(in->host_lanes, (guint) host + 1);
	}
	return &g_array_index(in->host_lanes, guint, host);
}

/*
 * A message of `in` with corrected time `key` (`timed`: a real time, of host index `host`; -1 untimed) goes
 * into the reorder buffer: into the last lane of the input's messages of that host when it can take it (they
 * come in time order: one lane per input and host, without a scan).
 */
static inline void sync_reorder_push(struct sync_iter *it, struct sync_input *in, int64_t key, bool timed,
		int host, void *data)
{
	if (timed && (!in->has_key || key > in->max_key)) {
		in->max_key = key;
		in->has_key = true;
		sync_limiting_forget(it);
	}
	ds_reorder_push_hinted(&it->reorder, key, data, sync_lane_hint(in, host));
	if (it->reorder.len > it->heap_high_water) {
		it->heap_high_water = it->reorder.len;
	}
}
/* Creates it->out_clock, the synchronized clock class (name, UUID, origin from the reference host). */
int sync_make_out_clock(struct sync_iter *it);

#endif /* DEEPSPAN_SYNC_SYNC_H */
