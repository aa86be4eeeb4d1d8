/* SPDX-License-Identifier: MIT */
/*
 * Field classes and field values through a trace pipe (doc/scale.md, "Trace pipe").  A field class is written
 * once, as a tree: its kind, then what the kind has (an integer's range and display base, an enumeration's
 * mappings, a structure's members, an array's element); the reader creates the same class in its trace class.
 * Each side keeps the tree as a struct ds_pipe_type, which then drives the values: written and read in
 * pre-order, with no name or kind per value.  The kinds are those of deepspan's outputs (booleans, integers,
 * enumerations, reals, strings, structures, static arrays and dynamic arrays without a length field); any other
 * is refused by the writer, naming it.
 */
#ifndef DEEPSPAN_COMMON_PIPE_TYPES_H
#define DEEPSPAN_COMMON_PIPE_TYPES_H

#include <babeltrace2/babeltrace.h>

#include "pipe-io.h"

enum ds_pipe_kind {
	DS_PIPE_BOOL = 1,
	DS_PIPE_UINT = 2,
	DS_PIPE_SINT = 3,
	DS_PIPE_UENUM = 4,
	DS_PIPE_SENUM = 5,
	DS_PIPE_STRING = 6,
	DS_PIPE_STRUCT = 7,
	DS_PIPE_DYN_ARRAY = 8,
	DS_PIPE_STATIC_ARRAY = 9,
	DS_PIPE_DOUBLE = 10,
	DS_PIPE_SINGLE = 11,
};

struct ds_pipe_type {
	enum ds_pipe_kind kind;
	uint64_t count;				/* structure: members; static array: length */
	unsigned int bits;			/* integers and enumerations: the field value range */
	struct ds_pipe_type **members;		/* owned (structure): `count` owned types */
	struct ds_pipe_type *element;		/* owned (arrays) */
};

enum ds_pipe_status {
	DS_PIPE_OK = 0,
	DS_PIPE_ERROR = -1,		/* `why` (or the input's `why`) says what */
	DS_PIPE_MEMORY_ERROR = -12,
};

void ds_pipe_type_free(struct ds_pipe_type *type);

/* Writes `fc` and returns its tree (owned by the caller), or NULL with `why` (a kind the pipe does not carry). */
struct ds_pipe_type *ds_pipe_put_field_class(struct ds_pipe_out *o, const bt_field_class *fc, char *why,
		size_t why_size);

/* Reads a field class into `tc`: *fc (a new reference) and *type (owned); DS_PIPE_ERROR: in->why says what. */
enum ds_pipe_status ds_pipe_get_field_class(struct ds_pipe_in *in, bt_trace_class *tc, bt_field_class **fc,
		struct ds_pipe_type **type);

void ds_pipe_put_value(struct ds_pipe_out *o, const struct ds_pipe_type *type, const bt_field *field);
enum ds_pipe_status ds_pipe_get_value(struct ds_pipe_in *in, const struct ds_pipe_type *type, bt_field *field);

#endif /* DEEPSPAN_COMMON_PIPE_TYPES_H */
