"""Armv6-M (Cortex-M0) routines assembled on the host, for MicroPython's inline assembler.

The micro:bit's MicroPython 1.9.2 cannot compile an asm_thumb routine of more than ~40
statements (MemoryError), but one `data(2, ...)` statement may hold a hundred halfwords. So a
routine too long for the parser is written here, instruction by instruction, and sent as a few
data() lines: `Asm` encodes the 16-bit Thumb instructions (ARM DDI 0419, Armv6-M), resolves
its labels and keeps each instruction's GNU syntax, against which tests/board/test_thumb1.py
checks every routine it makes (arm-none-eabi-as); the source lists that syntax, one instruction
a comment line, above the data() line. Pure computation.
"""

from __future__ import annotations

CONDS = {"eq": 0, "ne": 1, "mi": 4, "pl": 5, "ge": 10, "lt": 11, "gt": 12, "le": 13}
SP, LR, PC = 13, 14, 15
_NAMES = {SP: "sp", LR: "lr", PC: "pc"}
PER_LINE = 1000  # halfwords per data() line


def reg(n: int) -> str:
    """A core register's name in GNU syntax: r0-r12, sp, lr, pc."""
    return _NAMES.get(n, f"r{n}")


_r = reg


def _regs(regs) -> str:
    return "{" + ", ".join(_r(r) for r in sorted(regs)) + "}"


def _mask(regs) -> int:
    return sum(1 << r for r in regs if r < 8)


class Asm:
    """A routine's instructions in order; labels resolved by words()."""

    def __init__(self):
        self.items = []  # (halfword or branch tuple, GNU text)
        self.labels = {}
        self.notes = {}  # item index -> what the listing says beside it

    def note(self, text: str):
        """Say `text` beside the last instruction in the listing (never in gnu())."""
        self.notes[len(self.items) - 1] = text

    def _op(self, hw: int, text: str):
        self.items.append((hw, text))

    def label(self, name: str):
        self.labels[name] = len(self.items)
        self.items.append((None, name + ":"))

    # data processing
    def movs(self, rd, imm):
        self._op(0x2000 | rd << 8 | imm, f"movs {_r(rd)}, #{imm}")

    def mov(self, rd, rm):
        """MOV between any registers (high ones included), flags untouched."""
        self._op(0x4600 | (rd >> 3) << 7 | rm << 3 | rd & 7, f"mov {_r(rd)}, {_r(rm)}")

    def add(self, rdn, rm):
        """ADD Rdn, Rm with high registers (Rdn = pc: a computed branch)."""
        self._op(0x4400 | (rdn >> 3) << 7 | rm << 3 | rdn & 7, f"add {_r(rdn)}, {_r(rm)}")

    def adds(self, rd, rn, rm):
        self._op(0x1800 | rm << 6 | rn << 3 | rd, f"adds {_r(rd)}, {_r(rn)}, {_r(rm)}")

    def subs(self, rd, rn, rm):
        self._op(0x1A00 | rm << 6 | rn << 3 | rd, f"subs {_r(rd)}, {_r(rn)}, {_r(rm)}")

    def addi(self, rdn, imm):
        self._op(0x3000 | rdn << 8 | imm, f"adds {_r(rdn)}, #{imm}")

    def subi(self, rdn, imm):
        self._op(0x3800 | rdn << 8 | imm, f"subs {_r(rdn)}, #{imm}")

    def muls(self, rdm, rn):
        """Rdm = Rn * Rdm."""
        self._op(0x4340 | rn << 3 | rdm, f"muls {_r(rdm)}, {_r(rn)}, {_r(rdm)}")

    def lsls(self, rd, rm, imm):
        self._op(imm << 6 | rm << 3 | rd, f"lsls {_r(rd)}, {_r(rm)}, #{imm}")

    def lsrs(self, rd, rm, imm):
        self._op(0x0800 | (imm & 31) << 6 | rm << 3 | rd, f"lsrs {_r(rd)}, {_r(rm)}, #{imm}")

    def asrs(self, rdn, rm):
        self._op(0x4100 | rm << 3 | rdn, f"asrs {_r(rdn)}, {_r(rm)}")

    def negs(self, rd, rm):
        self._op(0x4240 | rm << 3 | rd, f"negs {_r(rd)}, {_r(rm)}")

    def cmpi(self, rn, imm):
        self._op(0x2800 | rn << 8 | imm, f"cmp {_r(rn)}, #{imm}")

    def cmp(self, rn, rm):
        self._op(0x4280 | rm << 3 | rn, f"cmp {_r(rn)}, {_r(rm)}")

    def nop(self):
        self._op(0x46C0, "nop")  # mov r8, r8, as GNU as encodes it for the M0

    # memory
    def ldr(self, rt, rn, imm=0, note=""):
        self._ldr(rt, rn, imm)
        if note:
            self.note(note)

    def str(self, rt, rn, imm=0, note=""):
        self._str(rt, rn, imm)
        if note:
            self.note(note)

    def _ldr(self, rt, rn, imm):
        if rn == SP:
            self._op(0x9800 | rt << 8 | imm >> 2, f"ldr {_r(rt)}, [sp, #{imm}]")
        else:
            self._op(0x6800 | (imm >> 2) << 6 | rn << 3 | rt, f"ldr {_r(rt)}, [{_r(rn)}, #{imm}]")

    def _str(self, rt, rn, imm):
        if rn == SP:
            self._op(0x9000 | rt << 8 | imm >> 2, f"str {_r(rt)}, [sp, #{imm}]")
        else:
            self._op(0x6000 | (imm >> 2) << 6 | rn << 3 | rt, f"str {_r(rt)}, [{_r(rn)}, #{imm}]")

    def strb(self, rt, rn, imm=0):
        self._op(0x7000 | imm << 6 | rn << 3 | rt, f"strb {_r(rt)}, [{_r(rn)}, #{imm}]")

    def strb_reg(self, rt, rn, rm):
        self._op(0x5400 | rm << 6 | rn << 3 | rt, f"strb {_r(rt)}, [{_r(rn)}, {_r(rm)}]")

    def ldrsb(self, rt, rn, rm):
        self._op(0x5600 | rm << 6 | rn << 3 | rt, f"ldrsb {_r(rt)}, [{_r(rn)}, {_r(rm)}]")

    def ldm(self, rn, regs):
        """LDM Rn!, {regs} (Rn not in regs: written back)."""
        self._op(0xC800 | rn << 8 | _mask(regs), f"ldmia {_r(rn)}!, {_regs(regs)}")

    def stm(self, rn, regs):
        """STM Rn!, {regs} (written back)."""
        self._op(0xC000 | rn << 8 | _mask(regs), f"stmia {_r(rn)}!, {_regs(regs)}")

    def push(self, regs):
        self._op(0xB400 | (LR in regs) << 8 | _mask(regs), f"push {_regs(regs)}")

    def pop(self, regs):
        self._op(0xBC00 | _mask(regs), f"pop {_regs(regs)}")

    def add_sp(self, imm):
        self._op(0xB000 | imm >> 2, f"add sp, #{imm}")

    def sub_sp(self, imm):
        self._op(0xB080 | imm >> 2, f"sub sp, #{imm}")

    # branches
    def blx(self, rm):
        self._op(0x4780 | rm << 3, f"blx {_r(rm)}")

    def b(self, cond: str, target: str):
        """B<cond> target ('al': unconditional)."""
        self.items.append((("b", cond, target), f"b{'' if cond == 'al' else cond} {target}"))

    def words(self) -> list[int]:
        pos, addr, out = 0, {}, []
        for i, (hw, _) in enumerate(self.items):
            if hw is None:
                addr[i] = pos
            else:
                pos += 1
        where = {name: addr[i] for name, i in self.labels.items()}
        pos = 0
        for hw, text in self.items:
            if hw is None:
                continue
            if isinstance(hw, tuple):
                _, cond, target = hw
                off = where[target] - pos - 2
                if cond == "al":
                    if not -1024 <= off < 1024:
                        raise ValueError(f"{text}: branch out of range")
                    hw = 0xE000 | off & 0x7FF
                else:
                    if not -128 <= off < 128:
                        raise ValueError(f"{text}: branch out of range")
                    hw = 0xD000 | CONDS[cond] << 8 | off & 0xFF
            out.append(hw)
            pos += 1
        return out

    def gnu(self) -> str:
        """The routine in GNU assembler syntax (tests assemble it and compare)."""
        return "\n".join(t if t.endswith(":") else "  " + t for _, t in self.items) + "\n"

    def listing(self) -> list[tuple[int | None, str]]:
        """(halfword index, line) per item: an instruction as `offset: halfword  GNU text`, a
        label as `name:` (index None), as objdump shows a routine."""
        w, out, pos = self.words(), [], 0
        for i, (hw, text) in enumerate(self.items):
            if hw is None:
                out.append((None, text))
                continue
            said = f"  @ {self.notes[i]}" if i in self.notes else ""
            out.append((pos, f"{2 * pos:4x}: {w[pos]:04x}  {text}{said}"))
            pos += 1
        return out

    def source(self, name: str) -> str:
        """An asm_thumb function of four arguments whose body is these instructions, as few
        data() lines; each preceded by its instructions, one a comment line (kernels.listing
        strips them before sending)."""
        w, lines = self.words(), []
        notes = iter(self.listing())
        pending = next(notes, None)
        for i in range(0, len(w), PER_LINE):
            while pending and (pending[0] is None or pending[0] < i + PER_LINE):
                lines.append(" # " + pending[1] + "\n")
                pending = next(notes, None)
            lines.append(" data(2," + ",".join(str(v) for v in w[i : i + PER_LINE]) + ")\n")
        return f"@micropython.asm_thumb\ndef {name}(r0,r1,r2,r3):\n" + "".join(lines)
