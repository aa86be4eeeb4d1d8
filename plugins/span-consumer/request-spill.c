/* SPDX-License-Identifier: MIT */
#include "request-spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "attribution-record.h"
#include "chain-spill.h"

/* Buffered bytes written at once. */
#define SPILL_BUFFER_BYTES ((guint) 1 << 20)

bool ds_spill_open(struct ds_spill *spill, const char *dir)
{
	char *path = g_build_filename(dir, ".deepspan-spill-XXXXXX", NULL);

	memset(spill, 0, sizeof(*spill));
	spill->fd = g_mkstemp(path);
	if (spill->fd >= 0) {
		(void) g_unlink(path);
		spill->buffer = g_byte_array_sized_new(SPILL_BUFFER_BYTES);
	}
	g_free(path);
	return spill->fd >= 0;
}

static void flush_buffer(struct ds_spill *spill)
{
	const guint8 *data = spill->buffer->data;
	size_t left = spill->buffer->len;

	while (left > 0 && spill->error == 0) {
		ssize_t written = write(spill->fd, data, left);

		if (written < 0 && errno == EINTR) {
			continue;
		}
		if (written <= 0) {
			spill->error = written < 0 ? errno : ENOSPC;
			break;
		}
		data += written;
		left -= (size_t) written;
	}
	g_byte_array_set_size(spill->buffer, 0);
}

void ds_spill_close(struct ds_spill *spill)
{
	if (spill->fd >= 0) {
		close(spill->fd);
	}
	if (spill->buffer) {
		g_byte_array_free(spill->buffer, TRUE);
	}
	memset(spill, 0, sizeof(*spill));
	spill->fd = -1;
}

uint64_t ds_spill_append(struct ds_spill *spill, const void *data, size_t size)
{
	uint64_t offset = spill->size;

	if (spill->buffer->len + size > SPILL_BUFFER_BYTES) {
		flush_buffer(spill);
	}
	g_byte_array_append(spill->buffer, data, (guint) size);
	spill->size += size;
	return offset;
}

/*
 * Room for `max` bytes at the end of the buffer (flushed first when they would not fit): written in place,
 * then kept up to `used` by spill_commit().
 */
static uint8_t *spill_reserve(struct ds_spill *spill, size_t max)
{
	guint len;

	if (spill->buffer->len + max > SPILL_BUFFER_BYTES) {
		flush_buffer(spill);
	}
	len = spill->buffer->len;
	g_byte_array_set_size(spill->buffer, (guint) (len + max));
	return spill->buffer->data + len;
}

static void spill_commit(struct ds_spill *spill, size_t max, size_t used)
{
	g_byte_array_set_size(spill->buffer, (guint) (spill->buffer->len - max + used));
	spill->size += used;
}

/* Entries encoded per reservation of the write buffer (its growth stays bounded whatever a chain's length). */
#define SPILL_CHAIN_PART 4096u

/* Appends the chain of `span` in its compact form (chain-spill.h), SPILL_CHAIN_PART entries at a time. */
static void spill_chain(struct ds_spill *spill, const struct ds_span *span)
{
	uint32_t from, to;

	for (from = 0; from < span->chain_count; from = to) {
		size_t max;
		uint8_t *start, *end;

		to = span->chain_count - from > SPILL_CHAIN_PART ? from + SPILL_CHAIN_PART : span->chain_count;
		max = (size_t) (to - from) * DS_CHAIN_SPILL_MAX_ENTRY;
		start = spill_reserve(spill, max);
		end = ds_chain_spill_encode_part(span->chain, from, to, span->begin, start);
		spill_commit(spill, max, (size_t) (end - start));
	}
}

bool ds_spill_read(struct ds_spill *spill, uint64_t offset, void *out, size_t size)
{
	char *to = out;

	if (spill->buffer->len > 0) {
		flush_buffer(spill);
	}
	while (size > 0 && spill->error == 0) {
		ssize_t got = pread(spill->fd, to, size, (off_t) offset);

		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			spill->error = got < 0 ? errno : EIO;
			break;
		}
		to += got;
		offset += (uint64_t) got;
		size -= (size_t) got;
	}
	return spill->error == 0;
}

void ds_spill_write_request(struct ds_spill *spill, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, const GArray *entries,
		struct ds_request_record *record)
{
	const struct ds_request *request = ds_request_at(requests, index);
	uint64_t start;
	uint32_t i;

	record->spill_offset = ds_spill_append(spill, entries->data,
		entries->len * sizeof(struct ds_attribution_entry));
	record->attribution_count = entries->len;
	start = spill->size;
	for (i = 0; i < request->span_count; i++) {
		const struct ds_span *span = ds_store_span(store, g_array_index(requests->spans,
			uint32_t, request->first_span + i));
		struct ds_span copy = *span;

		copy.segments = NULL;
		copy.syscalls = NULL;
		copy.syscall_count = 0;
		copy.chain = NULL;
		copy.host_items = NULL;	/* not spilled: the host tables are summed when the request completes */
		copy.host_item_count = 0;
		copy.reads = NULL;	/* not spilled: the attribution recorded carries them (doc/diff.md) */
		copy.read_count = 0;
		ds_spill_append(spill, &copy, sizeof(copy));
		if (span->segment_count) {
			ds_spill_append(spill, span->segments,
				span->segment_count * sizeof(struct ds_segment));
		}
		if (span->chain_count) {
			spill_chain(spill, span);
		}
	}
	record->spans_size = (uint32_t) (spill->size - start);
}

bool ds_spill_read_attribution(struct ds_spill *spill,
		const struct ds_request_record *record, GArray *entries)
{
	g_array_set_size(entries, record->attribution_count);
	return ds_spill_read(spill, record->spill_offset, entries->data,
		record->attribution_count * sizeof(struct ds_attribution_entry));
}

/*
 * Appends the span at `*at` (its struct, its segments, its compact chain) to `store`; advances `*at`.
 * False when the bytes end first.
 */
static bool read_span(const char **at, const char *end, struct ds_span_store *store)
{
	struct ds_span span;
	size_t segment_bytes;
	struct ds_segment *segments;
	const uint8_t *chain_end = NULL;

	memcpy(&span, *at, sizeof(span));
	*at += sizeof(span);
	segment_bytes = span.segment_count * sizeof(struct ds_segment);
	if ((size_t) (end - *at) < segment_bytes) {
		goto end;
	}
	segments = ds_arena_alloc(&store->segments, span.segment_count);
	if (segment_bytes) {
		memcpy(segments, *at, segment_bytes);
	}
	*at += segment_bytes;
	span.segments = segments;
	span.chain = ds_arena_alloc(&store->chains, span.chain_count);
	chain_end = ds_chain_spill_decode((const uint8_t *) *at, (const uint8_t *) end, span.chain_count,
		span.begin, (struct ds_stored_chain_entry *) span.chain);
	if (!chain_end) {
		goto end;
	}
	*at = (const char *) chain_end;
	span.parent = DS_NO_SPAN;
	span.request = DS_NO_SPAN;
	ds_store_append_span(store, &span);
end:
	return chain_end != NULL;
}

bool ds_spill_read_spans(struct ds_spill *spill, const struct ds_request_record *record,
		struct ds_span_store *store)
{
	char *bytes = g_malloc(record->spans_size ? record->spans_size : 1);
	const char *at = bytes, *end = bytes + record->spans_size;
	bool ok = ds_spill_read(spill, record->spill_offset +
		record->attribution_count * sizeof(struct ds_attribution_entry),
		bytes, record->spans_size);

	while (ok && end - at >= (ptrdiff_t) sizeof(struct ds_span)) {
		if (!read_span(&at, end, store)) {
			spill->error = EIO;
			ok = false;
		}
	}
	g_free(bytes);
	return ok;
}
