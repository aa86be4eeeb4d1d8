/* SPDX-License-Identifier: MIT */
/*
 * Pair records: the writer and the reader of the format pair-records.h describes.  Integers are written
 * byte by byte, little-endian, so a file reads the same on any machine.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "pair-records.h"

/* Bytes after the tag of each fixed-size item. */
#define HEAD_BYTES 16
#define TCP_BYTES (HEAD_BYTES + 17)
#define SPAN_BYTES (HEAD_BYTES + 38)
#define HTTP_BYTES (HEAD_BYTES + 9)
#define END_BYTES 12

/* ---- writing ---- */

static void put_bytes(struct ds_pair_writer *w, const void *bytes, size_t n)
{
	if (!w->failed && n && fwrite(bytes, 1, n, w->file) != n) {
		w->failed = true;
		w->error = errno ? errno : EIO;
	}
}

/* `v` little-endian in `bytes` bytes at `at`; returns the byte after them. */
static uint8_t *store(uint8_t *at, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		at[i] = (uint8_t) (v >> (8 * i));
	}
	return at + bytes;
}

static void put_uint(struct ds_pair_writer *w, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];

	put_bytes(w, b, (size_t) (store(b, v, bytes) - b));
}

static void put_string(struct ds_pair_writer *w, const char *s)
{
	size_t n = strlen(s);

	if (n > DS_PAIR_RECORDS_MAX_STRING) {
		n = DS_PAIR_RECORDS_MAX_STRING;
	}
	put_uint(w, n, 4);
	put_bytes(w, s, n);
}

void ds_pair_writer_start(struct ds_pair_writer *w, FILE *file)
{
	memset(w, 0, sizeof(*w));
	w->file = file;
	put_bytes(w, DS_PAIR_RECORDS_MAGIC, strlen(DS_PAIR_RECORDS_MAGIC));
}

bool ds_pair_writer_open(struct ds_pair_writer *w, const char *path)
{
	FILE *file = fopen(path, "wb");

	if (!file) {
		return false;
	}
	ds_pair_writer_start(w, file);
	return true;
}

void ds_pair_writer_clock(struct ds_pair_writer *w, const struct ds_pair_clock *clock)
{
	uint8_t flags = (uint8_t) ((clock->has_uuid ? 1 : 0) | (clock->origin_is_unix_epoch ? 2 : 0) |
		(clock->name ? 4 : 0) | (clock->hostname ? 8 : 0));

	put_uint(w, DS_PAIR_ITEM_CLOCK, 1);
	put_uint(w, clock->id, 4);
	put_uint(w, flags, 1);
	if (clock->has_uuid) {
		put_bytes(w, clock->uuid, 36);
	}
	if (clock->name) {
		put_string(w, clock->name);
	}
	if (clock->hostname) {
		put_string(w, clock->hostname);
	}
	w->items++;
}

/* A record's tag and common fields into `b` (each item is built whole, then written with one call). */
static uint8_t *head(uint8_t *b, enum ds_pair_item item, uint32_t port, uint32_t clock, int64_t ns)
{
	b[0] = (uint8_t) item;
	return store(store(store(b + 1, port, 4), clock, 4), (uint64_t) ns, 8);
}

static void put_item(struct ds_pair_writer *w, const uint8_t *b, const uint8_t *end)
{
	put_bytes(w, b, (size_t) (end - b));
	w->items++;
}

void ds_pair_writer_timed(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns)
{
	uint8_t b[1 + HEAD_BYTES];

	put_item(w, b, head(b, DS_PAIR_ITEM_TIMED, port, clock, ns));
}

void ds_pair_writer_tcp(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns, bool send,
		const struct ds_tcp_key *key)
{
	uint8_t b[1 + TCP_BYTES];
	uint8_t *at = head(b, DS_PAIR_ITEM_TCP, port, clock, ns);

	*at++ = send ? 1 : 2;
	at = store(store(store(at, key->seq, 4), key->ack_seq, 4), key->flags, 4);
	put_item(w, b, store(store(at, key->source_port, 2), key->dest_port, 2));
}

void ds_pair_writer_span(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns,
		const struct ds_pair_span *span)
{
	uint8_t b[1 + SPAN_BYTES];
	uint8_t *at = head(b, DS_PAIR_ITEM_SPAN, port, clock, ns);

	*at++ = span->kind;
	*at++ = span->schema;
	at = store(store(at, (uint32_t) span->span_kind, 4), span->trace_id_high, 8);
	at = store(store(at, span->trace_id_low, 8), span->span_id, 8);
	put_item(w, b, store(at, span->parent_span_id, 8));
}

void ds_pair_writer_http(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns,
		const struct ds_pair_http *http)
{
	uint8_t b[1 + HTTP_BYTES];
	uint8_t *at = head(b, DS_PAIR_ITEM_HTTP, port, clock, ns);

	*at++ = http->role;
	put_item(w, b, store(store(at, http->port, 4), http->local_port, 4));
}

bool ds_pair_writer_finish(struct ds_pair_writer *w, uint32_t ports)
{
	put_uint(w, DS_PAIR_ITEM_END, 1);
	put_uint(w, w->items, 8);
	put_uint(w, ports, 4);
	if (fclose(w->file) != 0 && !w->failed) {	/* closed once, whether a write or the close failed */
		w->failed = true;
		w->error = errno ? errno : EIO;
	}
	w->file = NULL;
	return !w->failed;
}

void ds_pair_writer_abandon(struct ds_pair_writer *w)
{
	if (w->file) {
		fclose(w->file);
		w->file = NULL;
	}
}

/* ---- reading ---- */

/* Reads `n` bytes; false at the end of the file. */
static bool get_bytes(struct ds_pair_reader *r, void *out, size_t n)
{
	if (n && fread(out, 1, n, r->file) != n) {
		return false;
	}
	r->offset += n;
	return true;
}

/* The little-endian integer of `bytes` bytes at `b`. */
static uint64_t load(const uint8_t *b, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		v |= (uint64_t) b[i] << (8 * i);
	}
	return v;
}

static bool get_uint(struct ds_pair_reader *r, unsigned int bytes, uint64_t *v)
{
	uint8_t b[8];

	if (!get_bytes(r, b, bytes)) {
		return false;
	}
	*v = load(b, bytes);
	return true;
}

static bool get_u32(struct ds_pair_reader *r, uint32_t *v)
{
	uint64_t x;

	if (!get_uint(r, 4, &x)) {
		return false;
	}
	*v = (uint32_t) x;
	return true;
}

/* A string of the clock item into *out (owned by `cur`); false when cut or too long. */
static bool get_string(struct ds_pair_reader *r, char **out)
{
	uint32_t n;

	if (!get_u32(r, &n) || n > DS_PAIR_RECORDS_MAX_STRING) {
		return false;
	}
	*out = g_malloc(n + 1);
	if (!get_bytes(r, *out, n) || memchr(*out, '\0', n)) {
		return false;
	}
	(*out)[n] = '\0';
	return true;
}

static void clear_clock(struct ds_pair_record *cur)
{
	g_free(cur->clock_def.name);
	g_free(cur->clock_def.hostname);
	memset(&cur->clock_def, 0, sizeof(cur->clock_def));
}

static bool get_clock(struct ds_pair_reader *r, struct ds_pair_clock *c)
{
	uint64_t flags;

	if (!get_u32(r, &c->id) || !get_uint(r, 1, &flags) || flags > 15) {
		return false;
	}
	c->has_uuid = flags & 1;
	c->origin_is_unix_epoch = flags & 2;
	if (c->has_uuid && (!get_bytes(r, c->uuid, 36) || memchr(c->uuid, '\0', 36))) {
		return false;
	}
	return (!(flags & 4) || get_string(r, &c->name)) && (!(flags & 8) || get_string(r, &c->hostname));
}

static void parse_head(const uint8_t *b, struct ds_pair_record *cur)
{
	cur->port = (uint32_t) load(b, 4);
	cur->clock = (uint32_t) load(b + 4, 4);
	cur->ns = (int64_t) load(b + 8, 8);
}

static bool parse_tcp(const uint8_t *b, struct ds_pair_record *cur)
{
	uint8_t dir = b[0];

	cur->send = dir == 1;
	cur->key.seq = (uint32_t) load(b + 1, 4);
	cur->key.ack_seq = (uint32_t) load(b + 5, 4);
	cur->key.flags = (uint32_t) load(b + 9, 4);
	cur->key.source_port = (uint16_t) load(b + 13, 2);
	cur->key.dest_port = (uint16_t) load(b + 15, 2);
	return dir == 1 || dir == 2;
}

static void parse_span(const uint8_t *b, struct ds_pair_span *s)
{
	s->kind = b[0];
	s->schema = b[1];
	s->span_kind = (int32_t) (uint32_t) load(b + 2, 4);
	s->trace_id_high = load(b + 6, 8);
	s->trace_id_low = load(b + 14, 8);
	s->span_id = load(b + 22, 8);
	s->parent_span_id = load(b + 30, 8);
}

static void parse_http(const uint8_t *b, struct ds_pair_http *h)
{
	h->role = b[0];
	h->port = (uint32_t) load(b + 1, 4);
	h->local_port = (uint32_t) load(b + 5, 4);
}

/* A fixed-size item after its tag: false when the file is cut in it or the item is malformed. */
static bool get_fixed_item(struct ds_pair_reader *r, struct ds_pair_record *cur)
{
	uint8_t b[SPAN_BYTES];
	size_t n = cur->item == DS_PAIR_ITEM_TIMED ? HEAD_BYTES : cur->item == DS_PAIR_ITEM_TCP ? TCP_BYTES :
		cur->item == DS_PAIR_ITEM_SPAN ? SPAN_BYTES : HTTP_BYTES;

	if (!get_bytes(r, b, n)) {
		return false;
	}
	parse_head(b, cur);
	switch (cur->item) {
	case DS_PAIR_ITEM_TCP:
		return parse_tcp(b + HEAD_BYTES, cur);
	case DS_PAIR_ITEM_SPAN:
		parse_span(b + HEAD_BYTES, &cur->span);
		return true;
	case DS_PAIR_ITEM_HTTP:
		parse_http(b + HEAD_BYTES, &cur->http);
		return true;
	default:
		return true;
	}
}

static bool get_end(struct ds_pair_reader *r, struct ds_pair_record *cur)
{
	uint8_t b[END_BYTES];

	if (!get_bytes(r, b, sizeof(b))) {
		return false;
	}
	cur->end_items = load(b, 8);
	cur->end_ports = (uint32_t) load(b + 8, 4);
	return true;
}

static enum ds_pair_read_status fail(struct ds_pair_reader *r, char *why, size_t why_size, const char *what)
{
	snprintf(why, why_size, "\"%s\" is not a whole pair-records file: %s at byte %" PRIu64, r->path, what,
		r->offset);
	return DS_PAIR_READ_ERROR;
}

enum ds_pair_read_status ds_pair_reader_open(struct ds_pair_reader *r, const char *path, char *why,
		size_t why_size)
{
	FILE *file = fopen(path, "rb");

	if (!file) {
		memset(r, 0, sizeof(*r));
		snprintf(why, why_size, "cannot open \"%s\" (%s)", path, g_strerror(errno));
		return DS_PAIR_READ_ERROR;
	}
	return ds_pair_reader_start(r, file, path, why, why_size);
}

enum ds_pair_read_status ds_pair_reader_start(struct ds_pair_reader *r, FILE *file, const char *name, char *why,
		size_t why_size)
{
	char magic[sizeof(DS_PAIR_RECORDS_MAGIC) - 1];

	memset(r, 0, sizeof(*r));
	r->path = name;
	r->file = file;
	if (!get_bytes(r, magic, sizeof(magic)) || memcmp(magic, DS_PAIR_RECORDS_MAGIC, sizeof(magic)) != 0) {
		r->offset = 0;
		return fail(r, why, why_size, "no DSPAIRS1 header");
	}
	return DS_PAIR_READ_OK;
}

enum ds_pair_read_status ds_pair_reader_next(struct ds_pair_reader *r, char *why, size_t why_size)
{
	struct ds_pair_record *cur = &r->cur;
	uint64_t tag, at = r->offset;
	bool ok;

	clear_clock(cur);
	if (r->ended) {
		return DS_PAIR_READ_END;
	}
	if (!get_uint(r, 1, &tag)) {
		return fail(r, why, why_size, "the file ends without its end item (the step that wrote it did not finish)");
	}
	cur->item = (enum ds_pair_item) tag;
	switch (tag) {
	case DS_PAIR_ITEM_CLOCK:
		ok = get_clock(r, &cur->clock_def);
		break;
	case DS_PAIR_ITEM_TIMED:
	case DS_PAIR_ITEM_TCP:
	case DS_PAIR_ITEM_SPAN:
	case DS_PAIR_ITEM_HTTP:
		ok = get_fixed_item(r, cur);
		break;
	case DS_PAIR_ITEM_END:
		ok = get_end(r, cur);
		if (ok && cur->end_items != r->items) {
			return fail(r, why, why_size, "its end item counts another number of items");
		}
		if (ok && fgetc(r->file) != EOF) {
			return fail(r, why, why_size, "bytes after its end item");
		}
		r->ended = ok;
		return ok ? DS_PAIR_READ_END : fail(r, why, why_size, "a cut end item");
	default:
		r->offset = at;
		return fail(r, why, why_size, "an unknown item");
	}
	if (!ok) {
		return fail(r, why, why_size, "a cut or malformed item");
	}
	r->items++;
	return DS_PAIR_READ_OK;
}

void ds_pair_reader_close(struct ds_pair_reader *r)
{
	clear_clock(&r->cur);
	if (r->file) {
		fclose(r->file);
		r->file = NULL;
	}
}
