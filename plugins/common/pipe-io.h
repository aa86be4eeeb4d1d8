/* SPDX-License-Identifier: MIT */
/*
 * The bytes of a trace pipe (doc/scale.md, "Trace pipe"): what sink.deepspan.pipe writes and
 * source.deepspan.pipe reads, through a file or a FIFO.  Unsigned integers are LEB128 varints, signed ones
 * ZigZag then LEB128, strings their length then their bytes (no NUL), optional strings their length plus one
 * (0: none).  A reader never trusts a length: strings are bounded by DS_PIPE_MAX_STRING and must hold no NUL,
 * varints by 10 bytes, and every failure names the byte offset.
 */
#ifndef DEEPSPAN_COMMON_PIPE_IO_H
#define DEEPSPAN_COMMON_PIPE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#define DS_PIPE_MAGIC "DSPIPE01"
#define DS_PIPE_MAGIC_LEN 8
/* The longest string a pipe carries (a chain_packed string of thousands of entries is ~100 KiB). */
#define DS_PIPE_MAX_STRING (64u * 1024u * 1024u)

/* Writes go through a buffer of this size; a FIFO's own buffer is raised to it where the system allows. */
#define DS_PIPE_BUFFER (1u << 20)

struct ds_pipe_out {
	int fd;				/* owned (closed by ds_pipe_out_close); -1: none */
	uint8_t *buf;			/* owned: DS_PIPE_BUFFER bytes */
	size_t len;			/* bytes in `buf` */
	bool failed;			/* a write failed: `error` is its errno */
	int error;
};

/* Opens `path` for writing (a FIFO blocks until its reader opens it) and writes the magic; false: errno set. */
bool ds_pipe_out_open(struct ds_pipe_out *o, const char *path);
/* Writes the buffer out (ds_pipe_put_* call it when the buffer is full). */
void ds_pipe_out_flush(struct ds_pipe_out *o);
/* Flushes and closes; false (errno in o->error) when any write or the close failed. */
bool ds_pipe_out_close(struct ds_pipe_out *o);
/*
 * The rest of a pipe in another file (sink.deepspan.pipe `end-path`): ds_pipe_out_close_file() flushes and
 * closes the open file but keeps the buffer, ds_pipe_out_reopen() then writes on into `path` (created or
 * truncated, no magic); each false (errno in o->error) on failure.
 */
bool ds_pipe_out_close_file(struct ds_pipe_out *o);
bool ds_pipe_out_reopen(struct ds_pipe_out *o, const char *path);
void ds_pipe_put_raw_slow(struct ds_pipe_out *o, const void *bytes, size_t len);

static inline void ds_pipe_put_raw(struct ds_pipe_out *o, const void *bytes, size_t len)
{
	if (len <= DS_PIPE_BUFFER - o->len) {
		memcpy(o->buf + o->len, bytes, len);
		o->len += len;
	} else {
		ds_pipe_put_raw_slow(o, bytes, len);
	}
}

static inline void ds_pipe_put_byte(struct ds_pipe_out *o, uint8_t v)
{
	if (o->len == DS_PIPE_BUFFER) {
		ds_pipe_out_flush(o);
	}
	o->buf[o->len++] = v;
}

static inline void ds_pipe_put_u(struct ds_pipe_out *o, uint64_t v)
{
	uint8_t *p;

	if (DS_PIPE_BUFFER - o->len < 10) {
		ds_pipe_out_flush(o);
	}
	p = o->buf + o->len;
	while (v >= 0x80) {
		*p++ = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t) v;
	o->len = (size_t) (p - o->buf);
}

static inline void ds_pipe_put_s(struct ds_pipe_out *o, int64_t v)
{
	ds_pipe_put_u(o, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

static inline void ds_pipe_put_str_len(struct ds_pipe_out *o, const char *s, size_t len)
{
	ds_pipe_put_u(o, len);
	ds_pipe_put_raw(o, s, len);
}

static inline void ds_pipe_put_str(struct ds_pipe_out *o, const char *s)
{
	ds_pipe_put_str_len(o, s, strlen(s));
}

void ds_pipe_put_optstr(struct ds_pipe_out *o, const char *s);

struct ds_pipe_in {
	int fd;				/* owned (closed by ds_pipe_in_close); -1: none */
	uint8_t *buf;			/* owned: DS_PIPE_BUFFER bytes */
	size_t pos, len;		/* the unread bytes are buf[pos, len) */
	bool eof;			/* the writer closed its end */
	uint64_t offset;		/* bytes taken, for messages */
	bool failed;			/* `why` says what is wrong */
	char why[256];
	GByteArray *text;		/* owned: the last string read, NUL-terminated */
};

/* Opens `path` (a FIFO blocks until its writer opens it) and checks the magic; false: `why` says why. */
bool ds_pipe_in_open(struct ds_pipe_in *in, const char *path);
/* Refills the buffer: false at the end of the input or on an error (`why` set in both cases). */
bool ds_pipe_in_fill(struct ds_pipe_in *in);

/* Each returns false once the input failed (at its end, too: `why` names the offset). */
static inline bool ds_pipe_get_byte(struct ds_pipe_in *in, uint8_t *v)
{
	if (in->pos == in->len && !ds_pipe_in_fill(in)) {
		return false;
	}
	*v = in->buf[in->pos++];
	in->offset++;
	return true;
}

bool ds_pipe_get_u_slow(struct ds_pipe_in *in, uint64_t *v);

static inline bool ds_pipe_get_u(struct ds_pipe_in *in, uint64_t *v)
{
	if (in->pos < in->len && in->buf[in->pos] < 0x80) {
		*v = in->buf[in->pos++];
		in->offset++;
		return true;
	}
	return ds_pipe_get_u_slow(in, v);
}

bool ds_pipe_get_s(struct ds_pipe_in *in, int64_t *v);
bool ds_pipe_get_raw(struct ds_pipe_in *in, void *bytes, size_t len);
/* A string into in->text (valid until the next string); *len its length. */
bool ds_pipe_get_str(struct ds_pipe_in *in, const char **s, size_t *len);
/* An optional string: *s NULL when none. */
bool ds_pipe_get_optstr(struct ds_pipe_in *in, const char **s);
/* Whether the input is at its end (nothing more to read); false with `why` on a read error. */
bool ds_pipe_in_at_end(struct ds_pipe_in *in, bool *at_end);
void ds_pipe_in_fail(struct ds_pipe_in *in, const char *what);
void ds_pipe_in_close(struct ds_pipe_in *in);

#endif /* DEEPSPAN_COMMON_PIPE_IO_H */
