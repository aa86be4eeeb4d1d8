/* SPDX-License-Identifier: MIT */
/* source.deepspan.scenario registration (included by plugins/plugin.c). */
#include "scenario-source/component.h"

BT_PLUGIN_SOURCE_COMPONENT_CLASS_WITH_ID(deepspan, scenario, "scenario", scenario_iterator_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION_WITH_ID(deepspan, scenario,
	"Deterministic multi-host microservice simulator writing LTTng-faithful kernel and UST traces "
	"(and their ground truth).");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP_WITH_ID(deepspan, scenario,
	"Simulates microservices on several hosts (CPUs, run queues, preemption, syscalls, futexes, "
	"disk, irqs/softirqs, TCP between hosts) and emits, per host, an lttng-modules 2.13 kernel "
	"trace and an lttng-ust 2.13 trace with span events. Output ports: `<host>-kernel` and "
	"`<host>-ust` for each host (hosts of the hotrod preset: frontend, customer, driver, route, "
	"mysql, redis, frontend-2, customer-2 in this order).\n"
	"\n"
	"Parameters:\n"
	"  preset (string, default \"hotrod\"): workload; \"hotrod\": frontend -> customer -> mysql, "
	"frontend -> driver -> redis, frontend -> route (3 parallel calls).\n"
	"  hosts (unsigned integer 1..8, default 3): number of hosts; services spread over them.\n"
	"  cpus (unsigned integer 1..64, default 4): CPUs per host.\n"
	"  requests (unsigned integer, default 200): external requests to simulate.\n"
	"  seed (unsigned integer, default 1): same parameters and seed give byte-identical output.\n"
	"  slow-ratio (real 0..1, default 0.05): share of requests slowed by an injected cause.\n"
	"  cause (string, default \"mixed\"): \"lock\" (mysql span waits on a futex held by another "
	"mysqld thread), \"cpu\" (noisy neighbour on the route host), \"disk\" (mysql read waits for "
	"block I/O), \"irq\" (irq storm on the CPU running a redis span), \"mixed\" (one of the four "
	"per slow request) or \"none\"; chain causes (never drawn by \"mixed\"; doc/critical-path.md): "
	"\"lock-hog\" (the lock holder is preempted by CPU hogs), \"lock-sleep\" (the holder sleeps on a "
	"timer), \"lock-remote\" (the holder waits for a remote call on another host), \"handoff\" (the "
	"mysql worker hands the query to a pool thread and waits), \"deadlock\" (one request: a mysql worker "
	"and a replica on another host wait for each other to the end of the trace), \"net-delay\" (the "
	"customer's reply to the frontend spends 20-40 ms more in flight: a slow path between the hosts), "
	"\"net-retransmit\" (that reply's last segment is lost and retransmitted after a 20-40 ms RTO), "
	"\"disk-contention\" (the mysql read queues on the device behind backup.sh's burst of writes), "
	"\"cache-miss\" (the mysql read of the same file misses the page cache in the slow requests).\n"
	"  span-schema (string, default \"deepspan_ust\"): \"deepspan_ust\" "
	"(deepspan_ust:span_start/span_end) or \"jaeger_ust\" (jaeger_ust:start_span/end_span).\n"
	"  clock (string, default \"random\"): host clocks: \"random\" (seeded offsets within +-50 ms "
	"and drifts within +-50 ppm, first host exact), \"none\" (all exact), or one "
	"OFFSET_NS:DRIFT_PPB per host, comma-separated.\n"
	"  truth (string, default none): path of the ground-truth JSON to write.\n"
	"  truth-chains (boolean, default false): the truth gives every span its chain (spans[].chain), "
	"not only the spans of requests with a chain cause.\n"
	"  packet-events (unsigned integer 16..1000000, default 4096): events per packet.\n"
	"  interarrival (duration, default \"4ms\"): mean time between two external requests.\n"
	"  max-inflight (unsigned integer 1..4096, default 16): concurrent external requests.\n"
	"  discard-every (unsigned integer, default 0): when not 0, every kernel stream loses a burst of 64 "
	"events every that many events, reported as discarded events at its next packet (the truth keeps "
	"the real thread states).\n");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, scenario, scenario_component_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, scenario, scenario_component_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_WITH_ID(deepspan, scenario,
	scenario_iterator_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD_WITH_ID(deepspan, scenario,
	scenario_iterator_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS_WITH_ID(deepspan, scenario,
	scenario_iterator_seek_beginning, scenario_iterator_can_seek_beginning);
