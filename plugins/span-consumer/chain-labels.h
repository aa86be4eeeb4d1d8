/* SPDX-License-Identifier: MIT */
/*
 * The labels of a span's chain entries, read by chain-reader.c (doc/critical-path.md,
 * "Reading chains"): frame, step, explain note and who ran instead, interned in the store.
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_CHAIN_LABELS_H
#define DEEPSPAN_SPAN_CONSUMER_CHAIN_LABELS_H

#include <stdint.h>
#include <glib.h>

#include "span-store.h"

/* A label cache: a direct-mapped front of recent keys over a hash table of every key (both owned). */
struct ds_chain_label_cache;

struct ds_chain_label_cache *ds_chain_label_cache_new(void);
void ds_chain_label_cache_destroy(struct ds_chain_label_cache *cache);

/*
 * Sets the labels (frame, step, note, ran_comm, ran_tid) and the `leaf` flag of the `count`
 * entries of `chain` (checked, depth-first), through `cache`; `scratch` is a work buffer.
 */
void ds_chain_label(struct ds_chain_label_cache *cache, GString *scratch, struct ds_span_store *store,
		struct ds_stored_chain_entry *chain, uint32_t count);

#endif /* DEEPSPAN_SPAN_CONSUMER_CHAIN_LABELS_H */
