/* SPDX-License-Identifier: MIT */
#include "json-writer.h"

#include <inttypes.h>
#include <math.h>

void ds_json_init(struct ds_json_writer *writer, FILE *file, bool pretty)
{
	writer->file = file;
	writer->pretty = pretty;
	writer->depth = 0;
	writer->has_members[0] = false;
}

void ds_json_write_escaped(FILE *file, const char *text)
{
	const unsigned char *cursor;

	fputc('"', file);
	for (cursor = (const unsigned char *) (text ? text : ""); *cursor; cursor++) {
		switch (*cursor) {
		case '"': fputs("\\\"", file); break;
		case '\\': fputs("\\\\", file); break;
		case '\n': fputs("\\n", file); break;
		case '\r': fputs("\\r", file); break;
		case '\t': fputs("\\t", file); break;
		default:
			if (*cursor < 0x20) {
				fprintf(file, "\\u%04x", *cursor);
			} else {
				fputc(*cursor, file);
			}
		}
	}
	fputc('"', file);
}

/* Separator, indentation and member name before any value. */
static void begin_value(struct ds_json_writer *writer, const char *key)
{
	unsigned int level;

	if (writer->depth > 0) {
		if (writer->has_members[writer->depth]) {
			fputc(',', writer->file);
		}
		writer->has_members[writer->depth] = true;
		if (writer->pretty) {
			fputc('\n', writer->file);
			for (level = 0; level < writer->depth; level++) {
				fputs("  ", writer->file);
			}
		}
	}
	if (key) {
		ds_json_write_escaped(writer->file, key);
		fputs(writer->pretty ? ": " : ":", writer->file);
	}
}

static void open_container(struct ds_json_writer *writer, const char *key, char opener)
{
	begin_value(writer, key);
	fputc(opener, writer->file);
	if (writer->depth + 1 < DS_JSON_MAX_DEPTH) {
		writer->depth++;
		writer->has_members[writer->depth] = false;
	}
}

static void close_container(struct ds_json_writer *writer, char closer)
{
	unsigned int level;
	bool had_members = writer->has_members[writer->depth];

	if (writer->depth > 0) {
		writer->depth--;
	}
	if (writer->pretty && had_members) {
		fputc('\n', writer->file);
		for (level = 0; level < writer->depth; level++) {
			fputs("  ", writer->file);
		}
	}
	fputc(closer, writer->file);
	if (writer->depth == 0 && writer->pretty) {
		fputc('\n', writer->file);
	}
}

void ds_json_begin_object(struct ds_json_writer *writer, const char *key)
{
	open_container(writer, key, '{');
}

void ds_json_end_object(struct ds_json_writer *writer)
{
	close_container(writer, '}');
}

void ds_json_begin_array(struct ds_json_writer *writer, const char *key)
{
	open_container(writer, key, '[');
}

void ds_json_end_array(struct ds_json_writer *writer)
{
	close_container(writer, ']');
}

void ds_json_string(struct ds_json_writer *writer, const char *key, const char *value)
{
	begin_value(writer, key);
	ds_json_write_escaped(writer->file, value);
}

void ds_json_int(struct ds_json_writer *writer, const char *key, int64_t value)
{
	begin_value(writer, key);
	fprintf(writer->file, "%" PRId64, value);
}

void ds_json_uint(struct ds_json_writer *writer, const char *key, uint64_t value)
{
	begin_value(writer, key);
	fprintf(writer->file, "%" PRIu64, value);
}

void ds_json_double(struct ds_json_writer *writer, const char *key, double value)
{
	begin_value(writer, key);
	if (isfinite(value)) {
		fprintf(writer->file, "%.17g", value);
	} else {
		fputs("null", writer->file);
	}
}

void ds_json_bool(struct ds_json_writer *writer, const char *key, bool value)
{
	begin_value(writer, key);
	fputs(value ? "true" : "false", writer->file);
}

void ds_json_null(struct ds_json_writer *writer, const char *key)
{
	begin_value(writer, key);
	fputs("null", writer->file);
}
