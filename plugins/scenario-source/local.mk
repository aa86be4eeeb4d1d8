# scenario-source: sources of this component class (append to the plugin) and its unit tests.
SCENARIO_SIM_SOURCES = \
	plugins/scenario-source/sim.c plugins/scenario-source/sim.h \
	plugins/scenario-source/sim-rng.h \
	plugins/scenario-source/sim-queue.c plugins/scenario-source/sim-queue.h \
	plugins/scenario-source/sim-events.c plugins/scenario-source/sim-events.h \
	plugins/scenario-source/sim-output.c plugins/scenario-source/sim-output.h \
	plugins/scenario-source/sim-state.c plugins/scenario-source/sim-state.h \
	plugins/scenario-source/sim-kernel.c plugins/scenario-source/sim-kernel.h \
	plugins/scenario-source/sim-hotrod.c plugins/scenario-source/sim-hotrod.h \
	plugins/scenario-source/sim-truth.c plugins/scenario-source/sim-truth.h

plugins_babeltrace_plugin_deepspan_la_SOURCES += \
	$(SCENARIO_SIM_SOURCES) \
	plugins/scenario-source/emit.h \
	plugins/scenario-source/emit-classes.c \
	plugins/scenario-source/emit-messages.c \
	plugins/scenario-source/scenario-params.c plugins/scenario-source/scenario-params.h \
	plugins/scenario-source/scenario-component.c plugins/scenario-source/scenario-component.h \
	plugins/scenario-source/register.h
