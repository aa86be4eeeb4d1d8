/* SPDX-License-Identifier: MIT */
#include "sanitize.h"

#include <stdbool.h>
#include <stdint.h>

#define REPLACEMENT 0xFFFDu

/*
 * Decodes the code point at `s` into `*cp`; returns the bytes it takes.  An
 * invalid sequence (bad lead or continuation byte, overlong form, surrogate,
 * above U+10FFFF, cut by the end) gives U+FFFD for its first byte.
 */
static size_t next_code_point(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	uint32_t min, value;
	size_t length, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		length = 2, min = 0x80, value = c & 0x1Fu;
	} else if (c >= 0xE0 && c <= 0xEF) {
		length = 3, min = 0x800, value = c & 0x0Fu;
	} else if (c >= 0xF0 && c <= 0xF4) {
		length = 4, min = 0x10000, value = c & 0x07u;
	} else {
		*cp = REPLACEMENT;
		return 1;
	}
	for (i = 1; i < length; i++) {
		if ((s[i] & 0xC0) != 0x80) {	/* also stops at the terminating NUL */
			*cp = REPLACEMENT;
			return 1;
		}
		value = value << 6 | (s[i] & 0x3Fu);
	}
	if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
		*cp = REPLACEMENT;
		return 1;
	}
	*cp = value;
	return length;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* A control character as a visible escape. */
static void append_control(GString *out, uint32_t cp)
{
	switch (cp) {
	case '\n':
		g_string_append(out, "\\n");
		break;
	case '\r':
		g_string_append(out, "\\r");
		break;
	case '\t':
		g_string_append(out, "\\t");
		break;
	default:
		g_string_append_printf(out, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned int) cp);
		break;
	}
}

static void append_text(GString *out, const char *text, bool folded)
{
	const unsigned char *s = (const unsigned char *) text;
	const unsigned char *run = s;	/* bytes passing unchanged, not yet appended: [run, s) */

	while (*s) {
		uint32_t cp;
		size_t length = next_code_point(s, &cp);

		if (!is_control(cp) && !(folded && cp == ';') && !(length == 1 && cp == REPLACEMENT)) {
			s += length;
			continue;
		}
		g_string_append_len(out, (const char *) run, (gssize) (s - run));
		if (is_control(cp)) {
			append_control(out, cp);
		} else if (folded && cp == ';') {
			g_string_append_c(out, ',');
		} else {
			g_string_append_unichar(out, REPLACEMENT);
		}
		s += length;
		run = s;
	}
	g_string_append_len(out, (const char *) run, (gssize) (s - run));
}

void ds_sanitize_text(GString *out, const char *text)
{
	append_text(out, text, false);
}

void ds_sanitize_folded(GString *out, const char *text)
{
	append_text(out, text, true);
}

/* Whether XML output keeps code point `cp` as it is written. */
static bool xml_unchanged(uint32_t cp)
{
	switch (cp) {
	case '&':
	case '<':
	case '>':
	case '"':
	case '\'':
		return false;
	case '\n':
	case '\t':
		return true;
	default:
		return !is_control(cp) && cp != REPLACEMENT && cp != 0xFFFE && cp != 0xFFFF;
	}
}

void ds_sanitize_xml(FILE *file, const char *text)
{
	const unsigned char *s = (const unsigned char *) text;
	const unsigned char *run = s;	/* bytes passing unchanged, not yet written: [run, s) */
	GString *escaped = NULL;	/* owned; created for the first control character */

	while (*s) {
		uint32_t cp;
		size_t length = next_code_point(s, &cp);

		if (xml_unchanged(cp)) {
			s += length;
			continue;
		}
		if (s > run) {
			fwrite(run, 1, (size_t) (s - run), file);
		}
		switch (cp) {
		case '&':
			fputs("&amp;", file);
			break;
		case '<':
			fputs("&lt;", file);
			break;
		case '>':
			fputs("&gt;", file);
			break;
		case '"':
			fputs("&quot;", file);
			break;
		case '\'':
			fputs("&#39;", file);
			break;
		default:
			if (is_control(cp)) {
				if (!escaped) {
					escaped = g_string_new(NULL);
				}
				g_string_truncate(escaped, 0);
				append_control(escaped, cp);
				fputs(escaped->str, file);
			} else {
				fputs("\xef\xbf\xbd", file);	/* U+FFFD; XML 1.0 forbids U+FFFE and U+FFFF */
			}
			break;
		}
		s += length;
		run = s;
	}
	if (s > run) {
		fwrite(run, 1, (size_t) (s - run), file);
	}
	if (escaped) {
		g_string_free(escaped, TRUE);
	}
}

bool ds_sanitize_xml_unchanged(const char *text)
{
	const unsigned char *s = (const unsigned char *) text;

	while (*s) {
		uint32_t cp;

		if (*s >= 0x20 && *s < 0x7f) {
			if (*s == '&' || *s == '<' || *s == '>' || *s == '"' || *s == '\'') {
				return false;
			}
			s++;
			continue;
		}
		s += next_code_point(s, &cp);
		if (is_control(cp) || !xml_unchanged(cp)) {
			return false;	/* also U+FFFD, which an invalid byte decodes to */
		}
	}
	return true;
}
