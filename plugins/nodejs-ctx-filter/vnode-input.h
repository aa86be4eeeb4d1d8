/* SPDX-License-Identifier: MIT */
/*
 * Recognising and decoding the `vnode` events of doc/nodejs.md ("What is recorded").
 *
 * Every upstream event class is classified once (cached by class pointer):
 * not a vnode event, or one of the five vnode events with the indices of
 * its payload and common-context members resolved, so decoding an event
 * reads fields by index with no string comparison.
 */
#ifndef DEEPSPAN_NODEJS_VNODE_INPUT_H
#define DEEPSPAN_NODEJS_VNODE_INPUT_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctx.h"

enum vnode_kind {
	VNODE_NONE,
	VNODE_ASYNC_CONTEXT,
	VNODE_SERVER_REQUEST,
	VNODE_SERVER_RESPONSE,
	VNODE_CLIENT_REQUEST,
	VNODE_CLIENT_RESPONSE,
};

/* Payload members read, by role; absent ones are VNODE_NO_FIELD. */
enum vnode_field {
	VF_ID, VF_CTX_ID, VF_EXEC_ID, VF_TYPE, VF_PHASE,
	VF_SOCKID, VF_SOCK_ASYNC_ID, VF_METHOD, VF_URL, VF_ADDRESS, VF_STATUS,
	VF_PORT, VF_LOCAL_PORT, VF_STREAM_ID, VF_RUNS_ID,
	VF_COUNT,
};

#define VNODE_NO_FIELD UINT64_MAX

struct vnode_class {
	enum vnode_kind kind;
	uint64_t fields[VF_COUNT];		/* payload member indices */
	uint64_t vpid_index, vtid_index, procname_index;	/* common context */
	int host;				/* filled by the caller, −1 unknown */
};

/* Whether a stream class declares any vnode event class (rescanned when it grows). */
struct vnode_stream_scan {
	uint64_t event_class_count;
	bool has_vnode;
};

/* Cache of classified event and stream classes. */
struct vnode_classes {
	GHashTable *by_class;		/* owned; const bt_event_class * -> struct vnode_class (owned) */
	const bt_event_class *last_class;	/* borrowed; one-entry cache */
	struct vnode_class *last_info;	/* borrowed */
	GHashTable *by_stream_class;	/* owned; const bt_stream_class * -> struct vnode_stream_scan (owned) */
	const bt_stream_class *last_stream_class;	/* borrowed; one-entry cache */
	struct vnode_stream_scan *last_scan;	/* borrowed */
};

void vnode_classes_init(struct vnode_classes *classes);
void vnode_classes_fini(struct vnode_classes *classes);

/*
 * Cheap pre-filter, one pointer compare per event in the common case: false
 * when `event`'s stream class declares no vnode event class at all.
 */
bool vnode_event_may_be_vnode(struct vnode_classes *classes, const bt_event *event);

/*
 * The classification of `event_class`; NULL on error (a vnode event lacking
 * a field or the vpid/vtid context: the cause is appended for `self_comp`).
 */
struct vnode_class *vnode_classify(struct vnode_classes *classes,
		const bt_event_class *event_class, bt_self_component *self_comp);

/* Decoded event: strings borrowed from the event. */
struct vnode_event {
	struct nctx_origin origin;
	enum nctx_phase phase;
	int64_t id, ctx_id, exec_id;
	const char *type;
	struct nctx_http http;
};

/* Fills `out` from `event`; false (cause appended) for a malformed phase. */
bool vnode_decode(const struct vnode_class *info, const bt_event *event,
		struct vnode_event *out, bt_self_component *self_comp);

#endif /* DEEPSPAN_NODEJS_VNODE_INPUT_H */
