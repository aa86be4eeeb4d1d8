# SPDX-License-Identifier: MIT
# nodejs-ctx-filter: filter.deepspan.nodejs-ctx (append to the plugin) and its unit tests.
# ctx.c is the pure-C state machine (no babeltrace2): the unit tests link it directly.
NODEJS_CTX_CORE = plugins/nodejs-ctx-filter/ctx.c plugins/nodejs-ctx-filter/ctx.h \
	plugins/nodejs-ctx-filter/ctx-internal.h plugins/nodejs-ctx-filter/ctx-busy.c
plugins_babeltrace_plugin_deepspan_la_SOURCES += $(NODEJS_CTX_CORE) \
	plugins/nodejs-ctx-filter/register.h plugins/nodejs-ctx-filter/component.h \
	plugins/nodejs-ctx-filter/nodejs-ctx.c \
	plugins/nodejs-ctx-filter/vnode-input.c plugins/nodejs-ctx-filter/vnode-input.h \
	plugins/nodejs-ctx-filter/span-output.c plugins/nodejs-ctx-filter/span-output.h

check_PROGRAMS += tests/unit/test_nodejs_ctx
tests_unit_test_nodejs_ctx_SOURCES = tests/unit/test_nodejs_ctx.c tests/unit/unit.h $(NODEJS_CTX_CORE)
tests_unit_test_nodejs_ctx_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/plugins/nodejs-ctx-filter
tests_unit_test_nodejs_ctx_LDADD = $(UNIT_LDADD)
