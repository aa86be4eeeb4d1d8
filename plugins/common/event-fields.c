/* SPDX-License-Identifier: MIT */
#include "event-fields.h"

#include <string.h>

enum ds_field_kind ds_field_kind_of(const bt_field_class *fc)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		return DS_FIELD_KIND_UNSIGNED;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return DS_FIELD_KIND_SIGNED;
	}
	if (type == BT_FIELD_CLASS_TYPE_STRING) {
		return DS_FIELD_KIND_STRING;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) {
		return DS_FIELD_KIND_ARRAY;
	}
	return DS_FIELD_KIND_OTHER;
}

struct ds_field_ref ds_field_ref_find(const bt_field_class *struct_fc,
		enum ds_field_scope scope, const char *name)
{
	struct ds_field_ref ref = { DS_FIELD_SCOPE_NONE, DS_FIELD_KIND_NONE, 0 };
	uint64_t count, i;

	if (!struct_fc || bt_field_class_get_type(struct_fc) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		goto end;
	}
	count = bt_field_class_structure_get_member_count(struct_fc);
	for (i = 0; i < count; i++) {
		const bt_field_class_structure_member *member =
			bt_field_class_structure_borrow_member_by_index_const(struct_fc, i);

		if (strcmp(bt_field_class_structure_member_get_name(member), name) == 0) {
			ref.scope = (uint8_t) scope;
			ref.kind = (uint8_t) ds_field_kind_of(
				bt_field_class_structure_member_borrow_field_class_const(member));
			ref.index = (uint32_t) i;
			break;
		}
	}
end:
	return ref;
}

struct ds_field_ref ds_field_ref_find_any(const bt_event_class *ec, const char *name)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	struct ds_field_ref ref;

	ref = ds_field_ref_find(bt_event_class_borrow_payload_field_class_const(ec),
		DS_FIELD_SCOPE_PAYLOAD, name);
	if (ref.scope != DS_FIELD_SCOPE_NONE) {
		goto end;
	}
	ref = ds_field_ref_find(bt_event_class_borrow_specific_context_field_class_const(ec),
		DS_FIELD_SCOPE_SPECIFIC_CONTEXT, name);
	if (ref.scope != DS_FIELD_SCOPE_NONE) {
		goto end;
	}
	ref = ds_field_ref_find(bt_stream_class_borrow_event_common_context_field_class_const(sc),
		DS_FIELD_SCOPE_COMMON_CONTEXT, name);
end:
	return ref;
}

const bt_field *ds_event_scope_field(const bt_event *event, enum ds_field_scope scope)
{
	switch (scope) {
	case DS_FIELD_SCOPE_PAYLOAD:
		return bt_event_borrow_payload_field_const(event);
	case DS_FIELD_SCOPE_SPECIFIC_CONTEXT:
		return bt_event_borrow_specific_context_field_const(event);
	case DS_FIELD_SCOPE_COMMON_CONTEXT:
		return bt_event_borrow_common_context_field_const(event);
	default:
		return NULL;
	}
}

const bt_field *ds_field_ref_borrow(const bt_event *event, struct ds_field_ref ref)
{
	const bt_field *scope_field = ds_event_scope_field(event, (enum ds_field_scope) ref.scope);

	if (!scope_field) {
		return NULL;
	}
	return bt_field_structure_borrow_member_field_by_index_const(scope_field, ref.index);
}
