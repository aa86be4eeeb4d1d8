/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's put_ref functions as GDestroyNotify, for glib tables and arrays that hold a reference on
 * each of their keys or values (one definition for every class of the plugin).
 */
#ifndef DEEPSPAN_COMMON_BT_PUT_H
#define DEEPSPAN_COMMON_BT_PUT_H

#include <glib.h>

void ds_put_clock_class(gpointer obj);
void ds_put_trace_class(gpointer obj);
void ds_put_stream_class(gpointer obj);
void ds_put_event_class(gpointer obj);
void ds_put_trace(gpointer obj);
void ds_put_stream(gpointer obj);
void ds_put_packet(gpointer obj);

#endif /* DEEPSPAN_COMMON_BT_PUT_H */
