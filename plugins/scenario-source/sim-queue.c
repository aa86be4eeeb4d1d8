/* SPDX-License-Identifier: MIT */
#include "sim-queue.h"

#include <stdlib.h>

void sim_queue_init(struct sim_queue *queue)
{
	queue->items = NULL;
	queue->len = 0;
	queue->cap = 0;
	queue->next_seq = 0;
}

void sim_queue_fini(struct sim_queue *queue)
{
	free(queue->items);
	sim_queue_init(queue);
}

static bool action_before(const struct sim_action *a, const struct sim_action *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

bool sim_queue_push(struct sim_queue *queue, int64_t time, uint32_t kind,
		uint32_t arg, uint64_t gen, void *target)
{
	size_t i;

	if (queue->len == queue->cap) {
		size_t cap = queue->cap ? queue->cap * 2 : 256;
		struct sim_action *items = realloc(queue->items, cap * sizeof(*items));

		if (!items) {
			return false;
		}
		queue->items = items;
		queue->cap = cap;
	}
	i = queue->len++;
	queue->items[i] = (struct sim_action) {
		.time = time, .seq = queue->next_seq++, .kind = kind,
		.arg = arg, .gen = gen, .target = target,
	};
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		struct sim_action tmp;

		if (!action_before(&queue->items[i], &queue->items[parent])) {
			break;
		}
		tmp = queue->items[i];
		queue->items[i] = queue->items[parent];
		queue->items[parent] = tmp;
		i = parent;
	}
	return true;
}

bool sim_queue_pop(struct sim_queue *queue, struct sim_action *out)
{
	size_t i = 0;

	if (queue->len == 0) {
		return false;
	}
	*out = queue->items[0];
	queue->items[0] = queue->items[--queue->len];
	for (;;) {
		size_t left = 2 * i + 1;
		size_t right = left + 1;
		size_t best = i;
		struct sim_action tmp;

		if (left < queue->len && action_before(&queue->items[left], &queue->items[best])) {
			best = left;
		}
		if (right < queue->len && action_before(&queue->items[right], &queue->items[best])) {
			best = right;
		}
		if (best == i) {
			break;
		}
		tmp = queue->items[i];
		queue->items[i] = queue->items[best];
		queue->items[best] = tmp;
		i = best;
	}
	return true;
}
