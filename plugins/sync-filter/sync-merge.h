/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync's one-pass merge (a `formula`) without the trace IR copy, for a filter that reads
 * the hosts' traces itself (span-attrib's `clock-formula`, doc/span-attrib.md).
 *
 * The formula is validated as sync's `formula` is (the same checks and texts, naming the caller's class
 * and parameter); the inputs are merged exactly as sync's pass 2 merges them (the same reorder buffer,
 * windows, floor and tie order: arrival order of whole upstream batches from the limiting input), so the
 * messages come out in the order, and with the times, that sync's copies would have; only the messages
 * themselves are the upstream's (on their hosts' clocks): the caller takes each message's time from
 * ds_sync_merge_next(), and uses ds_sync_merge_clock(), a clock class equal to sync's synchronized one.
 */
#ifndef DEEPSPAN_SYNC_MERGE_H
#define DEEPSPAN_SYNC_MERGE_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

struct ds_json_value;
struct ds_sync_merge;

/* Who uses the merge: causes and warnings name `class_name`, `param` and `doc_page` (all static). */
struct ds_sync_merge_owner {
	bt_self_component *self_comp;		/* borrowed */
	const char *class_name;
	const char *param;
	const char *doc_page;
};

/* Reads and checks the formula file (sync's rules for the file); NULL with the cause appended. */
struct ds_json_value *ds_sync_merge_load_formula(const struct ds_sync_merge_owner *owner, const char *path);

void ds_sync_merge_free_formula(struct ds_json_value *formula);

/*
 * A merge of `count` upstream iterators (references moved in, also on failure) by the formula `formula`
 * (borrowed, must outlive the merge; read from `path`); NULL with the cause appended (a formula field out
 * of range, out of memory).
 */
struct ds_sync_merge *ds_sync_merge_create(const struct ds_sync_merge_owner *owner,
		bt_self_message_iterator *self, const char *path, const struct ds_json_value *formula,
		bt_message_iterator **iters, unsigned int count);

/*
 * The next message (reference moved to the caller) and its time on the synchronized clock in cycles of
 * ds_sync_merge_clock() (1 GHz: ns; what sync's copy of it would carry in its default clock snapshot, or
 * the beginning snapshot of a discarded message).  END when every input ended; AGAIN, ERROR (cause
 * appended: an upstream failed, a time the formula maps outside int64, a host not in the formula),
 * MEMORY_ERROR as an upstream's.
 */
bt_message_iterator_class_next_method_status ds_sync_merge_next(struct ds_sync_merge *merge,
		const bt_message **msg, uint64_t *cycles);

/* The synchronized clock class (borrowed): sync's (name, description, UUID, 1 GHz, offset 0, origin). */
const bt_clock_class *ds_sync_merge_clock(const struct ds_sync_merge *merge);

void ds_sync_merge_destroy(struct ds_sync_merge *merge);

#endif /* DEEPSPAN_SYNC_MERGE_H */
