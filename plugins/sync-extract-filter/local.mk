# SPDX-License-Identifier: MIT
# sync-extract-filter: filter.deepspan.sync-extract (append to the plugin).
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/sync-extract-filter/register.h plugins/sync-extract-filter/component.h \
	plugins/sync-extract-filter/sync-extract.c

dist_docpages_DATA += doc/scale.md
