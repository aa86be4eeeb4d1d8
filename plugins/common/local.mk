# plugins/common: shared modules (convenience library linked into the plugin and the unit tests).
# Other owners append their shared modules from their own local.mk.
plugins_common_libdeepspan_common_la_SOURCES += \
	plugins/common/params.c plugins/common/params.h \
	plugins/common/json-writer.c plugins/common/json-writer.h \
	plugins/common/log.c plugins/common/log.h \
	plugins/common/upstream.c plugins/common/upstream.h

check_PROGRAMS += tests/unit/test_common
tests_unit_test_common_SOURCES = tests/unit/test_common.c tests/unit/unit.h
tests_unit_test_common_LDADD = $(UNIT_LDADD)
