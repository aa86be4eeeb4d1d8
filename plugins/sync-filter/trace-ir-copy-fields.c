/* SPDX-License-Identifier: MIT */
/*
 * Trace-IR copy, field classes and fields: mirrors every field class type
 * (resolving the length/selector field paths of dynamic arrays, options and
 * variants to the already mirrored output field classes) and deep-copies
 * field values.
 */
#include "trace-ir-copy.h"

/* The input field class a field path designates, in the scope of (sc, ec). */
static const bt_field_class *resolve_path(const bt_stream_class *in_sc,
		const bt_event_class *in_ec, const bt_field_path *path)
{
	const bt_field_class *fc = NULL;
	uint64_t i, n = bt_field_path_get_item_count(path);

	switch (bt_field_path_get_root_scope(path)) {
	case BT_FIELD_PATH_SCOPE_PACKET_CONTEXT:
		fc = bt_stream_class_borrow_packet_context_field_class_const(in_sc);
		break;
	case BT_FIELD_PATH_SCOPE_EVENT_COMMON_CONTEXT:
		fc = bt_stream_class_borrow_event_common_context_field_class_const(in_sc);
		break;
	case BT_FIELD_PATH_SCOPE_EVENT_SPECIFIC_CONTEXT:
		fc = in_ec ? bt_event_class_borrow_specific_context_field_class_const(in_ec) : NULL;
		break;
	case BT_FIELD_PATH_SCOPE_EVENT_PAYLOAD:
		fc = in_ec ? bt_event_class_borrow_payload_field_class_const(in_ec) : NULL;
		break;
	}
	for (i = 0; fc && i < n; i++) {
		const bt_field_path_item *item = bt_field_path_borrow_item_by_index_const(path, i);
		bt_field_class_type type = bt_field_class_get_type(fc);

		switch (bt_field_path_item_get_type(item)) {
		case BT_FIELD_PATH_ITEM_TYPE_INDEX: {
			uint64_t index = bt_field_path_item_index_get_index(item);

			if (type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
				fc = bt_field_class_structure_member_borrow_field_class_const(
					bt_field_class_structure_borrow_member_by_index_const(fc, index));
			} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
				fc = bt_field_class_variant_option_borrow_field_class_const(
					bt_field_class_variant_borrow_option_by_index_const(fc, index));
			} else {
				fc = NULL;
			}
			break;
		}
		case BT_FIELD_PATH_ITEM_TYPE_CURRENT_ARRAY_ELEMENT:
			fc = bt_field_class_array_borrow_element_field_class_const(fc);
			break;
		case BT_FIELD_PATH_ITEM_TYPE_CURRENT_OPTION_CONTENT:
			fc = bt_field_class_option_borrow_field_class_const(fc);
			break;
		default:
			fc = NULL;
		}
	}
	return fc;
}

/* The output field class already mirrored for the field path's target. */
static bt_field_class *linked_output(struct ds_ir_copy *copy,
		const bt_stream_class *in_sc, const bt_event_class *in_ec,
		const bt_field_path *path)
{
	const bt_field_class *in_target = resolve_path(in_sc, in_ec, path);

	return in_target ? g_hash_table_lookup(copy->field_classes, in_target) : NULL;
}

struct fc_scope {
	struct ds_ir_copy *copy;
	bt_trace_class *out_tc;
	const bt_stream_class *in_sc;
	const bt_event_class *in_ec;
};

static bt_field_class *copy_fc(const struct fc_scope *s, const bt_field_class *in);

static void copy_int_props(const bt_field_class *in, bt_field_class *out)
{
	bt_field_class_integer_set_field_value_range(out,
		bt_field_class_integer_get_field_value_range(in));
	bt_field_class_integer_set_preferred_display_base(out,
		bt_field_class_integer_get_preferred_display_base(in));
}

static bt_field_class *copy_enum(const struct fc_scope *s, const bt_field_class *in,
		bool is_signed)
{
	bt_field_class *out = is_signed ?
		bt_field_class_enumeration_signed_create(s->out_tc) :
		bt_field_class_enumeration_unsigned_create(s->out_tc);
	uint64_t i, n = bt_field_class_enumeration_get_mapping_count(in);

	if (!out) {
		return NULL;
	}
	copy_int_props(in, out);
	for (i = 0; i < n; i++) {
		int st;

		if (is_signed) {
			const bt_field_class_enumeration_signed_mapping *m =
				bt_field_class_enumeration_signed_borrow_mapping_by_index_const(in, i);

			st = bt_field_class_enumeration_signed_add_mapping(out,
				bt_field_class_enumeration_mapping_get_label(
					bt_field_class_enumeration_signed_mapping_as_mapping_const(m)),
				bt_field_class_enumeration_signed_mapping_borrow_ranges_const(m));
		} else {
			const bt_field_class_enumeration_unsigned_mapping *m =
				bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(in, i);

			st = bt_field_class_enumeration_unsigned_add_mapping(out,
				bt_field_class_enumeration_mapping_get_label(
					bt_field_class_enumeration_unsigned_mapping_as_mapping_const(m)),
				bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(m));
		}
		if (st) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(out);
			break;
		}
	}
	return out;
}

static bt_field_class *copy_struct(const struct fc_scope *s, const bt_field_class *in)
{
	bt_field_class *out = bt_field_class_structure_create(s->out_tc);
	uint64_t i, n = bt_field_class_structure_get_member_count(in);

	for (i = 0; out && i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(in, i);
		const bt_value *attrs =
			bt_field_class_structure_member_borrow_user_attributes_const(m);
		bt_field_class *member = copy_fc(s,
			bt_field_class_structure_member_borrow_field_class_const(m));

		if (!member || bt_field_class_structure_append_member(out,
				bt_field_class_structure_member_get_name(m), member)) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(member);
			BT_FIELD_CLASS_PUT_REF_AND_RESET(out);
			break;
		}
		bt_field_class_structure_member_set_user_attributes(
			bt_field_class_structure_borrow_member_by_index(out, i), attrs);
		bt_field_class_put_ref(member);
	}
	return out;
}

static bt_field_class *copy_array(const struct fc_scope *s, const bt_field_class *in,
		bt_field_class_type type)
{
	bt_field_class *elem = NULL, *out = NULL, *length = NULL;

	if (type == BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD) {
		length = linked_output(s->copy, s->in_sc, s->in_ec,
			bt_field_class_array_dynamic_with_length_field_borrow_length_field_path_const(in));
		if (!length) {
			goto end;
		}
	}
	elem = copy_fc(s, bt_field_class_array_borrow_element_field_class_const(in));
	if (!elem) {
		goto end;
	}
	if (type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
		out = bt_field_class_array_static_create(s->out_tc, elem,
			bt_field_class_array_static_get_length(in));
	} else {
		out = bt_field_class_array_dynamic_create(s->out_tc, elem, length);
	}
end:
	BT_FIELD_CLASS_PUT_REF_AND_RESET(elem);
	return out;
}

static bt_field_class *copy_option(const struct fc_scope *s, const bt_field_class *in,
		bt_field_class_type type)
{
	bt_field_class *content = NULL, *out = NULL, *selector = NULL;

	if (type != BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD) {
		selector = linked_output(s->copy, s->in_sc, s->in_ec,
			bt_field_class_option_with_selector_field_borrow_selector_field_path_const(in));
		if (!selector) {
			goto end;
		}
	}
	content = copy_fc(s, bt_field_class_option_borrow_field_class_const(in));
	if (!content) {
		goto end;
	}
	switch (type) {
	case BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD:
		out = bt_field_class_option_without_selector_create(s->out_tc, content);
		break;
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD:
		out = bt_field_class_option_with_selector_field_bool_create(s->out_tc,
			content, selector);
		if (out) {
			bt_field_class_option_with_selector_field_bool_set_selector_is_reversed(out,
				bt_field_class_option_with_selector_field_bool_selector_is_reversed(in));
		}
		break;
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
		out = bt_field_class_option_with_selector_field_integer_unsigned_create(
			s->out_tc, content, selector,
			bt_field_class_option_with_selector_field_integer_unsigned_borrow_selector_ranges_const(in));
		break;
	default:
		out = bt_field_class_option_with_selector_field_integer_signed_create(
			s->out_tc, content, selector,
			bt_field_class_option_with_selector_field_integer_signed_borrow_selector_ranges_const(in));
		break;
	}
end:
	BT_FIELD_CLASS_PUT_REF_AND_RESET(content);
	return out;
}

static int append_variant_option(const struct fc_scope *s, const bt_field_class *in,
		bt_field_class *out, bt_field_class_type type, uint64_t i)
{
	const bt_field_class_variant_option *opt =
		bt_field_class_variant_borrow_option_by_index_const(in, i);
	bt_field_class *ofc = copy_fc(s, bt_field_class_variant_option_borrow_field_class_const(opt));
	const char *name = bt_field_class_variant_option_get_name(opt);
	int st;

	if (!ofc) {
		return -1;
	}
	if (type == BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD) {
		st = bt_field_class_variant_without_selector_append_option(out, name, ofc);
	} else if (type == BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD) {
		st = bt_field_class_variant_with_selector_field_integer_unsigned_append_option(
			out, name, ofc,
			bt_field_class_variant_with_selector_field_integer_unsigned_option_borrow_ranges_const(
				bt_field_class_variant_with_selector_field_integer_unsigned_borrow_option_by_index_const(in, i)));
	} else {
		st = bt_field_class_variant_with_selector_field_integer_signed_append_option(
			out, name, ofc,
			bt_field_class_variant_with_selector_field_integer_signed_option_borrow_ranges_const(
				bt_field_class_variant_with_selector_field_integer_signed_borrow_option_by_index_const(in, i)));
	}
	if (!st) {
		bt_field_class_variant_option_set_user_attributes(
			bt_field_class_variant_borrow_option_by_index(out, i),
			bt_field_class_variant_option_borrow_user_attributes_const(opt));
	}
	bt_field_class_put_ref(ofc);
	return st ? -1 : 0;
}

static bt_field_class *copy_variant(const struct fc_scope *s, const bt_field_class *in,
		bt_field_class_type type)
{
	bt_field_class *out = NULL, *selector = NULL;
	uint64_t i, n = bt_field_class_variant_get_option_count(in);

	if (type != BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD) {
		selector = linked_output(s->copy, s->in_sc, s->in_ec,
			bt_field_class_variant_with_selector_field_borrow_selector_field_path_const(in));
		if (!selector) {
			return NULL;
		}
	}
	out = bt_field_class_variant_create(s->out_tc, selector);
	for (i = 0; out && i < n; i++) {
		if (append_variant_option(s, in, out, type, i)) {
			BT_FIELD_CLASS_PUT_REF_AND_RESET(out);
		}
	}
	return out;
}

static bt_field_class *copy_fc(const struct fc_scope *s, const bt_field_class *in)
{
	bt_field_class_type type = bt_field_class_get_type(in);
	bt_field_class *out = NULL;

	switch (type) {
	case BT_FIELD_CLASS_TYPE_BOOL:
		out = bt_field_class_bool_create(s->out_tc);
		break;
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
		out = bt_field_class_bit_array_create(s->out_tc,
			bt_field_class_bit_array_get_length(in));
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
		out = type == BT_FIELD_CLASS_TYPE_SIGNED_INTEGER ?
			bt_field_class_integer_signed_create(s->out_tc) :
			bt_field_class_integer_unsigned_create(s->out_tc);
		if (out) {
			copy_int_props(in, out);
		}
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		out = copy_enum(s, in, type == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION);
		break;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		out = bt_field_class_real_single_precision_create(s->out_tc);
		break;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		out = bt_field_class_real_double_precision_create(s->out_tc);
		break;
	case BT_FIELD_CLASS_TYPE_STRING:
		out = bt_field_class_string_create(s->out_tc);
		break;
	case BT_FIELD_CLASS_TYPE_STRUCTURE:
		out = copy_struct(s, in);
		break;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD:
		out = copy_array(s, in, type);
		break;
	default:
		if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_OPTION)) {
			out = copy_option(s, in, type);
		} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
			out = copy_variant(s, in, type);
		}
		break;
	}
	if (out) {
		bt_field_class_set_user_attributes(out,
			bt_field_class_borrow_user_attributes_const(in));
		g_hash_table_insert(s->copy->field_classes, (gpointer) in, out);
	}
	return out;
}

bt_field_class *ds_ir_copy_field_class(struct ds_ir_copy *copy,
		bt_trace_class *out_tc, const bt_stream_class *in_sc,
		const bt_event_class *in_ec, const bt_field_class *in_fc)
{
	struct fc_scope s = {
		.copy = copy, .out_tc = out_tc, .in_sc = in_sc, .in_ec = in_ec,
	};

	return copy_fc(&s, in_fc);
}

/* ---- field values ---- */

static enum ds_ir_copy_status copy_compound(const bt_field *in, bt_field *out,
		bt_field_class_type type)
{
	uint64_t i, n;

	if (type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		n = bt_field_class_structure_get_member_count(bt_field_borrow_class_const(in));
		for (i = 0; i < n; i++) {
			if (ds_ir_copy_field(bt_field_structure_borrow_member_field_by_index_const(in, i),
					bt_field_structure_borrow_member_field_by_index(out, i))) {
				return DS_IR_COPY_STATUS_ERROR;
			}
		}
		return DS_IR_COPY_STATUS_OK;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) {
		n = bt_field_array_get_length(in);
		if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY) &&
				bt_field_array_dynamic_set_length(out, n)) {
			return DS_IR_COPY_STATUS_MEMORY_ERROR;
		}
		for (i = 0; i < n; i++) {
			if (ds_ir_copy_field(bt_field_array_borrow_element_field_by_index_const(in, i),
					bt_field_array_borrow_element_field_by_index(out, i))) {
				return DS_IR_COPY_STATUS_ERROR;
			}
		}
		return DS_IR_COPY_STATUS_OK;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_OPTION)) {
		const bt_field *content = bt_field_option_borrow_field_const(in);

		bt_field_option_set_has_field(out, content != NULL);
		return content ? ds_ir_copy_field(content, bt_field_option_borrow_field(out)) :
			DS_IR_COPY_STATUS_OK;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
		if (bt_field_variant_select_option_by_index(out,
				bt_field_variant_get_selected_option_index(in))) {
			return DS_IR_COPY_STATUS_ERROR;
		}
		return ds_ir_copy_field(bt_field_variant_borrow_selected_option_field_const(in),
			bt_field_variant_borrow_selected_option_field(out));
	}
	return DS_IR_COPY_STATUS_ERROR;
}

enum ds_ir_copy_status ds_ir_copy_field(const bt_field *in, bt_field *out)
{
	bt_field_class_type type = bt_field_get_class_type(in);

	switch (type) {
	case BT_FIELD_CLASS_TYPE_BOOL:
		bt_field_bool_set_value(out, bt_field_bool_get_value(in));
		break;
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
		bt_field_bit_array_set_value_as_integer(out,
			bt_field_bit_array_get_value_as_integer(in));
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		bt_field_integer_unsigned_set_value(out, bt_field_integer_unsigned_get_value(in));
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		bt_field_integer_signed_set_value(out, bt_field_integer_signed_get_value(in));
		break;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		bt_field_real_single_precision_set_value(out,
			bt_field_real_single_precision_get_value(in));
		break;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		bt_field_real_double_precision_set_value(out,
			bt_field_real_double_precision_get_value(in));
		break;
	case BT_FIELD_CLASS_TYPE_STRING:
		bt_field_string_clear(out);
		if (bt_field_string_append_with_length(out, bt_field_string_get_value(in),
				bt_field_string_get_length(in))) {
			return DS_IR_COPY_STATUS_MEMORY_ERROR;
		}
		break;
	default:
		return copy_compound(in, out, type);
	}
	return DS_IR_COPY_STATUS_OK;
}
