"""Roof derivation from records, checked against hand computations."""

import pytest

from mcuroof.analysis import roofs


def mem(em="c", k="copy", ty="int8", n=1024, us=1100, ovh=100, r=10, f=1, isz=1, na=2):
    chk = f * ((0 % 7 + 1) + ((n // 2) % 7 + 1) + ((n - 1) % 7 + 1))
    return {
        "t": "mem",
        "em": em,
        "k": k,
        "ty": ty,
        "n": n,
        "isz": isz,
        "bytes": na * n * isz,
        "r": r,
        "us": us,
        "med": us,
        "ovh": ovh,
        "chk": chk,
        "f": f,
    }


def test_bandwidth_by_hand():
    # 10 calls of a 2048-byte copy in 1100 - 100 = 1000 us: 20480 bytes / 1 ms = 20.48 MB/s
    assert roofs.bandwidth(mem()) == pytest.approx(20.48e6)


def test_mac_rate_and_check_by_hand():
    rec = {
        "t": "mac",
        "em": "viper",
        "ty": "int32",
        "macs": 16 * 64,
        "r": 100,
        "us": 2050,
        "ovh": 50,
        "chk": 64 * 136,
        "u": 16,
        "n": 64,
    }
    assert roofs.mac_rate(rec) == pytest.approx(16 * 64 * 100 / 2000e-6)
    assert roofs.mac_ok(rec)
    assert not roofs.mac_ok({**rec, "chk": rec["chk"] + 1})


def test_memory_check():
    # n = 16: pattern at 0, 8, 15 is 1 + 2 + 2 = 5; a triad (factor 4) must report 20
    assert roofs.memory_ok(mem(n=16, f=4))
    assert mem(n=16, f=4)["chk"] == 20
    assert not roofs.memory_ok({**mem(n=16, f=4), "chk": 19})


def test_levels_detected_at_cliffs():
    pts = [(2**k, bw) for k, bw in zip(range(10, 22), [50, 52, 51, 50, 30, 31, 29, 30, 10, 10.5, 9.8, 10])]
    levels = roofs.detect_levels(pts)
    assert [lv["bytes_per_s"] for lv in levels] == [52, 31, 10.5]
    assert [(lv["min_ws"], lv["max_ws"]) for lv in levels] == [(2**10, 2**13), (2**14, 2**17), (2**18, 2**21)]


def test_single_slow_point_is_noise():
    pts = [(2**k, bw) for k, bw in zip(range(10, 16), [50, 52, 20, 51, 50, 49])]
    assert len(roofs.detect_levels(pts)) == 1


def test_fastest_mover_is_the_roof_and_others_are_ceilings():
    recs = [mem(em="c", us=600, n=n) for n in (1024, 2048)] + [mem(em="bytecode", us=10100, n=1024)]
    rs = roofs.memory_roofs(recs)
    assert rs[0]["role"] == "roof" and rs[0]["emitter"] == "c"
    assert rs[1]["role"] == "ceiling" and rs[1]["emitter"] == "bytecode"
    assert rs[1]["bytes_per_s"] == pytest.approx(2048 * 10 / 0.01)


def test_ridges_and_attainable():
    rs = [
        {"kind": "memory", "role": "roof", "name": "m", "source": "measured", "bytes_per_s": 1e6},
        {
            "kind": "compute",
            "role": "roof",
            "name": "c",
            "emitter": "viper",
            "dtype": "int32",
            "source": "measured",
            "macs_per_s": 4e6,
        },
    ]
    assert roofs.ridges(rs) == [{"compute": "c", "memory": "m", "oi": 4.0}]
    assert roofs.attainable(1.0, rs) == 1e6
    assert roofs.attainable(10.0, rs) == 4e6
