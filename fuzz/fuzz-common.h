/* SPDX-License-Identifier: MIT */
/*
 * Shared by the parameter harnesses: a real self component to receive error
 * causes (params.c appends them with BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT),
 * and a byte reader over the fuzz input.
 */
#ifndef DEEPSPAN_FUZZ_COMMON_H
#define DEEPSPAN_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* A sink component of a graph kept for the whole run (created on first use; aborts on failure). */
bt_self_component *fuzz_self_component(void);

/* Consumes the fuzz input front to back; reads past the end give zeros. */
struct fuzz_bytes {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

uint8_t fuzz_u8(struct fuzz_bytes *in);
uint64_t fuzz_u64(struct fuzz_bytes *in);
bool fuzz_done(const struct fuzz_bytes *in);
/* Copies up to `max` bytes (length from the input) into a new NUL-terminated string (g_free it). */
char *fuzz_string(struct fuzz_bytes *in, size_t max);

/*
 * A private temporary directory for a harness's files (g_free it): DEEPSPAN_FUZZ_TMP when set, else
 * /dev/shm/NAME-XXXXXX when /dev/shm is writable and TMPDIR is not set, else $TMPDIR/NAME-XXXXXX; NULL on failure.
 */
char *fuzz_tmp_dir(const char *name);

/*
 * The instrumented plugin fuzz/build makes (DEEPSPAN_FUZZ_PLUGIN, default: plugin/babeltrace-plugin-deepspan.so
 * beside the program `argv0`): its plugin set (a reference); exits with a message naming `harness` when it
 * cannot be loaded.
 */
const bt_plugin_set *fuzz_load_plugin(const char *argv0, const char *harness);

#endif /* DEEPSPAN_FUZZ_COMMON_H */
