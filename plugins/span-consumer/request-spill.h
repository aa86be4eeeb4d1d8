/* SPDX-License-Identifier: MIT */
/*
 * The spill file of a sink: what complete requests leave behind when their
 * spans leave memory (their recorded attribution and their spans with their
 * segments), written sequentially and read back by offset at the end.
 *
 * The file is created in the output directory and unlinked at once: it
 * takes disk space, not memory, and disappears with the process.
 */
#ifndef DEEPSPAN_DIFF_REQUEST_SPILL_H
#define DEEPSPAN_DIFF_REQUEST_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "request-record.h"
#include "request-tree.h"
#include "span-store.h"

struct ds_spill {
	int fd;			/* owned; -1 when not open */
	uint64_t size;		/* bytes written or buffered */
	GByteArray *buffer;	/* owned: bytes not written yet */
	int error;		/* first errno of a failed write or read, 0 = none */
};

/* Creates the file in `dir`; false with errno set on failure. */
bool ds_spill_open(struct ds_spill *spill, const char *dir);
void ds_spill_close(struct ds_spill *spill);

/* Appends `size` bytes; returns their offset. */
uint64_t ds_spill_append(struct ds_spill *spill, const void *data, size_t size);

/* Reads `size` bytes at `offset` into `out`; false on failure (spill->error set). */
bool ds_spill_read(struct ds_spill *spill, uint64_t offset, void *out, size_t size);

/*
 * Spills request `index`: its recorded attribution `entries` (GArray of
 * struct ds_attribution_entry) and its spans with their segments and chains (the
 * chains in the compact form of chain-spill.h; not their syscall totals); sets the
 * spill fields of `record`.
 */
void ds_spill_write_request(struct ds_spill *spill, const struct ds_span_store *store,
		const struct ds_requests *requests, uint32_t index, const GArray *entries,
		struct ds_request_record *record);

/* Reads the recorded attribution of `record` into `entries` (resized). */
bool ds_spill_read_attribution(struct ds_spill *spill,
		const struct ds_request_record *record, GArray *entries);

/* Appends the spans of `record` to `store` (which shares the strings of the writer's). */
bool ds_spill_read_spans(struct ds_spill *spill, const struct ds_request_record *record,
		struct ds_span_store *store);

#endif /* DEEPSPAN_DIFF_REQUEST_SPILL_H */
