# SPDX-License-Identifier: MIT
# span-consumer: what both sinks (sink.deepspan.diff, sink.deepspan.metrics) share: reading
# `deepspan:span` events, the span store, request trees, streaming complete requests, their records
# and spill file, critical-path attribution, group selection (groups A and B), progress, and what feeds a span
# sink (the no-spans texts). A convenience library linked into the plugin and the sinks' unit tests.
noinst_LTLIBRARIES += plugins/span-consumer/libdeepspan-span-consumer.la
plugins_span_consumer_libdeepspan_span_consumer_la_SOURCES = \
	plugins/span-consumer/span-reader.c plugins/span-consumer/span-reader.h \
	plugins/span-consumer/span-layout.c plugins/span-consumer/span-layout.h \
	plugins/span-consumer/chain-reader.c plugins/span-consumer/chain-reader.h \
	plugins/span-consumer/chain-labels.c plugins/span-consumer/chain-labels.h \
	plugins/span-consumer/chain-spill.c plugins/span-consumer/chain-spill.h \
	plugins/span-consumer/progress.c plugins/span-consumer/progress.h \
	plugins/span-consumer/span-store.c plugins/span-consumer/span-store.h \
	plugins/span-consumer/request-tree.c plugins/span-consumer/request-tree.h \
	plugins/span-consumer/request-record.c plugins/span-consumer/request-record.h \
	plugins/span-consumer/request-stream.c plugins/span-consumer/request-stream.h \
	plugins/span-consumer/request-spill.c plugins/span-consumer/request-spill.h \
	plugins/span-consumer/attribution-record.c plugins/span-consumer/attribution-record.h \
	plugins/span-consumer/attribution.c plugins/span-consumer/attribution.h \
	plugins/span-consumer/sanitize.c plugins/span-consumer/sanitize.h \
	plugins/span-consumer/groups.c plugins/span-consumer/groups.h \
	plugins/span-consumer/host-context.c plugins/span-consumer/host-context.h \
	plugins/span-consumer/span-upstream.c plugins/span-consumer/span-upstream.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/span-consumer/libdeepspan-span-consumer.la

check_PROGRAMS += tests/unit/test_chain_strings
tests_unit_test_chain_strings_SOURCES = tests/unit/test_chain_strings.c tests/unit/unit.h
tests_unit_test_chain_strings_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/span-consumer

check_PROGRAMS += tests/unit/test_chain_spill
tests_unit_test_chain_spill_SOURCES = tests/unit/test_chain_spill.c tests/unit/unit.h \
	plugins/span-consumer/chain-spill.c
tests_unit_test_chain_spill_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/span-consumer
