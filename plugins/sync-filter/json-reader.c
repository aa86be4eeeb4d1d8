/*
 * A small JSON reader (see json-reader.h): recursive descent over a buffer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-reader.h"

#define MAX_DEPTH 64

struct parser {
	const char *p;
	const char *end;
	const char *start;
	char *err;
	size_t err_size;
	bool failed;
};

/* A growable byte buffer for strings. */
struct buf {
	char *data;
	size_t len, cap;
};

static bool buf_push(struct buf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *data = realloc(b->data, cap);

		if (!data) {
			return false;
		}
		b->data = data;
		b->cap = cap;
	}
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return true;
}

static void fail(struct parser *ps, const char *what)
{
	const char *c;
	unsigned int line = 1, col = 1;

	if (ps->failed) {
		return;
	}
	for (c = ps->start; c < ps->p && c < ps->end; c++) {
		if (*c == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(ps->err, ps->err_size, "%s at line %u, column %u", what, line, col);
	ps->failed = true;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
			*ps->p == '\n' || *ps->p == '\r')) {
		ps->p++;
	}
}

static struct ds_json_value *new_value(enum ds_json_type type)
{
	struct ds_json_value *v = calloc(1, sizeof(*v));

	if (v) {
		v->type = type;
	}
	return v;
}

static bool push_utf8(struct buf *b, unsigned long cp)
{
	if (cp < 0x80) {
		return buf_push(b, (char) cp);
	}
	if (cp < 0x800) {
		return buf_push(b, (char) (0xc0 | (cp >> 6))) &&
			buf_push(b, (char) (0x80 | (cp & 0x3f)));
	}
	if (cp < 0x10000) {
		return buf_push(b, (char) (0xe0 | (cp >> 12))) &&
			buf_push(b, (char) (0x80 | ((cp >> 6) & 0x3f))) &&
			buf_push(b, (char) (0x80 | (cp & 0x3f)));
	}
	return buf_push(b, (char) (0xf0 | (cp >> 18))) &&
		buf_push(b, (char) (0x80 | ((cp >> 12) & 0x3f))) &&
		buf_push(b, (char) (0x80 | ((cp >> 6) & 0x3f))) &&
		buf_push(b, (char) (0x80 | (cp & 0x3f)));
}

static bool read_hex4(struct parser *ps, unsigned long *out)
{
	int i;

	*out = 0;
	if (ps->end - ps->p < 4) {
		return false;
	}
	for (i = 0; i < 4; i++) {
		char c = *ps->p++;

		*out <<= 4;
		if (c >= '0' && c <= '9') {
			*out |= (unsigned long) (c - '0');
		} else if (c >= 'a' && c <= 'f') {
			*out |= (unsigned long) (c - 'a' + 10);
		} else if (c >= 'A' && c <= 'F') {
			*out |= (unsigned long) (c - 'A' + 10);
		} else {
			return false;
		}
	}
	return true;
}

static bool read_escape(struct parser *ps, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned long cp, low;

	if (ps->p >= ps->end) {
		return false;
	}
	hit = strchr(from, *ps->p);
	if (hit && *ps->p) {
		ps->p++;
		return buf_push(b, to[hit - from]);
	}
	if (*ps->p++ != 'u' || !read_hex4(ps, &cp)) {
		return false;
	}
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
			return false;
		}
		ps->p += 2;
		if (!read_hex4(ps, &low) || low < 0xdc00 || low >= 0xe000) {
			return false;
		}
		cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
	}
	return push_utf8(b, cp);
}

/* Reads a string after its opening quote; returns an owned C string. */
static char *read_string(struct parser *ps)
{
	struct buf b = { 0 };

	if (!buf_push(&b, 'x')) {
		goto error;
	}
	b.len = 0;
	b.data[0] = '\0';
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char) *ps->p;

		if (c < 0x20) {
			fail(ps, "control character in a string");
			goto error;
		}
		if (c == '\\') {
			ps->p++;
			if (!read_escape(ps, &b)) {
				fail(ps, "invalid escape in a string");
				goto error;
			}
			continue;
		}
		if (!buf_push(&b, (char) c)) {
			goto error;
		}
		ps->p++;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unterminated string");
		goto error;
	}
	ps->p++;
	return b.data;

error:
	fail(ps, "out of memory");
	free(b.data);
	return NULL;
}

static struct ds_json_value *parse_value(struct parser *ps, int depth);

static struct ds_json_value *parse_number(struct parser *ps)
{
	const char *s = ps->p;
	struct ds_json_value *v;
	bool integer = true;
	char tmp[64], *endp;
	size_t len;

	if (ps->p < ps->end && *ps->p == '-') {
		ps->p++;
	}
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
		fail(ps, "expected a value");
		return NULL;
	}
	while (ps->p < ps->end && ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' ||
			*ps->p == 'e' || *ps->p == 'E' || *ps->p == '+' || *ps->p == '-')) {
		if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E') {
			integer = false;
		}
		ps->p++;
	}
	len = (size_t) (ps->p - s);
	if (len >= sizeof(tmp)) {
		fail(ps, "number too long");
		return NULL;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v = new_value(DS_JSON_NUMBER);
	if (!v) {
		fail(ps, "out of memory");
		return NULL;
	}
	errno = 0;
	v->number = strtod(tmp, &endp);
	if (*endp != '\0') {
		ps->p = s;
		fail(ps, "malformed number");
		free(v);
		return NULL;
	}
	if (integer) {
		errno = 0;
		v->integer = strtoll(tmp, &endp, 10);
		v->is_integer = errno == 0 && *endp == '\0';
	}
	return v;
}

static bool add_item(struct ds_json_value *v, char *key, struct ds_json_value *item)
{
	struct ds_json_value **items = realloc(v->items, (v->count + 1) * sizeof(*items));

	if (!items) {
		return false;
	}
	v->items = items;
	if (v->type == DS_JSON_OBJECT) {
		char **keys = realloc(v->keys, (v->count + 1) * sizeof(*keys));

		if (!keys) {
			return false;
		}
		v->keys = keys;
		v->keys[v->count] = key;
	}
	v->items[v->count++] = item;
	return true;
}

static struct ds_json_value *parse_container(struct parser *ps, int depth, bool object)
{
	struct ds_json_value *v = new_value(object ? DS_JSON_OBJECT : DS_JSON_ARRAY);
	char close = object ? '}' : ']';

	if (!v) {
		goto oom;
	}
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct ds_json_value *item;

		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a member name");
				goto error;
			}
			ps->p++;
			key = read_string(ps);
			skip_ws(ps);
			if (!key || ps->p >= ps->end || *ps->p != ':') {
				free(key);
				fail(ps, "expected ':'");
				goto error;
			}
			ps->p++;
		}
		item = parse_value(ps, depth + 1);
		if (!item || !add_item(v, key, item)) {
			free(key);
			ds_json_free(item);
			fail(ps, "out of memory");
			goto error;
		}
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return v;
		}
		fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		goto error;
	}
oom:
	fail(ps, "out of memory");
error:
	ds_json_free(v);
	return NULL;
}

static bool match_word(struct parser *ps, const char *word)
{
	size_t len = strlen(word);

	if ((size_t) (ps->end - ps->p) >= len && memcmp(ps->p, word, len) == 0) {
		ps->p += len;
		return true;
	}
	return false;
}

static struct ds_json_value *parse_value(struct parser *ps, int depth)
{
	struct ds_json_value *v;

	if (depth > MAX_DEPTH) {
		fail(ps, "nesting too deep");
		return NULL;
	}
	skip_ws(ps);
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_container(ps, depth, *ps->p++ == '{');
	case '"':
		ps->p++;
		v = new_value(DS_JSON_STRING);
		if (v && !(v->string = read_string(ps))) {
			free(v);
			v = NULL;
		}
		return v;
	default:
		break;
	}
	if (match_word(ps, "true") || match_word(ps, "false")) {
		v = new_value(DS_JSON_BOOL);
		if (v) {
			v->boolean = ps->p[-1] == 'e' && ps->p[-2] == 'u';
		}
		return v;
	}
	if (match_word(ps, "null")) {
		return new_value(DS_JSON_NULL);
	}
	return parse_number(ps);
}

struct ds_json_value *ds_json_parse(const char *text, size_t len, char *err, size_t err_size)
{
	struct parser ps = {
		.p = text, .end = text + len, .start = text, .err = err, .err_size = err_size,
	};
	struct ds_json_value *v = parse_value(&ps, 0);

	if (v) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			fail(&ps, "trailing characters after the document");
			ds_json_free(v);
			v = NULL;
		}
	} else if (!ps.failed) {
		fail(&ps, "out of memory");
	}
	return v;
}

struct ds_json_value *ds_json_parse_file(const char *path, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long size;
	struct ds_json_value *v = NULL;
	char inner[256];

	if (!f) {
		snprintf(err, err_size, "cannot open \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(err, err_size, "cannot read \"%s\": %s", path, strerror(errno));
		goto end;
	}
	text = malloc((size_t) size + 1);
	if (!text || fread(text, 1, (size_t) size, f) != (size_t) size) {
		snprintf(err, err_size, "cannot read \"%s\"", path);
		goto end;
	}
	v = ds_json_parse(text, (size_t) size, inner, sizeof(inner));
	if (!v) {
		snprintf(err, err_size, "\"%s\" is not valid JSON: %s", path, inner);
	}
end:
	free(text);
	fclose(f);
	return v;
}

void ds_json_free(struct ds_json_value *value)
{
	size_t i;

	if (!value) {
		return;
	}
	for (i = 0; i < value->count; i++) {
		ds_json_free(value->items[i]);
		if (value->keys) {
			free(value->keys[i]);
		}
	}
	free(value->items);
	free(value->keys);
	free(value->string);
	free(value);
}

const struct ds_json_value *ds_json_get(const struct ds_json_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != DS_JSON_OBJECT) {
		return NULL;
	}
	for (i = 0; i < obj->count; i++) {
		if (strcmp(obj->keys[i], key) == 0) {
			return obj->items[i];
		}
	}
	return NULL;
}

const struct ds_json_value *ds_json_at(const struct ds_json_value *arr, size_t i)
{
	if (!arr || arr->type != DS_JSON_ARRAY || i >= arr->count) {
		return NULL;
	}
	return arr->items[i];
}

bool ds_json_get_int(const struct ds_json_value *obj, const char *key, int64_t *out)
{
	const struct ds_json_value *v = ds_json_get(obj, key);

	if (!v || v->type != DS_JSON_NUMBER || !v->is_integer) {
		return false;
	}
	*out = v->integer;
	return true;
}

bool ds_json_get_double(const struct ds_json_value *obj, const char *key, double *out)
{
	const struct ds_json_value *v = ds_json_get(obj, key);

	if (!v || v->type != DS_JSON_NUMBER) {
		return false;
	}
	*out = v->number;
	return true;
}

const char *ds_json_get_string(const struct ds_json_value *obj, const char *key)
{
	const struct ds_json_value *v = ds_json_get(obj, key);

	return v && v->type == DS_JSON_STRING ? v->string : NULL;
}
