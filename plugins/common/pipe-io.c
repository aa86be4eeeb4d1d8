/* SPDX-License-Identifier: MIT */
/* The bytes of a trace pipe (pipe-io.h): buffered writes and reads on a file descriptor. */
#define _GNU_SOURCE
/* first: ssize_t from <sys/types.h>, as the plugin's other files see it (one type per name in the object) */
#include <sys/types.h>

#include "pipe-io.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/*
 * A FIFO's kernel buffer raised to the pipe's own (1 MiB where /proc/sys/fs/pipe-max-size allows): with the
 * default 64 KiB the writer and the reader wake each other 16 times per buffer, and the scheduler tends to put
 * them on one core.  A regular file ignores it.
 */
static void widen_fifo(int fd)
{
#ifdef F_SETPIPE_SZ
	(void) fcntl(fd, F_SETPIPE_SZ, (int) DS_PIPE_BUFFER);
#else
	(void) fd;
#endif
}

/* `path` opened for writing, created or truncated (a FIFO blocks until its reader opens it); -1: errno set. */
static int open_for_writing(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

bool ds_pipe_out_open(struct ds_pipe_out *o, const char *path)
{
	*o = (struct ds_pipe_out) { .fd = -1 };
	o->fd = open_for_writing(path);
	if (o->fd < 0) {
		return false;
	}
	widen_fifo(o->fd);
	o->buf = g_malloc(DS_PIPE_BUFFER);
	ds_pipe_put_raw(o, DS_PIPE_MAGIC, DS_PIPE_MAGIC_LEN);
	return true;
}

static void write_all(struct ds_pipe_out *o, const uint8_t *bytes, size_t len)
{
	while (len && !o->failed) {
		ssize_t n = write(o->fd, bytes, len);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			o->failed = true;
			o->error = n < 0 ? errno : EIO;
			return;
		}
		bytes += n;
		len -= (size_t) n;
	}
}

void ds_pipe_out_flush(struct ds_pipe_out *o)
{
	write_all(o, o->buf, o->len);
	o->len = 0;
}

void ds_pipe_put_raw_slow(struct ds_pipe_out *o, const void *bytes, size_t len)
{
	ds_pipe_out_flush(o);
	if (len < DS_PIPE_BUFFER) {
		memcpy(o->buf, bytes, len);
		o->len = len;
	} else {
		write_all(o, bytes, len);
	}
}

void ds_pipe_put_optstr(struct ds_pipe_out *o, const char *s)
{
	size_t len;

	if (!s) {
		ds_pipe_put_u(o, 0);
		return;
	}
	len = strlen(s);
	ds_pipe_put_u(o, len + 1);
	ds_pipe_put_raw(o, s, len);
}

bool ds_pipe_out_close_file(struct ds_pipe_out *o)
{
	ds_pipe_out_flush(o);
	if (close(o->fd) != 0 && !o->failed) {
		o->failed = true;
		o->error = errno;
	}
	o->fd = -1;
	return !o->failed;
}

bool ds_pipe_out_close(struct ds_pipe_out *o)
{
	if (o->fd >= 0) {
		(void) ds_pipe_out_close_file(o);	/* o->failed says it */
	}
	g_free(o->buf);
	o->buf = NULL;
	return !o->failed;
}

bool ds_pipe_out_reopen(struct ds_pipe_out *o, const char *path)
{
	o->fd = open_for_writing(path);
	if (o->fd < 0) {
		o->failed = true;
		o->error = errno;
		return false;
	}
	return true;
}

void ds_pipe_in_fail(struct ds_pipe_in *in, const char *what)
{
	if (!in->failed) {
		in->failed = true;
		snprintf(in->why, sizeof(in->why), "%s at byte %" G_GUINT64_FORMAT, what, in->offset);
	}
}

/* Reads the next block into the (empty) buffer: true with bytes, false at the end (`eof`) or on a read error. */
static bool refill(struct ds_pipe_in *in)
{
	ssize_t n;

	in->pos = in->len = 0;
	do {
		n = in->eof ? 0 : read(in->fd, in->buf, DS_PIPE_BUFFER);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		ds_pipe_in_fail(in, g_strerror(errno));
		return false;
	}
	in->eof = n == 0;
	in->len = (size_t) n;
	return n > 0;
}

bool ds_pipe_in_fill(struct ds_pipe_in *in)
{
	if (in->failed) {
		return false;
	}
	if (!refill(in)) {
		/* at the end of the input (after a read error, its own message stays) */
		ds_pipe_in_fail(in, "cut short (the writer ended without the end frame)");
		return false;
	}
	return true;
}

bool ds_pipe_in_open(struct ds_pipe_in *in, const char *path)
{
	char magic[DS_PIPE_MAGIC_LEN];

	*in = (struct ds_pipe_in) { .fd = -1 };
	in->text = g_byte_array_new();
	in->buf = g_malloc(DS_PIPE_BUFFER);
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		in->failed = true;
		snprintf(in->why, sizeof(in->why), "cannot open it: %s", g_strerror(errno));
		return false;
	}
	widen_fifo(in->fd);
	if (!ds_pipe_get_raw(in, magic, sizeof(magic))) {
		return false;
	}
	if (memcmp(magic, DS_PIPE_MAGIC, DS_PIPE_MAGIC_LEN) != 0) {
		in->offset = 0;
		ds_pipe_in_fail(in, "not a trace pipe (no `" DS_PIPE_MAGIC "` magic)");
		return false;
	}
	return true;
}

bool ds_pipe_get_u_slow(struct ds_pipe_in *in, uint64_t *v)
{
	uint64_t value = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (!ds_pipe_get_byte(in, &b)) {
			return false;
		}
		if (shift == 63 && b > 1) {
			ds_pipe_in_fail(in, "a varint beyond 64 bits");
			return false;
		}
		value |= (uint64_t) (b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*v = value;
	return true;
}

bool ds_pipe_get_s(struct ds_pipe_in *in, int64_t *v)
{
	uint64_t u;

	if (!ds_pipe_get_u(in, &u)) {
		return false;
	}
	*v = (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
	return true;
}

bool ds_pipe_get_raw(struct ds_pipe_in *in, void *bytes, size_t len)
{
	uint8_t *out = bytes;

	while (len) {
		size_t n;

		if (in->pos == in->len && !ds_pipe_in_fill(in)) {
			return false;
		}
		n = MIN(len, in->len - in->pos);
		memcpy(out, in->buf + in->pos, n);
		in->pos += n;
		in->offset += n;
		out += n;
		len -= n;
	}
	return true;
}

static bool get_text(struct ds_pipe_in *in, uint64_t len, const char **s)
{
	if (len > DS_PIPE_MAX_STRING) {
		ds_pipe_in_fail(in, "a string longer than 64 MiB");
		return false;
	}
	g_byte_array_set_size(in->text, (guint) len + 1);
	if (!ds_pipe_get_raw(in, in->text->data, (size_t) len)) {
		return false;
	}
	in->text->data[len] = '\0';
	if (memchr(in->text->data, '\0', (size_t) len)) {
		ds_pipe_in_fail(in, "a string holding a NUL byte");
		return false;
	}
	*s = (const char *) in->text->data;
	return true;
}

bool ds_pipe_get_str(struct ds_pipe_in *in, const char **s, size_t *len)
{
	uint64_t n;

	if (!ds_pipe_get_u(in, &n) || !get_text(in, n, s)) {
		return false;
	}
	*len = (size_t) n;
	return true;
}

bool ds_pipe_get_optstr(struct ds_pipe_in *in, const char **s)
{
	uint64_t n;

	if (!ds_pipe_get_u(in, &n)) {
		return false;
	}
	*s = NULL;
	return n == 0 || get_text(in, n - 1, s);
}

bool ds_pipe_in_at_end(struct ds_pipe_in *in, bool *at_end)
{
	if (in->failed) {
		return false;
	}
	*at_end = in->pos == in->len && !refill(in);
	return !in->failed;	/* a read error: `why` says it */
}

void ds_pipe_in_close(struct ds_pipe_in *in)
{
	if (in->fd >= 0) {
		close(in->fd);
		in->fd = -1;
	}
	g_free(in->buf);
	in->buf = NULL;
	if (in->text) {
		g_byte_array_free(in->text, TRUE);
		in->text = NULL;
	}
}
