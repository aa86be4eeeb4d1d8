/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a pair-records file (plugins/common/pair-records.h), as source.deepspan.clock-fit reads
 * what filter.deepspan.sync-extract `records=` wrote (doc/scale.md, "Pair records").
 *
 * The bytes are read item by item to the end item or the first error.  Invariants: no crash or sanitizer
 * report; an error message always names the file; and a file the reader takes whole is canonical: writing
 * back every item it read gives the same bytes (so nothing it accepts is read as something else).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair-records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(struct ds_pair_writer *w, const struct ds_pair_record *r)
{
	switch (r->item) {
	case DS_PAIR_ITEM_CLOCK:
		ds_pair_writer_clock(w, &r->clock_def);
		break;
	case DS_PAIR_ITEM_TIMED:
		ds_pair_writer_timed(w, r->port, r->clock, r->ns);
		break;
	case DS_PAIR_ITEM_TCP:
		ds_pair_writer_tcp(w, r->port, r->clock, r->ns, r->send, &r->key);
		break;
	case DS_PAIR_ITEM_SPAN:
		ds_pair_writer_span(w, r->port, r->clock, r->ns, &r->span);
		break;
	case DS_PAIR_ITEM_HTTP:
		ds_pair_writer_http(w, r->port, r->clock, r->ns, &r->http);
		break;
	default:
		fprintf(stderr, "fuzz_pair_records: an item of tag %d was returned\n", (int) r->item);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ds_pair_reader reader;
	struct ds_pair_writer writer;
	enum ds_pair_read_status status;
	char why[512], *copy = NULL;
	size_t copy_size = 0;
	FILE *in, *out;

	if (size == 0) {
		return 0;	/* fmemopen refuses an empty buffer */
	}
	in = fmemopen((void *) data, size, "rb");
	out = open_memstream(&copy, &copy_size);
	if (!in || !out) {
		abort();
	}
	ds_pair_writer_start(&writer, out);
	status = ds_pair_reader_start(&reader, in, "fuzz-input", why, sizeof(why));
	while (status == DS_PAIR_READ_OK) {
		status = ds_pair_reader_next(&reader, why, sizeof(why));
		if (status == DS_PAIR_READ_OK) {
			write_back(&writer, &reader.cur);
		}
	}
	if (status == DS_PAIR_READ_ERROR && !strstr(why, "\"fuzz-input\"")) {
		fprintf(stderr, "fuzz_pair_records: an error that does not name the file: %s\n", why);
		abort();
	}
	if (status == DS_PAIR_READ_END) {
		if (!ds_pair_writer_finish(&writer, reader.cur.end_ports)) {
			abort();
		}
		if (copy_size != size || memcmp(copy, data, size) != 0) {
			fprintf(stderr, "fuzz_pair_records: a whole file of %zu bytes writes back as %zu other bytes\n",
				size, copy_size);
			abort();
		}
	} else {
		ds_pair_writer_abandon(&writer);
	}
	ds_pair_reader_close(&reader);
	free(copy);
	return 0;
}
