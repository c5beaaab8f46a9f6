"""The suites run on real MicroPython (the unix port): every record arrives, framed and checked."""

import pytest

from mcuroof.analysis import roofs
from mcuroof.kernels import memory
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.protocol import parse_line
from mcuroof.measure.rawlog import RawLog, complete_kernels, read
from mcuroof.suites import registry

SMALL = {"win_us": 1000, "trials": 3}


@pytest.fixture
def collector(tmp_path, micropython):
    log = RawLog(tmp_path / "raw.jsonl")
    yield Collector(UnixLink(micropython, heapsize="32M"), log)
    log.close()


def test_memory_suite_every_kernel_verified(collector, tmp_path):
    cfg = {
        **SMALL,
        "emitters": ["bytecode", "native", "viper", "c"],
        "types": ["b", "i", "f"],
        "max_ws": {"bytecode": 3 * 1024, "native": 3 * 1024, "viper": 3 * 1024, "c": 3 * 1024},
        "min_n": 16,
    }
    recs = collector.run_suite("memory", cfg)
    mem, mac, bad = roofs.split(recs)
    assert bad == [] and mac == []
    keys = {registry.record_key(r) for r in mem}
    assert keys == {k.key for k in memory.memory_kernels(cfg)}
    # 3 KiB over 3 buffers: 1 KiB each, so int8 kernels sweep n = 16..1024 (7 sizes)
    sizes = sorted(r["n"] for r in mem if registry.record_key(r) == "memory/bytecode/int8/copy")
    assert sizes == [16, 32, 64, 128, 256, 512, 1024]
    triad = [r for r in mem if r["k"] == "triad" and r["ty"] == "int32" and r["n"] == 16][0]
    assert triad["bytes"] == 3 * 16 * 4  # read A and B, write C, 4 bytes each
    # what was logged is what was returned
    assert suite_records(read(tmp_path / "raw.jsonl"), "memory") == recs


def test_compute_suite_every_kernel_verified(collector):
    cfg = {
        **SMALL,
        "emitters": ["bytecode", "native", "viper"],
        "types": ["b", "h", "i", "f"],
        "iters": {"bytecode": 8, "native": 8, "viper": 64},
        "unroll": 16,
        "unroll_asm": 16,
    }
    recs = collector.run_suite("compute", cfg)
    mem, mac, bad = roofs.split(recs)
    assert bad == [] and len(mac) == 11  # viper has no float32 kernel
    for r in mac:
        assert r["macs"] == r["u"] * r["n"]
        assert r["chk"] == r["n"] * 136  # sum(1..16) per iteration, computed on the board


def test_kernel_with_wrong_output_is_caught(collector):
    """A kernel whose result is wrong must fail its check (here: copy that writes A+1)."""
    cfg = {**SMALL, "emitters": ["bytecode"], "types": ["i"], "max_ws": {"bytecode": 768}, "min_n": 16}
    broken = [k for k in memory.memory_kernels(cfg) if k.key.endswith("/copy")][0]
    bad_source = broken.source.replace("B[i]=A[i]", "B[i]=A[i]+1")
    pieces = [bad_source if p == broken.source else p for p in registry.chunks("memory", cfg)]
    lines = []
    collector.link.run(pieces, lines.append)
    recs = [parse_line(ln).data for ln in lines if parse_line(ln)]
    copies = [r for r in recs if r.get("k") == "copy"]
    assert copies and not any(roofs.memory_ok(r) for r in copies)


@pytest.mark.parametrize("em,statement", [("bytecode", "B[i]=A[i]"), ("c", "B[:]=A")])
def test_a_copy_that_copies_nothing_fails_its_check(collector, em, statement):
    """copy's output B holds the pattern the other kernels read, so the firmware clears what the
    check reads before each size: a copy that writes nothing must not pass."""
    cfg = {**SMALL, "emitters": [em], "types": ["b"], "max_ws": {em: 768}, "min_n": 16}
    broken = [k for k in memory.memory_kernels(cfg) if k.key.endswith("/copy")][0]
    assert statement in broken.source
    idle = broken.source.replace(statement, "pass")
    pieces = [idle if p == broken.source else p for p in registry.chunks("memory", cfg)]
    lines = []
    collector.link.run(pieces, lines.append)
    recs = [parse_line(ln).data for ln in lines if parse_line(ln)]
    copies = [r for r in recs if r.get("k") == "copy"]
    assert len(copies) == 5 and not any(roofs.memory_ok(r) for r in copies)  # n = 16 .. 256


def test_a_silent_unix_process_times_out_and_is_killed(micropython):
    from mcuroof.links.base import BoardStalled
    from mcuroof.links.unix import UnixLink

    lines = []
    with pytest.raises(BoardStalled, match="printed nothing for 0.5 s"):
        UnixLink(micropython).run(["print('before')\nimport time\ntime.sleep(30)\n"], lines.append, timeout=0.5)
    assert lines == ["before"]


def suite_records(entries: list[dict], suite: str) -> list[dict]:
    """The records of a suite's units that finished intact, in order."""
    return [r for (s, _), recs in complete_kernels(entries).items() if s == suite for r in recs]
