"""House rules that keep the code base livable: no source module over 800 lines (the engine and
server's Python, and the page's TypeScript; generated files are held to it too)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 800
SOURCES = (("engine", "*.py"), ("server", "*.py"), ("web/src", "*.ts"))


def _line_counts():
    for folder, pattern in SOURCES:
        for path in sorted((ROOT / folder).rglob(pattern)):
            with open(path, encoding="utf-8") as f:
                yield path.relative_to(ROOT).as_posix(), sum(1 for _ in f)


def test_no_source_module_over_800_lines():
    counts = dict(_line_counts())
    for folder, pattern in SOURCES:
        assert any(p.startswith(folder + "/") for p in counts), f"no {pattern} sources found under {folder}/"
    too_long = {p: n for p, n in counts.items() if n > MAX_LINES}
    assert not too_long, (
        f"modules over {MAX_LINES} lines (split them along their seams into small modules with "
        f"names that say what they are): {too_long}"
    )
