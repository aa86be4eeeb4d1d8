/* SPDX-License-Identifier: MIT */
/*
 * Block requests of one host (doc/storage-network.md, "Storage"): see block.h.
 */
#include "block.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Compaction of the rings: drop the dead front when it is large and most of the array. */
#define COMPACT_MIN 32
/* Requests in flight longer than this many windows are dropped (merged away, or their completion lost). */
#define INFLIGHT_WINDOWS 8
/* Distinct submitters summed per queued request; more are counted in the totals only. */
#define AHEAD_SUBMITTERS 16

#define NOT_ISSUED INT64_MIN

struct request {
	uint64_t sector, nr_sector, bytes;
	int64_t insert_ts;
	int64_t issue_ts;		/* NOT_ISSUED while queued */
	int64_t tid;
	char comm[16];
	bool write;
	struct ds_block_ahead ahead;
};

/* An issue on a device, kept for the window (who was served ahead of a queued request). */
struct issue_rec {
	int64_t ts;
	uint64_t sector, bytes;
	int64_t tid;
	char comm[16];
	bool write;
};

struct device {
	uint64_t dev;
	char *name;			/* owned; NULL when the statedump did not name it */
	GArray *inflight;		/* owned; struct request, oldest insert first */
	GArray *issues;			/* owned; struct issue_rec in time order, live from `issues_head` */
	guint issues_head;
	GArray *totals;			/* owned; struct ds_block_total per submitter */
};

struct ds_block {
	int64_t window;
	GHashTable *devices;		/* owned; dev (direct) -> struct device * (owned) */
	struct device *last;		/* borrowed; one-entry cache of `devices` */
	GArray *done;			/* owned; struct ds_block_done, live from `done_head` */
	guint done_head;
	uint64_t done_base;		/* seq of done[0] */
	struct ds_block_counters counters;
};

static void device_destroy(gpointer data)
{
	struct device *d = data;

	g_array_free(d->inflight, TRUE);
	g_array_free(d->issues, TRUE);
	g_array_free(d->totals, TRUE);
	g_free(d->name);
	g_free(d);
}

struct ds_block *ds_block_create(int64_t window)
{
	struct ds_block *block = g_new0(struct ds_block, 1);

	block->window = window > 0 ? window : 1;
	block->devices = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, device_destroy);
	block->done = g_array_sized_new(FALSE, FALSE, sizeof(struct ds_block_done), 64);
	return block;
}

void ds_block_destroy(struct ds_block *block)
{
	if (!block) {
		return;
	}
	g_hash_table_destroy(block->devices);
	g_array_free(block->done, TRUE);
	g_free(block);
}

static struct device *device_get(struct ds_block *block, uint64_t dev)
{
	struct device *d;

	if (block->last && block->last->dev == dev) {
		return block->last;
	}
	d = g_hash_table_lookup(block->devices, GSIZE_TO_POINTER((gsize) dev));
	if (!d) {
		d = g_new0(struct device, 1);
		d->dev = dev;
		d->inflight = g_array_sized_new(FALSE, FALSE, sizeof(struct request), 16);
		d->issues = g_array_sized_new(FALSE, FALSE, sizeof(struct issue_rec), 64);
		d->totals = g_array_new(FALSE, TRUE, sizeof(struct ds_block_total));
		g_hash_table_insert(block->devices, GSIZE_TO_POINTER((gsize) dev), d);
	}
	block->last = d;
	return d;
}

/* `now` - span, without overflow. */
static int64_t limit_of(int64_t now, int64_t span)
{
	return now < INT64_MIN + span ? INT64_MIN : now - span;
}

static uint64_t io_bytes(const struct ds_block_io *io)
{
	return io->bytes ? io->bytes : io->nr_sector * 512;
}

static void copy_comm(char *out, const char *comm)
{
	g_strlcpy(out, comm && comm[0] ? comm : "-", 16);
}

/* Index in d->inflight of the request at `sector` (issued ones when `issued`, queued ones otherwise), -1. */
static int find_request(const struct device *d, uint64_t sector, bool issued)
{
	guint i;

	for (i = 0; i < d->inflight->len; i++) {
		const struct request *r = &g_array_index(d->inflight, struct request, i);

		if (r->sector == sector && (r->issue_ts != NOT_ISSUED) == issued) {
			return (int) i;
		}
	}
	return -1;
}

static void expire_inflight(struct ds_block *block, struct device *d, int64_t ts)
{
	int64_t limit = limit_of(ts, block->window * INFLIGHT_WINDOWS);
	guint i = 0;

	while (i < d->inflight->len) {
		if (g_array_index(d->inflight, struct request, i).insert_ts < limit) {
			g_array_remove_index(d->inflight, i);
			block->counters.expired++;
		} else {
			i++;
		}
	}
}

static void prune_issues(struct ds_block *block, struct device *d, int64_t ts)
{
	int64_t limit = limit_of(ts, block->window * INFLIGHT_WINDOWS);

	while (d->issues_head < d->issues->len &&
			g_array_index(d->issues, struct issue_rec, d->issues_head).ts < limit) {
		d->issues_head++;
	}
	if (d->issues_head >= COMPACT_MIN && d->issues_head * 2 >= d->issues->len) {
		g_array_remove_range(d->issues, 0, d->issues_head);
		d->issues_head = 0;
	}
}

static void prune_done(struct ds_block *block, int64_t ts)
{
	int64_t limit = limit_of(ts, block->window);

	while (block->done_head < block->done->len &&
			g_array_index(block->done, struct ds_block_done, block->done_head).complete_ts < limit) {
		block->done_head++;
	}
	if (block->done_head >= COMPACT_MIN && block->done_head * 2 >= block->done->len) {
		g_array_remove_range(block->done, 0, block->done_head);
		block->done_base += block->done_head;
		block->done_head = 0;
	}
}

/* The requests issued on `d` in [r->insert_ts, ts) other than r's own earlier issue, per submitter. */
static void sum_ahead(const struct device *d, struct request *r, int64_t ts)
{
	struct {
		int64_t tid;
		uint32_t count, writes;
		uint64_t bytes;
		const char *comm;
	} subs[AHEAD_SUBMITTERS];
	unsigned int n = 0, k, top = 0;
	guint i = d->issues->len;

	memset(&r->ahead, 0, sizeof(r->ahead));
	r->ahead.top_tid = -1;
	while (i > d->issues_head) {
		const struct issue_rec *rec = &g_array_index(d->issues, struct issue_rec, i - 1);

		i--;
		if (rec->ts < r->insert_ts) {
			break;
		}
		if (rec->ts >= ts || (rec->sector == r->sector && rec->tid == r->tid)) {
			continue;
		}
		r->ahead.count++;
		r->ahead.bytes += rec->bytes;
		for (k = 0; k < n; k++) {
			if (subs[k].tid == rec->tid && (rec->tid >= 0 || strcmp(subs[k].comm, rec->comm) == 0)) {
				break;
			}
		}
		if (k == n && n < AHEAD_SUBMITTERS) {
			subs[n].tid = rec->tid;
			subs[n].count = 0;
			subs[n].writes = 0;
			subs[n].bytes = 0;
			subs[n].comm = rec->comm;
			n++;
		}
		if (k < n) {
			subs[k].count++;
			subs[k].writes += rec->write ? 1 : 0;
			subs[k].bytes += rec->bytes;
		}
	}
	if (!n) {
		return;
	}
	for (k = 1; k < n; k++) {
		if (subs[k].bytes > subs[top].bytes ||
				(subs[k].bytes == subs[top].bytes && subs[k].count > subs[top].count)) {
			top = k;
		}
	}
	r->ahead.top_count = subs[top].count;
	r->ahead.top_writes = subs[top].writes;
	r->ahead.top_bytes = subs[top].bytes;
	r->ahead.top_tid = subs[top].tid;
	copy_comm(r->ahead.top_comm, subs[top].comm);
}

static struct request *add_request(struct device *d, int64_t ts, const struct ds_block_io *io)
{
	struct request r;

	memset(&r, 0, sizeof(r));
	r.sector = io->sector;
	r.nr_sector = io->nr_sector;
	r.bytes = io_bytes(io);
	r.insert_ts = ts;
	r.issue_ts = NOT_ISSUED;
	r.tid = io->tid;
	copy_comm(r.comm, io->comm);
	r.write = io->write;
	r.ahead.top_tid = -1;
	g_array_append_val(d->inflight, r);
	return &g_array_index(d->inflight, struct request, d->inflight->len - 1);
}

static void issue(struct device *d, int64_t ts, const struct ds_block_io *io)
{
	int i = find_request(d, io->sector, false);
	struct request *r;
	struct issue_rec rec;

	if (i < 0) {
		/* no insert seen (direct issue, or no scheduler event): queue time 0 */
		r = add_request(d, ts, io);
	} else {
		r = &g_array_index(d->inflight, struct request, i);
		if (r->tid < 0 && io->tid >= 0) {
			r->tid = io->tid;
			copy_comm(r->comm, io->comm);
		}
		if (io->nr_sector || io->bytes) {
			/* the size at dispatch is authoritative (bios merged without a recorded merge event) */
			r->nr_sector = io->nr_sector;
			r->bytes = io_bytes(io);
		}
		sum_ahead(d, r, ts);
	}
	r->issue_ts = ts;
	memset(&rec, 0, sizeof(rec));
	rec.ts = ts;
	rec.sector = r->sector;
	rec.bytes = r->bytes;
	rec.tid = r->tid;
	memcpy(rec.comm, r->comm, sizeof(rec.comm));
	rec.write = r->write;
	g_array_append_val(d->issues, rec);
}

static void merge(struct device *d, const struct ds_block_io *io, bool front)
{
	guint i;

	for (i = 0; i < d->inflight->len; i++) {
		struct request *r = &g_array_index(d->inflight, struct request, i);

		if (r->issue_ts != NOT_ISSUED) {
			continue;
		}
		if (!front && r->sector + r->nr_sector == io->sector) {
			r->nr_sector += io->nr_sector;
			r->bytes += io_bytes(io);
			return;
		}
		if (front && io->sector + io->nr_sector == r->sector) {
			r->sector = io->sector;
			r->nr_sector += io->nr_sector;
			r->bytes += io_bytes(io);
			return;
		}
	}
}

/* The total of the submitter of `rec` on `d` (a linear scan: a device has few submitters). */
static struct ds_block_total *total_of(struct device *d, const struct ds_block_done *rec)
{
	struct ds_block_total t;
	guint i;

	for (i = 0; i < d->totals->len; i++) {
		struct ds_block_total *found = &g_array_index(d->totals, struct ds_block_total, i);

		if (found->tid == rec->tid && strcmp(found->comm, rec->comm) == 0) {
			return found;
		}
	}
	memset(&t, 0, sizeof(t));
	t.dev = d->dev;
	t.tid = rec->tid;
	memcpy(t.comm, rec->comm, sizeof(t.comm));
	g_array_append_val(d->totals, t);
	return &g_array_index(d->totals, struct ds_block_total, d->totals->len - 1);
}

static const struct ds_block_done *complete(struct ds_block *block, struct device *d, int64_t ts,
		const struct ds_block_io *io)
{
	int i = find_request(d, io->sector, true);
	struct ds_block_done rec;
	struct ds_block_total *total;
	struct request *r;
	uint64_t bytes;

	if (i < 0) {
		i = find_request(d, io->sector, false);
	}
	if (i < 0) {
		block->counters.unmatched++;
		return NULL;
	}
	r = &g_array_index(d->inflight, struct request, i);
	bytes = io->nr_sector && io->nr_sector < r->nr_sector ? io->nr_sector * 512 : r->bytes;
	if (bytes > r->bytes) {
		bytes = r->bytes;
	}
	memset(&rec, 0, sizeof(rec));
	rec.seq = block->done_base + block->done->len;
	rec.dev = d->dev;
	rec.sector = r->sector;
	rec.bytes = bytes;
	rec.insert_ts = r->insert_ts;
	rec.issue_ts = r->issue_ts == NOT_ISSUED ? ts : r->issue_ts;
	rec.complete_ts = ts;
	rec.tid = r->tid;
	memcpy(rec.comm, r->comm, sizeof(rec.comm));
	rec.write = r->write;
	rec.ahead = r->ahead;
	total = total_of(d, &rec);
	total->bytes += bytes;
	if (io->nr_sector && io->nr_sector < r->nr_sector) {
		/* partial completion: the rest stays in flight */
		r->sector += io->nr_sector;
		r->nr_sector -= io->nr_sector;
		r->bytes -= bytes;
	} else {
		total->requests++;
		total->writes += rec.write ? 1 : 0;
		total->queue += (uint64_t) (rec.issue_ts - rec.insert_ts);
		total->device += (uint64_t) (rec.complete_ts - rec.issue_ts);
		g_array_remove_index(d->inflight, (guint) i);
	}
	block->counters.requests++;
	prune_done(block, ts);
	g_array_append_val(block->done, rec);
	return &g_array_index(block->done, struct ds_block_done, block->done->len - 1);
}

const struct ds_block_done *ds_block_event(struct ds_block *block, int64_t ts, enum ds_block_op op,
		const struct ds_block_io *io)
{
	struct device *d = device_get(block, io->dev);
	int i;

	switch (op) {
	case DS_BLOCK_INSERT:
		expire_inflight(block, d, ts);
		i = find_request(d, io->sector, false);
		if (i >= 0) {
			/* the same sector queued again without an issue: the earlier one was lost */
			g_array_remove_index(d->inflight, (guint) i);
			block->counters.expired++;
		}
		add_request(d, ts, io);
		break;
	case DS_BLOCK_ISSUE:
		prune_issues(block, d, ts);
		issue(d, ts, io);
		break;
	case DS_BLOCK_REQUEUE:
		i = find_request(d, io->sector, true);
		if (i >= 0) {
			g_array_index(d->inflight, struct request, i).issue_ts = NOT_ISSUED;
		}
		break;
	case DS_BLOCK_BACKMERGE:
	case DS_BLOCK_FRONTMERGE:
		merge(d, io, op == DS_BLOCK_FRONTMERGE);
		break;
	case DS_BLOCK_COMPLETE:
		return complete(block, d, ts, io);
	case DS_BLOCK_RQ_MERGE:
		/* `io` disappears into the queued request it follows (its sectors are appended to it) */
		i = find_request(d, io->sector, false);
		if (i >= 0) {
			struct request gone = g_array_index(d->inflight, struct request, i);
			struct ds_block_io bio = { d->dev, gone.sector, gone.nr_sector, gone.bytes, gone.tid, NULL,
				gone.write };

			g_array_remove_index(d->inflight, (guint) i);
			merge(d, &bio, false);
		}
		break;
	}
	return NULL;
}

const struct ds_block_done *ds_block_find_done(const struct ds_block *block, uint64_t seq)
{
	if (seq < block->done_base + block->done_head || seq >= block->done_base + block->done->len) {
		return NULL;
	}
	return &g_array_index(block->done, struct ds_block_done, seq - block->done_base);
}

void ds_block_set_device_name(struct ds_block *block, uint64_t dev, const char *name)
{
	struct device *d = device_get(block, dev);

	if (name && name[0]) {
		g_free(d->name);
		d->name = g_strdup(name);
	}
}

const char *ds_block_device_label(const struct ds_block *block, uint64_t dev, char *buf, size_t size)
{
	const struct device *d = g_hash_table_lookup(block->devices, GSIZE_TO_POINTER((gsize) dev));

	if (d && d->name) {
		snprintf(buf, size, "%s (%" PRIu64 ":%" PRIu64 ")", d->name, dev >> 20, dev & 0xfffff);
	} else {
		snprintf(buf, size, "%" PRIu64 ":%" PRIu64, dev >> 20, dev & 0xfffff);
	}
	return buf;
}

const struct ds_block_counters *ds_block_counters(const struct ds_block *block)
{
	return &block->counters;
}

void ds_block_foreach_total(const struct ds_block *block, ds_block_total_fn fn, void *data)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, block->devices);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct device *d = value;
		guint i;

		for (i = 0; i < d->totals->len; i++) {
			fn(&g_array_index(d->totals, struct ds_block_total, i), data);
		}
	}
}
