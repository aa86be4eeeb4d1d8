/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer (truth files, sync reports, metric tables).
 *
 * Values are written as they come, so arbitrarily large documents use
 * constant memory.  `key` is the member name inside an object and must be
 * NULL inside an array or at the top level.  Strings are escaped as RFC 8259
 * requires; non-finite reals are written as null.
 */
#ifndef DEEPSPAN_COMMON_JSON_WRITER_H
#define DEEPSPAN_COMMON_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DS_JSON_MAX_DEPTH 64

struct ds_json_writer {
	FILE *file;			/* borrowed: the caller opens and closes it */
	bool pretty;			/* newline + indent per member */
	unsigned int depth;
	bool has_members[DS_JSON_MAX_DEPTH];	/* per level: a member was written */
};

void ds_json_init(struct ds_json_writer *writer, FILE *file, bool pretty);
void ds_json_begin_object(struct ds_json_writer *writer, const char *key);
void ds_json_end_object(struct ds_json_writer *writer);
void ds_json_begin_array(struct ds_json_writer *writer, const char *key);
void ds_json_end_array(struct ds_json_writer *writer);
void ds_json_string(struct ds_json_writer *writer, const char *key, const char *value);
void ds_json_int(struct ds_json_writer *writer, const char *key, int64_t value);
void ds_json_uint(struct ds_json_writer *writer, const char *key, uint64_t value);
void ds_json_double(struct ds_json_writer *writer, const char *key, double value);
void ds_json_bool(struct ds_json_writer *writer, const char *key, bool value);
void ds_json_null(struct ds_json_writer *writer, const char *key);

/* Writes `text` as a quoted, escaped JSON string. */
void ds_json_write_escaped(FILE *file, const char *text);

#endif /* DEEPSPAN_COMMON_JSON_WRITER_H */
