"""The documentation as a reader follows it: the README stays short (the results, the two
commands, a tour) and points to the rest, and every relative link of the README, of
docs/ and of benchmarks/ leads to a file that exists (and a heading, for an anchor)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "benchmarks").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    found = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_readme_is_short_and_points_to_the_rest():
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) <= 150
    assert lines[0].startswith("# morris-tablebase")
    assert "make solve" in lines[3] and "make test" in lines[4]  # the two commands on top
    assert "## Results it reproduces" in readme
    for page in ("docs/api.md", "docs/usage.md", "docs/install.md", "docs/architecture.md"):
        assert f"]({page})" in readme, page


def test_every_relative_link_leads_somewhere():
    broken = []
    for page in PAGES:
        for target in _LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path) if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []
