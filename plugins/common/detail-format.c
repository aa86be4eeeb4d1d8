/* SPDX-License-Identifier: MIT */
#include "detail-format.h"

#include <inttypes.h>
#include <stdio.h>

void ds_detail_format_bytes(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1024 * 1024) {
		if (bytes % (1024 * 1024) == 0) {
			snprintf(buf, size, "%" PRIu64 " MiB", bytes / (1024 * 1024));
		} else {
			snprintf(buf, size, "%.1f MiB", (double) bytes / (1024.0 * 1024.0));
		}
	} else if (bytes >= 1024 && bytes % 1024 == 0) {
		snprintf(buf, size, "%" PRIu64 " KiB", bytes / 1024);
	} else {
		snprintf(buf, size, "%" PRIu64 " B", bytes);
	}
}

void ds_detail_format_duration(int64_t ns, char *buf, size_t size)
{
	if (ns >= 1000000) {
		snprintf(buf, size, "%.1f ms", (double) ns / 1e6);
	} else if (ns >= 1000) {
		snprintf(buf, size, "%.1f us", (double) ns / 1e3);
	} else {
		snprintf(buf, size, "%" PRId64 " ns", ns);
	}
}
