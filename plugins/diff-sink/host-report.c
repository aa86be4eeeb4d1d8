/* SPDX-License-Identifier: MIT */
/* sink.deepspan.diff: the "What changed on the machine" table of report.html (doc/diff.md, doc/host-context.md). */
#include "host-report.h"

#include <inttypes.h>

#include "colour.h"

void ds_write_host_html(FILE *file, const GArray *rows, const struct ds_strings *strings, unsigned int top)
{
	guint i, shown = 0;

	if (!rows) {
		return;
	}
	fputs("<h2>What changed on the machine</h2>\n<p>Per host, what ran per second of the groups' request "
		"time there (time: ms per second, disk: KiB per second), group B versus group A, largest increase "
		"first; totals are exact sums over the requests' windows (doc/host-context.md).</p>\n", file);
	for (i = 0; i < rows->len && shown < top; i++) {
		const struct ds_host_row *row = &g_array_index(rows, struct ds_host_row, i);
		bool disk = row->kind == DS_HOST_DISK;
		double scale = disk ? 1024.0 : 1e6;
		char *label;

		if (shown++ == 0) {
			fputs("<table class=\"host-context\"><tr><th>host</th><th>what</th><th>B</th><th>A</th>"
				"<th>B &minus; A</th><th>unit</th><th>total B</th><th>total A</th></tr>\n", file);
		}
		label = ds_host_row_label(row, strings);
		fputs("<tr><td>", file);
		ds_xml_escape(file, ds_strings_get(strings, row->host));
		fputs("</td><td>", file);
		ds_xml_escape(file, label);
		fprintf(file, "</td><td>%.3f</td><td>%.3f</td><td>%+.3f</td><td>%s</td><td>%" PRIu64 "</td><td>%"
			PRIu64 "</td></tr>\n", row->rate[1] / scale, row->rate[0] / scale, row->diff / scale,
			disk ? "KiB/s" : "ms/s", row->total[1], row->total[0]);
		g_free(label);
	}
	fputs(shown ? "</table>\n" : "<p>(no host context in the spans: run filter.deepspan.span-attrib with "
		"host-context=true, its default)</p>\n", file);
}
