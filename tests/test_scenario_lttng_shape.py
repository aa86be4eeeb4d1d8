# SPDX-License-Identifier: MIT
"""The scenario's traces have the shape of real LTTng traces (compared with shared/traces/cat-kern-ust, and
with a real Linux 6.1 + lttng-modules 2.13.9 recording of tests/fixtures/real-kernel)."""
import tarfile

import pytest

from conftest import SRC_DIR

from scenario_fixtures import field_class_shape, make_scenario_trace

REAL_KERNEL = "cat-kern-ust/cat-kernel"
REAL_UST = "cat-kern-ust/cat-ust"


def first_stream_classes(path):
    """{domain: (trace, stream class)} of the first stream of each trace found under `path`."""
    import bt2
    found = {}
    for msg in bt2.TraceCollectionMessageIterator(str(path)):
        if type(msg) is bt2._StreamBeginningMessageConst:
            trace = msg.stream.trace
            key = (str(trace.environment["hostname"]), str(trace.environment["domain"]))
            found.setdefault(key, (trace, msg.stream.cls))
        elif type(msg) is bt2._EventMessageConst:
            break
    return found


@pytest.fixture(scope="module")
def ours(tmp_path_factory, plugin_dir):
    out = make_scenario_trace(tmp_path_factory.mktemp("scenario-shape") / "trace", requests=30)
    return first_stream_classes(out)


@pytest.fixture(scope="module")
def real(shared_traces):
    kernel = first_stream_classes(shared_traces / REAL_KERNEL)
    ust = first_stream_classes(shared_traces / REAL_UST)
    return next(iter(kernel.values())), next(iter(ust.values()))


# Event classes whose layout changed after the lttng-modules 2.11 pre-release of cat-kern-ust: the
# scenario writes the 2.13 one (checked against the 2.13 recording below): process_state lost its
# namespace fields to process_pid_ns; the network headers gained UDP and ICMP transport options;
# epoll_wait's `fds[].data_union.fd` became signed.
CHANGED_SINCE_2_11 = {"lttng_statedump_process_state", "net_dev_queue", "net_if_receive_skb",
                      "syscall_exit_epoll_wait"}
REAL_2_13 = SRC_DIR / "tests" / "fixtures" / "real-kernel" / "one-plain.tar.xz"


@pytest.fixture(scope="module")
def real_2_13(tmp_path_factory):
    dest = tmp_path_factory.mktemp("real-2.13")
    with tarfile.open(REAL_2_13) as tar:
        tar.extractall(dest)
    kernel = first_stream_classes(dest / "one-plain" / "guest1" / "kernel")
    return next(iter(kernel.values()))


def event_classes_by_name(stream_class):
    return {ec.name: ec for ec in stream_class.values()}


def test_kernel_event_fields_match_lttng_modules(ours, real):
    real_classes = event_classes_by_name(real[0][1])
    for (host, domain), (_, sc) in ours.items():
        if domain != "kernel":
            continue
        compared = 0
        for name, ec in event_classes_by_name(sc).items():
            if name in CHANGED_SINCE_2_11:
                continue
            if name not in real_classes:
                # lttng-modules 2.13 events absent from that older trace
                assert name in ("sched_migrate_task", "lttng_statedump_process_pid_ns"), \
                    f"{host}: {name} unknown to lttng-modules"
                continue
            assert field_class_shape(ec.payload_field_class) == \
                field_class_shape(real_classes[name].payload_field_class), f"{host}: {name}"
            compared += 1
        # sink.ctf.fs keeps the classes that had events: sched, irq, softirq, net, statedump, syscalls
        # (less CHANGED_SINCE_2_11, compared with the 2.13 recording instead)
        assert compared >= 16, f"{host}: only {compared} event classes compared"


def test_kernel_event_fields_match_lttng_modules_2_13(ours, real_2_13):
    """Every kernel event class of the scenario has the fields and types of the real 2.13.9 recording
    (which declares every event deepspan-record enables, and all system calls)."""
    real_classes = event_classes_by_name(real_2_13[1])
    assert str(real_2_13[0].environment["tracer_patchlevel"]) == "9"
    for (host, domain), (_, sc) in ours.items():
        if domain != "kernel":
            continue
        names = set(event_classes_by_name(sc))
        assert {"lttng_statedump_process_state", "lttng_statedump_process_pid_ns"} <= names, host
        for name, ec in event_classes_by_name(sc).items():
            assert name in real_classes, f"{host}: {name} unknown to lttng-modules 2.13.9"
            assert field_class_shape(ec.payload_field_class) == \
                field_class_shape(real_classes[name].payload_field_class), f"{host}: {name}"


def test_environment_like_lttng(ours, real):
    real_kernel_env = set(real[0][0].environment.keys())
    real_ust_env = set(real[1][0].environment.keys())
    for (host, domain), (trace, _) in ours.items():
        env = dict(trace.environment.items())
        assert env["hostname"] == host
        assert env["domain"] == domain
        assert env["tracer_major"] == 2 and env["tracer_minor"] == 13
        assert {"trace_name", "trace_creation_datetime"} <= set(env)
        for value in env.values():
            assert type(value).__name__ in ("_StringValueConst", "_SignedIntegerValueConst")
        if domain == "kernel":
            assert real_kernel_env <= set(env)
            assert env["tracer_name"] == "lttng-modules"
        else:
            assert real_ust_env <= set(env)
            assert env["tracer_name"] == "lttng-ust"
            assert env["tracer_buffering_scheme"] == "uid"


def test_streams_packets_and_clock_like_lttng(ours, real):
    real_sc = real[0][1]
    real_cc = real_sc.default_clock_class
    uuids = {}
    for (host, domain), (_, sc) in ours.items():
        assert list(sc.packet_context_field_class.keys()) == ["cpu_id"]
        assert field_class_shape(sc.packet_context_field_class) == \
            field_class_shape(real_sc.packet_context_field_class)
        assert sc.supports_packets and sc.packets_have_beginning_default_clock_snapshot \
            and sc.packets_have_end_default_clock_snapshot
        assert sc.supports_discarded_events == real_sc.supports_discarded_events
        cc = sc.default_clock_class
        assert (cc.name, cc.frequency, cc.origin_is_unix_epoch) == \
            (real_cc.name, real_cc.frequency, real_cc.origin_is_unix_epoch)
        uuids.setdefault(host, set()).add(cc.uuid)
        if domain == "ust":
            ctx = sc.event_common_context_field_class
            assert field_class_shape(ctx) == ("struct", (
                ("vpid", ("int", True, 32)), ("vtid", ("int", True, 32)), ("procname", ("string",))))
    # one clock per host, shared by its kernel and UST traces, different between hosts
    assert all(len(u) == 1 for u in uuids.values())
    assert len({next(iter(u)) for u in uuids.values()}) == len(uuids)


def test_span_event_fields(ours):
    expected = {
        "deepspan_ust:span_start": ("trace_id_high", "trace_id_low", "span_id", "parent_span_id",
                                    "service", "operation", "kind"),
        "deepspan_ust:span_end": ("trace_id_high", "trace_id_low", "span_id", "status"),
    }
    for (host, domain), (_, sc) in ours.items():
        if domain != "ust":
            continue
        classes = event_classes_by_name(sc)
        for name, fields in expected.items():
            assert tuple(classes[name].payload_field_class.keys()) == fields, f"{host}: {name}"
        kind = classes["deepspan_ust:span_start"].payload_field_class["kind"].field_class
        assert field_class_shape(kind) == ("int", False, 8)
