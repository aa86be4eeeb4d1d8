# SPDX-License-Identifier: MIT
# examples: instrumented demo applications.
#
# examples/microservices: ds-gateway, ds-account, ds-store (loopback HTTP services instrumented with
# libdeepspan-ust) and ds-loadgen (starts them, drives them, prints measured latencies as JSON).
# They are check programs: `make check` builds them for tests/test_instrumentation_*.py.
if ENABLE_INSTRUMENTATION
EXAMPLE_SERVICE_SOURCES = examples/microservices/service.c examples/microservices/service.h \
	examples/microservices/http.c examples/microservices/http.h
EXAMPLE_CPPFLAGS = -I$(srcdir)/instrumentation/deepspan_ust -I$(srcdir)/examples/microservices
EXAMPLE_LDADD = $(DEEPSPAN_UST_LDADD)

check_PROGRAMS += examples/microservices/ds-gateway examples/microservices/ds-account \
	examples/microservices/ds-store examples/microservices/ds-loadgen
examples_microservices_ds_gateway_SOURCES = examples/microservices/gateway.c $(EXAMPLE_SERVICE_SOURCES)
examples_microservices_ds_gateway_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
examples_microservices_ds_gateway_LDADD = $(EXAMPLE_LDADD)
examples_microservices_ds_account_SOURCES = examples/microservices/account.c $(EXAMPLE_SERVICE_SOURCES)
examples_microservices_ds_account_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
examples_microservices_ds_account_LDADD = $(EXAMPLE_LDADD)
examples_microservices_ds_store_SOURCES = examples/microservices/store.c $(EXAMPLE_SERVICE_SOURCES)
examples_microservices_ds_store_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
examples_microservices_ds_store_LDADD = $(EXAMPLE_LDADD)
examples_microservices_ds_loadgen_SOURCES = examples/microservices/loadgen.c $(EXAMPLE_SERVICE_SOURCES)
examples_microservices_ds_loadgen_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
examples_microservices_ds_loadgen_LDADD = $(EXAMPLE_LDADD)
endif

# examples/jaeger: a minimal `jaeger_ust` provider (the Jaeger-Go LTTng schema) and ds-span-emitter,
# which emits the same span trees in either schema (tests/test_instrumentation_lttng.py).
if ENABLE_INSTRUMENTATION
check_PROGRAMS += examples/jaeger/ds-span-emitter
examples_jaeger_ds_span_emitter_SOURCES = examples/jaeger/span-emitter.c examples/jaeger/jaeger-tp.c \
	examples/jaeger/jaeger-ust-tp.h
examples_jaeger_ds_span_emitter_CPPFLAGS = -I$(srcdir)/instrumentation/deepspan_ust -I$(srcdir)/examples/jaeger \
	$(LTTNG_UST_CFLAGS)
examples_jaeger_ds_span_emitter_LDADD = $(EXAMPLE_LDADD)
endif
