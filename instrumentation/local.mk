# SPDX-License-Identifier: MIT
# instrumentation: LTTng-UST providers and the deepspan span library.
#
# libdeepspan-ust: the `deepspan_ust` tracepoint provider (DESIGN.md §3.2) and the C span API of
# deepspan-ust.h, installed with its header and a pkg-config file (deepspan-ust.pc).
if ENABLE_INSTRUMENTATION
DEEPSPAN_UST_DIR = instrumentation/deepspan_ust
DEEPSPAN_UST_PURE_SOURCES = $(DEEPSPAN_UST_DIR)/traceparent.c $(DEEPSPAN_UST_DIR)/ids.c \
	$(DEEPSPAN_UST_DIR)/ids.h $(DEEPSPAN_UST_DIR)/deepspan-ust.h

# The code once, as a convenience library: linked whole into the installed shared library, and
# statically into the examples, the benchmark and the tests (real binaries, no libtool wrappers).
noinst_LTLIBRARIES += instrumentation/libdeepspan-ust-core.la
instrumentation_libdeepspan_ust_core_la_SOURCES = $(DEEPSPAN_UST_PURE_SOURCES) \
	$(DEEPSPAN_UST_DIR)/span.c $(DEEPSPAN_UST_DIR)/tp.c $(DEEPSPAN_UST_DIR)/deepspan-ust-tp.h
instrumentation_libdeepspan_ust_core_la_CPPFLAGS = -I$(srcdir)/$(DEEPSPAN_UST_DIR) $(LTTNG_UST_CFLAGS)
instrumentation_libdeepspan_ust_core_la_CFLAGS = $(DEEPSPAN_CFLAGS)
instrumentation_libdeepspan_ust_core_la_LIBADD = $(LTTNG_UST_LIBS) -lpthread
DEEPSPAN_UST_LDADD = instrumentation/libdeepspan-ust-core.la $(LTTNG_UST_LIBS) -lpthread

deepspanlibdir = $(libdir)
deepspanlib_LTLIBRARIES = instrumentation/libdeepspan-ust.la
instrumentation_libdeepspan_ust_la_SOURCES =
instrumentation_libdeepspan_ust_la_LIBADD = $(DEEPSPAN_UST_LDADD)
instrumentation_libdeepspan_ust_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined \
	-Wl,--no-undefined -export-symbols-regex '^deepspan_(span_|new_|traceparent_|tracing_)'

deepspanincludedir = $(includedir)
deepspaninclude_HEADERS = $(DEEPSPAN_UST_DIR)/deepspan-ust.h

# deepspan-ust.pc, from its template with the configured directories.
deepspanpcdir = $(libdir)/pkgconfig
deepspanpc_DATA = instrumentation/deepspan-ust.pc
instrumentation/deepspan-ust.pc: $(srcdir)/$(DEEPSPAN_UST_DIR)/deepspan-ust.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) instrumentation && \
	sed -e 's|[@]prefix[@]|$(prefix)|g' -e 's|[@]exec_prefix[@]|$(exec_prefix)|g' \
	    -e 's|[@]libdir[@]|$(libdir)|g' -e 's|[@]includedir[@]|$(includedir)|g' \
	    -e 's|[@]VERSION[@]|$(VERSION)|g' \
	    $(srcdir)/$(DEEPSPAN_UST_DIR)/deepspan-ust.pc.in > $@
CLEANFILES += instrumentation/deepspan-ust.pc
EXTRA_DIST += $(DEEPSPAN_UST_DIR)/deepspan-ust.pc.in

# The per-span cost with tracing on and off (bench/instrumentation-overhead runs it).
check_PROGRAMS += bench/instrumentation-overhead-spans
bench_instrumentation_overhead_spans_SOURCES = bench/instrumentation-overhead-spans.c
bench_instrumentation_overhead_spans_CPPFLAGS = -I$(srcdir)/$(DEEPSPAN_UST_DIR)
bench_instrumentation_overhead_spans_LDADD = $(DEEPSPAN_UST_LDADD)
EXTRA_DIST += bench/instrumentation-overhead

# The recording helper: installed with the library whose events it records.
bin_SCRIPTS += scripts/deepspan-record
EXTRA_DIST += scripts/deepspan-record

# Unit tests of the pure parts (no tracer) and of the API with tracing off.
check_PROGRAMS += tests/unit/test_traceparent tests/unit/test_span_ids tests/unit/test_span_api
tests_unit_test_traceparent_SOURCES = tests/unit/test_traceparent.c tests/unit/unit.h $(DEEPSPAN_UST_PURE_SOURCES)
tests_unit_test_traceparent_CPPFLAGS = -I$(srcdir)/$(DEEPSPAN_UST_DIR)
tests_unit_test_span_ids_SOURCES = tests/unit/test_span_ids.c tests/unit/unit.h $(DEEPSPAN_UST_PURE_SOURCES)
tests_unit_test_span_ids_CPPFLAGS = -I$(srcdir)/$(DEEPSPAN_UST_DIR)
tests_unit_test_span_api_SOURCES = tests/unit/test_span_api.c tests/unit/unit.h
tests_unit_test_span_api_CPPFLAGS = -I$(srcdir)/$(DEEPSPAN_UST_DIR)
tests_unit_test_span_api_LDADD = $(DEEPSPAN_UST_LDADD)
endif
