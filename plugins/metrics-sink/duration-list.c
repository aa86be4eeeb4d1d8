/* SPDX-License-Identifier: MIT */
#include "duration-list.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 16
#define DIGITS (1u << DIGIT_BITS)

void ds_duration_list_init(struct ds_duration_list *list, struct ds_spill *spill)
{
	memset(list, 0, sizeof(*list));
	list->spill = spill;
	list->chunks = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	list->current = g_new(int64_t, DS_DURATION_CHUNK);
	list->max = INT64_MIN;
}

void ds_duration_list_fini(struct ds_duration_list *list)
{
	if (list->chunks) {
		g_array_free(list->chunks, TRUE);
	}
	g_free(list->current);
	memset(list, 0, sizeof(*list));
}

void ds_duration_list_add(struct ds_duration_list *list, int64_t value)
{
	if (list->current_count == DS_DURATION_CHUNK) {
		uint64_t offset = ds_spill_append(list->spill, list->current,
			DS_DURATION_CHUNK * sizeof(int64_t));

		g_array_append_val(list->chunks, offset);
		list->current_count = 0;
	}
	list->current[list->current_count++] = value;
	list->current_sorted = false;
	list->count++;
	list->max = MAX(list->max, value);
}

/* Order-preserving key of a signed value. */
static uint64_t key_of(int64_t value)
{
	return (uint64_t) value ^ (UINT64_C(1) << 63);
}

static gint compare_int64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* Counts, per digit at `shift`, the values whose key has `prefix` above `shift + 16` bits. */
static bool histogram(struct ds_duration_list *list, unsigned int shift, uint64_t prefix,
		uint64_t *counts, int64_t *buffer)
{
	unsigned int high = shift + DIGIT_BITS;
	guint c;

	memset(counts, 0, DIGITS * sizeof(uint64_t));
	for (c = 0; c <= list->chunks->len; c++) {
		const int64_t *values = list->current;
		uint32_t n = list->current_count, i;

		if (c < list->chunks->len) {
			if (!ds_spill_read(list->spill, g_array_index(list->chunks, uint64_t, c),
					buffer, DS_DURATION_CHUNK * sizeof(int64_t))) {
				return false;
			}
			values = buffer;
			n = DS_DURATION_CHUNK;
		}
		for (i = 0; i < n; i++) {
			uint64_t key = key_of(values[i]);

			if (high >= 64 || key >> high == prefix) {
				counts[(key >> shift) & (DIGITS - 1)]++;
			}
		}
	}
	return true;
}

/* The value of 0-based `rank` by radix selection over the chunks. */
static bool select_rank(struct ds_duration_list *list, uint64_t rank, int64_t *out)
{
	uint64_t *counts = g_new(uint64_t, DIGITS);
	int64_t *buffer = g_new(int64_t, DS_DURATION_CHUNK);
	uint64_t prefix = 0;
	int shift;
	bool ok = true;

	for (shift = 64 - DIGIT_BITS; shift >= 0 && ok; shift -= DIGIT_BITS) {
		uint32_t digit = 0;

		ok = histogram(list, (unsigned int) shift, prefix, counts, buffer);
		while (ok && rank >= counts[digit]) {
			rank -= counts[digit++];
		}
		prefix = prefix << DIGIT_BITS | digit;
	}
	*out = (int64_t) (prefix ^ (UINT64_C(1) << 63));
	g_free(counts);
	g_free(buffer);
	return ok;
}

uint64_t ds_nearest_rank(uint64_t n, double p)
{
	double rank = ceil(p / 100.0 * (double) n);
	uint64_t index = rank < 1 ? 0 : (uint64_t) rank - 1;

	return MIN(index, n - 1);
}

bool ds_duration_list_percentile(struct ds_duration_list *list, double p, int64_t *out)
{
	uint64_t index;

	*out = 0;
	if (list->count == 0) {
		return true;
	}
	index = ds_nearest_rank(list->count, p);
	if (list->chunks->len == 0) {
		/* Everything is in memory: sorted once, in place (the order of the values is not kept). */
		if (!list->current_sorted) {
			qsort(list->current, list->current_count, sizeof(int64_t), compare_int64);
			list->current_sorted = true;
		}
		*out = list->current[index];
		return true;
	}
	return select_rank(list, index, out);
}
