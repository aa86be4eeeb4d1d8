# diff-sink: sink.deepspan.diff and sink.deepspan.metrics (one register.h registers both).
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/diff-sink/register.h plugins/diff-sink/diff-sink.h \
	plugins/diff-sink/diff-sink.c plugins/diff-sink/diff-run.c plugins/diff-sink/diff-run.h \
	plugins/diff-sink/diff-collect.c plugins/diff-sink/diff-collect.h \
	plugins/diff-sink/metrics-sink.c \
	plugins/diff-sink/span-reader.c plugins/diff-sink/span-reader.h \
	plugins/diff-sink/progress.c plugins/diff-sink/progress.h \
	plugins/diff-sink/flamegraph-svg.c plugins/diff-sink/flamegraph-svg.h \
	plugins/diff-sink/flamegraph-script.h \
	plugins/diff-sink/report-html.c plugins/diff-sink/report-html.h \
	plugins/diff-sink/waterfall-svg.c

# The analysis core, also linked into the unit tests (no babeltrace2 objects needed).
noinst_LTLIBRARIES += plugins/diff-sink/libdeepspan-diff.la
plugins_diff_sink_libdeepspan_diff_la_SOURCES = \
	plugins/diff-sink/span-store.c plugins/diff-sink/span-store.h \
	plugins/diff-sink/request-tree.c plugins/diff-sink/request-tree.h \
	plugins/diff-sink/request-record.c plugins/diff-sink/request-record.h \
	plugins/diff-sink/request-stream.c plugins/diff-sink/request-stream.h \
	plugins/diff-sink/request-spill.c plugins/diff-sink/request-spill.h \
	plugins/diff-sink/duration-list.c plugins/diff-sink/duration-list.h \
	plugins/diff-sink/attribution-record.c plugins/diff-sink/attribution-record.h \
	plugins/diff-sink/attribution.c plugins/diff-sink/attribution.h \
	plugins/diff-sink/aggregate.c plugins/diff-sink/aggregate.h \
	plugins/diff-sink/groups.c plugins/diff-sink/groups.h \
	plugins/diff-sink/explain.c plugins/diff-sink/explain.h \
	plugins/diff-sink/colour.c plugins/diff-sink/colour.h \
	plugins/diff-sink/sanitize.c plugins/diff-sink/sanitize.h \
	plugins/diff-sink/table.c plugins/diff-sink/table.h \
	plugins/diff-sink/metrics-build.c plugins/diff-sink/metrics-build.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/diff-sink/libdeepspan-diff.la

check_PROGRAMS += tests/unit/test_diff_core
tests_unit_test_diff_core_SOURCES = tests/unit/test_diff_core.c tests/unit/unit.h
tests_unit_test_diff_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/diff-sink
tests_unit_test_diff_core_LDADD = plugins/diff-sink/libdeepspan-diff.la $(UNIT_LDADD)

dist_docpages_DATA += doc/diff.md doc/metrics.md

# The thread-state enum shared with span-attrib's thread-state.h (names defined in thread-state.c).
plugins_common_libdeepspan_common_la_SOURCES += plugins/common/states.h

EXTRA_DIST += bench/diff-completion

# The muxer-free report command (one source.ctf.fs per trace -> [sync] -> span-attrib -> diff or metrics).
bin_SCRIPTS += scripts/deepspan-report
EXTRA_DIST += scripts/deepspan-report
