# SPDX-License-Identifier: MIT
# instrumentation/nodejs: the Node.js preload recorder and its N-API addon.
#
# deepspan_vnode.node defines the LTTng-UST provider `vnode` (DESIGN.md §3.3) and is loaded by
# deepspan-vnode.js (`node -r DIR/deepspan-vnode.js app.js`).  Built with plain gcc + libtool against
# the Node headers of the nodejs package (no node-gyp).  In the build tree both files end up in
# build/instrumentation/nodejs/; `make install` puts both in $(pkglibdir)/nodejs
# (default /usr/local/lib/deepspan/nodejs).
if ENABLE_INSTRUMENTATION
NODE_INCLUDE_DIR = /usr/include/node

# The addon itself: a libtool module, never installed as such (no rpath needed at run time).
noinst_LTLIBRARIES += instrumentation/nodejs/libdeepspan-vnode.la
instrumentation_nodejs_libdeepspan_vnode_la_SOURCES = instrumentation/nodejs/deepspan-vnode.c \
	instrumentation/nodejs/vnode-tp.h
instrumentation_nodejs_libdeepspan_vnode_la_CPPFLAGS = -I$(srcdir)/instrumentation/nodejs \
	-I$(NODE_INCLUDE_DIR) -DNODE_GYP_MODULE_NAME=deepspan_vnode $(LTTNG_UST_CFLAGS)
# Not $(DEEPSPAN_CFLAGS): sanitizer builds must not instrument a module that node dlopens.
instrumentation_nodejs_libdeepspan_vnode_la_CFLAGS = -std=gnu11 -O2 -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-missing-field-initializers
instrumentation_nodejs_libdeepspan_vnode_la_LIBADD = $(LTTNG_UST_LIBS) -ldl
# N-API symbols come from the node executable: undefined symbols are expected here.
instrumentation_nodejs_libdeepspan_vnode_la_LDFLAGS = -module -avoid-version -shared -rpath $(nodejsdir)

# What users load: the addon under the name node expects, beside the preload script
# (copied into the build directory so that `node -r build/instrumentation/nodejs/deepspan-vnode.js` works).
nodejsdir = $(pkglibdir)/nodejs
nodejs_DATA = instrumentation/nodejs/deepspan_vnode.node
dist_nodejs_DATA = instrumentation/nodejs/deepspan-vnode.js
instrumentation/nodejs/deepspan_vnode.node: instrumentation/nodejs/libdeepspan-vnode.la \
		$(srcdir)/instrumentation/nodejs/deepspan-vnode.js
	$(AM_V_GEN)cp -f instrumentation/nodejs/.libs/libdeepspan-vnode.so $@ && \
	{ test "$(abs_builddir)" = "$(abs_srcdir)" || \
	  cp -f $(srcdir)/instrumentation/nodejs/deepspan-vnode.js "$(abs_builddir)/instrumentation/nodejs/"; }
CLEANFILES += instrumentation/nodejs/deepspan_vnode.node
endif

# The three-service demo of doc/nodejs.md and the tests (tests/test_nodejs_*.py), and the guide.
EXTRA_DIST += instrumentation/nodejs/demo/service.js instrumentation/nodejs/demo/loadgen.js
dist_docpages_DATA += doc/nodejs.md
