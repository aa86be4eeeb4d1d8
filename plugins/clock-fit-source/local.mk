# SPDX-License-Identifier: MIT
# clock-fit-source: source.deepspan.clock-fit (append to the plugin).
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/clock-fit-source/register.h plugins/clock-fit-source/component.h \
	plugins/clock-fit-source/clock-fit.c
