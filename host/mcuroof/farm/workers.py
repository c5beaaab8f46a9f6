"""A farm run: `mcuroof run --place P` for many labgrid places at once, each into DIR/<place>/.

Every place runs in a process of its own (a lost board or a crash there stops nothing else),
its terminal output in DIR/<place>/run.log. DIR/farm.json keeps the places and options so that
`--resume DIR` can finish what is missing: places without results.json, continued from their
raw.jsonl where one exists. Progress is read from each place's raw.jsonl as it is written.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcuroof.errors import Interrupted, UserError
from mcuroof.measure.rawlog import complete_kernels
from mcuroof.measure.rawlog import read as read_raw
from mcuroof.suites import registry
from mcuroof.version import __version__

FARM_FILE = "farm.json"
FARM_SCHEMA = 1
OPTIONS = ("suite", "profile", "model", "dtype", "emitter", "tile_seconds")  # passed to every place's run
INTERRUPT_WAIT = 20.0  # after Ctrl-C, how long places get to stop and release their boards


@dataclass
class Plan:
    """What a farm run does: its places, their coordinator and the run options."""

    out: Path
    coordinator: str
    places: list[str]
    options: dict
    wait: bool = False

    def save(self) -> None:
        doc = {
            "schema": FARM_SCHEMA,
            "tool": f"mcuroof {__version__}",
            "coordinator": self.coordinator,
            "places": self.places,
            "options": self.options,
        }
        (self.out / FARM_FILE).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def load_plan(out: Path) -> Plan:
    path = out / FARM_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror}): not a farm run folder") from None
    except ValueError:
        raise UserError(f"{path}: not JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("places"), list) or not isinstance(doc.get("options"), dict):
        raise UserError(f"{path}: not a farm run (no places or options)")
    if doc.get("schema", 0) > FARM_SCHEMA:
        raise UserError(f"{path}: schema {doc['schema']} is newer than this mcuroof reads; upgrade mcuroof")
    return Plan(out, str(doc.get("coordinator", "")), [str(p) for p in doc["places"]], doc["options"])


def state(folder: Path) -> str:
    """ "done" (results.json), "partial" (a raw.jsonl to continue) or "new"."""
    if (folder / "results.json").exists():
        return "done"
    return "partial" if (folder / "raw.jsonl").exists() else "new"


def command(plan: Plan, place: str) -> list[str]:
    """The `mcuroof run` of one place: a new run, or the continuation of its raw.jsonl."""
    folder = plan.out / place
    cmd = [sys.executable, "-m", "mcuroof.cli", "run", "--place", place, "--coordinator", plan.coordinator]
    if plan.wait:
        cmd.append("--wait")
    if plan.options.get("profile"):
        cmd += ["--profile", plan.options["profile"]]
    if state(folder) == "partial":
        return cmd + ["--resume", str(folder)]
    for opt in OPTIONS:
        value = plan.options.get(opt)
        if value is not None and opt != "profile":
            cmd += [f"--{opt.replace('_', '-')}", str(value)]
    return cmd + ["-o", str(folder)]


@dataclass
class Progress:
    """How far one place's run is, from its raw.jsonl."""

    done: int = 0
    total: int | None = None
    current: str = ""
    faults: int = 0


def progress(entries: list[dict]) -> Progress:
    """Units finished, units planned (once the probe has arrived; None with the layers suite,
    whose plan needs the model) and the unit now running. Pure."""
    # the pace unit and the timer check (measure.pace, measure.timer: after the probe) are no
    # suite's: counted with neither
    out = Progress(done=sum(suite not in ("pace", "timer") for suite, _ in complete_kernels(entries)))
    headers = [e for e in entries if e["kind"] == "header"]
    suites = headers[-1].get("suites") if headers else None
    probe = next((e["rec"] for e in entries if e["kind"] == "record" and e["rec"].get("t") == "probe"), None)
    if isinstance(suites, list) and probe is not None and "layers" not in suites:
        cfgs = registry.configs(probe, suites)
        out.total = 1 + sum(max(1, len(registry.for_suite(s, cfgs[s]))) for s in suites)
    last = next((e for e in reversed(entries) if e["kind"] in ("record", "kernel")), None)
    if last is not None:
        out.current = last.get("kernel") or last.get("suite", "")
    out.faults = sum(e["kind"] == "fault" for e in entries)
    return out


@dataclass
class Worker:
    """One place's run: its process, its log, and how it ended."""

    place: str
    folder: Path
    proc: subprocess.Popen | None = None
    started: float = 0.0
    seconds: float = 0.0
    status: str = "waiting"  # waiting, running, done, failed, held
    reason: str = ""
    log_start: int = field(default=0, repr=False)

    def start(self, cmd: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "run.log"
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(cmd[1:])}\n")
            self.log_start = f.tell()
            # a session of its own: Ctrl-C reaches it once, from the farm, and it releases its place
            self.proc = subprocess.Popen(
                cmd,
                stdout=f,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=default_sigint,
            )
        self.started = time.monotonic()
        self.status = "running"

    def poll(self) -> bool:
        """True once the process has ended (status and reason then say how)."""
        if self.proc is None or self.proc.poll() is None:
            return False
        self.seconds = time.monotonic() - self.started
        if self.proc.returncode == 0:
            self.status = "done"
        else:
            self.status, self.reason = "failed", self._last_error()
        self.proc = None
        return True

    def interrupt(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def raw_progress(self) -> Progress | None:
        path = self.folder / "raw.jsonl"
        try:
            return progress(read_raw(path)) if path.exists() else None
        except UserError:
            return None

    def _last_error(self) -> str:
        try:
            with open(self.folder / "run.log", encoding="utf-8", errors="replace") as f:
                f.seek(self.log_start)
                lines = [ln.strip() for ln in f if ln.strip()]
        except OSError:
            lines = []
        errors = [ln.removeprefix("mcuroof: ") for ln in lines if ln.startswith("mcuroof: ")]
        return errors[-1] if errors else f"exit status {self.proc.returncode}"


def run_all(workers: list[Worker], plan: Plan, jobs: int, tick) -> None:
    """Start the places (at most `jobs` at a time, 0: all), call tick() while they run,
    return when all have ended. Ctrl-C is passed on once to each place, which then releases its board."""
    queue = [w for w in workers if w.status == "waiting"]
    running: list[Worker] = []
    try:
        while queue or running:
            while queue and (jobs <= 0 or len(running) < jobs):
                w = queue.pop(0)
                w.start(command(plan, w.place))
                running.append(w)
            running = [w for w in running if not w.poll()]
            tick()
            time.sleep(0.5)
    except KeyboardInterrupt:
        _stop(running)
        raise Interrupted(f"every place's partial run is kept: mcuroof farm run --resume {plan.out}") from None


def default_sigint() -> None:
    """In a place's process before it starts: Ctrl-C as a terminal gives it. A farm started in the
    background (`&`, nohup, some CI runners) has SIGINT ignored, and its children would inherit
    that and never stop on the SIGINT passed on to them."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(running: list[Worker]) -> None:
    for w in running:
        w.interrupt()
    deadline = time.monotonic() + INTERRUPT_WAIT
    while any(w.proc is not None and w.proc.poll() is None for w in running) and time.monotonic() < deadline:
        time.sleep(0.2)
    for w in running:
        w.kill()
