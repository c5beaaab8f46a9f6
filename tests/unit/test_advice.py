"""Advice that knows the board: each piece only where the board has what it needs, and tested
on boards that lack it (constructed points and roofs; the profiles' declared features)."""

from __future__ import annotations

import dataclasses

import pytest

from mcuroof.analysis import advice, records
from mcuroof.board import cycle_counter

M0 = advice.Features(frozenset(), ("bytecode", "asm_thumb"))  # micro:bit: nothing
M4 = advice.Features(frozenset({"fpu", "dsp"}), ("bytecode", "native", "viper", "asm_thumb"))
M4_NO_ASM = advice.Features(frozenset({"fpu", "dsp"}), ("bytecode", "native", "viper"))
HOST = advice.Features(frozenset({"fpu", "fpu64", "simd", "cache"}), ("bytecode", "native", "viper"))
UNKNOWN = advice.Features(None, ("bytecode",))


def ceiling(em, dt, rate):
    return {
        "kind": "compute",
        "role": "ceiling",
        "source": "measured",
        "name": f"{dt} {em}",
        "emitter": em,
        "dtype": dt,
        "macs_per_s": rate,
    }


def region(rg, rate):
    return {
        "kind": "memory",
        "role": "region",
        "source": "measured",
        "name": f"{rg} read",
        "region": rg,
        "emitter": "asm_thumb",
        "dtype": "int32",
        "bytes_per_s": rate,
    }


def pt(headroom=1.2, bound="compute", dtype="int8", emitter="bytecode", op="CONV_2D", macc=1000, **kw):
    return {
        "index": 0,
        "op": op,
        "dtype": dtype,
        "emitter": emitter,
        "macc": macc,
        "bound": bound,
        "headroom": headroom,
        "above_roof": False,
        "macs_per_s": 100.0,
        "seconds": 10.0,
        "verified": True,
        **kw,
    }


# micro:bit-like ceilings: no SIMD, so int8 = int16 = int32; floats in software
FLAT = [
    ceiling("bytecode", "int8", 1e4),
    ceiling("bytecode", "int16", 1e4),
    ceiling("bytecode", "int32", 1e4),
    ceiling("bytecode", "float32", 3e3),
    ceiling("asm_thumb", "int8", 2e6),
]


@pytest.mark.parametrize(
    "headroom, kind", [(1.0, "compute"), (1.5, "compute"), (1.51, "below"), (3.99, "below"), (4.0, "software")]
)
def test_at_the_ceiling_only_near_it(headroom, kind):
    k, text = advice.advise(pt(headroom), FLAT, M0)
    assert k == kind
    assert ("bytecode's own compute ceiling (its compute ceiling: " in text) == (kind == "compute")
    # "at" only from 90 % of the ceiling; 1.48x under it (68 %) is "within 1.5x of", not "at"
    assert text.startswith("at bytecode's own") == (kind == "compute" and headroom <= 1 / 0.9)
    assert text.startswith("within 1.5x of bytecode's own") == (kind == "compute" and headroom > 1 / 0.9)


def test_the_roof_named_is_the_points_own_emitters():
    text = advice.advise(pt(1.48, emitter="viper", compute_roof="int8 viper 16x"), FLAT, M0)[1]
    assert text.startswith("within 1.5x of viper's own compute ceiling (int8 viper 16x: 68% of it)")


def test_int8_is_never_told_to_lower_precision():
    for feats in (M0, M4, HOST, UNKNOWN):
        for h in (1.0, 2.0, 10.0):
            text = advice.advise(pt(h), FLAT, feats)[1]
            assert "precision" not in text and "quantize" not in text


def test_no_simd_core_says_int16_is_as_fast_and_never_suggests_simd():
    text = advice.advise(pt(1.1), FLAT, M0)[1]
    assert "int8 on this core has no SIMD: int16 is as fast" in text
    assert "DSP" not in text and "vectoris" not in text


def test_dsp_is_suggested_only_where_the_core_has_it_and_an_assembler_reaches_it():
    assert "DSP" in advice.advise(pt(1.1), FLAT, M4)[1]
    assert "DSP" not in advice.advise(pt(1.1), FLAT, M4_NO_ASM)[1]
    assert "DSP" not in advice.advise(pt(1.1), FLAT, M0)[1]
    unknown = advice.advise(pt(1.1), FLAT, UNKNOWN)[1]  # profile silent: no claim either way
    assert "DSP" not in unknown and "has no SIMD" not in unknown


def test_float32_without_fpu_is_told_to_quantize_with_the_measured_ratio():
    text = advice.advise(pt(1.1, dtype="float32"), FLAT, M0)[1]
    assert "int8 runs 3.33x faster than float32 with bytecode here (no FPU" in text and "quantize it" in text
    # where int8 is no faster (boxed floats cost the same as ints), quantizing saves memory only
    same = [ceiling("bytecode", "int8", 1e4), ceiling("bytecode", "float32", 0.9e4)]
    text = advice.advise(pt(1.1, dtype="float32"), same, HOST)[1]
    assert "quantize it" not in text and "saves memory, not time" in text and "no FPU" not in text


def test_cache_advice_only_with_a_cache():
    mem = pt(2.0, bound="memory")
    assert "cache (tile" in advice.advise(mem, FLAT, HOST)[1]
    m0 = advice.advise(mem, FLAT, M0)[1]
    assert "no cache here, so tiling does not help" in m0 and "improve cache" not in m0
    assert "cache" not in advice.advise(mem, FLAT, UNKNOWN)[1]
    assert "cache" not in advice.advise(pt(2.0), FLAT, M0)[1]  # compute-bound: not about caches


def test_int8_is_not_told_to_keep_its_activations_int8():
    assert "keep activations int8" not in advice.advise(pt(2.0, bound="memory"), FLAT, M0)[1]
    assert "keep activations int8" in advice.advise(pt(2.0, bound="memory", dtype="float32"), FLAT, M0)[1]


def test_far_below_a_memory_roof_is_software_and_gets_no_memory_advice():
    """Far below any roof the kernel's own work is the gap: moving fewer bytes or tiling for a
    cache does not close it (a point was called software-bound, then told about caches)."""
    for feats in (HOST, M0):
        k, text = advice.advise(pt(8.0, bound="memory"), FLAT, feats)
        assert k == "software" and text.startswith("far below its roof (8x): software overhead: ")
        assert "cache" not in text and "move fewer bytes" not in text
        assert "interpreter work per MAC" in text and "fuse it with its neighbours" in text
    assert "fuse" not in advice.advise(pt(8.0), FLAT, M0)[1]  # compute-bound: fusing saves no MACs


def test_faster_emitter_from_the_measured_ceilings_and_the_layer_kernels():
    roofs = [ceiling("bytecode", "int8", 1e5), ceiling("viper", "int8", 4e6)]
    assert "viper's int8 ceiling is 40x bytecode's here: run it with viper" in advice.advise(pt(1.1), roofs, M4)[1]
    assert "viper" not in advice.advise(pt(1.1), roofs, M0)[1]  # not on this board
    assert "viper" not in advice.advise(pt(1.1, dtype="float32"), roofs + [ceiling("bytecode", "float32", 1e5)], M4)[1]
    pool = [ceiling("bytecode", "int8", 1e4), ceiling("asm_thumb", "int8", 2e6)]  # asm_thumb: no max pool
    assert "asm_thumb" not in advice.advise(pt(1.1, op="MAX_POOL_2D"), pool, M0)[1]
    assert "run it with asm_thumb" in advice.advise(pt(1.1, op="AVERAGE_POOL_2D"), pool, M0)[1]


def test_measured_peer_speed_up_wins_over_ceilings():
    slow, fast = pt(2.0), pt(1.2, emitter="asm_thumb", seconds=0.25)
    text = advice.advise(slow, FLAT, M0, [slow, fast])[1]
    assert "asm_thumb ran this layer 40x faster here" in text and "ceiling is" not in text
    assert "ran this layer" not in advice.advise(fast, FLAT, M0, [slow, fast])[1]


def test_weights_placement_from_the_region_roofs():
    mem = pt(1.2, bound="memory")
    assert (
        "flash reads as fast as SRAM" in advice.advise(mem, FLAT + [region("flash", 26e6), region("SRAM", 26e6)], M0)[1]
    )
    assert "keep the weights in RAM" in advice.advise(mem, FLAT + [region("flash", 10e6), region("SRAM", 40e6)], M0)[1]


def test_asm_thumb_far_below_says_where_its_time_goes():
    text = advice.advise(pt(150, emitter="asm_thumb"), FLAT, M0)[1]
    assert "any Python between assembler calls" in text and "no SIMD" not in text
    calls = advice.advise({**pt(150, emitter="asm_thumb"), "call_share": 0.7}, FLAT, M0)[1]
    assert "70% of its time is spent once per pixel or row" in calls and "run more of the layer per call" in calls
    loops = advice.advise({**pt(150, emitter="asm_thumb"), "call_share": 0.1}, FLAT, M0)[1]
    assert "its MAC loops take most of its time (90%)" in loops and "per call" not in loops


def test_asm_thumb_under_the_smlad_ceiling_names_what_the_ceiling_does_not_count():
    dsp = pt(5, emitter="asm_thumb", compute_roof="int8 asm_thumb smlad")
    text = advice.advise(dsp, FLAT, M4)[1]
    assert "SXTB16 widening" in text and "Python loops" not in text and "has DSP" not in text
    m55 = advice.Features(frozenset({"fpu", "dsp", "mve"}), M4.emitters)
    mve = pt(2, emitter="asm_thumb", compute_roof="int8 asm_thumb vmladava")
    assert "this core has MVE" in advice.advise(mve, FLAT, m55)[1]
    assert "no MVE (VMLADAVA) layer kernels" in advice.advise({**mve, "headroom": 20}, FLAT, m55)[1]


def test_a_bytecode_layer_on_a_core_with_dsp_and_mve_is_pointed_to_mve():
    m55 = advice.Features(frozenset({"fpu", "dsp", "mve"}), M4.emitters)
    text = advice.advise(pt(3, emitter="bytecode", dtype="int8"), FLAT, m55)[1]
    assert "this core has MVE" in text and "has DSP" not in text
    assert "this core has DSP" in advice.advise(pt(3, emitter="bytecode", dtype="int8"), FLAT, M4)[1]


def test_asm_thumb_that_ran_an_mve_kernel_says_so_not_that_there_is_none():
    m55 = advice.Features(frozenset({"fpu", "dsp", "mve"}), M4.emitters)
    mve = pt(20, emitter="asm_thumb", compute_roof="int8 asm_thumb vmladava", kernel_isa="mve")
    text = advice.advise(mve, FLAT, m55)[1]
    assert "already runs the whole tile with MVE" in text and "this core has MVE" not in text and "no MVE" not in text


def test_mve_depthwise_is_judged_under_vmla_not_vmladava():
    """A depthwise layer has no use for VMLADAVA's sum across lanes: its MVE kernel's ceiling is
    VMLA's (4 MACs an instruction), where it is 4x below, not 16x (qemu-m55 KWS, session 5)."""
    from mcuroof.analysis import points

    m55 = advice.Features(frozenset({"fpu", "dsp", "mve"}), M4.emitters)
    roofs = [
        {**ceiling("asm_thumb", "int8", 235e6), "name": "int8 asm_thumb vmladava", "kernel": "vmladava"},
        {**ceiling("asm_thumb", "int8", 58.8e6), "name": "int8 asm_thumb vmla", "kernel": "vmla"},
        {**ceiling("asm_thumb", "int8", 29.4e6), "name": "int8 asm_thumb smlad", "kernel": "smlad"},
    ]
    dw = {**pt(emitter="asm_thumb", op="DEPTHWISE_CONV_2D", kernel_isa="mve"), "bytes": 1000, "oi": 1e3}
    dw["seconds"] = dw["macc"] / 14.6e6
    p = points.place(dict(dw), roofs, list(m55.emitters), m55.names)
    assert p["compute_roof"] == "int8 asm_thumb vmladava" and p["headroom"] == pytest.approx(16.1, abs=0.05)
    assert p["op_roof"] == "int8 asm_thumb vmla" and p["op_headroom"] == pytest.approx(4.03, abs=0.01)
    assert p["advice_kind"] == "software" and p["advice"].startswith(
        "far below its roof (4.03x under int8 asm_thumb vmla, the ceiling of the instructions it can use; "
        "16.1x under int8 asm_thumb vmladava, but VMLADAVA sums its products across lanes, which a "
        "depthwise layer never does (its MVE kernels use VMLA)): software overhead: the assembler"
    )
    assert "the VMLA ceiling does not count" in p["advice"] and "VMLADAVA ceiling" not in p["advice"]
    from mcuroof.report import layer_tables

    assert layer_tables._headroom(records.Point.from_dict(p)) == "16.1x (4.03x vmla)"  # the terminal's headroom column
    # the whole model is predicted at the VMLA ceiling for this layer: 4.03x its time, not 16.1x
    row = points.whole_model([{**p, "index": 1, "projection": "scaled"}])[0]
    assert row["measured_over_predicted"] == pytest.approx(4.03, abs=0.01)
    conv = points.place({**dw, "op": "CONV_2D"}, roofs, list(m55.emitters), m55.names)
    assert "op_roof" not in conv and "VMLADAVA ceiling does not count" in conv["advice"]
    fast = points.place({**dw, "seconds": dw["macc"] / 70e6}, roofs, list(m55.emitters), m55.names)
    assert fast["above_roof"]  # faster than the VMLA ceiling: that ceiling is no ceiling


def test_small_depthwise_channels_say_they_cannot_amortize_their_setup():
    m7 = advice.Features(frozenset({"fpu", "dsp"}), M4.emitters)
    dw = pt(
        5.1,
        emitter="asm_thumb",
        op="DEPTHWISE_CONV_2D",
        compute_roof="int8 asm_thumb smlad",
        kernel_isa="dsp",
        output_shape=[1, 3, 3, 128],
        input_shapes=[[1, 6, 6, 128]],
        macc_executed=64 * 128,
        macc=9 * 9 * 128,
    )
    text = advice.advise(dw, FLAT, m7)[1]
    assert "too small to amortize the per-channel setup: a channel yields 9 outputs (64 MACs, 1.8 an input)" in text
    assert "its 9 weights and 36 inputs" in text
    assert "its 25 weights" in advice.advise({**dw, "macc": 9 * 25 * 128}, FLAT, m7)[1]  # a 5x5 window
    big = {**dw, "output_shape": [1, 6, 6, 128], "input_shapes": [[1, 6, 6, 128]], "macc_executed": 256 * 128}
    assert "too small" not in advice.advise(big, FLAT, m7)[1]
    assert "too small" not in advice.advise({**dw, "op": "CONV_2D"}, FLAT, m7)[1]


def test_above_and_macless():
    assert advice.advise(pt(0.5, above_roof=True), FLAT, M0)[0] == "above"
    assert advice.advise(pt(3.0, macc=0, bound="memory"), FLAT, M0)[1].startswith("moves bytes without MACs")


def test_an_armv6m_kernel_on_a_dsp_core_is_not_said_to_run_smlad():
    """kernel_isa None: the Cortex-M0 kernels ran (a shape the DSP kernels do not take), though
    the point sits under the SMLAD ceiling."""
    m0_kernel = pt(5, emitter="asm_thumb", compute_roof="int8 asm_thumb smlad", kernel_isa=None)
    text = advice.advise(m0_kernel, FLAT, M4)[1]
    assert "already runs the whole tile with SMLAD" not in text and "MAC loops" in text
    old = {k: v for k, v in m0_kernel.items() if k != "kernel_isa"}  # results without kernel_isa
    assert "already runs the whole tile with SMLAD" in advice.advise(old, FLAT, M4)[1]


def test_viper_layer_kernels_are_not_told_to_walk_pointers_they_walk():
    roofs = [ceiling("viper", "int8", 1e8)]
    layer = advice.advise(pt(3.0, emitter="viper"), roofs, HOST)[1]
    assert "walk pointers" not in layer and "pointers rebased every 8" in layer
    assert "walk pointers" in advice.advise(pt(3.0, emitter="viper", user=True), roofs, HOST)[1]


def test_a_wider_type_that_is_faster_is_not_called_as_fast():
    """qemu-m3's viper: int16 1.7x int8's ceiling (the sign extension of each int8 load)."""
    roofs = [ceiling("viper", "int8", 0.63e6), ceiling("viper", "int16", 1.06e6)]
    m3 = advice.Features(frozenset(), ("bytecode", "native", "viper", "asm_thumb"))
    text = advice.advise(pt(1.2, emitter="viper"), roofs, m3)[1]
    assert "int16 is 1.7x faster (viper sign-extends each int8 it loads), so int8 saves memory, not time" in text


def test_qemu_says_it_models_no_cache_and_its_noise_is_no_busy_host():
    """Under QEMU a missing cache is QEMU's, not the core's; and -icount time counts
    instructions, so host load cannot make a trial slower."""
    from mcuroof.report import tables

    board = {
        "icount_shift": 6,
        "emitters": ["asm_thumb"],
        "core": {"source": "registers", "isa": [], "features": ["dsp", "fpu"]},
    }
    qemu = advice.board_features(board)
    assert qemu.emulated and qemu.has("cache") is False
    real = advice.board_features({**board, "icount_shift": None, "clock_hz": 600e6})
    assert not real.emulated
    result = {"board": board, "checks": {"noisy": 3, "timed": 40}}
    assert "busy host" not in tables.noise_text(result).replace("not a busy host", "")
    assert "time counts instructions" in tables.noise_text(result)
    assert "a busy host" in tables.noise_text({**result, "board": {"clock_hz": 600e6}})
    # rp2040js: its time counts cycles of its own work; a suspected emulator: either may be
    pico = {"clock_hz": 125e6, "limits": ["memory is idealised"]}
    assert "time counts the core's cycles" in tables.noise_text({**result, "board": pico})
    assert "busy host" not in tables.noise_text({**result, "board": pico}).replace("not a busy host", "")
    port = {"clock_hz": 25e6, "cycle_counter": cycle_counter.NO_TRCENA}
    assert "an emulator is suspected" in tables.noise_text({**result, "board": port})


def test_qemu_gives_no_memory_bound_advice():
    """Under QEMU a byte moved is only the instructions that move it: no bound named, no "move
    fewer bytes"; a real core without a cache still gets it."""
    qemu = advice.Features(frozenset({"fpu", "dsp"}), M4.emitters, None, True)
    below, at = pt(2.0, bound="memory"), pt(1.2, bound="memory")
    text = advice.advise(below, FLAT, qemu)[1]
    assert text.startswith("below its roof (2x)") and "memory" not in text.replace("memory- or compute", "")
    assert "move fewer bytes" not in text and "fuse" not in text and advice.NO_BOUND in text
    k, text = advice.advise(at, FLAT, qemu)
    assert k == "roof" and text.startswith("within 1.5x of bytecode's own roof (83% of it): ")
    assert text.endswith(advice.NO_BOUND)
    assert advice.advise(pt(1.2), FLAT, qemu)[0] == "roof"
    assert advice.advise(pt(9.0, bound="memory"), FLAT, qemu)[1].count("fuse") == 0
    m0 = advice.advise(below, FLAT, M0)[1]
    assert "below its memory roof" in m0 and "no cache here, so tiling does not help: move fewer bytes" in m0


def test_under_qemu_the_advice_counts_instructions_not_speed():
    """-icount time counts instructions: a ratio of two is fewer instructions, never 'faster'."""
    qemu = dataclasses.replace(M0, emulated=True)
    slow, fast = pt(2.0), pt(1.2, emitter="asm_thumb", seconds=0.25)
    text = advice.advise(slow, FLAT, qemu, [slow, fast])[1]
    assert "asm_thumb ran this layer in 40x fewer instructions here" in text and "faster" not in text
    text = advice.advise(pt(1.1, dtype="float32"), FLAT, qemu)[1]
    assert "int8 takes 3.33x fewer instructions a MAC than float32" in text and "faster" not in text
    roofs = [ceiling("viper", "int8", 0.63e6), ceiling("viper", "int16", 1.06e6)]
    m3 = advice.Features(frozenset(), ("bytecode", "native", "viper", "asm_thumb"), emulated=True)
    text = advice.advise(pt(1.2, emitter="viper"), roofs, m3)[1]
    assert "int16 takes 1.7x fewer instructions a MAC" in text and "saves memory, not instructions" in text


def test_an_emulator_with_flat_memory_gets_no_weights_placement_advice():
    flat = dataclasses.replace(M0, emulated=True, flat_memory=True)
    mem = pt(2.0, bound="memory")
    text = advice.advise(mem, FLAT + [region("flash", 26e6), region("SRAM", 26e6)], flat)[1]
    assert "flash reads as fast as SRAM" not in text and "where weights live is a real board's question" in text
    pico = advice.board_features({"name": "rp2040js-pico", "limits": ["memory is idealised: flash and SRAM ..."]})
    assert pico.flat_memory and not pico.emulated


def test_asm_rv32_below_its_ceiling_names_the_cores_missing_simd_and_mac_not_an_interpreter():
    """A RISC-V core (qemu-rv32: RV32IMAC, no SIMD): the MUL+ADD ceiling against the loads a
    layer kernel adds; int16 is no faster, so int8 saves memory only."""
    rv = advice.Features(frozenset(), ("bytecode", "native", "viper", "asm_rv32"), emulated=True)
    roofs = [ceiling("asm_rv32", "int8", 7.58e6), ceiling("asm_rv32", "int16", 7.58e6)]
    text = advice.advise(pt(2.7, emitter="asm_rv32"), roofs, rv)[1]
    assert "RV32IM has no SIMD and no multiply-accumulate" in text and "interpreter" not in text
    assert "int8 on this core has no SIMD: int16 takes as many instructions a MAC (1x)" in text
    assert "DSP" not in text and "Python between" not in text
