/* SPDX-License-Identifier: MIT */
#include "table.h"

#include <inttypes.h>
#include <string.h>

#include "json-writer.h"
#include "span-consumer/sanitize.h"

const char *const ds_table_format_names[] = { "text", "csv", "json", "markdown", NULL };

static void free_cell(gpointer data)
{
	struct ds_cell *cell = data;

	if (cell->kind == DS_CELL_STRING) {
		g_free(cell->value.string);
	}
}

void ds_table_init(struct ds_table *table, const char *const *columns)
{
	table->columns = columns;
	for (table->column_count = 0; columns[table->column_count]; table->column_count++) {
	}
	table->cells = g_array_new(FALSE, TRUE, sizeof(struct ds_cell));
	g_array_set_clear_func(table->cells, free_cell);
}

void ds_table_fini(struct ds_table *table)
{
	if (table->cells) {
		g_array_free(table->cells, TRUE);
		table->cells = NULL;
	}
}

static void append(struct ds_table *table, struct ds_cell cell)
{
	g_array_append_val(table->cells, cell);
}

void ds_table_string(struct ds_table *table, const char *value)
{
	GString *text = g_string_new(NULL);

	/* Every format writes the cell: made safe once (sanitize.h). */
	ds_sanitize_text(text, value);
	append(table, (struct ds_cell) { DS_CELL_STRING, { .string = g_string_free(text, FALSE) } });
}

void ds_table_int(struct ds_table *table, int64_t value)
{
	append(table, (struct ds_cell) { DS_CELL_INT, { .i = value } });
}

void ds_table_uint(struct ds_table *table, uint64_t value)
{
	append(table, (struct ds_cell) { DS_CELL_UINT, { .u = value } });
}

void ds_table_real(struct ds_table *table, double value)
{
	append(table, (struct ds_cell) { DS_CELL_REAL, { .real = value } });
}

void ds_table_bool(struct ds_table *table, bool value)
{
	append(table, (struct ds_cell) { DS_CELL_BOOL, { .flag = value } });
}

static const struct ds_cell *cell_at(const struct ds_table *table, unsigned int row,
		unsigned int column)
{
	return &g_array_index(table->cells, struct ds_cell,
		row * table->column_count + column);
}

/* The cell as text (reals with one decimal). */
static void cell_text(const struct ds_cell *cell, GString *out)
{
	g_string_truncate(out, 0);
	switch (cell->kind) {
	case DS_CELL_STRING:
		g_string_append(out, cell->value.string);
		break;
	case DS_CELL_INT:
		g_string_append_printf(out, "%" PRId64, cell->value.i);
		break;
	case DS_CELL_UINT:
		g_string_append_printf(out, "%" PRIu64, cell->value.u);
		break;
	case DS_CELL_REAL:
		g_string_append_printf(out, "%.1f", cell->value.real);
		break;
	case DS_CELL_BOOL:
		g_string_append(out, cell->value.flag ? "true" : "false");
		break;
	}
}

static void write_text(const struct ds_table *table, FILE *file, bool markdown)
{
	unsigned int rows = ds_table_rows(table), r, c;
	size_t *widths = g_new0(size_t, table->column_count);
	GString *text = g_string_new(NULL);

	for (c = 0; c < table->column_count; c++) {
		widths[c] = g_utf8_strlen(table->columns[c], -1);
		for (r = 0; r < rows; r++) {
			cell_text(cell_at(table, r, c), text);
			widths[c] = MAX(widths[c], (size_t) g_utf8_strlen(text->str, -1));
		}
	}
	for (r = 0; r <= rows; r++) {
		for (c = 0; c < table->column_count; c++) {
			bool left = r == 0 || cell_at(table, r - 1, c)->kind == DS_CELL_STRING;
			size_t pad;

			if (r == 0) {
				g_string_assign(text, table->columns[c]);
			} else {
				cell_text(cell_at(table, r - 1, c), text);
			}
			if (markdown) {
				/* A pipe inside a cell would end it. */
				for (pad = 0; pad < text->len; pad++) {
					if (text->str[pad] == '|') {
						text->str[pad] = '/';
					}
				}
			}
			pad = widths[c] - (size_t) g_utf8_strlen(text->str, -1);
			fputs(markdown ? (c == 0 ? "| " : " | ") : (c == 0 ? "" : "  "), file);
			if (!left) {
				fprintf(file, "%*s", (int) pad, "");
			}
			fputs(text->str, file);
			if (left && (markdown || c + 1 < table->column_count)) {
				fprintf(file, "%*s", (int) pad, "");
			}
		}
		fputs(markdown ? " |\n" : "\n", file);
		if (markdown && r == 0) {
			for (c = 0; c < table->column_count; c++) {
				bool numeric = rows > 0 && cell_at(table, 0, c)->kind != DS_CELL_STRING;
				size_t dashes;

				fputs(c == 0 ? "|" : "|", file);
				for (dashes = 0; dashes < widths[c] + 1; dashes++) {
					fputc('-', file);
				}
				fputc(numeric ? ':' : '-', file);
			}
			fputs("|\n", file);
		}
	}
	g_string_free(text, TRUE);
	g_free(widths);
}

static void write_csv_field(FILE *file, const char *text)
{
	const char *p;

	if (!strpbrk(text, ",\"\n\r")) {
		fputs(text, file);
		return;
	}
	fputc('"', file);
	for (p = text; *p; p++) {
		if (*p == '"') {
			fputc('"', file);
		}
		fputc(*p, file);
	}
	fputc('"', file);
}

static void write_csv(const struct ds_table *table, FILE *file)
{
	unsigned int rows = ds_table_rows(table), r, c;
	GString *text = g_string_new(NULL);

	for (c = 0; c < table->column_count; c++) {
		fputs(c ? "," : "", file);
		write_csv_field(file, table->columns[c]);
	}
	fputs("\r\n", file);
	for (r = 0; r < rows; r++) {
		for (c = 0; c < table->column_count; c++) {
			fputs(c ? "," : "", file);
			cell_text(cell_at(table, r, c), text);
			write_csv_field(file, text->str);
		}
		fputs("\r\n", file);
	}
	g_string_free(text, TRUE);
}

static void write_json(const struct ds_table *table, FILE *file, const char *name)
{
	struct ds_json_writer json;
	unsigned int rows = ds_table_rows(table), r, c;

	ds_json_init(&json, file, true);
	ds_json_begin_object(&json, NULL);
	ds_json_string(&json, "table", name);
	ds_json_begin_array(&json, "rows");
	for (r = 0; r < rows; r++) {
		ds_json_begin_object(&json, NULL);
		for (c = 0; c < table->column_count; c++) {
			const struct ds_cell *cell = cell_at(table, r, c);
			const char *key = table->columns[c];

			switch (cell->kind) {
			case DS_CELL_STRING:
				ds_json_string(&json, key, cell->value.string);
				break;
			case DS_CELL_INT:
				ds_json_int(&json, key, cell->value.i);
				break;
			case DS_CELL_UINT:
				ds_json_uint(&json, key, cell->value.u);
				break;
			case DS_CELL_REAL:
				ds_json_double(&json, key, cell->value.real);
				break;
			case DS_CELL_BOOL:
				ds_json_bool(&json, key, cell->value.flag);
				break;
			}
		}
		ds_json_end_object(&json);
	}
	ds_json_end_array(&json);
	ds_json_end_object(&json);
	fputc('\n', file);
}

void ds_table_write(const struct ds_table *table, FILE *file,
		enum ds_table_format format, const char *name)
{
	switch (format) {
	case DS_TABLE_TEXT:
		write_text(table, file, false);
		break;
	case DS_TABLE_CSV:
		write_csv(table, file);
		break;
	case DS_TABLE_JSON:
		write_json(table, file, name);
		break;
	case DS_TABLE_MARKDOWN:
		write_text(table, file, true);
		break;
	}
}
