/* SPDX-License-Identifier: MIT */
/*
 * The details of chain entries (doc/critical-path.md, "Encoding") without printf: every detail is a few
 * names and integers concatenated ("recvfrom ← frontend/route/1142", "segment alpha → beta"), and vsnprintf
 * cost ~1,300 instructions for each of them.  ds_chain_text_vformat() writes the bytes vsnprintf writes,
 * truncated the same way, for the conversions `%s`, `%u` (PRIu32), `%ld` / `%lu` (PRId64 / PRIu64 on LP64);
 * any other format goes to vsnprintf as it is.
 */
#include "chain.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Appends `n` bytes of `text` to buf[*len] (size `size` > 0, NUL-terminated), truncated like snprintf. */
static void cat(char *buf, size_t size, size_t *len, const char *text, size_t n)
{
	if (*len + n >= size) {
		n = *len + 1 < size ? size - 1 - *len : 0;
	}
	memcpy(buf + *len, text, n);
	*len += n;
}

/* The decimal digits of `u` (with a '-' when `negative`) at the end of digits[24]; returns their start. */
static const char *decimal(char digits[24], uint64_t u, bool negative)
{
	char *p = digits + 24;

	do {
		*--p = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	if (negative) {
		*--p = '-';
	}
	return p;
}

/* True when every conversion of `fmt` is one ds_chain_text_vformat() writes itself. */
static bool simple_format(const char *fmt)
{
	const char *p;

	for (p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		p++;
		if (*p == 's' || *p == 'u') {
			p++;
		} else if (*p == 'l' && (p[1] == 'd' || p[1] == 'u') && sizeof(long) == sizeof(int64_t)) {
			p += 2;
		} else {
			return false;
		}
	}
	return true;
}

size_t ds_chain_text_vformat(char *buf, size_t size, const char *fmt, va_list args)
{
	char digits[24];
	size_t len = 0;
	const char *p = fmt, *pct;

	if (!size) {
		return 0;
	}
	if (!simple_format(fmt)) {
		vsnprintf(buf, size, fmt, args);
		return strlen(buf);
	}
	while ((pct = strchr(p, '%'))) {
		const char *text;
		size_t n;

		cat(buf, size, &len, p, (size_t) (pct - p));
		p = pct + 1;
		if (*p == 's') {
			text = va_arg(args, const char *);
			text = text ? text : "(null)";	/* glibc's */
			n = strlen(text);
			p++;
		} else if (*p == 'u') {
			text = decimal(digits, va_arg(args, unsigned int), false);
			n = (size_t) (digits + sizeof(digits) - text);
			p++;
		} else if (p[1] == 'd') {
			int64_t v = va_arg(args, int64_t);

			text = decimal(digits, v < 0 ? (uint64_t) -(v + 1) + 1 : (uint64_t) v, v < 0);
			n = (size_t) (digits + sizeof(digits) - text);
			p += 2;
		} else {
			text = decimal(digits, va_arg(args, uint64_t), false);
			n = (size_t) (digits + sizeof(digits) - text);
			p += 2;
		}
		cat(buf, size, &len, text, n);
	}
	cat(buf, size, &len, p, strlen(p));
	buf[len] = '\0';
	return len;
}

void ds_chain_text_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	ds_chain_text_vformat(buf, size, fmt, args);
	va_end(args);
}
