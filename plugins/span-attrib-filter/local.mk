# SPDX-License-Identifier: MIT
# span-attrib-filter: sources of this component class (append to the plugin) and its unit tests.

# The per-thread state model and its span accounting (no babeltrace2 objects): a convenience library
# linked into the plugin and the unit tests.
noinst_LTLIBRARIES += plugins/span-attrib-filter/libspan-attrib-state.la
plugins_span_attrib_filter_libspan_attrib_state_la_SOURCES = \
	plugins/span-attrib-filter/thread-state.c plugins/span-attrib-filter/thread-state.h \
	plugins/span-attrib-filter/span-charge.c \
	plugins/span-attrib-filter/model-priv.h \
	plugins/span-attrib-filter/chain.c plugins/span-attrib-filter/chain.h \
	plugins/span-attrib-filter/chain-history.c plugins/span-attrib-filter/chain-walk.c \
	plugins/span-attrib-filter/block.c plugins/span-attrib-filter/block.h \
	plugins/span-attrib-filter/chain-net.c plugins/span-attrib-filter/chain-continuation.c \
	plugins/span-attrib-filter/chain-arrays.c plugins/span-attrib-filter/chain-text.c \
	plugins/span-attrib-filter/host-context.c plugins/span-attrib-filter/host-context.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/span-attrib-filter/libspan-attrib-state.la

check_PROGRAMS += tests/unit/test_thread_state
tests_unit_test_thread_state_SOURCES = tests/unit/test_thread_state.c tests/unit/unit.h
tests_unit_test_thread_state_LDADD = plugins/span-attrib-filter/libspan-attrib-state.la $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_block
tests_unit_test_block_SOURCES = tests/unit/test_block.c tests/unit/unit.h
tests_unit_test_block_LDADD = plugins/span-attrib-filter/libspan-attrib-state.la $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_host_context
tests_unit_test_host_context_SOURCES = tests/unit/test_host_context.c tests/unit/unit.h
tests_unit_test_host_context_LDADD = plugins/span-attrib-filter/libspan-attrib-state.la $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_chain_text
tests_unit_test_chain_text_SOURCES = tests/unit/test_chain_text.c tests/unit/unit.h
tests_unit_test_chain_text_LDADD = plugins/span-attrib-filter/libspan-attrib-state.la $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_chain
tests_unit_test_chain_SOURCES = tests/unit/test_chain.c tests/unit/unit.h
tests_unit_test_chain_LDADD = plugins/span-attrib-filter/libspan-attrib-state.la $(UNIT_LDADD)

plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/span-attrib-filter/register.h plugins/span-attrib-filter/component.h \
	plugins/span-attrib-filter/span-attrib.h \
	plugins/span-attrib-filter/span-attrib.c \
	plugins/span-attrib-filter/kernel-events.c plugins/span-attrib-filter/kernel-events.h \
	plugins/span-attrib-filter/events.c \
	plugins/span-attrib-filter/inputs.c \
	plugins/span-attrib-filter/clock-fit.c \
	plugins/span-attrib-filter/hosts.c \
	plugins/span-attrib-filter/output.c \
	plugins/span-attrib-filter/chain-output.c \
	plugins/span-attrib-filter/families.c \
	plugins/span-attrib-filter/disk-output.c \
	plugins/span-attrib-filter/net-report.c \
	plugins/span-attrib-filter/cross-host.c \
	plugins/span-attrib-filter/host-context-output.c \
	plugins/span-attrib-filter/cache-reads-output.c \
	plugins/span-attrib-filter/syscall-table-x86_64.c plugins/span-attrib-filter/syscall-table-x86_64.h
EXTRA_DIST += plugins/span-attrib-filter/gen-syscall-table-x86_64

dist_docpages_DATA += doc/span-attrib.md doc/critical-path.md doc/storage-network.md doc/host-context.md

check_PROGRAMS += tests/unit/test_syscall_table
# The table is compiled into the test itself (it is also a libtool object of the plugin).
tests_unit_test_syscall_table_SOURCES = tests/unit/test_syscall_table.c tests/unit/unit.h
