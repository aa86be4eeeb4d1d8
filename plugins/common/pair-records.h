/* SPDX-License-Identifier: MIT */
/*
 * Pair records (doc/scale.md, "Pair records"): what pass 1 of filter.deepspan.sync reads of one input
 * trace, written by filter.deepspan.sync-extract (`records=`) and read by source.deepspan.clock-fit, so
 * that the clock fit of deepspan-report --jobs decodes no CTF.
 *
 * A file is the magic "DSPAIRS1", then items, each a one-byte tag and fixed little-endian fields:
 *   'C' a clock class, before the first record that uses it: u32 id, u8 flags (bit 0 UUID, bit 1 origin
 *       is the Unix epoch, bit 2 name, bit 3 hostname), the UUID text (36 bytes) when bit 0, then the name
 *       and the hostname when their bits are set (u32 length + bytes each);
 *   'T' a message with a time: u32 port, u32 clock, s64 ns;
 *   'N' a TCP segment event: the 'T' fields, u8 direction (1 send, 2 receive), u32 seq, ack_seq, flags,
 *       u16 source port, destination port;
 *   'S' a span start or end event: the 'T' fields, u8 kind, u8 schema, s32 span kind, u64 trace id high,
 *       low, span id, parent span id;
 *   'H' a Node.js HTTP event: the 'T' fields, u8 role, u32 port, local port;
 *   'E' the end: u64 the number of items before it, u32 the number of input ports.
 * `port` is the writer's input port (one stream of the trace), `ns` the message's time in ns from the
 * clock's origin.  A file without its end, or whose count differs, is refused (a step that did not finish).
 */
#ifndef DEEPSPAN_COMMON_PAIR_RECORDS_H
#define DEEPSPAN_COMMON_PAIR_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel-net.h"

#define DS_PAIR_RECORDS_MAGIC "DSPAIRS1"
#define DS_PAIR_RECORDS_MAX_STRING 4096

enum ds_pair_item {
	DS_PAIR_ITEM_CLOCK = 'C',
	DS_PAIR_ITEM_TIMED = 'T',
	DS_PAIR_ITEM_TCP = 'N',
	DS_PAIR_ITEM_SPAN = 'S',
	DS_PAIR_ITEM_HTTP = 'H',
	DS_PAIR_ITEM_END = 'E',
};

/* A clock class as pass 1 names its host (sync-hosts.c). */
struct ds_pair_clock {
	uint32_t id;
	bool has_uuid;
	char uuid[37];			/* text, "" without one */
	bool origin_is_unix_epoch;
	char *name;			/* owned by the reader; NULL without one */
	char *hostname;			/* owned by the reader; NULL without the environment entry */
};

struct ds_pair_span {
	uint8_t kind;			/* enum ds_span_event_kind: start or end */
	uint8_t schema;			/* enum ds_span_schema */
	int32_t span_kind;
	uint64_t trace_id_high, trace_id_low, span_id, parent_span_id;
};

struct ds_pair_http {
	uint8_t role;			/* enum sync_http_role */
	uint32_t port, local_port;
};

/* One item read. */
struct ds_pair_record {
	enum ds_pair_item item;
	uint32_t port, clock;		/* records */
	int64_t ns;
	bool send;			/* TCP */
	struct ds_tcp_key key;		/* TCP */
	struct ds_pair_span span;
	struct ds_pair_http http;
	struct ds_pair_clock clock_def;	/* 'C': strings owned until the next item is read */
	uint64_t end_items;		/* 'E' */
	uint32_t end_ports;
};

/* ---- writing ---- */

struct ds_pair_writer {
	FILE *file;			/* owned */
	uint64_t items;
	bool failed;			/* a write failed (errno kept in `error`) */
	int error;
};

/* Opens `path` for writing and writes the magic; false (errno set) when it cannot. */
bool ds_pair_writer_open(struct ds_pair_writer *w, const char *path);
/* The same on an open stream, which the writer then owns (closes). */
void ds_pair_writer_start(struct ds_pair_writer *w, FILE *file);
void ds_pair_writer_clock(struct ds_pair_writer *w, const struct ds_pair_clock *clock);
void ds_pair_writer_timed(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns);
void ds_pair_writer_tcp(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns, bool send,
		const struct ds_tcp_key *key);
void ds_pair_writer_span(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns,
		const struct ds_pair_span *span);
void ds_pair_writer_http(struct ds_pair_writer *w, uint32_t port, uint32_t clock, int64_t ns,
		const struct ds_pair_http *http);
/* Writes the end item and closes; false (errno in w->error) when any write or the close failed. */
bool ds_pair_writer_finish(struct ds_pair_writer *w, uint32_t ports);
/* Closes without an end item (an error stopped the writer): the file is then refused by readers. */
void ds_pair_writer_abandon(struct ds_pair_writer *w);

/* ---- reading ---- */

struct ds_pair_reader {
	FILE *file;			/* owned */
	const char *path;		/* borrowed, for messages */
	uint64_t items;
	uint64_t offset;		/* bytes read, for messages */
	bool ended;
	struct ds_pair_record cur;	/* the last item read */
};

enum ds_pair_read_status {
	DS_PAIR_READ_OK,		/* `cur` holds the next item */
	DS_PAIR_READ_END,		/* the end item was read and checked */
	DS_PAIR_READ_ERROR,		/* `why` says what is wrong, with the byte offset */
};

/* Opens `path` and checks the magic; ERROR with `why` otherwise (close the reader in both cases). */
enum ds_pair_read_status ds_pair_reader_open(struct ds_pair_reader *r, const char *path, char *why,
		size_t why_size);
/* The same on an open stream named `name` in messages, which the reader then owns (closes). */
enum ds_pair_read_status ds_pair_reader_start(struct ds_pair_reader *r, FILE *file, const char *name, char *why,
		size_t why_size);
enum ds_pair_read_status ds_pair_reader_next(struct ds_pair_reader *r, char *why, size_t why_size);
void ds_pair_reader_close(struct ds_pair_reader *r);

#endif /* DEEPSPAN_COMMON_PAIR_RECORDS_H */
