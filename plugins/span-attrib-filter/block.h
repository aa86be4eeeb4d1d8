/* SPDX-License-Identifier: MIT */
/*
 * Block requests of one host (doc/storage-network.md, "Storage").  Pure C + glib, no babeltrace2 objects:
 * the thread model feeds it the lttng-modules block_* events and unit tests drive it directly.
 *
 * A request is keyed by (dev, sector) while it is in flight: block_rq_insert queues it (absent: direct issue,
 * queue time 0), block_rq_issue hands it to the device, block_rq_requeue puts it back in the queue (the time
 * since its insert stays queue time), block_bio_backmerge / block_bio_frontmerge grow it by a bio,
 * block_rq_complete ends `nr_sector` sectors of it (fewer than it holds: a partial completion, the rest stays
 * in flight at sector + nr_sector).  Completions are matched by key, so a completion on another CPU than the
 * issue is the same request.
 *
 * Every completion leaves a record (struct ds_block_done) in a ring kept for `window` ns; the chain walk
 * reads the one that woke a thread by its sequence number.  While a request waited in the queue, the requests
 * issued on the same device ahead of it are summed per submitter when it is issued; the record keeps the
 * submitter with the most bytes (the one the queue time is charged to) and the totals.
 */
#ifndef DEEPSPAN_SPAN_ATTRIB_BLOCK_H
#define DEEPSPAN_SPAN_ATTRIB_BLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

enum ds_block_op {
	DS_BLOCK_INSERT = 0,	/* block_rq_insert */
	DS_BLOCK_ISSUE,		/* block_rq_issue */
	DS_BLOCK_REQUEUE,	/* block_rq_requeue */
	DS_BLOCK_BACKMERGE,	/* block_bio_backmerge: the bio's sectors follow the request's */
	DS_BLOCK_FRONTMERGE,	/* block_bio_frontmerge: the bio's sectors precede the request's */
	DS_BLOCK_COMPLETE,	/* block_rq_complete */
	DS_BLOCK_RQ_MERGE,	/* block_rq_merge: this queued request is merged into the one before it */
};

/* One block event as the tracker reads it.  Strings are borrowed for the call. */
struct ds_block_io {
	uint64_t dev;		/* kernel encoding: major << 20 | minor */
	uint64_t sector;
	uint64_t nr_sector;
	uint64_t bytes;		/* 0: nr_sector * 512 */
	int64_t tid;		/* submitter, -1 unknown */
	const char *comm;	/* submitter, NULL unknown */
	bool write;		/* rwbs has the write bit */
};

/* The submitter the queue time of a request is charged to, with the totals of all those ahead. */
struct ds_block_ahead {
	uint32_t count;			/* requests issued on the device while it was queued (all submitters) */
	uint64_t bytes;
	uint32_t top_count;		/* of the top submitter (most bytes) */
	uint64_t top_bytes;
	uint32_t top_writes;		/* how many of the top submitter's were writes */
	int64_t top_tid;		/* -1: none */
	char top_comm[16];
};

/* A completion (whole request or the part of it completed). */
struct ds_block_done {
	uint64_t seq;			/* position in the ring */
	uint64_t dev, sector, bytes;	/* sector: first sector completed; bytes completed */
	int64_t insert_ts;		/* == issue_ts for a direct issue */
	int64_t issue_ts;		/* last issue */
	int64_t complete_ts;
	int64_t tid;			/* submitter (insert's, else issue's), -1 unknown */
	char comm[16];
	bool write;
	struct ds_block_ahead ahead;
};

struct ds_block_counters {
	uint64_t requests;		/* completions matched to a request */
	uint64_t unmatched;		/* completions of a request never seen issued (trace began after) */
	uint64_t expired;		/* requests in flight dropped after the window (merged away, completion lost) */
};

/* Totals per device and submitter of the completed requests (sink.deepspan.metrics by="disk"). */
struct ds_block_total {
	uint64_t dev;
	int64_t tid;			/* submitter, -1 unknown */
	char comm[16];
	uint64_t requests;		/* fully completed */
	uint64_t writes;
	uint64_t bytes;			/* completed, partial completions included */
	uint64_t queue;			/* ns, insert to (last) issue */
	uint64_t device;		/* ns, issue to the last completion */
};

struct ds_block;

struct ds_block *ds_block_create(int64_t window);
void ds_block_destroy(struct ds_block *block);

/* One event at `ts`.  Returns, for a completion, the record it left (valid until the next call), else NULL. */
const struct ds_block_done *ds_block_event(struct ds_block *block, int64_t ts, enum ds_block_op op,
		const struct ds_block_io *io);

/* The completion record `seq` while it is kept, else NULL. */
const struct ds_block_done *ds_block_find_done(const struct ds_block *block, uint64_t seq);

/* lttng_statedump_block_device: the device's name (copied). */
void ds_block_set_device_name(struct ds_block *block, uint64_t dev, const char *name);

/* "sdb (8:16)" or "8:16" when no name is known; written to `buf`, returned. */
const char *ds_block_device_label(const struct ds_block *block, uint64_t dev, char *buf, size_t size);

const struct ds_block_counters *ds_block_counters(const struct ds_block *block);

/* Calls `fn` for every (device, submitter) total, devices in no particular order. */
typedef void (*ds_block_total_fn)(const struct ds_block_total *total, void *data);
void ds_block_foreach_total(const struct ds_block *block, ds_block_total_fn fn, void *data);

#endif /* DEEPSPAN_SPAN_ATTRIB_BLOCK_H */
