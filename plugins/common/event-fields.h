/* SPDX-License-Identifier: MIT */
/*
 * Field lookup helpers shared by the event decoders (span-events, span-attrib's kernel-events,
 * nodejs-ctx's vnode-input).
 *
 * An event class is resolved once: each wanted field becomes a `struct ds_field_ref`
 * (which scope, which member index, which type).  Decoding an event then costs one
 * borrow by index and one getter per field, with no string comparison.
 */
#ifndef DEEPSPAN_COMMON_EVENT_FIELDS_H
#define DEEPSPAN_COMMON_EVENT_FIELDS_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

enum ds_field_scope {
	DS_FIELD_SCOPE_NONE = 0,	/* field absent */
	DS_FIELD_SCOPE_PAYLOAD,
	DS_FIELD_SCOPE_SPECIFIC_CONTEXT,
	DS_FIELD_SCOPE_COMMON_CONTEXT,
};

enum ds_field_kind {
	DS_FIELD_KIND_NONE = 0,
	DS_FIELD_KIND_UNSIGNED,		/* unsigned integer or unsigned enumeration */
	DS_FIELD_KIND_SIGNED,		/* signed integer or signed enumeration */
	DS_FIELD_KIND_STRING,
	DS_FIELD_KIND_ARRAY,		/* static or dynamic array (of integers) */
	DS_FIELD_KIND_OTHER,		/* present with an unsupported type */
};

struct ds_field_ref {
	uint8_t scope;			/* enum ds_field_scope */
	uint8_t kind;			/* enum ds_field_kind */
	uint32_t index;			/* member index in the scope's structure */
};

/* Classifies a field class. */
enum ds_field_kind ds_field_kind_of(const bt_field_class *fc);

/*
 * Finds member `name` of structure field class `struct_fc` (may be NULL).
 * Returns a ref with scope NONE when absent.
 */
struct ds_field_ref ds_field_ref_find(const bt_field_class *struct_fc,
		enum ds_field_scope scope, const char *name);

/*
 * Finds `name` in the payload, then the specific context, then the common context
 * of event class `ec`.
 */
struct ds_field_ref ds_field_ref_find_any(const bt_event_class *ec, const char *name);

/* True when `ref` is present and is an integer (signed or unsigned). */
static inline bool ds_field_ref_is_int(struct ds_field_ref ref)
{
	return ref.kind == DS_FIELD_KIND_UNSIGNED || ref.kind == DS_FIELD_KIND_SIGNED;
}

/* Borrows the field of `ref` in `event`, or NULL (absent). */
const bt_field *ds_field_ref_borrow(const bt_event *event, struct ds_field_ref ref);

/* The integer value of `field` (borrowed by `ref`) as int64 (unsigned values are reinterpreted); `dflt` when
 * `field` is NULL (absent) or `ref` is not an integer. */
static inline int64_t ds_field_int_value(const bt_field *field, struct ds_field_ref ref, int64_t dflt)
{
	if (!field) {
		return dflt;
	}
	if (ref.kind == DS_FIELD_KIND_UNSIGNED) {
		return (int64_t) bt_field_integer_unsigned_get_value(field);
	}
	if (ref.kind == DS_FIELD_KIND_SIGNED) {
		return bt_field_integer_signed_get_value(field);
	}
	return dflt;
}

/* Reads an integer field of `ref` as int64 (unsigned values are reinterpreted); `dflt` when absent. */
static inline int64_t ds_field_ref_read_int(const bt_event *event,
		struct ds_field_ref ref, int64_t dflt)
{
	return ds_field_int_value(ds_field_ref_borrow(event, ref), ref, dflt);
}

/* Reads an unsigned integer field (signed values are reinterpreted); `dflt` when absent. */
static inline uint64_t ds_field_ref_read_uint(const bt_event *event,
		struct ds_field_ref ref, uint64_t dflt)
{
	return (uint64_t) ds_field_ref_read_int(event, ref, (int64_t) dflt);
}

/* Reads a string field (borrowed from the event); `dflt` when absent or not a string. */
static inline const char *ds_field_ref_read_string(const bt_event *event,
		struct ds_field_ref ref, const char *dflt)
{
	const bt_field *field;

	if (ref.kind != DS_FIELD_KIND_STRING) {
		return dflt;
	}
	field = ds_field_ref_borrow(event, ref);
	return field ? bt_field_string_get_value(field) : dflt;
}

/*
 * The scope structures of one event, each borrowed at most once: a decoder reading several fields of an
 * event reads them through these (one library call per field instead of two).
 *
 *   struct ds_event_scopes scopes;
 *   ds_event_scopes_init(&scopes, event);
 *   tid = ds_scoped_read_int(&scopes, cls->tid, -1);
 */
struct ds_event_scopes {
	const bt_event *event;			/* borrowed */
	const bt_field *scope[4];		/* borrowed; by enum ds_field_scope, valid once its bit is set */
	unsigned int borrowed;			/* bit (1 << scope): scope[scope] borrowed */
};

static inline void ds_event_scopes_init(struct ds_event_scopes *scopes, const bt_event *event)
{
	scopes->event = event;
	scopes->borrowed = 0;
}

/* The structure field of scope `scope` of `event`, or NULL (none, or scope NONE). */
const bt_field *ds_event_scope_field(const bt_event *event, enum ds_field_scope scope);

/* The same field as ds_field_ref_borrow(scopes->event, ref). */
static inline const bt_field *ds_scoped_borrow(struct ds_event_scopes *scopes, struct ds_field_ref ref)
{
	unsigned int bit = 1u << (ref.scope & 3);

	if (ref.scope == DS_FIELD_SCOPE_NONE || ref.scope > DS_FIELD_SCOPE_COMMON_CONTEXT) {
		return NULL;
	}
	if (!(scopes->borrowed & bit)) {
		scopes->scope[ref.scope] = ds_event_scope_field(scopes->event, (enum ds_field_scope) ref.scope);
		scopes->borrowed |= bit;
	}
	return scopes->scope[ref.scope] ?
		bt_field_structure_borrow_member_field_by_index_const(scopes->scope[ref.scope], ref.index) : NULL;
}

/* ds_field_ref_read_int() through the scopes. */
static inline int64_t ds_scoped_read_int(struct ds_event_scopes *scopes, struct ds_field_ref ref, int64_t dflt)
{
	return ds_field_int_value(ds_scoped_borrow(scopes, ref), ref, dflt);
}

/* ds_field_ref_read_uint() through the scopes. */
static inline uint64_t ds_scoped_read_uint(struct ds_event_scopes *scopes, struct ds_field_ref ref, uint64_t dflt)
{
	return (uint64_t) ds_scoped_read_int(scopes, ref, (int64_t) dflt);
}

/* ds_field_ref_read_string() through the scopes. */
static inline const char *ds_scoped_read_string(struct ds_event_scopes *scopes, struct ds_field_ref ref,
		const char *dflt)
{
	const bt_field *field;

	if (ref.kind != DS_FIELD_KIND_STRING) {
		return dflt;
	}
	field = ds_scoped_borrow(scopes, ref);
	return field ? bt_field_string_get_value(field) : dflt;
}

#endif /* DEEPSPAN_COMMON_EVENT_FIELDS_H */
