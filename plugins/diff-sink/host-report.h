/* SPDX-License-Identifier: MIT */
/* sink.deepspan.diff: the host context table of report.html (rows from span-consumer/host-context.h). */
#ifndef DEEPSPAN_DIFF_HOST_REPORT_H
#define DEEPSPAN_DIFF_HOST_REPORT_H

#include <stdio.h>
#include <glib.h>

#include "span-consumer/host-context.h"

/* At most `top` rows of `rows` (NULL: nothing written). */
void ds_write_host_html(FILE *file, const GArray *rows, const struct ds_strings *strings, unsigned int top);

#endif /* DEEPSPAN_DIFF_HOST_REPORT_H */
