/* SPDX-License-Identifier: MIT */
/*
 * Missing kernel event families (doc/storage-network.md, "Recording the events"): per host, which of the
 * families the layers and chains read have event classes in its traces (LTTng declares the classes of the
 * enabled events, whether or not any was recorded); at the end, one warning per host that has kernel events
 * but lacks some, with the `lttng enable-event -k` line that would record them.  Read once per new stream,
 * never per event.
 */
#include "span-attrib.h"
#include "kernel-net.h"
#include "log.h"

#include <string.h>

struct family {
	unsigned int bit;
	const char *name;
	const char *events;	/* for lttng enable-event -k */
	const char *loss;
};

static const struct family families[] = {
	{ DS_FAMILY_SCHED, "sched",
		"sched_switch,sched_waking,sched_wakeup,sched_wakeup_new,sched_migrate_task,sched_process_fork,"
		"sched_process_exit,sched_process_free", "no thread states" },
	{ DS_FAMILY_TIMER, "timers",
		"timer_hrtimer_expire_entry,timer_hrtimer_expire_exit,timer_expire_entry,timer_expire_exit",
		"timer wakeups are not named" },
	{ DS_FAMILY_BLOCK, "block",
		"block_rq_insert,block_rq_issue,block_rq_complete,block_rq_requeue,block_rq_merge,"
		"block_bio_backmerge,block_bio_frontmerge", "disk waits are not split into queue and device time" },
	{ DS_FAMILY_NET, "network", "net_dev_queue,net_if_receive_skb",
		"network waits are not followed to the sender" },
};

static unsigned int family_of(const bt_event_class *ec)
{
	const char *name_start;
	size_t name_len;
	bool compat;
	struct ds_kernel_net_class net;

	switch (ds_kernel_event_kind_from_name(bt_event_class_get_name(ec), &name_start, &name_len, &compat)) {
	case DS_KEV_SCHED_SWITCH:
		return DS_FAMILY_SCHED;
	case DS_KEV_TIMER_ENTRY:
	case DS_KEV_SOFTIRQ_ENTRY:	/* its TIMER / HRTIMER softirqs name timer wakeups too */
		return DS_FAMILY_TIMER;
	case DS_KEV_BLOCK_RQ_ISSUE:
	case DS_KEV_BLOCK_RQ_COMPLETE:
	case DS_KEV_BLOCK_RQ_INSERT:
		return DS_FAMILY_BLOCK;
	default:
		break;
	}
	ds_kernel_net_classify(ec, &net);
	return net.direction != DS_NET_NONE ? DS_FAMILY_NET : 0;
}

void span_attrib_note_class_family(struct host *host, const bt_event_class *ec)
{
	host->families |= family_of(ec);
}

void span_attrib_note_families(struct host *host, const bt_stream_class *sc)
{
	uint64_t i, count = bt_stream_class_get_event_class_count(sc);

	for (i = 0; i < count && (host->families & DS_FAMILY_ALL) != DS_FAMILY_ALL; i++) {
		host->families |= family_of(bt_stream_class_borrow_event_class_by_index_const(sc, i));
	}
}

void span_attrib_report_families(struct span_attrib_iterator *it)
{
	GHashTableIter iter;
	gpointer value;

	if (!it->comp->layers) {
		return;
	}
	g_hash_table_iter_init(&iter, it->hosts);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct host *host = value;
		/* network events are read only with chains (follow-wakeups) */
		unsigned int seen = host->families | (it->chain ? 0 : DS_FAMILY_NET);
		GString *names, *events, *losses;
		size_t i;

		if (!host->has_kernel || (seen & DS_FAMILY_ALL) == DS_FAMILY_ALL) {
			continue;
		}
		names = g_string_new(NULL);
		events = g_string_new(NULL);
		losses = g_string_new(NULL);
		for (i = 0; i < G_N_ELEMENTS(families); i++) {
			if (seen & families[i].bit) {
				continue;
			}
			g_string_append_printf(names, "%s%s", names->len ? ", " : "", families[i].name);
			g_string_append_printf(events, "%s%s", events->len ? "," : "", families[i].events);
			g_string_append_printf(losses, "%s%s", losses->len ? "; " : "", families[i].loss);
		}
		DS_LOG_WARN(it->comp->self_comp, SPAN_ATTRIB_CLASS_NAME, "host `%s`: no kernel events of the %s "
			"famil%s (%s); record them with `lttng enable-event -k %s` (doc/storage-network.md, "
			"\"Recording the events\").", host->name, names->str, strchr(names->str, ',') ? "ies" : "y",
			losses->str, events->str);
		g_string_free(names, TRUE);
		g_string_free(events, TRUE);
		g_string_free(losses, TRUE);
	}
}
