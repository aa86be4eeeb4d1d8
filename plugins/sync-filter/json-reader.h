/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader (RFC 8259) for files deepspan writes itself: sync
 * reports read back as formulas, scenario truth files.  The whole document
 * becomes a tree; integers written without fraction or exponent are kept
 * exactly as int64 (epoch nanoseconds do not fit a double), other numbers as
 * double.  Errors say what was expected at which line and column.
 */
#ifndef DEEPSPAN_SYNC_JSON_READER_H
#define DEEPSPAN_SYNC_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Limits: a document nests at most DS_JSON_MAX_DEPTH arrays/objects and holds
 * at most DS_JSON_MAX_VALUES values; a file is at most DS_JSON_MAX_FILE_SIZE
 * bytes.  Strings must be UTF-8 without NUL (not even as \u0000); numbers
 * follow RFC 8259 strictly and must fit a double.
 */
#define DS_JSON_MAX_DEPTH 64
#define DS_JSON_MAX_VALUES 1000000
#define DS_JSON_MAX_FILE_SIZE (16 << 20)

enum ds_json_type {
	DS_JSON_NULL,
	DS_JSON_BOOL,
	DS_JSON_NUMBER,
	DS_JSON_STRING,
	DS_JSON_ARRAY,
	DS_JSON_OBJECT,
};

struct ds_json_value {
	enum ds_json_type type;
	bool boolean;
	bool is_integer;		/* number written as an integer that fits int64 */
	int64_t integer;
	double number;
	char *string;			/* owned; STRING value (NUL-terminated) */
	size_t count;			/* ARRAY / OBJECT: number of items */
	char **keys;			/* owned; OBJECT: member names */
	struct ds_json_value **items;	/* owned; ARRAY items / OBJECT values */
};

/* Parses `len` bytes; NULL on error with a message in `err`. */
struct ds_json_value *ds_json_parse(const char *text, size_t len, char *err, size_t err_size);
/* Reads and parses a file; NULL on error (unreadable or invalid) with a message in `err`. */
struct ds_json_value *ds_json_parse_file(const char *path, char *err, size_t err_size);
void ds_json_free(struct ds_json_value *value);

/* Member `key` of an object, or NULL (also when `obj` is NULL or not an object). */
const struct ds_json_value *ds_json_get(const struct ds_json_value *obj, const char *key);
/* Item i of an array, or NULL. */
const struct ds_json_value *ds_json_at(const struct ds_json_value *arr, size_t i);
/* Typed reads; false when absent or of another type. */
bool ds_json_get_int(const struct ds_json_value *obj, const char *key, int64_t *out);
bool ds_json_get_double(const struct ds_json_value *obj, const char *key, double *out);
const char *ds_json_get_string(const struct ds_json_value *obj, const char *key);

#endif /* DEEPSPAN_SYNC_JSON_READER_H */
