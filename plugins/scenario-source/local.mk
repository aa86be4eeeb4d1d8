# SPDX-License-Identifier: MIT
# scenario-source: source.deepspan.scenario and its unit tests.
# The simulator (no babeltrace2 objects) is a convenience library linked into the plugin and the
# engine's unit-test program.
noinst_LTLIBRARIES += plugins/scenario-source/libscenario-sim.la
plugins_scenario_source_libscenario_sim_la_SOURCES = \
	plugins/scenario-source/sim.c plugins/scenario-source/sim.h \
	plugins/scenario-source/sim-presets.c plugins/scenario-source/sim-presets.h \
	plugins/scenario-source/sim-rng.h \
	plugins/scenario-source/sim-queue.c plugins/scenario-source/sim-queue.h \
	plugins/scenario-source/sim-events.c plugins/scenario-source/sim-events.h \
	plugins/scenario-source/sim-output.c plugins/scenario-source/sim-output.h \
	plugins/scenario-source/sim-state.c plugins/scenario-source/sim-state.h \
	plugins/scenario-source/sim-kernel.c plugins/scenario-source/sim-kernel.h \
	plugins/scenario-source/sim-kernel-priv.h plugins/scenario-source/sim-irq.c \
	plugins/scenario-source/sim-hotrod.c plugins/scenario-source/sim-hotrod.h \
	plugins/scenario-source/hotrod-model.h plugins/scenario-source/hotrod-requests.c \
	plugins/scenario-source/hotrod-daemons.c \
	plugins/scenario-source/sim-truth.c plugins/scenario-source/sim-truth.h \
	plugins/scenario-source/sim-chain.c plugins/scenario-source/sim-chain.h

plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	plugins/scenario-source/emit.h \
	plugins/scenario-source/emit-classes.c \
	plugins/scenario-source/emit-messages.c \
	plugins/scenario-source/scenario-params.c plugins/scenario-source/scenario-params.h \
	plugins/scenario-source/scenario-component.c plugins/scenario-source/component.h \
	plugins/scenario-source/register.h
plugins_babeltrace_plugin_deepspan_la_LIBADD += plugins/scenario-source/libscenario-sim.la

check_PROGRAMS += tests/unit/test_scenario_engine
tests_unit_test_scenario_engine_SOURCES = tests/unit/test_scenario_engine.c tests/unit/unit.h
tests_unit_test_scenario_engine_LDADD = plugins/scenario-source/libscenario-sim.la $(UNIT_LDADD)

dist_docpages_DATA += doc/scenario.md
EXTRA_DIST += bench/scenario-gen
