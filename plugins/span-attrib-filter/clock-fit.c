/* SPDX-License-Identifier: MIT */
/*
 * span-attrib's `clock-formula`: the clock fit of filter.deepspan.sync (a report or formula) applied while
 * the inputs are merged (sync-filter/sync-merge.h), instead of `filter.deepspan.sync formula=` before
 * span-attrib: no copy of every message onto the synchronized clock.  span-attrib then sees the messages in
 * the order, and at the times, that sync's copies would have, and its output is on sync's clock.
 */
#include "span-attrib.h"

#include <string.h>

static const struct ds_sync_merge_owner *owner_of(const struct span_attrib_component *comp,
		struct ds_sync_merge_owner *owner)
{
	*owner = (struct ds_sync_merge_owner) { .self_comp = comp->self_comp, .class_name = SPAN_ATTRIB_CLASS_NAME,
		.param = "clock-formula", .doc_page = "doc/span-attrib.md" };
	return owner;
}

enum span_attrib_status clock_fit_load(struct span_attrib_component *comp, const char *path)
{
	enum span_attrib_status status = SPAN_ATTRIB_STATUS_OK;
	struct ds_sync_merge_owner owner;

	if (comp->pass_through) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp->self_comp,
			"%s: parameter `clock-formula`: the upstream messages cannot be passed through (they stay on "
			"their hosts' clocks, only span-attrib's own output is on the synchronized clock): set "
			"`pass-through=false`, or put `filter.deepspan.sync` with `formula=\"%s\"` before span-attrib "
			"(doc/span-attrib.md, \"Parameters\").", SPAN_ATTRIB_CLASS_NAME, path);
		status = SPAN_ATTRIB_STATUS_ERROR;
		goto end;
	}
	comp->clock_formula_path = g_strdup(path);
	comp->clock_formula = ds_sync_merge_load_formula(owner_of(comp, &owner), path);
	if (!comp->clock_formula) {
		status = SPAN_ATTRIB_STATUS_ERROR;
	}
end:
	return status;
}

void clock_fit_free(struct span_attrib_component *comp)
{
	ds_sync_merge_free_formula(comp->clock_formula);
	comp->clock_formula = NULL;
	g_free(comp->clock_formula_path);
	comp->clock_formula_path = NULL;
}

enum span_attrib_status clock_fit_start(struct span_attrib_iterator *it, bt_message_iterator **iters,
		unsigned int count)
{
	struct ds_sync_merge_owner owner;

	it->fit = ds_sync_merge_create(owner_of(it->comp, &owner), it->self_msg_iter, it->comp->clock_formula_path,
		it->comp->clock_formula, iters, count);
	return it->fit ? SPAN_ATTRIB_STATUS_OK : SPAN_ATTRIB_STATUS_ERROR;
}

const bt_clock_class *clock_fit_stream_clock(const struct span_attrib_iterator *it, const bt_clock_class *own)
{
	return it->fit && own ? ds_sync_merge_clock(it->fit) : own;
}
