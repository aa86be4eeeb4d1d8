/* SPDX-License-Identifier: MIT */
#include "attribution-record.h"

struct recorder {
	GArray *out;		/* borrowed */
	uint32_t handles;	/* enter calls so far */
};

static void append(struct recorder *r, enum ds_attribution_call call, uint32_t handle,
		uint32_t label, int64_t width)
{
	struct ds_attribution_entry entry = {
		.call_handle = (uint32_t) call << DS_CALL_SHIFT | (handle & DS_CALL_HANDLE_MASK),
		.label = label,
		.width = width,
	};

	g_array_append_val(r->out, entry);
}

static uint32_t record_enter(void *data, uint32_t parent_handle, const struct ds_span *span)
{
	struct recorder *r = data;

	append(r, DS_CALL_ENTER, parent_handle, span->service, span->operation);
	return ++r->handles;
}

static void record_value(void *data, uint32_t handle, int64_t width)
{
	append(data, DS_CALL_VALUE, handle, 0, width);
}

static void record_leaf(void *data, uint32_t handle, unsigned int state, uint32_t detail,
		int64_t width)
{
	append(data, DS_CALL_LEAF, handle, (uint32_t) state << DS_LEAF_STATE_SHIFT | detail,
		width);
}

static uint32_t record_chain(void *data, uint32_t handle, unsigned int state,
		uint32_t label, uint32_t note, int64_t width, bool leaf,
		const struct ds_stored_chain_entry *entry)
{
	struct recorder *r = data;

	(void) entry;
	append(r, DS_CALL_CHAIN, (handle & DS_CALL_CHAIN_HANDLE_MASK) |
		(leaf ? DS_CALL_CHAIN_LEAF : 0),
		(uint32_t) state << DS_LEAF_STATE_SHIFT | label, width);
	if (note) {
		append(r, DS_CALL_CHAIN, DS_CALL_CHAIN_NOTE, note, 0);
	}
	return leaf ? 0 : ++r->handles;
}

static void record_cache(void *data, uint32_t read, bool miss, int64_t width)
{
	append(data, DS_CALL_CHAIN, DS_CALL_CHAIN_CACHE | (miss ? DS_CALL_CHAIN_MISS : 0), read, width);
}

void ds_attribution_record(const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_mode mode, GArray *out)
{
	struct recorder recorder = { .out = out, .handles = 0 };
	const struct ds_visitor visitor = {
		.enter = record_enter,
		.value = record_value,
		.leaf = record_leaf,
		.data = &recorder,
		.chain = record_chain,
		.cache = record_cache,
	};

	ds_attribute_request(store, requests, request_index, mode, &visitor);
}

void ds_attribution_replay(const struct ds_attribution_entry *entries, size_t count,
		const struct ds_visitor *visitor, GArray *frames)
{
	uint32_t top = 0;
	size_t i;

	/* Local handle -> the visitor's handle; the top is 0 on both sides. */
	g_array_set_size(frames, 0);
	g_array_append_val(frames, top);
	for (i = 0; i < count; i++) {
		const struct ds_attribution_entry *e = &entries[i];
		uint32_t call = e->call_handle >> DS_CALL_SHIFT;
		bool chain_leaf = call == DS_CALL_CHAIN &&
			(e->call_handle & DS_CALL_CHAIN_LEAF);
		uint32_t local = e->call_handle & (call == DS_CALL_CHAIN ?
			DS_CALL_CHAIN_HANDLE_MASK : DS_CALL_HANDLE_MASK);
		uint32_t note = 0;
		uint32_t handle = local < frames->len ?
			g_array_index(frames, uint32_t, local) : 0;
		struct ds_span span = { 0 };

		switch (call) {
		case DS_CALL_CHAIN:
			if (e->call_handle & DS_CALL_CHAIN_CACHE) {
				if (visitor->cache) {
					visitor->cache(visitor->data, e->label,
						(e->call_handle & DS_CALL_CHAIN_MISS) != 0, e->width);
				}
				break;
			}
			if (e->call_handle & DS_CALL_CHAIN_NOTE) {
				break;	/* read with its call */
			}
			if (i + 1 < count && entries[i + 1].call_handle ==
					((uint32_t) DS_CALL_CHAIN << DS_CALL_SHIFT | DS_CALL_CHAIN_NOTE)) {
				note = entries[i + 1].label;
			}
			handle = visitor->chain ? visitor->chain(visitor->data, handle,
				e->label >> DS_LEAF_STATE_SHIFT,
				e->label & ((UINT32_C(1) << DS_LEAF_STATE_SHIFT) - 1),
				note, e->width, chain_leaf, NULL) : handle;
			if (!chain_leaf) {
				g_array_append_val(frames, handle);
			}
			break;
		case DS_CALL_ENTER:
			span.service = e->label;
			span.operation = (uint32_t) e->width;
			handle = visitor->enter(visitor->data, handle, &span);
			g_array_append_val(frames, handle);
			break;
		case DS_CALL_VALUE:
			visitor->value(visitor->data, handle, e->width);
			break;
		case DS_CALL_LEAF:
			visitor->leaf(visitor->data, handle, e->label >> DS_LEAF_STATE_SHIFT,
				e->label & ((UINT32_C(1) << DS_LEAF_STATE_SHIFT) - 1), e->width);
			break;
		default:
			break;
		}
	}
}
