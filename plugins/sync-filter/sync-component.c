/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: component methods (parameters, ports).
 */
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input-ports.h"
#include "params.h"
#include "sync.h"
#include "component.h"

const char *const sync_pair_kind_names[SYNC_PAIR_KIND_COUNT] = {
	[SYNC_PAIR_TCP] = "tcp",
	[SYNC_PAIR_SPANS] = "spans",
	[SYNC_PAIR_HTTP] = "http",
};

static void comp_destroy(struct sync_comp *comp)
{
	if (!comp) {
		return;
	}
	sync_comp_release(comp);
	free(comp);
}

static int bad_match(const struct ds_params *p, const bt_value *v)
{
	char description[128];

	ds_describe_value(v, description, sizeof(description));
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(p->self_comp,
		"%s: parameter `match`: expected an array of `tcp`, `spans`, `http` "
		"(or one of them as a string), got %s.", p->class_name, description);
	return -1;
}

static int match_one(const struct ds_params *p, const bt_value *v, bool *match)
{
	int k;

	if (!bt_value_is_string(v)) {
		return bad_match(p, v);
	}
	for (k = 0; k < SYNC_PAIR_KIND_COUNT; k++) {
		if (strcmp(bt_value_string_get(v), sync_pair_kind_names[k]) == 0) {
			match[k] = true;
			return 0;
		}
	}
	return bad_match(p, v);
}

static int parse_match(const struct ds_params *p, bool *match)
{
	const bt_value *v = ds_params_borrow(p, "match");
	uint64_t i, n;
	int k;

	if (!v) {
		for (k = 0; k < SYNC_PAIR_KIND_COUNT; k++) {
			match[k] = true;
		}
		return 0;
	}
	if (bt_value_is_string(v)) {
		return match_one(p, v, match);
	}
	if (!bt_value_is_array(v) || bt_value_array_get_length(v) == 0) {
		return bad_match(p, v);
	}
	n = bt_value_array_get_length(v);
	for (i = 0; i < n; i++) {
		if (match_one(p, bt_value_array_borrow_element_by_index_const(v, i), match)) {
			return -1;
		}
	}
	return 0;
}

int sync_load_formula(struct sync_comp *comp)
{
	char err[512];

	comp->formula = ds_json_parse_file(comp->formula_path, err, sizeof(err));
	if (!comp->formula) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp->self_comp,
			"%s: parameter `%s`: %s.", comp->class_name, comp->formula_param, err);
		return -1;
	}
	if (!ds_json_get(comp->formula, "hosts") ||
			ds_json_get(comp->formula, "hosts")->type != DS_JSON_ARRAY) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp->self_comp,
			"%s: parameter `%s`: \"%s\" is not a sync report "
			"(no `hosts` array); give a file written by the `report` parameter%s.",
			comp->class_name, comp->formula_param, comp->formula_path,
			strcmp(comp->class_name, SYNC_CLASS_NAME) ? " of " SYNC_CLASS_NAME : "");
		return -1;
	}
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? g_strdup(s) : NULL;
}

int sync_parse_fit_params(struct sync_comp *comp, const struct ds_params *p)
{
	const char *reference, *report;

	if (ds_params_get_string(p, "reference", NULL, &reference) ||
			ds_params_get_string(p, "report", NULL, &report) ||
			ds_params_get_duration(p, "pair-expiry", SYNC_DEFAULT_PAIR_EXPIRY_NS, &comp->pair_expiry_ns) ||
			parse_match(p, comp->match)) {
		return -1;
	}
	if (comp->pair_expiry_ns > SYNC_MAX_PAIR_EXPIRY_NS) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(p->self_comp,
			"%s: parameter `pair-expiry`: expected a duration of at most 1 day, "
			"got %" PRId64 " ns.", p->class_name, comp->pair_expiry_ns);
		return -1;
	}
	comp->reference = dup_or_null(reference);
	comp->report_path = dup_or_null(report);
	return 0;
}

void sync_comp_release(struct sync_comp *comp)
{
	free(comp->reference);
	free(comp->report_path);
	free(comp->formula_path);
	ds_json_free(comp->formula);
	comp->reference = comp->report_path = comp->formula_path = NULL;
	comp->formula = NULL;
}

static int parse_params(struct sync_comp *comp, const bt_value *params)
{
	static const char *const known[] = { "reference", "match", "report", "formula",
		"pair-expiry", "report-only", NULL };
	struct ds_params p = ds_params_make(comp->self_comp, params, SYNC_CLASS_NAME);
	const char *formula;

	if (ds_params_check_names(&p, known) || sync_parse_fit_params(comp, &p) ||
			ds_params_get_string(&p, "formula", NULL, &formula) ||
			ds_params_get_bool(&p, "report-only", false, &comp->report_only)) {
		return -1;
	}
	if (comp->report_only && (!comp->report_path || formula)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp->self_comp,
			"%s: parameter `report-only`: %s; give `report=\"FILE\"` without `formula` "
			"(doc/sync.md, \"Parameters\").", SYNC_CLASS_NAME,
			formula ? "it runs pass 1, which `formula` does not have" :
				"it writes only the report, and no `report` is given");
		return -1;
	}
	comp->formula_path = dup_or_null(formula);
	if (comp->formula_path && sync_load_formula(comp)) {
		return -1;
	}
	return 0;
}

bt_component_class_initialize_method_status sync_component_initialize(
		bt_self_component_filter *self, bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data)
{
	bt_component_class_initialize_method_status status =
		BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct sync_comp *comp = calloc(1, sizeof(*comp));

	(void) config;
	(void) init_data;
	if (!comp) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto error;
	}
	comp->self_filter = self;
	comp->self_comp = bt_self_component_filter_as_self_component(self);
	comp->class_name = SYNC_CLASS_NAME;
	comp->formula_param = "formula";
	if (parse_params(comp, params) ||
			ds_input_ports_add_next(self, SYNC_CLASS_NAME) != DS_INPUT_PORTS_STATUS_OK ||
			bt_self_component_filter_add_output_port(self, "out", NULL, NULL)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	bt_self_component_set_data(comp->self_comp, comp);
	goto end;

error:
	comp_destroy(comp);
end:
	return status;
}

void sync_component_finalize(bt_self_component_filter *self)
{
	comp_destroy(bt_self_component_get_data(bt_self_component_filter_as_self_component(self)));
}

bt_component_class_port_connected_method_status sync_component_input_port_connected(
		bt_self_component_filter *self, bt_self_component_port_input *self_port,
		const bt_port_output *other_port)
{
	(void) other_port;
	return ds_input_ports_connected(self, self_port, SYNC_CLASS_NAME);
}
