# SPDX-License-Identifier: MIT
# pipe-source: source.deepspan.pipe (append to the plugin).
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/pipe-source/register.h plugins/pipe-source/component.h \
	plugins/pipe-source/pipe-source.c
