/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/span-attrib-filter/block (doc/storage-network.md, "Storage" and "Page cache"):
 * hand-written block event sequences (direct issue, merged bios, requeue, partial completion, completion on
 * another CPU) through the tracker alone, then through the thread model with chains and layers on: the disk
 * entry of a blocked read is split into queue and device time (children partition it, integers), the queue
 * time is charged to the writer served ahead of it, and read-family syscalls count as page-cache hits or
 * misses.
 */
#include "unit.h"
#include "span-attrib-filter/block.h"
#include "span-attrib-filter/chain.h"
#include "span-attrib-filter/thread-state.h"

#define BLOCKED 1
#define DEV ((8u << 20) | 16)	/* 8:16 */
#define MS 1000000

static struct ds_block_io io(uint64_t sector, uint64_t nr_sector, int64_t tid, const char *comm, bool write)
{
	struct ds_block_io r = { DEV, sector, nr_sector, 0, tid, comm, write };

	return r;
}

static void test_tracker(void)
{
	struct ds_block *b = ds_block_create(1000 * MS);
	struct ds_block_io r;
	const struct ds_block_done *d;

	/* direct issue: no insert, queue time 0 */
	r = io(100, 8, 50, "app", false);
	ds_block_event(b, 10, DS_BLOCK_ISSUE, &r);
	d = ds_block_event(b, 30, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d != NULL, "direct issue: completion matched");
	if (d) {
		UNIT_EQ_INT(d->insert_ts, 10, "direct issue: queued at its issue");
		UNIT_EQ_INT(d->issue_ts, 10, "direct issue: issued");
		UNIT_EQ_INT(d->complete_ts, 30, "direct issue: completed");
		UNIT_EQ_UINT(d->bytes, 4096, "direct issue: bytes from nr_sector");
		UNIT_EQ_INT(d->tid, 50, "direct issue: submitter");
		UNIT_CHECK(ds_block_find_done(b, d->seq) == d, "direct issue: record found by seq");
	}
	/* insert, two bios merged (back and front), issue, completion on another CPU (the key matches) */
	r = io(208, 8, 60, "app", false);
	ds_block_event(b, 40, DS_BLOCK_INSERT, &r);
	r = io(216, 8, 61, "app2", false);
	ds_block_event(b, 41, DS_BLOCK_BACKMERGE, &r);
	r = io(200, 8, 62, "app3", false);
	ds_block_event(b, 42, DS_BLOCK_FRONTMERGE, &r);
	r = io(200, 24, 60, "app", false);
	ds_block_event(b, 50, DS_BLOCK_ISSUE, &r);
	d = ds_block_event(b, 70, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d != NULL, "merge: the merged request completes at its new first sector");
	if (d) {
		UNIT_EQ_INT(d->insert_ts, 40, "merge: queued at the insert");
		UNIT_EQ_INT(d->issue_ts, 50, "merge: issued");
		UNIT_EQ_UINT(d->bytes, 24 * 512, "merge: three bios' bytes");
		UNIT_EQ_UINT(d->sector, 200, "merge: front merge moved the first sector");
	}
	/* block_rq_merge: a queued request merged into the one before it completes with it */
	r = io(500, 8, 90, "app", false);
	ds_block_event(b, 80, DS_BLOCK_INSERT, &r);
	r = io(508, 8, 91, "app", false);
	ds_block_event(b, 81, DS_BLOCK_INSERT, &r);
	ds_block_event(b, 82, DS_BLOCK_RQ_MERGE, &r);
	r = io(500, 16, 90, "app", false);
	ds_block_event(b, 85, DS_BLOCK_ISSUE, &r);
	d = ds_block_event(b, 95, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d && d->bytes == 16 * 512 && d->insert_ts == 80, "rq merge: one request of both");
	r = io(508, 8, -1, NULL, false);
	UNIT_CHECK(ds_block_event(b, 96, DS_BLOCK_COMPLETE, &r) == NULL, "rq merge: the merged one is gone");
	/* requeue: the time since the insert stays queue time; the last issue counts */
	r = io(300, 8, 70, "db", true);
	ds_block_event(b, 100, DS_BLOCK_INSERT, &r);
	ds_block_event(b, 110, DS_BLOCK_ISSUE, &r);
	ds_block_event(b, 120, DS_BLOCK_REQUEUE, &r);
	ds_block_event(b, 130, DS_BLOCK_ISSUE, &r);
	d = ds_block_event(b, 150, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d != NULL, "requeue: completed");
	if (d) {
		UNIT_EQ_INT(d->insert_ts, 100, "requeue: queued since the insert");
		UNIT_EQ_INT(d->issue_ts, 130, "requeue: the last issue");
		UNIT_CHECK(d->write, "requeue: a write");
		UNIT_EQ_UINT(d->ahead.count, 0, "requeue: its own first issue is not ahead of it");
	}
	/* partial completion: 8 of 16 sectors, then the rest at sector + 8 */
	r = io(400, 16, 80, "app", false);
	ds_block_event(b, 200, DS_BLOCK_INSERT, &r);
	ds_block_event(b, 205, DS_BLOCK_ISSUE, &r);
	r = io(400, 8, -1, NULL, false);
	d = ds_block_event(b, 220, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d && d->bytes == 4096 && d->sector == 400, "partial: the first 8 sectors");
	r = io(408, 8, -1, NULL, false);
	d = ds_block_event(b, 230, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d && d->bytes == 4096 && d->sector == 408 && d->insert_ts == 200 && d->issue_ts == 205,
		"partial: the rest completes the same request");
	d = ds_block_event(b, 240, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d == NULL, "partial: nothing left in flight");
	UNIT_EQ_UINT(ds_block_counters(b)->unmatched, 2, "unmatched completions counted");
	UNIT_EQ_UINT(ds_block_counters(b)->requests, 6, "completions matched");
	ds_block_destroy(b);
}

/* A read queued behind a backup's writes on the same device: who was served ahead of it. */
static void test_ahead(void)
{
	struct ds_block *b = ds_block_create(1000 * MS);
	struct ds_block_io r;
	const struct ds_block_done *d;
	int64_t t;
	uint64_t s;

	r = io(9000, 8, 100, "app", false);
	ds_block_event(b, 1000, DS_BLOCK_INSERT, &r);
	for (t = 1000, s = 0; s < 10; s++, t += 10) {
		struct ds_block_io w = io(s * 256, 256, 3120, "backup.sh", true);

		ds_block_event(b, t, DS_BLOCK_INSERT, &w);
		ds_block_event(b, t + 1, DS_BLOCK_ISSUE, &w);
		ds_block_event(b, t + 5, DS_BLOCK_COMPLETE, &w);
	}
	r.bytes = 0;
	{
		struct ds_block_io other = io(7000, 8, 200, "cron", false);

		ds_block_event(b, 1200, DS_BLOCK_ISSUE, &other);
	}
	ds_block_event(b, 1300, DS_BLOCK_ISSUE, &r);
	d = ds_block_event(b, 1400, DS_BLOCK_COMPLETE, &r);
	UNIT_CHECK(d != NULL, "ahead: read completed");
	if (d) {
		UNIT_EQ_UINT(d->ahead.count, 11, "ahead: all requests issued while it was queued");
		UNIT_EQ_UINT(d->ahead.bytes, 10 * 256 * 512 + 4096, "ahead: their bytes");
		UNIT_EQ_INT(d->ahead.top_tid, 3120, "ahead: the backup is the top submitter");
		UNIT_EQ_UINT(d->ahead.top_count, 10, "ahead: its requests");
		UNIT_EQ_UINT(d->ahead.top_writes, 10, "ahead: all writes");
		UNIT_EQ_UINT(d->ahead.top_bytes, 10 * 256 * 512, "ahead: its bytes");
		UNIT_EQ_STR(d->ahead.top_comm, "backup.sh", "ahead: its name");
	}
	ds_block_set_device_name(b, DEV, "sdb");
	{
		char buf[64];

		UNIT_EQ_STR(ds_block_device_label(b, DEV, buf, sizeof(buf)), "sdb (8:16)", "device label with name");
		UNIT_EQ_STR(ds_block_device_label(b, 259u << 20, buf, sizeof(buf)), "259:0", "device label without");
	}
	ds_block_destroy(b);
}

static void sw(struct ds_model *m, int64_t ts, int64_t cpu, int64_t prev, const char *prev_comm, int64_t state,
		int64_t next, const char *next_comm)
{
	ds_model_sched_switch(m, ts, cpu, prev, prev_comm, state, next, next_comm);
}

static const struct ds_chain_entry *entry(const struct sa_span *span, guint i)
{
	return &g_array_index(span->chain, struct ds_chain_entry, i);
}

static void dump(const struct sa_span *span)
{
	guint k;

	for (k = 0; k < span->chain->len; k++) {
		const struct ds_chain_entry *e = entry(span, k);

		printf("#   %u: seg %" PRIu64 " parent %" PRId64 " depth %" PRIu64 " [%" PRId64 ", %" PRId64
			") %s/%" PRId64 " %s \"%s\"\n", k, e->segment, e->parent, e->depth, e->begin, e->end,
			e->comm, e->tid, ds_chain_kind_name(e->kind), e->detail);
	}
}

/* The children of entry `parent` partition it exactly. */
static bool children_partition(const struct sa_span *span, guint parent)
{
	const struct ds_chain_entry *p = entry(span, parent);
	int64_t t = p->begin;
	guint k;

	for (k = parent + 1; k < span->chain->len; k++) {
		const struct ds_chain_entry *e = entry(span, k);

		if (e->parent != (int64_t) parent) {
			continue;
		}
		if (e->begin != t || e->end <= e->begin || e->depth != p->depth + 1) {
			return false;
		}
		t = e->end;
	}
	return t == p->end;
}

/*
 * The span's thread (app/100) reads on CPU 0: a hit (no block I/O), then a miss: it inserts a request at 1000
 * and blocks; backup.sh/3120 has 4 writes issued ahead of it; the read is issued at 5000, completes at 9000 in
 * the irq of CPU 1 (another CPU), which wakes it at 9001.
 */
static void test_chain_split(bool layers)
{
	struct ds_chain_ctx *ctx = ds_chain_ctx_create(8, 1000 * (int64_t) MS);
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct sa_span *span;
	struct ds_block_io r = io(5000, 8, 100, "app", false);
	int disk = -1;
	guint k;
	int i;

	ds_model_set_chain(m, ctx, "alpha");
	if (layers) {
		ds_model_set_layers(m, 1000 * (int64_t) MS);
	}
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	sw(m, 0, 2, 0, "swapper/2", 0, 3120, "backup.sh");
	span = sa_span_new(m, 0);
	span->tid = 100;
	sa_span_attach(m, span, ds_model_thread(m, 100, true), 0);
	ds_model_syscall_entry(m, 100, 0, "read");
	ds_model_syscall_read(m, 0);
	ds_model_syscall_exit(m, 300, 0);
	ds_model_syscall_entry(m, 900, 0, "pread64");
	ds_model_syscall_read(m, 0);
	ds_model_block_event(m, 1000, 0, DS_BLOCK_INSERT, &r);
	sw(m, 1010, 0, 100, "app", BLOCKED, 0, "swapper/0");
	for (i = 0; i < 4; i++) {
		struct ds_block_io w = io((uint64_t) i * 1024, 1024, -1, NULL, true);

		ds_model_block_event(m, 1500 + i * 1000, 2, DS_BLOCK_INSERT, &w);
		ds_model_block_event(m, 1600 + i * 1000, 2, DS_BLOCK_ISSUE, &w);
		ds_model_irq_entry(m, 1900 + i * 1000, 1, DS_IRQ_HARD, "nvme0q1");
		ds_model_block_event(m, 1900 + i * 1000, 1, DS_BLOCK_COMPLETE, &w);
		ds_model_irq_exit(m, 1901 + i * 1000, 1, DS_IRQ_HARD);
	}
	ds_model_block_event(m, 5000, 2, DS_BLOCK_ISSUE, &r);
	ds_model_irq_entry(m, 9000, 1, DS_IRQ_HARD, "nvme0q1");
	ds_model_block_event(m, 9000, 1, DS_BLOCK_COMPLETE, &r);
	ds_model_wakeup_target(m, 9001, 1, 100, "app", 0);
	ds_model_irq_exit(m, 9002, 1, DS_IRQ_HARD);
	sw(m, 9010, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 9020, 0);
	sa_span_finish(m, span, 10000);

	if (!layers) {
		/* the disk leaf, then the wait for the CPU after the wakeup */
		UNIT_CHECK(span->chain->len == 2 && entry(span, 0)->kind == DS_CHAIN_DISK &&
			strcmp(entry(span, 0)->detail, "pread64 \u2190 disk dev 8:16") == 0 &&
			entry(span, 0)->begin == 1010 && entry(span, 0)->end == 9001,
			"layers off: today's disk leaf");
		UNIT_EQ_UINT(span->cache_hits + span->cache_misses, 0, "layers off: no page-cache counts");
		if (span->chain->len != 2) {
			dump(span);
		}
		goto end;
	}
	for (k = 0; k < span->chain->len; k++) {
		if (entry(span, k)->kind == DS_CHAIN_DISK && entry(span, k)->depth == 0) {
			disk = (int) k;
		}
	}
	if (!UNIT_CHECK(disk == 0, "split: one disk entry for the blocked segment")) {
		dump(span);
		goto end;
	}
	UNIT_EQ_STR(entry(span, 0)->detail, "pread64 \u2190 disk 8:16 read 4 KiB at sector 5000", "split: disk entry");
	UNIT_CHECK(entry(span, 0)->begin == 1010 && entry(span, 0)->end == 9001, "split: the whole wait");
	UNIT_CHECK(children_partition(span, 0), "split: children partition the disk entry");
	UNIT_CHECK(span->chain->len == 5 && entry(span, 4)->kind == DS_CHAIN_WAIT_CPU,
		"split: queue, device, after completion (then the wait for the CPU)");
	if (span->chain->len == 5) {
		const struct ds_chain_entry *q = entry(span, 1), *dv = entry(span, 2), *irq = entry(span, 3);

		UNIT_CHECK(q->begin == 1010 && q->end == 5000, "split: queue time clipped to the wait");
		UNIT_EQ_STR(q->detail, "queued 4.0 us behind 4 writes (2 MiB) of backup.sh/3120",
			"split: queue time charged to the writer");
		UNIT_EQ_INT(q->tid, 3120, "split: the queue leaf names the writer's tid");
		UNIT_EQ_STR(q->comm, "backup.sh", "split: and its comm");
		UNIT_CHECK(dv->begin == 5000 && dv->end == 9000, "split: device time issue to completion");
		UNIT_EQ_STR(dv->detail, "device 8:16: read 4 KiB", "split: device detail");
		UNIT_EQ_INT(dv->tid, 100, "split: device time is the reader's");
		UNIT_CHECK(irq->begin == 9000 && irq->end == 9001 && irq->kind == DS_CHAIN_IRQ,
			"split: completion to wakeup");
		UNIT_EQ_STR(irq->detail, "after completion: irq:nvme0q1", "split: irq detail");
	} else {
		dump(span);
	}
	UNIT_EQ_UINT(span->cache_hits, 1, "page cache: the first read hit");
	UNIT_EQ_UINT(span->cache_hit_time, 200, "page cache: hit time");
	UNIT_EQ_UINT(span->cache_misses, 1, "page cache: the second read missed");
	UNIT_EQ_UINT(span->cache_miss_time, 9020 - 900, "page cache: miss time");
end:
	sa_span_free(span);
	ds_model_destroy(m);
	ds_chain_ctx_destroy(ctx);
}

/* A miss seen only by the wakeup (the request was submitted by a kworker) and chains off. */
static void test_miss_by_wakeup(void)
{
	struct ds_model *m = ds_model_create(DS_STATE_RULE_DEFAULT, true);
	struct ds_block_io r = io(64, 8, 77, "kworker/0:1", false);
	struct sa_span *span;

	ds_model_set_layers(m, 1000 * (int64_t) MS);
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "app");
	span = sa_span_new(m, 0);
	sa_span_attach(m, span, ds_model_thread(m, 100, true), 0);
	ds_model_syscall_entry(m, 10, 0, "readv");
	ds_model_syscall_read(m, 0);
	sw(m, 20, 0, 100, "app", BLOCKED, 0, "swapper/0");
	ds_model_block_event(m, 30, 1, DS_BLOCK_ISSUE, &r);
	ds_model_irq_entry(m, 50, 1, DS_IRQ_HARD, "ahci");
	ds_model_block_event(m, 50, 1, DS_BLOCK_COMPLETE, &r);
	ds_model_wakeup_target(m, 51, 1, 100, "app", 0);
	ds_model_irq_exit(m, 52, 1, DS_IRQ_HARD);
	sw(m, 60, 0, 0, "swapper/0", 0, 100, "app");
	ds_model_syscall_exit(m, 70, 0);
	ds_model_syscall_entry(m, 80, 0, "write");
	ds_model_syscall_exit(m, 90, 0);
	sa_span_finish(m, span, 100);
	UNIT_EQ_UINT(span->cache_misses, 1, "wakeup miss: counted");
	UNIT_EQ_UINT(span->cache_miss_time, 60, "wakeup miss: time");
	UNIT_EQ_UINT(span->cache_hits, 0, "wakeup miss: a write is not a read");
	sa_span_free(span);
	ds_model_destroy(m);
}

int main(void)
{
	test_tracker();
	test_ahead();
	test_chain_split(true);
	test_chain_split(false);
	test_miss_by_wakeup();
	return unit_finish();
}
