/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

static char level_letter(bt_logging_level level)
{
	switch (level) {
	case BT_LOGGING_LEVEL_TRACE: return 'T';
	case BT_LOGGING_LEVEL_DEBUG: return 'D';
	case BT_LOGGING_LEVEL_INFO: return 'I';
	case BT_LOGGING_LEVEL_WARNING: return 'W';
	case BT_LOGGING_LEVEL_ERROR: return 'E';
	default: return 'F';
	}
}

void ds_log(bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...)
{
	const bt_component *comp = bt_self_component_as_component(self_comp);
	va_list args;

	if (level < bt_component_get_logging_level(comp)) {
		return;
	}
	fprintf(stderr, "%c deepspan %s (%s): ", level_letter(level), class_name,
		bt_component_get_name(comp));
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
}
