/* SPDX-License-Identifier: MIT */
/*
 * Names in the sinks' outputs (service, operation, host, comm, details)
 * come from the trace and may hold invalid UTF-8, newlines or terminal
 * escape sequences.  One function per output kind makes them safe where
 * they are written (doc/diff.md, "Names in the outputs"):
 *
 * - text (explain.txt, the stdout summary, metrics text, csv, json and
 *   markdown, error messages): invalid UTF-8 becomes U+FFFD and every
 *   control character a visible escape (`\n`, `\r`, `\t`, `\x1b`, `\u0085`);
 * - folded stacks: the text form, and `;` (the frame separator) becomes `,`;
 * - XML (SVG, HTML): invalid UTF-8 and the characters XML 1.0 forbids become
 *   U+FFFD or a visible escape, and `& < > " '` entities.
 *
 * Valid printable UTF-8 passes unchanged.
 */
#ifndef DEEPSPAN_DIFF_SANITIZE_H
#define DEEPSPAN_DIFF_SANITIZE_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

/* Appends `text` in the text form to `out`. */
void ds_sanitize_text(GString *out, const char *text);

/* Appends `text` in the folded-stack form to `out`. */
void ds_sanitize_folded(GString *out, const char *text);

/*
 * Writes `text` for XML text and attribute values; `\n` and `\t` are kept
 * (the tooltips' own line breaks): pass names through ds_sanitize_text() first.
 */
void ds_sanitize_xml(FILE *file, const char *text);

/*
 * Whether ds_sanitize_text() then ds_sanitize_xml() leave `text` as it is (valid UTF-8 without
 * controls, U+FFFD-U+FFFF or `&<>"'`): such a name can be written without the copies.
 */
bool ds_sanitize_xml_unchanged(const char *text);

#endif /* DEEPSPAN_DIFF_SANITIZE_H */
