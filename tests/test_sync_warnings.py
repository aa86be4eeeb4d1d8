# SPDX-License-Identifier: MIT
"""filter.deepspan.sync warnings list only the counts that are not zero.

Three hosts in a chain, web (reference) -> api -> db, paired by HTTP (vnode events): the web -> api
pairs contradict each other (FAIL), the api -> db pairs are consistent, so db's path to the reference
fails although none of db's own pairs was rejected.
"""
import re

import bt2

from test_sync_common import load_json, run_sync
from test_sync_http import BASE, _exchange, _Iter, add_vnode_host, api_clock

DB_OFFSET = 5_000_000


def db_clock(true):
    return true + DB_OFFSET


def _api_to_db(n=60):
    api, db = [], []
    for i in range(n):
        t = BASE + 5_000_000 + i * 10_000_000
        cport = 51_000 + i % 4
        lat_req, lat_resp = 100_000 + (i * 7919) % 50_000, 110_000 + (i * 104729) % 40_000
        api.append(("vnode:http_client_request", api_clock(t), 3306, cport))
        db.append(("vnode:http_server_request", db_clock(t + lat_req), cport, 3306))
        db.append(("vnode:http_server_response", db_clock(t + lat_req + 1_000_000), cport, 3306))
        api.append(("vnode:http_client_response", api_clock(t + lat_req + 1_000_000 + lat_resp), 3306, cport))
    return api, db


class _ChainSource(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        hosts = _exchange(contradiction=True)
        api_client, db = _api_to_db()
        hosts["api"] = sorted(hosts["api"] + api_client, key=lambda e: e[1])
        hosts["db"] = sorted(db, key=lambda e: e[1])
        for host, events in hosts.items():
            add_vnode_host(self, host, events)


def test_fail_warning_lists_rejected_pairs_only_when_there_are_some(bt2_plugin, tmp_path, capfd):
    report = tmp_path / "sync.json"
    run_sync(bt2_plugin, [(_ChainSource, {})], {"report": str(report), "reference": "web", "match": ["http"]})
    hosts = {h["name"]: h for h in load_json(report)["hosts"]}
    assert hosts["api"]["quality"] == "FAIL" and hosts["api"]["rejected_pairs"] == 1
    assert hosts["db"]["quality"] == "FAIL" and hosts["db"]["rejected_pairs"] == 0
    err = " ".join(capfd.readouterr().err.split())
    assert ("host api: contradicting pairs on its path to the reference (quality FAIL): "
            "the last good formula is kept (1 pairs rejected)") in err
    # before: "... the last good formula is kept (0 pairs rejected)"
    assert re.search(r"host db: contradicting pairs on its path to the reference \(quality FAIL\): "
                     r"the last good formula is kept(?! \()", err)
    assert "(0 pairs rejected)" not in err
