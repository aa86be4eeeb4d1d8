# SPDX-License-Identifier: MIT
# pipe-sink: sink.deepspan.pipe (append to the plugin).
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/pipe-sink/register.h plugins/pipe-sink/component.h \
	plugins/pipe-sink/pipe-sink.c
