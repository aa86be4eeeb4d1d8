# SPDX-License-Identifier: MIT
# tests: `make check` builds the unit programs, then runs the whole suite (pytest: unit programs,
# babeltrace2 command lines, Python bt2 graphs, sanitizer and valgrind runs) through tests/run-tests.
EXTRA_DIST += tests
check-local:
	DEEPSPAN_BUILD_DIR="$(abs_top_builddir)" DEEPSPAN_SRC_DIR="$(abs_top_srcdir)" \
		"$(abs_top_srcdir)/tests/run-tests" $(TESTS_ARGS)

# Builds the unit programs without running anything (the ASan tree uses it).
unit-programs: $(check_PROGRAMS)
.PHONY: unit-programs
