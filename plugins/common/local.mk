# SPDX-License-Identifier: MIT
# plugins/common: the modules two or more component classes use (convenience library linked into
# the plugin and the unit tests).
plugins_common_libdeepspan_common_la_SOURCES += \
	plugins/common/event-fields.c plugins/common/event-fields.h \
	plugins/common/span-events.c plugins/common/span-events.h \
	plugins/common/params.c plugins/common/params.h \
	plugins/common/json-writer.c plugins/common/json-writer.h \
	plugins/common/log.c plugins/common/log.h \
	plugins/common/input-ports.c plugins/common/input-ports.h \
	plugins/common/states.c plugins/common/states.h \
	plugins/common/upstream.c plugins/common/upstream.h \
	plugins/common/kernel-net.c plugins/common/kernel-net.h \
	plugins/common/pair-records.c plugins/common/pair-records.h \
	plugins/common/bt-put.c plugins/common/bt-put.h \
	plugins/common/add-port.c plugins/common/add-port.h \
	plugins/common/pipe-io.c plugins/common/pipe-io.h \
	plugins/common/pipe-types.c plugins/common/pipe-types.h \
	plugins/common/detail-format.c plugins/common/detail-format.h \
	plugins/common/chain-kinds.c plugins/common/chain-kinds.h \
	plugins/common/chain-packed.h \
	plugins/common/chain-strings.h

check_PROGRAMS += tests/unit/test_common
tests_unit_test_common_SOURCES = tests/unit/test_common.c tests/unit/unit.h
tests_unit_test_common_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_span_events
tests_unit_test_span_events_SOURCES = tests/unit/test_span_events.c tests/unit/unit.h
tests_unit_test_span_events_LDADD = $(UNIT_LDADD)
