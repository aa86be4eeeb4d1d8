/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync's formula merge without the IR copy (sync-merge.h).  It drives a struct sync_iter
 * in formula mode with sync's own pieces (sync_apply_formula, sync_host_of through sync_message_key,
 * sync_limiting_input, the reorder buffer, sync_make_out_clock) and the release loop of sync-iter.c's
 * pass2_next(), one message at a time: the same pulls, pushes and pops, so the same order.
 */
#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "sync.h"
#include "sync-merge.h"

struct ds_sync_merge {
	struct sync_comp comp;			/* formula borrowed (the caller's), paths borrowed */
	struct sync_iter it;			/* hosts, inputs, reorder buffer: owned */
	struct ds_sync_merge_owner owner;
};

struct ds_json_value *ds_sync_merge_load_formula(const struct ds_sync_merge_owner *owner, const char *path)
{
	struct sync_comp comp = {
		.self_comp = owner->self_comp, .class_name = owner->class_name,
		.formula_param = owner->param, .formula_path = (char *) path,
	};

	return sync_load_formula(&comp) ? NULL : comp.formula;
}

void ds_sync_merge_free_formula(struct ds_json_value *formula)
{
	ds_json_free(formula);
}

void ds_sync_merge_destroy(struct ds_sync_merge *m)
{
	if (!m) {
		return;
	}
	sync_iter_release(&m->it);
	g_free(m);
}

struct ds_sync_merge *ds_sync_merge_create(const struct ds_sync_merge_owner *owner,
		bt_self_message_iterator *self, const char *path, const struct ds_json_value *formula,
		bt_message_iterator **iters, unsigned int count)
{
	struct ds_sync_merge *m = g_new0(struct ds_sync_merge, 1);
	struct sync_iter *it = &m->it;
	unsigned int i;

	m->owner = *owner;
	m->comp = (struct sync_comp) {
		.self_comp = owner->self_comp, .class_name = owner->class_name, .formula_param = owner->param,
		.formula_path = (char *) path, .formula = (struct ds_json_value *) formula,
	};
	it->comp = &m->comp;
	it->self = self;
	it->owner = (struct ds_upstream_owner) { .self_msg_iter = self, .class_name = owner->class_name,
		.doc_page = owner->doc_page };
	sync_iter_tables_init(it);
	it->inputs = g_new0(struct sync_input, count ? count : 1);
	for (i = 0; i < count; i++) {
		it->inputs[i].iter = iters[i];
		it->inputs[i].hosts_seen = g_array_new(FALSE, TRUE, sizeof(gboolean));
		iters[i] = NULL;
	}
	it->input_count = count;
	it->phase = SYNC_PHASE_PASS2;
	if (sync_apply_formula(it) || sync_make_out_clock(it)) {
		ds_sync_merge_destroy(m);
		return NULL;
	}
	return m;
}

const bt_clock_class *ds_sync_merge_clock(const struct ds_sync_merge *m)
{
	return m->it.out_clock;
}

/* sync-iter.c's push_copy() without the copy: the upstream's message goes in (reference moved). */
static bt_message_iterator_class_next_method_status push(struct sync_iter *it, struct sync_input *in,
		const bt_message *msg)
{
	int64_t key;
	bool timed;
	int host;

	if (sync_message_key(it, in, msg, &key, &timed, &host)) {
		bt_message_put_ref(msg);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	sync_reorder_push(it, in, key, timed, host, (void *) msg);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* sync-iter.c's pull(): one upstream batch of the limiting input into the buffer. */
static bt_message_iterator_class_next_method_status pull(struct ds_sync_merge *m, int index)
{
	struct sync_iter *it = &m->it;
	struct sync_input *in = &it->inputs[index];
	bt_message_iterator_class_next_method_status st;
	bt_message_array_const msgs;
	uint64_t count;

	st = sync_input_next(it, (unsigned int) index, &msgs, &count);
	if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END) {
		return sync_push_held(it, in, push);
	}
	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return st;
	}
	return sync_push_batch(it, in, msgs, count, push);
}

static void warn_at_end(struct ds_sync_merge *m)
{
	sync_formula_warn_unused(&m->it);
	if (m->it.late) {
		DS_LOG_WARN(m->owner.self_comp, m->owner.class_name,
			"%" PRIu64 " messages arrived later than the reorder window of `%s` allowed "
			"and were given the previous timestamp", m->it.late, m->owner.param);
	}
	sync_warn_stream_backsteps(&m->it, m->owner.self_comp, m->owner.class_name);
}

bt_message_iterator_class_next_method_status ds_sync_merge_next(struct ds_sync_merge *m,
		const bt_message **msg, uint64_t *cycles)
{
	struct sync_iter *it = &m->it;
	bt_message_iterator_class_next_method_status st = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;

	*msg = NULL;
	while (it->phase != SYNC_PHASE_DONE) {
		int64_t bound;
		int limiting = sync_limiting_input(it, &bound);
		const struct ds_reorder_item *head = ds_reorder_peek(&it->reorder);

		if (head && (limiting < 0 || head->key <= bound)) {
			struct ds_reorder_item p = ds_reorder_pop(&it->reorder);

			if (p.key != INT64_MIN && p.key != INT64_MAX && (!it->has_floor || p.key > it->floor)) {
				it->floor = p.key;
				it->has_floor = true;
			}
			*msg = p.data;
			/* sync's copy: the key's snapshot gets the key (already clamped to the floor), 0 below 0 */
			*cycles = p.key < 0 ? 0 : (uint64_t) p.key;
			goto end;
		}
		if (limiting < 0) {
			it->phase = SYNC_PHASE_DONE;
			warn_at_end(m);
			break;
		}
		st = pull(m, limiting);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			goto end;
		}
	}
	st = BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
end:
	return st;
}
