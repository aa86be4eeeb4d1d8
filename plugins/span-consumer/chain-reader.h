/* SPDX-License-Identifier: MIT */
/*
 * Reading the critical-path chain of a span (doc/critical-path.md, "Reading chains"), private to the span
 * reader: its entries, read with the strings cache of chain-strings.h, checked against the span's segments,
 * labelled (chain-labels.h), and the deadlocks and stuck threads it ends in counted.
 */
#ifndef DEEPSPAN_SPAN_CONSUMER_CHAIN_READER_H
#define DEEPSPAN_SPAN_CONSUMER_CHAIN_READER_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "span-layout.h"
#include "span-reader.h"
#include "span-store.h"

/*
 * Whether every integer member of chain entries laid out as `chain` has the signedness
 * filter.deepspan.span-attrib writes: ds_chain_read then reads them without looking it up.
 */
bool ds_chain_is_standard(const struct element_layout *chain);

/*
 * Reads the chain `array` of `span`, whose segments `reader->wide` holds as read, into the store's arena when
 * it keeps the invariants; otherwise the span keeps no chain and the chain is counted as invalid.
 */
void ds_chain_read(const struct ds_span_layout *layout, const bt_field *array,
		struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader);

#endif /* DEEPSPAN_SPAN_CONSUMER_CHAIN_READER_H */
