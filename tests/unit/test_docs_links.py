"""The README and docs/ pages: every relative link resolves, and pages are named by topic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target), target up to the first space or ")"; <http...> autolinks aside
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")
# pages other branches add (NPU roofs, RISC-V boards): the README links them before they land here;
# once a page exists its links are checked like any other, and its entry here can go
PENDING: set[str] = set()
# a sitting or a date in a page's name: session-3, sitting, 2026-12-01, 20261201
DIARY = re.compile(r"session|sitting|\d{4}-\d{2}-\d{2}|\d{8}", re.IGNORECASE)


def prose(text: str) -> str:
    """text without fenced code blocks and indented code lines, whose brackets are not links"""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            out.append(line)
    return "\n".join(out)


def links(page: Path) -> list[str]:
    """the relative link targets of a page (external URLs and mail left out)"""
    found = LINK.findall(prose(page.read_text()))
    return [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens"""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """the anchors of a page's headings (a repeated heading gets -1, -2, ... as on GitHub)"""
    seen: dict[str, int] = {}
    out = set()
    for line in prose(page.read_text()).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_the_pages_exist():
    assert (ROOT / "README.md").is_file()
    assert len(PAGES) > 5, [p.name for p in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() and dest.is_relative_to(ROOT) and dest.relative_to(ROOT).as_posix() in PENDING:
            continue
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_no_page_is_named_after_a_session_or_a_date():
    named = [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*") if DIARY.search(p.name)]
    assert not named, named


def test_the_readme_stays_a_front_door():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250, len(lines)


def test_the_link_finder_finds_what_it_should():
    text = "see [a](docs/a.md#x-y), ![p](img/p.png) and [w](https://x.org)\n```\n[no](b.md)\n```\n    [no](c.md)\n"
    page = ROOT / "docs" / "_probe.md"
    assert LINK.findall(prose(text)) == ["docs/a.md#x-y", "img/p.png", "https://x.org"]
    assert [t for t in LINK.findall(prose(text)) if not re.match(r"[a-z][a-z0-9+.-]*:", t)] == [
        "docs/a.md#x-y",
        "img/p.png",
    ]
    assert slug("Output folders, `--resume` and Ctrl-C") == "output-folders---resume-and-ctrl-c"
    assert (
        slug("The micro:bit's limits (MicroPython 1.9.2, 8 KB heap)")
        == "the-microbits-limits-micropython-192-8-kb-heap"
    )
    assert DIARY.search("session-3.md") and DIARY.search("2026-12-05.md") and not DIARY.search("farm.md")
    assert not page.exists()
