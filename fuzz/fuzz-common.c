/* SPDX-License-Identifier: MIT */
#include "fuzz-common.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bt_self_component *captured;

static bt_component_class_initialize_method_status capture_init(
		bt_self_component_sink *self_sink,
		bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *init_data)
{
	(void) configuration;
	(void) params;
	(void) init_data;
	captured = bt_self_component_sink_as_self_component(self_sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_consume_method_status capture_consume(
		bt_self_component_sink *self_sink)
{
	(void) self_sink;
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

bt_self_component *fuzz_self_component(void)
{
	static bt_graph *graph;	/* owned for the whole run */
	bt_component_class_sink *cls;
	const bt_component_sink *comp;

	if (captured) {
		return captured;
	}
	cls = bt_component_class_sink_create("fuzz", capture_consume);
	graph = bt_graph_create(0);
	if (!cls || !graph ||
			bt_component_class_sink_set_initialize_method(cls, capture_init) !=
				BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
			bt_graph_add_sink_component(graph, cls, "fuzz", NULL,
				BT_LOGGING_LEVEL_NONE, &comp) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
			!captured) {
		fprintf(stderr, "fuzz: cannot create the component receiving error causes\n");
		abort();
	}
	bt_component_class_sink_put_ref(cls);
	return captured;
}

uint8_t fuzz_u8(struct fuzz_bytes *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

uint64_t fuzz_u64(struct fuzz_bytes *in)
{
	uint64_t value = 0;
	int i;

	for (i = 0; i < 8; i++) {
		value |= (uint64_t) fuzz_u8(in) << (8 * i);
	}
	return value;
}

bool fuzz_done(const struct fuzz_bytes *in)
{
	return in->pos >= in->size;
}

char *fuzz_string(struct fuzz_bytes *in, size_t max)
{
	size_t len = fuzz_u8(in) % (max + 1);
	char *text;

	if (len > in->size - in->pos) {
		len = in->size - in->pos;
	}
	text = g_malloc(len + 1);
	memcpy(text, in->data + in->pos, len);
	text[len] = '\0';
	in->pos += len;
	return text;
}

char *fuzz_tmp_dir(const char *name)
{
	char *dir = NULL;
	char *pattern = g_strdup_printf("%s-XXXXXX", name);

	if (getenv("DEEPSPAN_FUZZ_TMP")) {
		dir = g_strdup(getenv("DEEPSPAN_FUZZ_TMP"));
		g_mkdir_with_parents(dir, 0700);
	} else if (!getenv("TMPDIR") && g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) && access("/dev/shm", W_OK) == 0) {
		dir = g_build_filename("/dev/shm", pattern, NULL);
		if (!g_mkdtemp(dir)) {
			g_free(dir);
			dir = NULL;
		}
	} else {
		dir = g_dir_make_tmp(pattern, NULL);
	}
	g_free(pattern);
	return dir;
}

const bt_plugin_set *fuzz_load_plugin(const char *argv0, const char *harness)
{
	const char *plugin_path = getenv("DEEPSPAN_FUZZ_PLUGIN");
	char *self_dir = g_path_get_dirname(argv0);
	char *default_path = g_build_filename(self_dir, "plugin", "babeltrace-plugin-deepspan.so", NULL);
	const bt_plugin_set *set = NULL;

	if (bt_plugin_find_all_from_file(plugin_path ? plugin_path : default_path, BT_FALSE, &set) !=
			BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK || bt_plugin_set_get_plugin_count(set) < 1) {
		fprintf(stderr, "%s: cannot load the plugin %s (build it with fuzz/build)\n", harness,
			plugin_path ? plugin_path : default_path);
		exit(1);
	}
	g_free(default_path);
	g_free(self_dir);
	return set;
}
