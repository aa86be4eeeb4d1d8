/* SPDX-License-Identifier: MIT */
#include "aggregate.h"

#include <string.h>

#include "span-consumer/sanitize.h"

#define KEY(hi, lo) ((gpointer) (uintptr_t) (((uint64_t) (hi) << 32) | (uint32_t) (lo)))

/*
 * The key of a frame among its siblings: its label, with bit 31 for inner
 * chain frames (one text may be an inner frame in a request and a leaf in
 * another: a wait followed in one, cut by `chain-depth` in the other).
 */
static inline uint32_t sibling_key(uint32_t label, enum ds_frame_kind kind)
{
	return kind == DS_FRAME_CHAIN ? label | UINT32_C(1) << 31 : label;
}

static uint32_t new_frame(struct ds_aggregate *agg, uint32_t parent,
		uint32_t label, enum ds_frame_kind kind, unsigned int state)
{
	struct ds_frame frame = { 0 };
	uint32_t index = agg->frames->len;

	frame.parent = parent;
	frame.label = label;
	frame.kind = (uint8_t) kind;
	frame.state = (uint8_t) state;
	frame.depth = index == 0 ? 0 :
		(uint16_t) (ds_frame_at(agg, parent)->depth + 1);
	g_array_append_val(agg->frames, frame);
	if (index > 0) {
		g_hash_table_insert(agg->child_of, KEY(parent, sibling_key(label, kind)),
			GUINT_TO_POINTER(index + 1));
	}
	return index;
}

static uint32_t child_frame(struct ds_aggregate *agg, uint32_t parent,
		uint32_t label, enum ds_frame_kind kind, unsigned int state)
{
	gpointer found = g_hash_table_lookup(agg->child_of,
		KEY(parent, sibling_key(label, kind)));

	return found ? GPOINTER_TO_UINT(found) - 1 :
		new_frame(agg, parent, label, kind, state);
}

static uint32_t span_label(struct ds_aggregate *agg, const struct ds_span *span)
{
	gpointer key = KEY(span->service, span->operation);
	gpointer found = g_hash_table_lookup(agg->span_labels, key);
	GString *text;
	uint32_t label;

	if (found) {
		return GPOINTER_TO_UINT(found) - 1;
	}
	/* Labels are made safe once here (sanitize.h): every output writes them. */
	text = g_string_new(NULL);
	ds_sanitize_text(text, ds_strings_get(agg->strings, span->service));
	g_string_append(text, ": ");
	ds_sanitize_text(text, ds_strings_get(agg->strings, span->operation));
	label = ds_strings_intern(&agg->labels, text->str);
	g_string_free(text, TRUE);
	g_hash_table_insert(agg->span_labels, key, GUINT_TO_POINTER(label + 1));
	return label;
}

static uint32_t leaf_label(struct ds_aggregate *agg, unsigned int state,
		uint32_t detail)
{
	gpointer key = KEY(state, detail);
	gpointer found = g_hash_table_lookup(agg->leaf_labels, key);
	const char *detail_text = ds_strings_get(agg->strings, detail);
	GString *text;
	uint32_t label;

	if (found) {
		return GPOINTER_TO_UINT(found) - 1;
	}
	text = g_string_new(NULL);
	g_string_append_printf(text, "[%s]", ds_state_title(state));
	if (*detail_text) {
		g_string_append_c(text, ' ');
		ds_sanitize_text(text, detail_text);
	}
	label = ds_strings_intern(&agg->labels, text->str);
	g_string_free(text, TRUE);
	g_hash_table_insert(agg->leaf_labels, key, GUINT_TO_POINTER(label + 1));
	return label;
}

/* The label of a chain frame: its store text, made safe once. */
static uint32_t chain_label(struct ds_aggregate *agg, uint32_t text_id)
{
	gpointer key = GUINT_TO_POINTER(text_id);
	gpointer found = g_hash_table_lookup(agg->chain_labels, key);
	GString *text;
	uint32_t label;

	if (found) {
		return GPOINTER_TO_UINT(found) - 1;
	}
	text = g_string_new(NULL);
	ds_sanitize_text(text, ds_strings_get(agg->strings, text_id));
	label = ds_strings_intern(&agg->labels, text->str);
	g_string_free(text, TRUE);
	g_hash_table_insert(agg->chain_labels, key, GUINT_TO_POINTER(label + 1));
	return label;
}

void ds_aggregate_init(struct ds_aggregate *agg,
		const struct ds_strings *strings, enum ds_mode mode)
{
	memset(agg, 0, sizeof(*agg));
	agg->strings = strings;
	agg->replay_frames = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	agg->mode = mode;
	agg->frames = g_array_new(FALSE, TRUE, sizeof(struct ds_frame));
	agg->children = g_array_new(FALSE, TRUE, sizeof(uint32_t));
	agg->child_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	agg->span_labels = g_hash_table_new(g_direct_hash, g_direct_equal);
	agg->leaf_labels = g_hash_table_new(g_direct_hash, g_direct_equal);
	agg->chain_labels = g_hash_table_new(g_direct_hash, g_direct_equal);
	agg->note_sums = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	agg->frame_caches = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	agg->cache_seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	ds_strings_init(&agg->labels);
	new_frame(agg, 0, ds_strings_intern(&agg->labels, "all requests"),
		DS_FRAME_TOP, DS_STATE_UNKNOWN);
}

void ds_aggregate_fini(struct ds_aggregate *agg)
{
	if (agg->frames) {
		g_array_free(agg->frames, TRUE);
	}
	if (agg->children) {
		g_array_free(agg->children, TRUE);
	}
	if (agg->replay_frames) {
		g_array_free(agg->replay_frames, TRUE);
	}
	if (agg->child_of) {
		g_hash_table_destroy(agg->child_of);
	}
	if (agg->span_labels) {
		g_hash_table_destroy(agg->span_labels);
	}
	if (agg->leaf_labels) {
		g_hash_table_destroy(agg->leaf_labels);
	}
	if (agg->chain_labels) {
		g_hash_table_destroy(agg->chain_labels);
	}
	if (agg->note_sums) {
		g_hash_table_destroy(agg->note_sums);
	}
	if (agg->frame_caches) {
		g_hash_table_destroy(agg->frame_caches);
	}
	if (agg->cache_seen) {
		g_hash_table_destroy(agg->cache_seen);
	}
	ds_strings_fini(&agg->labels);
	memset(agg, 0, sizeof(*agg));
}

/* *sum += value, flagging an overflow instead of wrapping (the sum saturates). */
static void add_checked(struct ds_aggregate *agg, int64_t *sum, int64_t value)
{
	if (__builtin_add_overflow(*sum, value, sum)) {
		*sum = value > 0 ? INT64_MAX : INT64_MIN;
		agg->overflow = true;
	}
}

static uint32_t visit_enter(void *data, uint32_t parent_handle,
		const struct ds_span *span)
{
	struct ds_aggregate *agg = data;
	uint32_t frame = child_frame(agg, parent_handle, span_label(agg, span),
		DS_FRAME_SPAN, DS_STATE_UNKNOWN);

	g_array_index(agg->frames, struct ds_frame, frame).count[agg->group]++;
	return frame;
}

static void visit_value(void *data, uint32_t handle, int64_t width)
{
	struct ds_aggregate *agg = data;

	add_checked(agg, &g_array_index(agg->frames, struct ds_frame, handle).sum[agg->group],
		width);
}

static void visit_leaf(void *data, uint32_t handle, unsigned int state,
		uint32_t detail, int64_t width)
{
	struct ds_aggregate *agg = data;
	uint32_t index = child_frame(agg, handle, leaf_label(agg, state, detail),
		DS_FRAME_LEAF, state);
	struct ds_frame *frame = &g_array_index(agg->frames, struct ds_frame, index);

	add_checked(agg, &frame->sum[agg->group], width);
	frame->count[agg->group]++;
	agg->last_frame = index;
}

static uint32_t visit_chain(void *data, uint32_t handle, unsigned int state,
		uint32_t label, uint32_t note, int64_t width, bool leaf,
		const struct ds_stored_chain_entry *entry)
{
	struct ds_aggregate *agg = data;
	uint32_t index = child_frame(agg, handle, chain_label(agg, label),
		leaf ? DS_FRAME_LEAF : DS_FRAME_CHAIN, state);
	struct ds_frame *frame = &g_array_index(agg->frames, struct ds_frame, index);

	(void) entry;
	agg->last_frame = index;
	frame->in_chain = true;
	add_checked(agg, &frame->sum[agg->group], width);
	frame->count[agg->group]++;
	if (note) {
		gpointer key = KEY(index, note);
		int64_t *sums = g_hash_table_lookup(agg->note_sums, key);

		if (!sums) {
			sums = g_new0(int64_t, 2);
			g_hash_table_insert(agg->note_sums, key, sums);
		}
		add_checked(agg, &sums[agg->group], width);
	}
	return index;
}

/* `width` ns of the last frame were read `read` (doc/diff.md, "Page cache"); each read counts once per frame. */
static void visit_cache(void *data, uint32_t read, bool miss, int64_t width)
{
	struct ds_aggregate *agg = data;
	gpointer key = GUINT_TO_POINTER(agg->last_frame);
	struct ds_frame_cache *cache = g_hash_table_lookup(agg->frame_caches, key);
	bool first = g_hash_table_add(agg->cache_seen, KEY(agg->last_frame, read));

	if (!cache) {
		cache = g_new0(struct ds_frame_cache, 1);
		g_hash_table_insert(agg->frame_caches, key, cache);
	}
	if (miss) {
		cache->misses[agg->group] += first ? 1 : 0;
		add_checked(agg, &cache->miss_time[agg->group], width);
	} else {
		cache->hits[agg->group] += first ? 1 : 0;
		add_checked(agg, &cache->hit_time[agg->group], width);
	}
}

const struct ds_frame_cache *ds_frame_cache_of(const struct ds_aggregate *agg, const struct ds_frame *frame)
{
	guint index = (guint) (frame - (const struct ds_frame *) (const void *) agg->frames->data);

	return g_hash_table_lookup(agg->frame_caches, GUINT_TO_POINTER(index));
}

/* Each chain frame's note: the heaviest in B, then in A, then the smallest id. */
static void choose_notes(struct ds_aggregate *agg)
{
	GHashTableIter iter;
	gpointer key, value;
	GArray *best = g_array_new(FALSE, TRUE, 2 * sizeof(int64_t));

	g_array_set_size(best, agg->frames->len);
	g_hash_table_iter_init(&iter, agg->note_sums);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		uint64_t k = (uint64_t) (uintptr_t) key;
		uint32_t index = (uint32_t) (k >> 32), note = (uint32_t) k;
		struct ds_frame *frame = &g_array_index(agg->frames, struct ds_frame, index);
		const int64_t *sums = value;
		int64_t *top = &g_array_index(best, int64_t, 2 * (size_t) index);

		if (frame->note == 0 || sums[1] > top[1] ||
				(sums[1] == top[1] && (sums[0] > top[0] ||
				(sums[0] == top[0] && note < frame->note)))) {
			frame->note = note;
			top[0] = sums[0];
			top[1] = sums[1];
		}
	}
	g_array_free(best, TRUE);
}

static const struct ds_visitor aggregate_visitor = {
	.enter = visit_enter,
	.value = visit_value,
	.leaf = visit_leaf,
	.chain = visit_chain,
	.cache = visit_cache,
};

static void start_request(struct ds_aggregate *agg, int64_t latency, enum ds_group group)
{
	agg->group = group;
	agg->requests[group]++;
	if (g_hash_table_size(agg->cache_seen)) {
		g_hash_table_remove_all(agg->cache_seen);
	}
	add_checked(agg, &agg->latency_sum[group], latency);
}

void ds_aggregate_add(struct ds_aggregate *agg, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t request_index,
		enum ds_group group)
{
	struct ds_visitor visitor = aggregate_visitor;

	visitor.data = agg;
	start_request(agg, ds_request_at(requests, request_index)->latency, group);
	ds_attribute_request(store, requests, request_index, agg->mode, &visitor);
}

void ds_aggregate_add_recorded(struct ds_aggregate *agg,
		const struct ds_attribution_entry *entries, size_t count,
		int64_t latency, enum ds_group group)
{
	struct ds_visitor visitor = aggregate_visitor;

	visitor.data = agg;
	start_request(agg, latency, group);
	ds_attribution_replay(entries, count, &visitor, agg->replay_frames);
}

static gint compare_siblings(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct ds_aggregate *agg = data;
	const struct ds_frame *x = ds_frame_at(agg, *(const uint32_t *) a);
	const struct ds_frame *y = ds_frame_at(agg, *(const uint32_t *) b);

	if (x->kind != y->kind) {
		return x->kind < y->kind ? -1 : 1;
	}
	return strcmp(ds_frame_label(agg, x), ds_frame_label(agg, y));
}

void ds_aggregate_finish(struct ds_aggregate *agg)
{
	uint32_t n = agg->frames->len, i;
	struct ds_frame *top = &g_array_index(agg->frames, struct ds_frame, 0);
	unsigned int g;

	top->count[0] = agg->requests[0];
	top->count[1] = agg->requests[1];
	choose_notes(agg);
	for (i = n; i-- > 1; ) {
		struct ds_frame *frame = &g_array_index(agg->frames, struct ds_frame, i);
		struct ds_frame *parent = &g_array_index(agg->frames, struct ds_frame,
			frame->parent);
		unsigned int s;

		for (g = 0; g < 2; g++) {
			if (frame->kind == DS_FRAME_LEAF) {
				frame->state_sum[g][frame->state] = frame->sum[g];
			}
			for (s = 0; s < DS_STATE_COUNT; s++) {
				add_checked(agg, &parent->state_sum[g][s], frame->state_sum[g][s]);
			}
			if (frame->parent == 0) {
				add_checked(agg, &top->sum[g], frame->sum[g]);
			}
		}
		parent->child_count++;
	}
	/* Children ranges in frame order, then sorted. */
	g_array_set_size(agg->children, n);
	for (i = 0, g = 0; i < n; i++) {
		struct ds_frame *frame = &g_array_index(agg->frames, struct ds_frame, i);

		frame->first_child = g;
		g += frame->child_count;
		frame->child_count = 0;
	}
	for (i = 1; i < n; i++) {
		struct ds_frame *parent = &g_array_index(agg->frames, struct ds_frame,
			ds_frame_at(agg, i)->parent);

		g_array_index(agg->children, uint32_t,
			parent->first_child + parent->child_count++) = i;
	}
	for (i = 0; i < n; i++) {
		const struct ds_frame *frame = ds_frame_at(agg, i);

		if (frame->child_count > 1) {
			g_qsort_with_data(&g_array_index(agg->children, uint32_t,
				frame->first_child), frame->child_count,
				sizeof(uint32_t), compare_siblings, agg);
		}
	}
	agg->finished = true;
}

double ds_frame_mean(const struct ds_aggregate *agg, const struct ds_frame *frame,
		enum ds_group group)
{
	return agg->requests[group] ?
		(double) frame->sum[group] / (double) agg->requests[group] : 0.0;
}

__int128 ds_frame_delta_numerator(const struct ds_aggregate *agg,
		const struct ds_frame *frame)
{
	return (__int128) frame->sum[DS_GROUP_B] * (__int128) agg->requests[DS_GROUP_A] -
		(__int128) frame->sum[DS_GROUP_A] * (__int128) agg->requests[DS_GROUP_B];
}

double ds_frame_delta(const struct ds_aggregate *agg, const struct ds_frame *frame)
{
	return ds_frame_mean(agg, frame, DS_GROUP_B) -
		ds_frame_mean(agg, frame, DS_GROUP_A);
}

double ds_frame_relative(const struct ds_aggregate *agg,
		const struct ds_frame *frame, bool *is_new)
{
	double a = ds_frame_mean(agg, frame, DS_GROUP_A);
	double b = ds_frame_mean(agg, frame, DS_GROUP_B);

	*is_new = a == 0.0 && b > 0.0;
	if (a == 0.0) {
		return 0.0;
	}
	return (b - a) / a;
}

void ds_frame_path(const struct ds_aggregate *agg, uint32_t frame,
		const char *separator, GString *out)
{
	uint32_t chain[1024];
	unsigned int n = 0;

	while (frame != 0 && n < G_N_ELEMENTS(chain)) {
		chain[n++] = frame;
		frame = ds_frame_at(agg, frame)->parent;
	}
	while (n-- > 0) {
		g_string_append(out, ds_frame_label(agg, ds_frame_at(agg, chain[n])));
		if (n > 0) {
			g_string_append(out, separator);
		}
	}
}

bool ds_aggregate_check_exact(const struct ds_aggregate *agg,
		__int128 *leaf_total, __int128 *latency_total)
{
	uint32_t i;

	*leaf_total = 0;
	for (i = 1; i < agg->frames->len; i++) {
		const struct ds_frame *frame = ds_frame_at(agg, i);

		if (frame->kind == DS_FRAME_LEAF) {
			*leaf_total += ds_frame_delta_numerator(agg, frame);
		}
	}
	*latency_total = (__int128) agg->latency_sum[DS_GROUP_B] *
			(__int128) agg->requests[DS_GROUP_A] -
		(__int128) agg->latency_sum[DS_GROUP_A] *
			(__int128) agg->requests[DS_GROUP_B];
	return *leaf_total == *latency_total;
}

double ds_aggregate_mean_latency(const struct ds_aggregate *agg, enum ds_group group)
{
	return agg->requests[group] ?
		(double) agg->latency_sum[group] / (double) agg->requests[group] : 0.0;
}
