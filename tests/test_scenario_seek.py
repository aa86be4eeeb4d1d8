# SPDX-License-Identifier: MIT
"""source.deepspan.scenario rewinds to the beginning (deterministic replay), so two-pass filters such as
filter.deepspan.sync can read it directly; every port must be rewound together."""
import json

from conftest import run_babeltrace2


def counts(text):
    return {line.split(maxsplit=1)[1].strip(): int(line.split()[0])
            for line in text.splitlines() if line.strip() and line.split()[0].isdigit()}


def test_sync_reads_the_scenario_twice_and_passes_everything(plugin_dir, tmp_path):
    params = "requests=60,seed=9"
    direct = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                             "-c", "sink.utils.counter", "-p", "step=+0").stdout
    report = tmp_path / "sync.json"
    synced = run_babeltrace2("-c", "source.deepspan.scenario", "-p", params,
                             "-c", "filter.deepspan.sync", "-p", f'report="{report}"',
                             "-c", "sink.utils.counter", "-p", "step=+0").stdout
    assert counts(direct)["Event messages"] > 10000
    assert counts(direct)["Event messages"] == counts(synced)["Event messages"]
    doc = json.loads(report.read_text())
    assert doc["mode"] == "two-pass" and doc["pairs"]["tcp"] > 0
    assert all(h["quality"] in ("ACCURATE", "APPROXIMATE") or h["reference"] for h in doc["hosts"])


def test_truth_is_written_once_by_the_first_run(plugin_dir, tmp_path):
    truth = tmp_path / "truth.json"
    run_babeltrace2("-c", "source.deepspan.scenario", "-p", f'requests=30,seed=2,truth="{truth}"',
                    "-c", "filter.deepspan.sync", "-c", "sink.utils.dummy")
    doc = json.loads(truth.read_text())
    assert doc["request_count"] == 30 and len(doc["requests"]) == 30 and len(doc["spans"]) > 30
