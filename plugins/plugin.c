/* SPDX-License-Identifier: MIT */
/*
 * The deepspan babeltrace2 plugin: one shared object, every component class.
 *
 * Each component class directory owns a `register.h` that registers its class
 * against this descriptor with the `_WITH_ID` macros (plugin id `deepspan`);
 * the methods it names are declared in the directory's `component.h`.
 */
#include <babeltrace2/babeltrace.h>

BT_PLUGIN_MODULE();

BT_PLUGIN_WITH_ID(deepspan, "deepspan");
BT_PLUGIN_DESCRIPTION_WITH_ID(deepspan,
	"Why are some distributed requests slow? Spans joined with kernel "
	"thread states on one synchronized clock, compared group against group.");
BT_PLUGIN_AUTHOR_WITH_ID(deepspan, "The deepspan developers");
BT_PLUGIN_LICENSE_WITH_ID(deepspan, "MIT");
BT_PLUGIN_VERSION_WITH_ID(deepspan, 0, 1, 0, NULL);

#include "scenario-source/register.h"
#include "sync-filter/register.h"
#include "sync-extract-filter/register.h"
#include "clock-fit-source/register.h"
#include "pipe-sink/register.h"
#include "pipe-source/register.h"
#include "nodejs-ctx-filter/register.h"
#include "span-attrib-filter/register.h"
#include "diff-sink/register.h"
#include "metrics-sink/register.h"
