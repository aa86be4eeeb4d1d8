/* SPDX-License-Identifier: MIT */
/* Field classes and values through a trace pipe (pipe-types.h). */
#include "pipe-types.h"

#include <string.h>

/* Bounds a reader holds a writer to: deeper or larger is refused, not allocated. */
#define PIPE_MAX_DEPTH 32
#define PIPE_MAX_MEMBERS 4096
#define PIPE_MAX_MAPPINGS 65536
#define PIPE_MAX_RANGES 65536
#define PIPE_MAX_STATIC_LENGTH 65536
#define PIPE_MAX_DYN_LENGTH (1u << 20)

void ds_pipe_type_free(struct ds_pipe_type *type)
{
	uint64_t i;

	if (!type) {
		return;
	}
	for (i = 0; type->members && i < type->count; i++) {
		ds_pipe_type_free(type->members[i]);
	}
	g_free(type->members);
	ds_pipe_type_free(type->element);
	g_free(type);
}

/* ---- writing a class ---- */

static void put_integer(struct ds_pipe_out *o, const bt_field_class *fc)
{
	ds_pipe_put_u(o, bt_field_class_integer_get_field_value_range(fc));
	ds_pipe_put_u(o, (uint64_t) bt_field_class_integer_get_preferred_display_base(fc));
}

static void put_mappings(struct ds_pipe_out *o, const bt_field_class *fc, bool is_signed)
{
	uint64_t i, j, n = bt_field_class_enumeration_get_mapping_count(fc);

	ds_pipe_put_u(o, n);
	for (i = 0; i < n; i++) {
		if (is_signed) {
			const bt_field_class_enumeration_signed_mapping *m =
				bt_field_class_enumeration_signed_borrow_mapping_by_index_const(fc, i);
			const bt_integer_range_set_signed *ranges =
				bt_field_class_enumeration_signed_mapping_borrow_ranges_const(m);
			uint64_t count = bt_integer_range_set_get_range_count(
				bt_integer_range_set_signed_as_range_set_const(ranges));

			ds_pipe_put_str(o, bt_field_class_enumeration_mapping_get_label(
				bt_field_class_enumeration_signed_mapping_as_mapping_const(m)));
			ds_pipe_put_u(o, count);
			for (j = 0; j < count; j++) {
				const bt_integer_range_signed *r =
					bt_integer_range_set_signed_borrow_range_by_index_const(ranges, j);

				ds_pipe_put_s(o, bt_integer_range_signed_get_lower(r));
				ds_pipe_put_s(o, bt_integer_range_signed_get_upper(r));
			}
		} else {
			const bt_field_class_enumeration_unsigned_mapping *m =
				bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(fc, i);
			const bt_integer_range_set_unsigned *ranges =
				bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(m);
			uint64_t count = bt_integer_range_set_get_range_count(
				bt_integer_range_set_unsigned_as_range_set_const(ranges));

			ds_pipe_put_str(o, bt_field_class_enumeration_mapping_get_label(
				bt_field_class_enumeration_unsigned_mapping_as_mapping_const(m)));
			ds_pipe_put_u(o, count);
			for (j = 0; j < count; j++) {
				const bt_integer_range_unsigned *r =
					bt_integer_range_set_unsigned_borrow_range_by_index_const(ranges, j);

				ds_pipe_put_u(o, bt_integer_range_unsigned_get_lower(r));
				ds_pipe_put_u(o, bt_integer_range_unsigned_get_upper(r));
			}
		}
	}
}

static const char *type_name(bt_field_class_type t)
{
	switch (t) {
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY: return "bit array";
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD: return "dynamic array with a length field";
	case BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_SIGNED_INTEGER_SELECTOR_FIELD: return "option";
	case BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_SIGNED_INTEGER_SELECTOR_FIELD: return "variant";
	default: return "unknown";
	}
}

static enum ds_pipe_kind kind_of(bt_field_class_type t)
{
	switch (t) {
	case BT_FIELD_CLASS_TYPE_BOOL: return DS_PIPE_BOOL;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER: return DS_PIPE_UINT;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER: return DS_PIPE_SINT;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION: return DS_PIPE_UENUM;
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION: return DS_PIPE_SENUM;
	case BT_FIELD_CLASS_TYPE_STRING: return DS_PIPE_STRING;
	case BT_FIELD_CLASS_TYPE_STRUCTURE: return DS_PIPE_STRUCT;
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD: return DS_PIPE_DYN_ARRAY;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY: return DS_PIPE_STATIC_ARRAY;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL: return DS_PIPE_DOUBLE;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL: return DS_PIPE_SINGLE;
	default: return 0;
	}
}

struct ds_pipe_type *ds_pipe_put_field_class(struct ds_pipe_out *o, const bt_field_class *fc, char *why,
		size_t why_size)
{
	struct ds_pipe_type *type = g_new0(struct ds_pipe_type, 1);
	uint64_t i;

	type->kind = kind_of(bt_field_class_get_type(fc));
	if (!type->kind) {
		snprintf(why, why_size, "a field class of type %s, which the pipe does not carry",
			type_name(bt_field_class_get_type(fc)));
		goto error;
	}
	ds_pipe_put_byte(o, (uint8_t) type->kind);
	switch (type->kind) {
	case DS_PIPE_UINT:
	case DS_PIPE_SINT:
		put_integer(o, fc);
		break;
	case DS_PIPE_UENUM:
	case DS_PIPE_SENUM:
		put_integer(o, fc);
		put_mappings(o, fc, type->kind == DS_PIPE_SENUM);
		break;
	case DS_PIPE_STRUCT:
		type->count = bt_field_class_structure_get_member_count(fc);
		type->members = g_new0(struct ds_pipe_type *, type->count ? type->count : 1);
		ds_pipe_put_u(o, type->count);
		for (i = 0; i < type->count; i++) {
			const bt_field_class_structure_member *m =
				bt_field_class_structure_borrow_member_by_index_const(fc, i);

			ds_pipe_put_str(o, bt_field_class_structure_member_get_name(m));
			type->members[i] = ds_pipe_put_field_class(o,
				bt_field_class_structure_member_borrow_field_class_const(m), why, why_size);
			if (!type->members[i]) {
				goto error;
			}
		}
		break;
	case DS_PIPE_STATIC_ARRAY:
		type->count = bt_field_class_array_static_get_length(fc);
		ds_pipe_put_u(o, type->count);
		/* fall through */
	case DS_PIPE_DYN_ARRAY:
		type->element = ds_pipe_put_field_class(o, bt_field_class_array_borrow_element_field_class_const(fc),
			why, why_size);
		if (!type->element) {
			goto error;
		}
		break;
	default:
		break;
	}
	return type;
error:
	ds_pipe_type_free(type);
	return NULL;
}

/* ---- reading a class ---- */

static enum ds_pipe_status fail(struct ds_pipe_in *in, const char *what)
{
	ds_pipe_in_fail(in, what);
	return DS_PIPE_ERROR;
}

static enum ds_pipe_status get_integer(struct ds_pipe_in *in, bt_field_class *fc, struct ds_pipe_type *type)
{
	uint64_t range, base;

	if (!ds_pipe_get_u(in, &range) || !ds_pipe_get_u(in, &base)) {
		return DS_PIPE_ERROR;
	}
	if (range < 1 || range > 64) {
		return fail(in, "an integer field class of more than 64 bits or none");
	}
	if (base != 2 && base != 8 && base != 10 && base != 16) {
		return fail(in, "an integer display base other than 2, 8, 10 or 16");
	}
	type->bits = (unsigned int) range;
	bt_field_class_integer_set_field_value_range(fc, range);
	bt_field_class_integer_set_preferred_display_base(fc, (bt_field_class_integer_preferred_display_base) base);
	return DS_PIPE_OK;
}

static enum ds_pipe_status add_mapping(struct ds_pipe_in *in, bt_field_class *fc, bool is_signed,
		const char *label, uint64_t ranges)
{
	bt_integer_range_set_signed *s = is_signed ? bt_integer_range_set_signed_create() : NULL;
	bt_integer_range_set_unsigned *u = is_signed ? NULL : bt_integer_range_set_unsigned_create();
	enum ds_pipe_status status = s || u ? DS_PIPE_OK : DS_PIPE_MEMORY_ERROR;
	uint64_t j;

	for (j = 0; status == DS_PIPE_OK && j < ranges; j++) {
		uint64_t ulo, uhi;
		int64_t slo, shi;

		if (is_signed ? !ds_pipe_get_s(in, &slo) || !ds_pipe_get_s(in, &shi) :
				!ds_pipe_get_u(in, &ulo) || !ds_pipe_get_u(in, &uhi)) {
			status = DS_PIPE_ERROR;
		} else if (is_signed ? slo > shi : ulo > uhi) {
			status = fail(in, "an enumeration range whose lower bound is above its upper bound");
		} else if (is_signed ? bt_integer_range_set_signed_add_range(s, slo, shi) :
				bt_integer_range_set_unsigned_add_range(u, ulo, uhi)) {
			status = DS_PIPE_MEMORY_ERROR;
		}
	}
	if (status == DS_PIPE_OK && (is_signed ? bt_field_class_enumeration_signed_add_mapping(fc, label, s) :
			bt_field_class_enumeration_unsigned_add_mapping(fc, label, u))) {
		status = DS_PIPE_MEMORY_ERROR;
	}
	bt_integer_range_set_signed_put_ref(s);
	bt_integer_range_set_unsigned_put_ref(u);
	return status;
}

static enum ds_pipe_status get_mappings(struct ds_pipe_in *in, bt_field_class *fc, bool is_signed)
{
	enum ds_pipe_status status = DS_PIPE_OK;
	uint64_t i, n, ranges;

	if (!ds_pipe_get_u(in, &n)) {
		return DS_PIPE_ERROR;
	}
	if (n > PIPE_MAX_MAPPINGS) {
		return fail(in, "an enumeration of more than 65,536 mappings");
	}
	for (i = 0; status == DS_PIPE_OK && i < n; i++) {
		const char *text;
		size_t len;
		char *label;

		if (!ds_pipe_get_str(in, &text, &len) || !ds_pipe_get_u(in, &ranges)) {
			return DS_PIPE_ERROR;
		}
		if (ranges < 1 || ranges > PIPE_MAX_RANGES) {
			return fail(in, "an enumeration mapping without ranges or with more than 65,536");
		}
		if (is_signed ? (const void *) bt_field_class_enumeration_signed_borrow_mapping_by_label_const(fc, text) :
				(const void *) bt_field_class_enumeration_unsigned_borrow_mapping_by_label_const(fc, text)) {
			return fail(in, "an enumeration label given twice");
		}
		label = g_strdup(text);
		status = add_mapping(in, fc, is_signed, label, ranges);
		g_free(label);
	}
	return status;
}

static enum ds_pipe_status get_class(struct ds_pipe_in *in, bt_trace_class *tc, bt_field_class **fc,
		struct ds_pipe_type **type, unsigned int depth);

static enum ds_pipe_status get_members(struct ds_pipe_in *in, bt_trace_class *tc, bt_field_class *fc,
		struct ds_pipe_type *type, unsigned int depth)
{
	enum ds_pipe_status status = DS_PIPE_OK;
	uint64_t i;

	if (!ds_pipe_get_u(in, &type->count)) {
		return DS_PIPE_ERROR;
	}
	if (type->count > PIPE_MAX_MEMBERS) {
		type->count = 0;
		return fail(in, "a structure of more than 4,096 members");
	}
	type->members = g_new0(struct ds_pipe_type *, type->count ? type->count : 1);
	for (i = 0; status == DS_PIPE_OK && i < type->count; i++) {
		bt_field_class *member = NULL;
		const char *text;
		size_t len;
		char *name;

		if (!ds_pipe_get_str(in, &text, &len)) {
			return DS_PIPE_ERROR;
		}
		if (bt_field_class_structure_borrow_member_by_name_const(fc, text)) {
			return fail(in, "a structure member name given twice");
		}
		name = g_strdup(text);
		status = get_class(in, tc, &member, &type->members[i], depth + 1);
		if (status == DS_PIPE_OK && bt_field_class_structure_append_member(fc, name, member)) {
			status = DS_PIPE_MEMORY_ERROR;
		}
		bt_field_class_put_ref(member);
		g_free(name);
	}
	return status;
}

static bt_field_class *create_class(bt_trace_class *tc, enum ds_pipe_kind kind, bt_field_class *element,
		uint64_t length)
{
	switch (kind) {
	case DS_PIPE_BOOL: return bt_field_class_bool_create(tc);
	case DS_PIPE_UINT: return bt_field_class_integer_unsigned_create(tc);
	case DS_PIPE_SINT: return bt_field_class_integer_signed_create(tc);
	case DS_PIPE_UENUM: return bt_field_class_enumeration_unsigned_create(tc);
	case DS_PIPE_SENUM: return bt_field_class_enumeration_signed_create(tc);
	case DS_PIPE_STRING: return bt_field_class_string_create(tc);
	case DS_PIPE_STRUCT: return bt_field_class_structure_create(tc);
	case DS_PIPE_DYN_ARRAY: return bt_field_class_array_dynamic_create(tc, element, NULL);
	case DS_PIPE_STATIC_ARRAY: return bt_field_class_array_static_create(tc, element, length);
	case DS_PIPE_DOUBLE: return bt_field_class_real_double_precision_create(tc);
	case DS_PIPE_SINGLE: return bt_field_class_real_single_precision_create(tc);
	}
	return NULL;
}

static enum ds_pipe_status get_class(struct ds_pipe_in *in, bt_trace_class *tc, bt_field_class **fc,
		struct ds_pipe_type **type_out, unsigned int depth)
{
	struct ds_pipe_type *type = g_new0(struct ds_pipe_type, 1);
	bt_field_class *element = NULL;
	enum ds_pipe_status status = DS_PIPE_OK;
	uint8_t kind = 0;

	*fc = NULL;
	if (!ds_pipe_get_byte(in, &kind)) {
		status = DS_PIPE_ERROR;
	} else if (depth > PIPE_MAX_DEPTH) {
		status = fail(in, "field classes nested more than 32 deep");
	} else if (kind < DS_PIPE_BOOL || kind > DS_PIPE_SINGLE) {
		status = fail(in, "an unknown field class kind");
	} else if (kind == DS_PIPE_STATIC_ARRAY && !ds_pipe_get_u(in, &type->count)) {
		status = DS_PIPE_ERROR;
	} else if (kind == DS_PIPE_STATIC_ARRAY && type->count > PIPE_MAX_STATIC_LENGTH) {
		status = fail(in, "a static array longer than 65,536");
	} else if (kind == DS_PIPE_STATIC_ARRAY || kind == DS_PIPE_DYN_ARRAY) {
		status = get_class(in, tc, &element, &type->element, depth + 1);
	}
	type->kind = kind;
	if (status == DS_PIPE_OK) {
		*fc = create_class(tc, type->kind, element, type->count);
		status = *fc ? DS_PIPE_OK : DS_PIPE_MEMORY_ERROR;
	}
	if (status == DS_PIPE_OK && (kind == DS_PIPE_UINT || kind == DS_PIPE_SINT || kind == DS_PIPE_UENUM ||
			kind == DS_PIPE_SENUM)) {
		status = get_integer(in, *fc, type);
	}
	if (status == DS_PIPE_OK && (kind == DS_PIPE_UENUM || kind == DS_PIPE_SENUM)) {
		status = get_mappings(in, *fc, kind == DS_PIPE_SENUM);
	}
	if (status == DS_PIPE_OK && kind == DS_PIPE_STRUCT) {
		status = get_members(in, tc, *fc, type, depth);
	}
	bt_field_class_put_ref(element);
	if (status != DS_PIPE_OK) {
		BT_FIELD_CLASS_PUT_REF_AND_RESET(*fc);
		ds_pipe_type_free(type);
		type = NULL;
	}
	*type_out = type;
	return status;
}

enum ds_pipe_status ds_pipe_get_field_class(struct ds_pipe_in *in, bt_trace_class *tc, bt_field_class **fc,
		struct ds_pipe_type **type)
{
	return get_class(in, tc, fc, type, 0);
}

/* ---- values ---- */

void ds_pipe_put_value(struct ds_pipe_out *o, const struct ds_pipe_type *type, const bt_field *field)
{
	uint64_t i, n;

	switch (type->kind) {
	case DS_PIPE_BOOL:
		ds_pipe_put_byte(o, bt_field_bool_get_value(field) ? 1 : 0);
		break;
	case DS_PIPE_UINT:
	case DS_PIPE_UENUM:
		ds_pipe_put_u(o, bt_field_integer_unsigned_get_value(field));
		break;
	case DS_PIPE_SINT:
	case DS_PIPE_SENUM:
		ds_pipe_put_s(o, bt_field_integer_signed_get_value(field));
		break;
	case DS_PIPE_STRING:
		ds_pipe_put_str_len(o, bt_field_string_get_value(field), bt_field_string_get_length(field));
		break;
	case DS_PIPE_STRUCT:
		for (i = 0; i < type->count; i++) {
			ds_pipe_put_value(o, type->members[i],
				bt_field_structure_borrow_member_field_by_index_const(field, i));
		}
		break;
	case DS_PIPE_DYN_ARRAY:
	case DS_PIPE_STATIC_ARRAY:
		n = bt_field_array_get_length(field);
		if (type->kind == DS_PIPE_DYN_ARRAY) {
			ds_pipe_put_u(o, n);
		}
		for (i = 0; i < n; i++) {
			ds_pipe_put_value(o, type->element, bt_field_array_borrow_element_field_by_index_const(field, i));
		}
		break;
	case DS_PIPE_DOUBLE: {
		double d = bt_field_real_double_precision_get_value(field);

		ds_pipe_put_raw(o, &d, sizeof(d));
		break;
	}
	case DS_PIPE_SINGLE: {
		float f = bt_field_real_single_precision_get_value(field);

		ds_pipe_put_raw(o, &f, sizeof(f));
		break;
	}
	}
}

static enum ds_pipe_status get_array(struct ds_pipe_in *in, const struct ds_pipe_type *type, bt_field *field)
{
	enum ds_pipe_status status = DS_PIPE_OK;
	uint64_t i, n = type->count;

	if (type->kind == DS_PIPE_DYN_ARRAY) {
		if (!ds_pipe_get_u(in, &n)) {
			return DS_PIPE_ERROR;
		}
		if (n > PIPE_MAX_DYN_LENGTH) {
			return fail(in, "a dynamic array longer than 1,048,576 elements");
		}
		if (bt_field_array_dynamic_set_length(field, n)) {
			return DS_PIPE_MEMORY_ERROR;
		}
	}
	for (i = 0; status == DS_PIPE_OK && i < n; i++) {
		status = ds_pipe_get_value(in, type->element, bt_field_array_borrow_element_field_by_index(field, i));
	}
	return status;
}

enum ds_pipe_status ds_pipe_get_value(struct ds_pipe_in *in, const struct ds_pipe_type *type, bt_field *field)
{
	enum ds_pipe_status status = DS_PIPE_OK;
	const char *text;
	uint64_t i, u;
	int64_t s;
	size_t len;
	uint8_t b;

	switch (type->kind) {
	case DS_PIPE_BOOL:
		if (!ds_pipe_get_byte(in, &b)) {
			return DS_PIPE_ERROR;
		}
		bt_field_bool_set_value(field, b ? BT_TRUE : BT_FALSE);
		break;
	case DS_PIPE_UINT:
	case DS_PIPE_UENUM:
		if (!ds_pipe_get_u(in, &u)) {
			return DS_PIPE_ERROR;
		}
		if (type->bits < 64 && u >> type->bits) {
			return fail(in, "an unsigned integer beyond its field class's range");
		}
		bt_field_integer_unsigned_set_value(field, u);
		break;
	case DS_PIPE_SINT:
	case DS_PIPE_SENUM:
		if (!ds_pipe_get_s(in, &s)) {
			return DS_PIPE_ERROR;
		}
		if (type->bits < 64 && (s < -(INT64_C(1) << (type->bits - 1)) || s >= (INT64_C(1) << (type->bits - 1)))) {
			return fail(in, "a signed integer beyond its field class's range");
		}
		bt_field_integer_signed_set_value(field, s);
		break;
	case DS_PIPE_STRING:
		if (!ds_pipe_get_str(in, &text, &len)) {
			return DS_PIPE_ERROR;
		}
		bt_field_string_clear(field);
		if (bt_field_string_append_with_length(field, text, len)) {
			return DS_PIPE_MEMORY_ERROR;
		}
		break;
	case DS_PIPE_STRUCT:
		for (i = 0; status == DS_PIPE_OK && i < type->count; i++) {
			status = ds_pipe_get_value(in, type->members[i],
				bt_field_structure_borrow_member_field_by_index(field, i));
		}
		break;
	case DS_PIPE_DYN_ARRAY:
	case DS_PIPE_STATIC_ARRAY:
		status = get_array(in, type, field);
		break;
	case DS_PIPE_DOUBLE: {
		double d;

		if (!ds_pipe_get_raw(in, &d, sizeof(d))) {
			return DS_PIPE_ERROR;
		}
		bt_field_real_double_precision_set_value(field, d);
		break;
	}
	case DS_PIPE_SINGLE: {
		float f;

		if (!ds_pipe_get_raw(in, &f, sizeof(f))) {
			return DS_PIPE_ERROR;
		}
		bt_field_real_single_precision_set_value(field, f);
		break;
	}
	}
	return status;
}
