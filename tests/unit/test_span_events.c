/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/common/span-events: event names to kinds and schemas. */
#include "unit.h"
#include "span-events.h"

static void test_names(void)
{
	enum ds_span_schema schema;

	UNIT_EQ_INT(ds_span_event_kind_from_name("jaeger_ust:start_span", &schema), DS_SPAN_EVENT_START, "jaeger start");
	UNIT_EQ_INT(schema, DS_SPAN_SCHEMA_JAEGER, "jaeger schema");
	UNIT_EQ_INT(ds_span_event_kind_from_name("jaeger_ust:end_span", &schema), DS_SPAN_EVENT_END, "jaeger end");
	UNIT_EQ_INT(ds_span_event_kind_from_name("deepspan_ust:span_start", &schema), DS_SPAN_EVENT_START, "deepspan start");
	UNIT_EQ_INT(schema, DS_SPAN_SCHEMA_DEEPSPAN, "deepspan schema");
	UNIT_EQ_INT(ds_span_event_kind_from_name("deepspan_ust:span_end", &schema), DS_SPAN_EVENT_END, "deepspan end");
	UNIT_EQ_INT(ds_span_event_kind_from_name("deepspan_ust:span_activate", &schema), DS_SPAN_EVENT_ACTIVATE, "activate");
	UNIT_EQ_INT(ds_span_event_kind_from_name("deepspan_ust:span_deactivate", &schema), DS_SPAN_EVENT_DEACTIVATE, "deactivate");
	UNIT_EQ_INT(ds_span_event_kind_from_name("deepspan_ust:span_startx", &schema), DS_SPAN_EVENT_NONE, "near miss");
	UNIT_EQ_INT(schema, DS_SPAN_SCHEMA_NONE, "near miss has no schema");
	UNIT_EQ_INT(ds_span_event_kind_from_name("sched_switch", &schema), DS_SPAN_EVENT_NONE, "kernel event");
	UNIT_EQ_INT(ds_span_event_kind_from_name(NULL, &schema), DS_SPAN_EVENT_NONE, "no name");
	UNIT_EQ_STR(ds_span_kind_name(DS_SPAN_KIND_SERVER), "server", "server kind");
	UNIT_EQ_STR(ds_span_kind_name(DS_SPAN_KIND_CONSUMER), "consumer", "consumer kind");
	UNIT_EQ_STR(ds_span_kind_name(9), "unknown", "out of range kind");
}

int main(void)
{
	test_names();
	return unit_finish();
}
