/* SPDX-License-Identifier: MIT */
/*
 * source.deepspan.scenario: one output port per host and domain
 * (`<host>-kernel`, `<host>-ust`).  The simulation runs in true time and
 * fills every port's queue; each port's iterator drains its own queue and
 * advances the shared simulation when it is empty.  Queues of ports nobody
 * reads are not kept.
 */
#include "component.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "emit.h"
#include "log.h"
#include "scenario-params.h"
#include "sim.h"

struct scenario {
	bt_self_component *self_comp;	/* borrowed */
	struct sim *sim;		/* owned */
	struct sim_config cfg;		/* the parameters, kept to replay the run on a seek */
	unsigned int run;		/* how many times the simulation was restarted */
	struct scn_emitter emitter;	/* owns the trace IR */
	char *truth_path;		/* owned */
	bool error_reported;
};

struct scenario_iter {
	struct scenario *scenario;	/* borrowed */
	unsigned int port;
	unsigned int run;		/* the scenario run this iterator reads */
};

static bool add_ports(struct scenario *scenario, bt_self_component_source *self_comp_src)
{
	unsigned int h;

	for (h = 0; h < scenario->sim->cfg.hosts; h++) {
		char name[64];
		unsigned int d;

		for (d = 0; d < 2; d++) {
			snprintf(name, sizeof(name), "%s-%s", scenario->sim->host[h].name,
				d == 0 ? "kernel" : "ust");
			if (bt_self_component_source_add_output_port(self_comp_src, name,
					GUINT_TO_POINTER(sim_port_index(h, (enum sim_domain) d) + 1), NULL) !=
					BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
				return false;
			}
		}
	}
	return true;
}

static void scenario_destroy(struct scenario *scenario)
{
	if (!scenario) {
		return;
	}
	scn_emitter_fini(&scenario->emitter);
	sim_destroy(scenario->sim);
	g_free(scenario->truth_path);
	g_free(scenario);
}

bt_component_class_initialize_method_status scenario_component_initialize(
		bt_self_component_source *self_comp_src,
		bt_self_component_source_configuration *config,
		const bt_value *params, void *init_method_data)
{
	bt_self_component *self_comp = bt_self_component_source_as_self_component(self_comp_src);
	struct scenario *scenario = g_new0(struct scenario, 1);
	bt_component_class_initialize_method_status status =
		BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	struct sim_config cfg;
	char error[256];

	(void) config;
	(void) init_method_data;
	scenario->self_comp = self_comp;
	if (!scn_params_parse(self_comp, params, &cfg, &scenario->truth_path)) {
		goto error;
	}
	cfg.truth_path = scenario->truth_path;
	scenario->cfg = cfg;
	scenario->sim = sim_create(&cfg, error, sizeof(error));
	if (!scenario->sim) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: cannot start the simulation: %s.", SCN_CLASS_NAME, error);
		goto error;
	}
	if (!scn_emitter_init(&scenario->emitter, self_comp, scenario->sim)) {
		/* it only fails to allocate trace IR objects */
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto error;
	}
	if (!add_ports(scenario, self_comp_src)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: cannot add the output ports.", SCN_CLASS_NAME);
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto error;
	}
	bt_self_component_set_data(self_comp, scenario);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	scenario_destroy(scenario);
	return status;
}

/* INFO: what the run produced and the largest backlog each port's queue held. */
static void log_summary(struct scenario *scenario)
{
	struct sim *sim = scenario->sim;
	GString *peaks = g_string_new(NULL);
	unsigned int p;

	for (p = 0; p < 2 * sim->cfg.hosts; p++) {
		g_string_append_printf(peaks, "%s%zu", p ? ", " : "", sim->out.port[p].peak);
	}
	DS_LOG_INFO(scenario->self_comp, SCN_CLASS_NAME,
		"%" PRIu64 " events, %" PRIu64 " TCP segments, %" PRIu64 " events discarded; "
		"peak queued records per port: %s", sim->out.events, sim->tcp_segments,
		sim->out.discarded, peaks->str);
	g_string_free(peaks, TRUE);
}

void scenario_component_finalize(bt_self_component_source *self_comp_src)
{
	struct scenario *scenario = bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_comp_src));

	if (scenario && scenario->sim) {
		log_summary(scenario);
	}
	scenario_destroy(scenario);
}

bt_message_iterator_class_initialize_method_status scenario_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *self_port)
{
	struct scenario *scenario = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self_msg_iter));
	struct scenario_iter *iter = g_new0(struct scenario_iter, 1);

	(void) config;
	iter->scenario = scenario;
	iter->port = GPOINTER_TO_UINT(bt_self_component_port_get_data(
		bt_self_component_port_output_as_self_component_port(self_port))) - 1;
	if (scenario->sim->out.port[iter->port].connected) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"%s: port %u already has a message iterator: connect each port once.",
			SCN_CLASS_NAME, iter->port);
		g_free(iter);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	scenario->sim->out.port[iter->port].connected = true;
	iter->run = scenario->run;
	bt_self_message_iterator_set_data(self_msg_iter, iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void scenario_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	struct scenario_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);
	struct sim_record rec;

	if (!iter) {
		return;
	}
	/* nobody reads this port any more: stop queueing for it */
	iter->scenario->sim->out.port[iter->port].connected = false;
	while (sim_output_pop(&iter->scenario->sim->out, iter->port, &rec)) {
	}
	g_free(iter);
}

bt_message_iterator_class_next_method_status scenario_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct scenario_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);
	struct scenario *scenario = iter->scenario;
	struct sim *sim = scenario->sim;
	struct sim_record rec;
	uint64_t n = 0;

	if (iter->run != scenario->run) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"%s: another output port was rewound to the beginning but not this one "
			"(port %u): seek every port of the component together.",
			SCN_CLASS_NAME, iter->port);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	while (n < capacity) {
		if (!sim_output_pop(&sim->out, iter->port, &rec)) {
			if (sim->failed) {
				break;
			}
			if (sim->done) {
				break;
			}
			(void) sim_step(sim);
			continue;
		}
		if (!scn_emitter_message(&scenario->emitter, self_msg_iter, iter->port, &rec, &msgs[n])) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
				"%s: cannot create a message: out of memory.", SCN_CLASS_NAME);
			goto error;
		}
		n++;
	}
	*count = n;
	if (n > 0) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	if (sim->failed) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"%s: the simulation failed: %s.", SCN_CLASS_NAME, sim->error);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;

error:
	/* scn_emitter_message() only fails to allocate a message or its fields */
	while (n > 0) {
		bt_message_put_ref(msgs[--n]);
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
}

bt_message_iterator_class_can_seek_beginning_method_status
scenario_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek)
{
	(void) self_msg_iter;
	*can_seek = BT_TRUE;	/* the run is deterministic: it can always be replayed */
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

/* Replaces the simulation by a fresh one with the same parameters (no truth file the second time). */
static bool restart_simulation(struct scenario *scenario, bt_self_message_iterator *self_msg_iter)
{
	struct sim_config cfg = scenario->cfg;
	struct sim *fresh;
	char error[256];
	unsigned int port;

	cfg.truth_path = NULL;
	fresh = sim_create(&cfg, error, sizeof(error));
	if (!fresh) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"%s: cannot restart the simulation to seek the beginning: %s.",
			SCN_CLASS_NAME, error);
		return false;
	}
	for (port = 0; port < 2 * scenario->cfg.hosts; port++) {
		fresh->out.port[port].connected = scenario->sim->out.port[port].connected;
	}
	sim_destroy(scenario->sim);
	scenario->sim = fresh;
	scenario->run++;
	return true;
}

bt_message_iterator_class_seek_beginning_method_status
scenario_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter)
{
	struct scenario_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);
	struct scenario *scenario = iter->scenario;

	/* The first port rewound restarts the shared simulation; the others join that run. */
	if (iter->run == scenario->run && !restart_simulation(scenario, self_msg_iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR;
	}
	iter->run = scenario->run;
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
