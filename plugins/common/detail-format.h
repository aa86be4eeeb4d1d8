/* SPDX-License-Identifier: MIT */
/*
 * The sizes and durations written inside chain details ("queued 31.0 ms behind 412 writes (96 MiB) of …",
 * doc/storage-network.md "Storage"): span-attrib writes them and the scenario's truth must write the same
 * text, so both format them here.
 */
#ifndef DEEPSPAN_COMMON_DETAIL_FORMAT_H
#define DEEPSPAN_COMMON_DETAIL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "96 MiB", "1.5 MiB", "12 KiB", "512 B". */
void ds_detail_format_bytes(uint64_t bytes, char *buf, size_t size);

/* "31.0 ms", "12.5 us", "800 ns". */
void ds_detail_format_duration(int64_t ns, char *buf, size_t size);

#endif
