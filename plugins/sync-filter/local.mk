# SPDX-License-Identifier: MIT
# sync-filter: sources of this component class (append to the plugin) and its unit tests.
# The pure-C synchronization core is a convenience library so the unit tests link it too.
noinst_LTLIBRARIES += plugins/sync-filter/libsync-core.la
plugins_sync_filter_libsync_core_la_SOURCES = \
	plugins/sync-filter/hull.c plugins/sync-filter/hull.h \
	plugins/sync-filter/solver.c plugins/sync-filter/solver.h \
	plugins/sync-filter/reorder.c plugins/sync-filter/reorder.h \
	plugins/sync-filter/json-reader.c plugins/sync-filter/json-reader.h

plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/sync-filter/libsync-core.la
plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/sync-filter/register.h plugins/sync-filter/component.h \
	plugins/sync-filter/sync.h \
	plugins/sync-filter/sync-component.c plugins/sync-filter/sync-hosts.c \
	plugins/sync-filter/sync-pass1.c plugins/sync-filter/sync-http.c \
	plugins/sync-filter/sync-iter.c \
	plugins/sync-filter/sync-merge.c plugins/sync-filter/sync-merge.h \
	plugins/sync-filter/sync-report.c \
	plugins/sync-filter/trace-ir-copy.h \
	plugins/sync-filter/trace-ir-copy-classes.c \
	plugins/sync-filter/trace-ir-copy-fields.c \
	plugins/sync-filter/trace-ir-copy-messages.c

check_PROGRAMS += tests/unit/test_sync_hull
tests_unit_test_sync_hull_SOURCES = tests/unit/test_sync_hull.c tests/unit/unit.h
tests_unit_test_sync_hull_LDADD = plugins/sync-filter/libsync-core.la $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_sync_json
tests_unit_test_sync_json_SOURCES = tests/unit/test_sync_json.c tests/unit/unit.h
tests_unit_test_sync_json_LDADD = plugins/sync-filter/libsync-core.la $(UNIT_LDADD)

dist_docpages_DATA += doc/sync.md

check_PROGRAMS += tests/unit/test_sync_reorder
tests_unit_test_sync_reorder_SOURCES = tests/unit/test_sync_reorder.c tests/unit/unit.h
tests_unit_test_sync_reorder_LDADD = plugins/sync-filter/libsync-core.la $(UNIT_LDADD)
