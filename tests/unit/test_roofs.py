"""Roof derivation from records, checked against hand computations."""

import pytest

from mcuroof.analysis import records, roofs


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


def test_an_isa_peak_record_is_checked_with_its_dot_products_per_iteration():
    # 4 dot products a loop iteration (rep), each u(u+1)/2 = 36 with u = 8, over 10 iterations
    rec = {"t": "mac", "k": "smlad", "u": 8, "rep": 4, "n": 10, "chk": 10 * 4 * 36, "macs": 10 * 4 * 8}
    assert roofs.mac_ok(rec)
    assert not roofs.mac_ok({**rec, "chk": 10 * 36})  # one dot product an iteration is not what ran
    assert not roofs.mac_ok({**rec, "macs": 10 * 8})


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


def test_a_sweep_flat_in_time_per_call_is_no_ceiling():
    """The slice copy of qemu-m3 before it copied only n bytes: 842 us a call from 32 B to
    32 KiB (its whole buffer moved each call), so "39 MB/s" at 32 KiB was the call's rate."""
    flat = [mem(em="c", n=n, us=842 * 10 + 100, ovh=100) for n in (16, 64, 256, 1024, 4096, 16384)]
    assert roofs.sweep_call_bound(roofs.series(flat)[("c", "copy", "int8")])
    asm = [mem(em="asm_thumb", n=n, us=n + 100) for n in (256, 1024, 4096)]  # 0.1 us a byte
    names = [(r["role"], r["emitter"]) for r in roofs.memory_roofs(flat + asm)]
    assert names == [("roof", "asm_thumb")]
    # the same copy when it moves n bytes: 20 us a call, then 0.4 us a byte
    real = [mem(em="c", n=n, us=(20 + n * 0.4) * 10 + 100, ovh=100) for n in (16, 64, 256, 1024, 4096, 16384)]
    assert not roofs.sweep_call_bound(roofs.series(real)[("c", "copy", "int8")])
    assert [(r["role"], r["emitter"]) for r in roofs.memory_roofs(real + asm)] == [
        ("roof", "asm_thumb"),
        ("ceiling", "c"),
    ]


def test_a_short_sweep_is_not_called_flat():
    """Sizes 2x apart cannot tell a call-bound kernel from a fast one; nor can 4x apart, where a
    micro:bit int8 scale took 3.9x as long at 1 KiB as at 256 B (its time grows with size)."""
    pts = [(1024, 1e6), (2048, 2e6)]
    assert not roofs.sweep_call_bound(pts) and roofs.call_bound(pts) == {1024, 2048}
    scale = [(256, 3.86e6), (512, 3.86e6 * 2 / 1.95), (1024, 3.86e6 * 4 / 3.9)]
    assert not roofs.sweep_call_bound(scale) and roofs.call_bound(scale) == {256, 512, 1024}
    assert roofs.sweep_call_bound([(ws, ws * 1e3) for ws in (256, 1024, 4096)])  # 16x apart, flat


def test_the_results_and_the_terminal_say_which_sweep_was_left_out():
    from mcuroof.report import tables
    from mcuroof.results import document

    flat = [mem(em="c", n=n, us=842 * 10 + 100, ovh=100) for n in (16, 1024, 16384)]
    asm = [mem(em="asm_thumb", n=n, us=n + 100) for n in (256, 1024, 4096)]
    data = document.build({"name": "qemu-m3", "firmware": "MicroPython 1.29.0"}, flat + asm)
    document.validate(data)
    assert [(s["emitter"], s.get("call_bound", False)) for s in data["sweeps"]] == [("c", True), ("asm_thumb", False)]
    assert tables.call_bound_lines(data) == [
        "memory: c copy int8 is no ceiling: a call takes 842 us at 32 B and 842 us at 32 KiB, so the "
        "call, not the memory, sets its rate (call-bound)"
    ]


def mac(em="bytecode", ty="int8", u=4, n=8, rep=1, k=None, us=2100, ovh=100, r=10):
    rec = {"t": "mac", "em": em, "ty": ty, "u": u, "n": n, "r": r, "us": us, "ovh": ovh}
    rec.update(macs=n * rep * u, chk=n * rep * u * (u + 1) // 2, **({"k": k, "rep": rep} if k else {}))
    return rec


def test_compute_ceilings_from_records_by_hand_and_in_the_document():
    from mcuroof.results import document

    recs = [
        mac(us=2100),  # 32 MACs x 10 in 2000 us: 160 kMACC/s
        mac(us=1100),  # the faster of two trials counts: 320 kMACC/s
        mac(em="asm_thumb", ty="int32", us=300),  # 1.6 MMACC/s
        mac(em="asm_thumb", ty="int8", rep=4, k="smlad", us=500),  # 128 MACs x 10 in 400 us: 3.2 MMACC/s
    ]
    got = [
        (r["kind"], r["role"], r["emitter"], r["dtype"], r.get("kernel"), r["macs_per_s"])
        for r in roofs.compute_roofs(recs)
    ]
    assert sorted(got, key=lambda g: -g[-1]) == [
        ("compute", "roof", "asm_thumb", "int8", "smlad", pytest.approx(3.2e6)),
        ("compute", "ceiling", "asm_thumb", "int32", None, pytest.approx(1.6e6)),
        ("compute", "ceiling", "bytecode", "int8", None, pytest.approx(3.2e5)),
    ]
    data = document.build({"name": "qemu-m3", "firmware": "MicroPython 1.29.0"}, [mem(), *recs])
    document.validate(data)
    assert {r["kind"] for r in data["roofs"] if r["source"] == "measured"} == {"memory", "compute"}
    assert all(r["source"] == "measured" for r in roofs.compute_roofs(recs))


def test_a_dot_product_ceiling_is_named_by_its_loop_and_compared_only_with_the_same_loop():
    """The compute suite unrolls asm_thumb 4x on boards with under 256 KB of heap and 16x elsewhere:
    two loops with two bounds (Cortex-M0+: 4 MACs in 27 cycles, 16 in 99), so two ceilings."""
    from mcuroof.analysis import compare
    from mcuroof.report import labels
    from mcuroof.results import document

    small = [mac(em="asm_thumb", ty=ty, u=4, us=370) for ty in ("int8", "int16")]  # 32 x 10 in 270 us
    small += [mac(em="asm_thumb", ty="int8", u=4, k="@3", us=300)]  # measured again between layers: the same loop
    small += [mac(em="asm_thumb", ty="int8", u=2, rep=16, k="muls", us=1100)]
    got = {r["name"]: (r.get("unroll"), r.get("kernel"), r["macs_per_s"]) for r in roofs.compute_roofs(small)}
    assert got == {
        "int8 asm_thumb 4x": (4, None, pytest.approx(32 * 10 / 200e-6)),  # the "@3" record's 200 us
        "int16 asm_thumb 4x": (4, None, pytest.approx(32 * 10 / 270e-6)),
        "int8 asm_thumb muls": (None, "muls", pytest.approx(8 * 16 * 2 * 10 / 1000e-6)),  # an ISA loop: no unroll
    }
    big = [mac(em="asm_thumb", ty="int8", u=16, us=400)]
    assert [r["name"] for r in roofs.compute_roofs(big)] == ["int8 asm_thumb 16x"]
    runs = [
        (name, document.build({"name": name, "firmware": "MicroPython 1.29.0"}, recs))
        for name, recs in (("pico", small), ("m7", big), ("pico2", small))
    ]
    for _, data in runs:
        document.validate(data)
    shared = {r["name"]: r["values"] for r in compare.roof_rows(runs)[2:]}
    assert "int8 asm_thumb 16x" not in shared  # the 16x loop ran on one board only: not set beside a 4x one
    assert shared["int8 asm_thumb 4x"] == [pytest.approx(1.6e6), None, pytest.approx(1.6e6)]
    drawn = [r for r in roofs.compute_roofs(small) if r["name"].endswith("4x")]
    for r in drawn:
        r["macs_per_s"] = 1.6e6
    assert labels.group_label(records.roofs(drawn)) == "int8/int16 asm_thumb 4x: 1.6 MMACC/s"
