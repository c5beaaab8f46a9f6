"""Every layer of the held-out zoo (models/zoo) run by its kernels on the real MicroPython unix
port and checked against the numpy reference; only the classifier's RESHAPE and SOFTMAX are
left out, and they are named."""

import pytest

from conftest import ROOT
from mcuroof.kernels.ops import layer_plan, reference
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model.load import load_network
from mcuroof.suites import registry

ZOO = sorted((ROOT / "models" / "zoo").glob("*.tflite"))
EMITTERS = ["bytecode", "native", "viper"]


@pytest.mark.slow
@pytest.mark.parametrize("path", ZOO, ids=lambda p: p.stem)
def test_every_zoo_layer_on_the_unix_port_matches_the_reference(tmp_path, micropython, path):
    net = load_network(str(path))
    work = {(e, "int8"): 2e4 for e in EMITTERS}  # small tiles: the check, not the timing, is the point
    jobs, skipped = layer_plan.plan(net, ["int8"], EMITTERS, heap=1 << 26, max_work=work)
    assert {s["op"] for s in skipped} <= {"RESHAPE", "SOFTMAX"}
    assert {j.layer.index for j in jobs} | {s["index"] for s in skipped} == set(range(len(net.layers)))
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 1, "jobs": jobs})
    log.close()
    by_key = {j.key: j for j in jobs}
    runs = [r for r in recs if r["t"] == "layer"]
    assert {registry.record_key(r) for r in runs} == set(by_key)
    assert [registry.record_key(r) for r in runs if not reference.verify(by_key[registry.record_key(r)], r)] == []
