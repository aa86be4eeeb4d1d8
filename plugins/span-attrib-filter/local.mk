# span-attrib-filter: sources of this component class (append to the plugin) and its unit tests.

# Shared modules owned by span-attrib (used by sync and others too).
plugins_common_libdeepspan_common_la_SOURCES += \
	plugins/common/event-fields.c plugins/common/event-fields.h \
	plugins/common/span-events.c plugins/common/span-events.h \
	plugins/common/kernel-events.c plugins/common/kernel-events.h \
	plugins/common/thread-state.c plugins/common/thread-state.h \
	plugins/common/span-account.c plugins/common/span-account.h

check_PROGRAMS += tests/unit/test_span_events
tests_unit_test_span_events_SOURCES = tests/unit/test_span_events.c tests/unit/unit.h
tests_unit_test_span_events_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_thread_state
tests_unit_test_thread_state_SOURCES = tests/unit/test_thread_state.c tests/unit/unit.h
tests_unit_test_thread_state_LDADD = $(UNIT_LDADD)

plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/span-attrib-filter/register.h plugins/span-attrib-filter/methods.h \
	plugins/span-attrib-filter/span-attrib.h \
	plugins/span-attrib-filter/span-attrib.c \
	plugins/span-attrib-filter/events.c \
	plugins/span-attrib-filter/inputs.c \
	plugins/span-attrib-filter/hosts.c \
	plugins/span-attrib-filter/output.c \
	plugins/span-attrib-filter/syscall-table-x86_64.c plugins/span-attrib-filter/syscall-table-x86_64.h
EXTRA_DIST += plugins/span-attrib-filter/gen-syscall-table-x86_64

dist_docpages_DATA += doc/span-attrib.md

check_PROGRAMS += tests/unit/test_syscall_table
# The table is compiled into the test itself (it is also a libtool object of the plugin).
tests_unit_test_syscall_table_SOURCES = tests/unit/test_syscall_table.c tests/unit/unit.h
