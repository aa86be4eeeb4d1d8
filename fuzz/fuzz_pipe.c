/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: source.deepspan.pipe (doc/scale.md, "Trace pipe") on any bytes after the magic.
 *
 * Per input, in-process babeltrace2 graphs with the instrumented plugin that fuzz/build makes
 * (DEEPSPAN_FUZZ_PLUGIN, default: `plugin/babeltrace-plugin-deepspan.so` beside this program):
 * `DSPIPE01` + the input is read by source.deepspan.pipe into sink.deepspan.pipe (a second file).  A failure
 * must carry an error cause.  When the input reads whole, what the sink wrote must read whole too and be
 * written back to the same bytes (what the reader accepts, the writer writes, and the reader reads again as
 * the same messages).  A crash, a sanitizer report, a failure without a cause or a round trip that changes
 * the bytes is a finding.  Files go to a private temporary directory (fuzz_tmp_dir()); with DEEPSPAN_FUZZ_TMP
 * set it is kept, its files removed.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "fuzz-common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const bt_component_class_source *source_class;	/* a reference */
static const bt_component_class_sink *sink_class;	/* a reference */
static char *tmp_dir;					/* owned */
static char *paths[3];					/* owned: the input, the first and second writes */

static void die(const char *what)
{
	fprintf(stderr, "fuzz_pipe: %s\n", what);
	exit(1);
}

static void cleanup(void)
{
	unsigned int i;

	for (i = 0; i < G_N_ELEMENTS(paths); i++) {
		if (paths[i]) {
			(void) g_remove(paths[i]);
		}
	}
	if (tmp_dir && !getenv("DEEPSPAN_FUZZ_TMP")) {
		(void) g_rmdir(tmp_dir);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const bt_plugin_set *set = fuzz_load_plugin((*argv)[0], "fuzz_pipe");
	const bt_plugin *plugin = bt_plugin_set_borrow_plugin_by_index_const(set, 0);
	unsigned int i;

	(void) argc;
	source_class = bt_plugin_borrow_source_component_class_by_name_const(plugin, "pipe");
	sink_class = bt_plugin_borrow_sink_component_class_by_name_const(plugin, "pipe");
	if (!source_class || !sink_class) {
		die("the plugin has no source.deepspan.pipe or sink.deepspan.pipe");
	}
	bt_component_class_source_get_ref(source_class);
	bt_component_class_sink_get_ref(sink_class);
	bt_plugin_set_put_ref(set);
	tmp_dir = fuzz_tmp_dir("deepspan-fuzz-pipe");
	if (!tmp_dir) {
		die("cannot create a temporary directory");
	}
	for (i = 0; i < G_N_ELEMENTS(paths); i++) {
		char name[16];

		snprintf(name, sizeof(name), "%u.pipe", i);
		paths[i] = g_build_filename(tmp_dir, name, NULL);
	}
	atexit(cleanup);
	return 0;
}

static bt_value *path_params(const char *path)
{
	bt_value *params = bt_value_map_create();

	if (!params || bt_value_map_insert_string_entry(params, "path", path) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		die("out of memory");
	}
	return params;
}

/* `from` -> source.deepspan.pipe -> sink.deepspan.pipe -> `to`: true when it ran whole; a failure must say why. */
static bool copy(const char *from, const char *to)
{
	bt_value *src_params = path_params(from), *sink_params = path_params(to);
	const bt_component_source *src = NULL;
	const bt_component_sink *sink = NULL;
	bt_graph *graph = bt_graph_create(0);
	bt_graph_run_status status;
	const bt_error *error;
	bool ok = false;

	if (!graph || bt_graph_add_source_component(graph, source_class, "pipe", src_params, BT_LOGGING_LEVEL_NONE,
			&src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
			bt_graph_add_sink_component(graph, sink_class, "w", sink_params, BT_LOGGING_LEVEL_NONE, &sink) !=
				BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
			bt_graph_connect_ports(graph, bt_component_source_borrow_output_port_by_name_const(src, "out"),
				bt_component_sink_borrow_input_port_by_name_const(sink, "in"), NULL) !=
				BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		die("cannot build the graph");
	}
	do {
		status = bt_graph_run(graph);
	} while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	error = bt_current_thread_take_error();
	if (status == BT_GRAPH_RUN_STATUS_OK) {
		if (error) {
			fprintf(stderr, "fuzz_pipe: the graph succeeded with an error left on the thread\n");
			abort();
		}
		ok = true;
	} else if (!error || bt_error_get_cause_count(error) == 0 ||
			!*bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0))) {
		fprintf(stderr, "fuzz_pipe: the graph failed without an error cause\n");
		abort();
	} else if (getenv("DEEPSPAN_FUZZ_VERBOSE")) {
		fprintf(stderr, "fuzz_pipe: %s\n", bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0)));
	}
	if (error) {
		bt_error_release(error);
	}
	bt_graph_put_ref(graph);
	bt_value_put_ref(src_params);
	bt_value_put_ref(sink_params);
	return ok;
}

static void write_input(const uint8_t *data, size_t size)
{
	FILE *f = fopen(paths[0], "wb");

	if (!f || fwrite("DSPIPE01", 1, 8, f) != 8 || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		die("cannot write the input file");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gchar *first = NULL, *second = NULL;
	gsize first_len = 0, second_len = 0;

	write_input(data, size);
	if (copy(paths[0], paths[1])) {
		if (!copy(paths[1], paths[2])) {
			fprintf(stderr, "fuzz_pipe: what sink.deepspan.pipe wrote does not read back\n");
			abort();
		}
		if (!g_file_get_contents(paths[1], &first, &first_len, NULL) ||
				!g_file_get_contents(paths[2], &second, &second_len, NULL)) {
			die("cannot read the written pipes");
		}
		if (first_len != second_len || memcmp(first, second, first_len) != 0) {
			fprintf(stderr, "fuzz_pipe: a pipe read and written again changed (%zu -> %zu bytes)\n",
				(size_t) first_len, (size_t) second_len);
			abort();
		}
	}
	g_free(first);
	g_free(second);
	return 0;
}
