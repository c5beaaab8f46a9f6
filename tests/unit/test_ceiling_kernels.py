"""Ceiling kernels at least as fast as what they bound: the movers' loops and the layer
kernels' inner loops, counted in the generated source (instructions per byte or MAC)."""

from factories import CPU_REGS
from mcuroof.kernels import compute, memory
from mcuroof.kernels.listing import sent
from mcuroof.kernels.ops import m0, m0_routines, viper


def _loop(src: str, label: str, back: str) -> list[str]:
    """The instructions of the loop from label(L) to its branch back (the listing's comments
    are not sent)."""
    lines = [ln.strip() for ln in sent(src).splitlines()]
    start = lines.index(f"label({label})")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(f"{back}({label})"))
    return lines[start + 1 : end + 1]


def test_the_mve_mover_moves_close_to_the_16_bytes_an_instruction_of_its_loads_and_stores():
    """One vector a loop held it at 8 B/instr (qemu-m55: 124.7 MB/s at 15.625 M instr/s)."""
    body = memory._simd8_body("copy", 1, mve=True)
    loop = _loop(body, "L", "bgt_w")
    moved = 2 * 16 * sum(ln.startswith("data(2,0xecb") for ln in loop)  # VLDRB: read and written
    assert moved / len(loop) >= 0.85 * 16  # 8 vectors: 256 B per 18 instructions, 14.2


def test_the_dsp_mover_moves_words_as_the_word_copy_does():
    loop = _loop(memory._simd8_body("copy", 1, mve=False), "L", "bgt")
    copy4 = _loop(memory.ASM_COPY4, "L", "bgt")
    assert 2 * 4 * sum(ln.startswith("ldr(") for ln in loop) / len(loop) >= 2 * 16 / len(copy4)


def test_the_viper_int8_ceiling_sums_products_as_the_layer_kernels_do():
    """A MobileNet dense layer ran at 713 MMACC/s on the unix port, over the viper int8 ceiling's
    677: that ceiling added one product a statement, the layer kernels 8 in one expression."""
    eight = "a+=" + "+".join(viper.vterm(str(j), str(j)) for j in range(viper.GROUP)) + "\n"
    assert eight in viper.VIPER["FULLY_CONNECTED"] and eight in viper.VIPER["CONV_2D"]
    ceiling = compute._mac_body("viper", "b", 16)
    assert ceiling.count(eight) == 1 and ceiling.count("a+=") == 2


def test_the_asm_thumb_ceiling_needs_no_more_instructions_a_mac_than_the_m0_layer_loops():
    """Armv6-M: the ceiling's LDRB, LDRB, MUL, ADD a MAC, unrolled 4x (the micro:bit) or 16x,
    against the dense/1x1 loop (ASM_ROWS: two LDRSB, MUL, ADD, SUB, BGE), the depthwise pixel
    loop (ASM_DWPIX) and dw_pixel's kernel row of 3 taps (4 instructions each, 3 more a row)."""
    for u in (4, 16):
        per_mac = len(_loop(compute._mac_body("asm_thumb", "b", u), "L", "bgt")) / u
        assert per_mac <= len(_loop(m0_routines.ASM_ROWS, "J", "bge")) <= len(_loop(m0.ASM_DWPIX, "L", "bgt"))
        assert per_mac <= m0._dw_block_bytes(3) / 2 / 3


def test_the_vmla_ceiling_counts_four_macs_an_instruction():
    u, dots, setup, loop, tail = compute._isa_body("vmla", "b", compute.ISA_REP)
    assert (u, dots) == (4, 32) and loop.count("data(") == 32  # 32 VMLA.S32: 128 MACs a loop
    assert compute._isa_body("vmla", "i", compute.ISA_REP) is None  # int8 layers' instruction only


def test_the_muls_ceiling_is_one_muls_and_one_adds_a_mac_on_known_armv6m_cores_only():
    """Armv6-M has no MLA: MULS + ADDS (a cycle each on a Cortex-M0+) is its MAC, 32 a loop."""
    from mcuroof.board import identity

    u, dots, setup, loop, tail = compute._isa_body("muls", "b", compute.ISA_REP)
    assert (u, dots) == (2, 16) and loop.count(" mul(") == loop.count(" add(") == 32 and not tail
    assert setup.count("ldrb(") == 4 and "mul(r6,r4)" in loop  # r4 holds x = 1: r6 keeps w
    assert identity.describe({"cpu": CPU_REGS["rp2040js-pico"]}).peak_kernels == ["muls"]  # a Cortex-M0+
    assert identity.describe({"cpu": CPU_REGS["qemu-microbit"]}).peak_kernels == ["muls"]  # a Cortex-M0
    assert "muls" not in identity.describe({"cpu": CPU_REGS["qemu-m3"]}).peak_kernels  # MLA there
    assert identity.describe({"platform": "rp2040js-pico"}).peak_kernels == []  # no registers: not known


def test_the_ldm_copy_moves_16_words_a_loop_of_10_instructions():
    loop = _loop(memory.ASM_COPY_LDM, "L", "bgt")
    assert loop == ["data(2," + ",".join(["51440,49648"] * 4) + ")", "sub(r3,1)", "bgt(L)"]
    assert "lsr(r3,r3,4)" in memory.ASM_COPY_LDM  # 16 words an iteration
    kernels = memory.memory_kernels({"emitters": ["asm_thumb"], "types": ["i"], "max_ws": {}, "isa": ["muls"]})
    assert any(k.key.endswith("copy-ldm") for k in kernels)
    without = memory.memory_kernels({"emitters": ["asm_thumb"], "types": ["i"], "max_ws": {}, "isa": []})
    assert not any(k.key.endswith("copy-ldm") for k in without)
