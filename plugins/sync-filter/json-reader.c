/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader (see json-reader.h): recursive descent over a buffer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json-reader.h"

struct parser {
	const char *p;
	const char *end;
	const char *start;
	char *err;
	size_t err_size;
	bool failed;
	size_t values;			/* values made so far (DS_JSON_MAX_VALUES) */
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
	if (cp == 0 || (cp >= 0xdc00 && cp < 0xe000)) {
		/* a NUL would cut the C string; a low surrogate needs a high one first */
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

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form,
 * no surrogate, at most U+10FFFF), 0 when ill-formed or cut by `end`.
 */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		lo = p[0] == 0xe0 ? 0xa0 : 0x80;
		hi = p[0] == 0xed ? 0x9f : 0xbf;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		lo = p[0] == 0xf0 ? 0x90 : 0x80;
		hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if ((size_t) (end - p) < len || p[1] < lo || p[1] > hi) {
		return 0;
	}
	for (i = 2; i < len; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf) {
			return 0;
		}
	}
	return len;
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
				fail(ps, "invalid escape in a string (\\u0000 and unpaired surrogates "
					"are refused)");
				goto error;
			}
			continue;
		}
		if (c >= 0x80) {
			size_t n = utf8_length((const unsigned char *) ps->p,
				(const unsigned char *) ps->end), k;

			if (n == 0) {
				fail(ps, "invalid UTF-8 in a string");
				goto error;
			}
			for (k = 0; k < n; k++) {
				if (!buf_push(&b, ps->p[k])) {
					goto error;
				}
			}
			ps->p += n;
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

static bool is_digit(const struct parser *ps)
{
	return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
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
	if (!is_digit(ps)) {
		fail(ps, "expected a value");
		return NULL;
	}
	if (*ps->p++ != '0') {
		while (is_digit(ps)) {
			ps->p++;
		}
	} else if (is_digit(ps)) {
		fail(ps, "malformed number (no leading zero allowed)");
		return NULL;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		integer = false;
		ps->p++;
		if (!is_digit(ps)) {
			fail(ps, "malformed number (a digit must follow '.')");
			return NULL;
		}
		while (is_digit(ps)) {
			ps->p++;
		}
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		integer = false;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) {
			ps->p++;
		}
		if (!is_digit(ps)) {
			fail(ps, "malformed number (a digit must follow the exponent mark)");
			return NULL;
		}
		while (is_digit(ps)) {
			ps->p++;
		}
	}
	len = (size_t) (ps->p - s);
	if (len >= sizeof(tmp)) {
		ps->p = s;
		fail(ps, "number too long (more than 63 characters)");
		return NULL;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v = new_value(DS_JSON_NUMBER);
	if (!v) {
		fail(ps, "out of memory");
		return NULL;
	}
	v->number = strtod(tmp, &endp);
	if (*endp != '\0' || !isfinite(v->number)) {
		ps->p = s;
		fail(ps, *endp ? "malformed number" : "number out of range (beyond a double)");
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

/*
 * Appends an item; the arrays grow to the next power of two when `count`
 * reaches one (the capacity is implied by the count: linear total copying).
 */
static bool add_item(struct ds_json_value *v, char *key, struct ds_json_value *item)
{
	if (v->count == 0 || (v->count & (v->count - 1)) == 0) {
		size_t cap = v->count ? v->count * 2 : 1;
		struct ds_json_value **items = realloc(v->items, cap * sizeof(*items));

		if (!items) {
			return false;
		}
		v->items = items;
		if (v->type == DS_JSON_OBJECT) {
			char **keys = realloc(v->keys, cap * sizeof(*keys));

			if (!keys) {
				return false;
			}
			v->keys = keys;
		}
	}
	if (v->type == DS_JSON_OBJECT) {
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

	if (++ps->values > DS_JSON_MAX_VALUES) {
		fail(ps, "too many values (more than 1000000)");
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
		/* `depth` containers enclose this one */
		if (depth >= DS_JSON_MAX_DEPTH) {
			fail(ps, "nesting too deep (more than 64 levels)");
			return NULL;
		}
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
	size_t size = 0, got, cap;
	struct ds_json_value *v = NULL;
	struct stat st;
	char inner[256];

	if (!f) {
		snprintf(err, err_size, "cannot open \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st)) {
		snprintf(err, err_size, "cannot read \"%s\": %s", path, strerror(errno));
		goto end;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_size, "\"%s\" is not a regular file", path);
		goto end;
	}
	if (st.st_size > DS_JSON_MAX_FILE_SIZE) {
		snprintf(err, err_size, "\"%s\" is larger than %d MiB (%lld bytes): not a file "
			"deepspan wrote", path, DS_JSON_MAX_FILE_SIZE >> 20, (long long) st.st_size);
		goto end;
	}
	/* one byte more than the size, to see a file that grew since fstat() */
	cap = (size_t) st.st_size + 1;
	text = malloc(cap);
	if (!text) {
		snprintf(err, err_size, "cannot read \"%s\": out of memory", path);
		goto end;
	}
	while (size < cap && (got = fread(text + size, 1, cap - size, f)) > 0) {
		size += got;
	}
	if (ferror(f) || size == cap) {
		snprintf(err, err_size, "cannot read \"%s\"%s", path,
			size == cap ? ": it changed while being read" : "");
		goto end;
	}
	v = ds_json_parse(text, size, inner, sizeof(inner));
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
