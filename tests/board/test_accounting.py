"""Every accounting rule against expected values worked out here by hand, never taken from the
code under test: STREAM bytes (host table and the firmware's count on the real unix port), MAC
counts, MACC and bytes of every op kind, OI, tile projection, headroom, the above-roof rule, the
timed_well filter and the whole-model sums. tools/mutations.toml lists the one-line bugs these
tests must catch (`make mutate`)."""

from __future__ import annotations

from mcuroof.analysis import roofs
from mcuroof.kernels import compute
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from unit.test_accounting import ARRAYS, ELEMENT_BYTES

# ---------------------------------------------------------------- STREAM bytes

# arrays each kernel touches per element (STREAM's counting): copy B=A and scale B=3A read one
# array and write one; add C=A+B and triad C=A+3B read two and write one


def run_unix(tmp_path, micropython, suite, cfg):
    log = RawLog(tmp_path / f"{suite}.jsonl")
    try:
        return Collector(UnixLink(micropython), log).run_suite(suite, cfg)
    finally:
        log.close()


def test_firmware_byte_count_on_the_unix_port(tmp_path, micropython):
    """firmware/memory.py's own count, from real MicroPython: arrays x n x element size."""
    cfg = {
        "win_us": 200,
        "trials": 1,
        "emitters": ["bytecode"],
        "types": ["b", "h", "i", "f"],
        "max_ws": {"bytecode": 3 * 64},
        "min_n": 8,
    }
    recs = [r for r in run_unix(tmp_path, micropython, "memory", cfg) if r["t"] == "mem"]
    got = {(r["k"], r["ty"], r["n"]): r["bytes"] for r in recs}
    # 3 x 64 bytes: 64-byte buffers, so n = 8..64 / element size
    want = {
        (k, ty, n): ARRAYS[k] * n * size
        for k in ARRAYS
        for ty, size in ELEMENT_BYTES.items()
        for n in (8, 16, 32, 64)
        if n * size <= 64
    }
    assert got == want
    assert all(roofs.memory_ok(r) for r in recs)


# ---------------------------------------------------------------- MAC counts of the compute kernels


def test_compute_kernel_mac_count_on_the_unix_port(tmp_path, micropython):
    cfg = {
        "win_us": 200,
        "trials": 1,
        "emitters": ["bytecode", "viper"],
        "types": ["b", "f"],
        "iters": {"bytecode": 8, "viper": 8},
        "unroll": 4,
        "unroll_asm": 4,
    }
    for k in compute.compute_kernels(cfg):  # 4 multiply-accumulates per iteration
        if k.key == "compute/viper/int8":  # signed, as the layers read int8: (v ^ 128) - 128, in one sum
            assert k.source.count(")*((q[") == 4 and k.source.count("^128)-128)") == 8, k.source
        else:
            assert k.source.count("a+=") == 4, k.key
    recs = [r for r in run_unix(tmp_path, micropython, "compute", cfg) if r["t"] == "mac"]
    assert {(r["em"], r["ty"]) for r in recs} == {("bytecode", "int8"), ("bytecode", "float32"), ("viper", "int8")}
    for r in recs:
        assert r["macs"] == 4 * 8  # unroll x iterations
        assert r["chk"] == 8 * (1 + 2 + 3 + 4)  # x = 1, w = 1..4: one dot product per iteration
        assert roofs.mac_ok(r)


# ---------------------------------------------------------------- MACC and bytes per op kind


# ---------------------------------------------------------------- tiles, points and the roofline rules


# ---------------------------------------------------------------- timed_well and the whole model


# ---------------------------------------------------------------- the same from a .tflite file


# ---------------------------------------------------------------- executed MACs: a second implementation


# ---------------------------------------------------------------- whole network in compare: the same layer set
