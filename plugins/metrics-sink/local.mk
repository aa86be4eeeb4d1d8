# SPDX-License-Identifier: MIT
# metrics-sink: sink.deepspan.metrics. Its table building is a convenience library so the unit
# tests (tests/unit/test_diff_core.c) link it too.
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/metrics-sink/register.h plugins/metrics-sink/component.h \
	plugins/metrics-sink/metrics-sink.c

noinst_LTLIBRARIES += plugins/metrics-sink/libdeepspan-metrics.la
plugins_metrics_sink_libdeepspan_metrics_la_SOURCES = \
	plugins/metrics-sink/duration-list.c plugins/metrics-sink/duration-list.h \
	plugins/metrics-sink/table.c plugins/metrics-sink/table.h \
	plugins/metrics-sink/metrics-build.c plugins/metrics-sink/metrics-build.h \
	plugins/metrics-sink/metrics-host.c \
	plugins/metrics-sink/disk-table.c plugins/metrics-sink/disk-table.h \
	plugins/metrics-sink/culprit-table.c plugins/metrics-sink/culprit-table.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/metrics-sink/libdeepspan-metrics.la

dist_docpages_DATA += doc/metrics.md
