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

/* A string of a packed chain's table: where it is in the packed text, and its interned id once needed. */
struct ds_packed_string {
	const char *text;	/* borrowed: in the event's `chain_packed` */
	uint64_t length;
	uint32_t id;		/* 0: not interned yet (no string of the table is empty) */
};

/*
 * Reads the packed chain `text` (member `chain_packed`, common/chain-packed.h) of `span` as ds_chain_read
 * does; a text not of the format is counted as an invalid chain too.
 */
void ds_chain_read_packed(const bt_field *text, struct ds_span *span, struct ds_span_store *store,
		struct ds_span_reader *reader);

#endif /* DEEPSPAN_SPAN_CONSUMER_CHAIN_READER_H */
