/* SPDX-License-Identifier: MIT */
/*
 * A small table model and its four writers (aligned text, CSV, JSON through
 * json-writer.h, Markdown) for sink.deepspan.metrics.  Cells are appended row
 * by row, left to right.
 */
#ifndef DEEPSPAN_DIFF_TABLE_H
#define DEEPSPAN_DIFF_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

enum ds_table_format {
	DS_TABLE_TEXT = 0,
	DS_TABLE_CSV,
	DS_TABLE_JSON,
	DS_TABLE_MARKDOWN,
};

extern const char *const ds_table_format_names[];

enum ds_cell_kind { DS_CELL_STRING, DS_CELL_INT, DS_CELL_UINT, DS_CELL_REAL, DS_CELL_BOOL };

struct ds_cell {
	enum ds_cell_kind kind;
	union {
		char *string;	/* owned */
		int64_t i;
		uint64_t u;
		double real;
		bool flag;
	} value;
};

struct ds_table {
	const char *const *columns;	/* borrowed, NULL-terminated */
	unsigned int column_count;
	GArray *cells;			/* owned: struct ds_cell, row-major */
};

void ds_table_init(struct ds_table *table, const char *const *columns);
void ds_table_fini(struct ds_table *table);
void ds_table_string(struct ds_table *table, const char *value);
void ds_table_int(struct ds_table *table, int64_t value);
void ds_table_uint(struct ds_table *table, uint64_t value);
void ds_table_real(struct ds_table *table, double value);
void ds_table_bool(struct ds_table *table, bool value);

static inline unsigned int ds_table_rows(const struct ds_table *table)
{
	return table->column_count ? table->cells->len / table->column_count : 0;
}

/* Writes the table; `name` is the JSON document's `table` member. */
void ds_table_write(const struct ds_table *table, FILE *file,
		enum ds_table_format format, const char *name);

#endif /* DEEPSPAN_DIFF_TABLE_H */
