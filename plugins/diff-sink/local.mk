# SPDX-License-Identifier: MIT
# diff-sink: sink.deepspan.diff.
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/diff-sink/register.h plugins/diff-sink/component.h \
	plugins/diff-sink/diff-sink.c plugins/diff-sink/diff-run.c plugins/diff-sink/diff-run.h \
	plugins/diff-sink/diff-collect.c plugins/diff-sink/diff-collect.h \
	plugins/diff-sink/flamegraph-svg.c plugins/diff-sink/flamegraph-svg.h \
	plugins/diff-sink/flamegraph-script.h \
	plugins/diff-sink/report-html.c plugins/diff-sink/report-html.h \
	plugins/diff-sink/waterfall-svg.c \
	plugins/diff-sink/host-report.c plugins/diff-sink/host-report.h

# The analysis core, also linked into the unit tests (no babeltrace2 objects needed).
noinst_LTLIBRARIES += plugins/diff-sink/libdeepspan-diff.la
plugins_diff_sink_libdeepspan_diff_la_SOURCES = \
	plugins/diff-sink/aggregate.c plugins/diff-sink/aggregate.h \
	plugins/diff-sink/explain.c plugins/diff-sink/explain.h \
	plugins/diff-sink/colour.c plugins/diff-sink/colour.h \
	plugins/diff-sink/svg-number.c plugins/diff-sink/svg-number.h \
	plugins/diff-sink/frame-cache.c plugins/diff-sink/frame-cache.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/diff-sink/libdeepspan-diff.la

check_PROGRAMS += tests/unit/test_diff_core
tests_unit_test_diff_core_SOURCES = tests/unit/test_diff_core.c tests/unit/unit.h
tests_unit_test_diff_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/diff-sink \
	-I$(top_srcdir)/plugins/metrics-sink -I$(top_srcdir)/plugins/span-consumer
tests_unit_test_diff_core_LDADD = plugins/diff-sink/libdeepspan-diff.la \
	plugins/metrics-sink/libdeepspan-metrics.la \
	plugins/span-consumer/libdeepspan-span-consumer.la $(UNIT_LDADD)

dist_docpages_DATA += doc/diff.md

EXTRA_DIST += bench/diff-completion

# The muxer-free report command (one source.ctf.fs per trace -> [sync] -> span-attrib -> diff or metrics).
bin_SCRIPTS += scripts/deepspan-report
EXTRA_DIST += scripts/deepspan-report

check_PROGRAMS += tests/unit/test_svg_number
tests_unit_test_svg_number_SOURCES = tests/unit/test_svg_number.c tests/unit/unit.h
tests_unit_test_svg_number_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/diff-sink
tests_unit_test_svg_number_LDADD = plugins/diff-sink/libdeepspan-diff.la \
	plugins/span-consumer/libdeepspan-span-consumer.la $(UNIT_LDADD)
