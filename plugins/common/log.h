/* SPDX-License-Identifier: MIT */
/*
 * Component logging to stderr, honouring the component's logging level
 * (`babeltrace2 --log-level`, `-l` per component, or Python's logging_level).
 * Format: `W deepspan filter.deepspan.sync (name): message`.
 */
#ifndef DEEPSPAN_COMMON_LOG_H
#define DEEPSPAN_COMMON_LOG_H

#include <babeltrace2/babeltrace.h>

/* printf-style; prints when `level` >= the component's logging level. */
void ds_log(bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define DS_LOG_WARN(self_comp, class_name, ...) \
	ds_log((self_comp), BT_LOGGING_LEVEL_WARNING, (class_name), __VA_ARGS__)
#define DS_LOG_INFO(self_comp, class_name, ...) \
	ds_log((self_comp), BT_LOGGING_LEVEL_INFO, (class_name), __VA_ARGS__)
#define DS_LOG_DEBUG(self_comp, class_name, ...) \
	ds_log((self_comp), BT_LOGGING_LEVEL_DEBUG, (class_name), __VA_ARGS__)

#endif /* DEEPSPAN_COMMON_LOG_H */
