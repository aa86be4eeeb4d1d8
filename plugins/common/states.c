/* SPDX-License-Identifier: MIT */
#include "states.h"

static const char *const state_names[DS_STATE_COUNT] = { DS_STATE_NAMES };

static const char *const state_titles[DS_STATE_COUNT] = {
	"User", "System call", "Waited blocked", "Waited CPU", "Interrupted",
	"Unknown",
};

const char *ds_state_name(enum ds_state state)
{
	return (unsigned int) state < DS_STATE_COUNT ? state_names[state] : "unknown";
}

const char *ds_state_title(unsigned int state)
{
	return state < DS_STATE_COUNT ? state_titles[state] : "Unknown";
}
