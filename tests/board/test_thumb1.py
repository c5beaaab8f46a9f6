"""thumb1.Asm's encodings and branch offsets against the GNU assembler (arm-none-eabi-as,
Cortex-M0): the depthwise row routines of layer_kernels as they are sent to the micro:bit."""

import re
import shutil
import subprocess

import pytest

from mcuroof.kernels.listing import sent
from mcuroof.kernels.ops import m0

SHAPES = [(3, 3), (3, 2), (1, 1), (5, 3), (2, 3)]


def assemble(tmp_path, src: str) -> list[int]:
    if not shutil.which("arm-none-eabi-as"):
        pytest.skip("arm-none-eabi-as not installed (apt-get install gcc-arm-none-eabi)")
    (tmp_path / "t.s").write_text(".syntax unified\n.thumb\n" + src)
    subprocess.run(["arm-none-eabi-as", "-mcpu=cortex-m0", "-o", tmp_path / "t.o", tmp_path / "t.s"], check=True)
    dump = subprocess.run(
        ["arm-none-eabi-objdump", "-d", tmp_path / "t.o"], capture_output=True, text=True, check=True
    ).stdout
    return [int(h, 16) for h in re.findall(r"^\s+[0-9a-f]+:\s+([0-9a-f]{4})\s", dump, re.M)]


@pytest.mark.parametrize("kh,kw", SHAPES)
@pytest.mark.parametrize("routine", ["pixel", "row"])
def test_depthwise_routines_match_the_assembler(tmp_path, routine, kh, kw):
    a = m0.dw_pixel(kh, kw) if routine == "pixel" else m0.dw_row(kh, kw, 2, 1)
    assert a.words() == assemble(tmp_path, a.gnu())


def test_source_is_data_lines_of_the_words():
    a = m0.dw_pixel(3, 3)
    src = sent(a.source("dwpix"))
    assert src.startswith("@micropython.asm_thumb\ndef dwpix(r0,r1,r2,r3):\n data(2,")
    words = [int(v) for line in src.splitlines()[2:] for v in line[len(" data(2,") : -1].split(",")]
    assert words == a.words()


def test_the_listing_above_the_data_line_assembles_to_its_words(tmp_path):
    """Each comment line of the source is an instruction (offset, halfword, GNU text) or a
    label; the GNU text assembled gives the halfwords shown and the words sent."""
    a = m0.dw_row(3, 3, 2, 1)
    notes = [line[3:] for line in a.source("dwrun").splitlines() if line.startswith(" # ")]
    shown = [re.match(r" *([0-9a-f]+): ([0-9a-f]{4})  (.*)", n) for n in notes]
    gnu = "".join(m.group(3) + "\n" if m else n + "\n" for m, n in zip(shown, notes))
    words = [int(m.group(2), 16) for m in shown if m]
    assert [int(m.group(1), 16) for m in shown if m] == list(range(0, 2 * len(words), 2))
    assert words == a.words() == assemble(tmp_path, gnu)


def test_the_ldm_copy_moves_what_the_assembler_encodes(tmp_path):
    """The memory suite's Armv6-M copy (kernels.memory.ASM_COPY_LDM): LDMIA/STMIA as GNU encodes them."""
    from mcuroof.kernels import memory, thumb1

    a = thumb1.Asm()
    a.ldm(0, range(4, 8))
    a.stm(1, range(4, 8))
    assert a.words() == assemble(tmp_path, a.gnu()) == [0xC8F0, 0xC1F0]
    assert f" data(2,{','.join(['51440,49648'] * 4)})\n" in memory.ASM_COPY_LDM


def test_the_data_words_of_the_m0_routines_are_the_instructions_their_comments_name(tmp_path):
    """LDRSB with a register offset and BLX, which the inline assembler lacks, as data() words:
    the comment beside each (stripped before sending) assembles to that halfword."""
    from mcuroof.kernels.ops import m0_routines

    text = "".join(v for k, v in vars(m0_routines).items() if k.startswith("ASM_"))
    found = sorted(set(re.findall(r"data\(2,(0x[0-9A-F]{4})\)  # ([^\n]*)", text)))
    assert len(found) == 8  # five LDRSB, BLX r0, r3 and r8
    assert [int(hw, 16) for hw, _ in found] == assemble(tmp_path, "".join(src + "\n" for _, src in found))
