/* SPDX-License-Identifier: MIT */
/* babeltrace2's put_ref functions as GDestroyNotify (bt-put.h). */
#include "bt-put.h"

#include <babeltrace2/babeltrace.h>

#define DEFINE_PUT(type) \
	void ds_put_##type(gpointer obj) { bt_##type##_put_ref(obj); }

DEFINE_PUT(clock_class)
DEFINE_PUT(trace_class)
DEFINE_PUT(stream_class)
DEFINE_PUT(event_class)
DEFINE_PUT(trace)
DEFINE_PUT(stream)
DEFINE_PUT(packet)
