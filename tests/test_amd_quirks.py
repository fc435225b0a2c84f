"""The AMD manual quirk table: every entry names real places in the manuals, and the reader
applies quirks only where the table says they occur."""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpuisa.sources.amd_quirks import ARCHS, MANUAL_QUIRKS
from tests.conftest import MANUALS, manual_line


@pytest.fixture(scope="module")
def manuals(sources):
    from gpuisa.sources.read import read_amd_manuals

    return read_amd_manuals(sources, jobs=2)


@pytest.fixture(scope="module")
def applied(manuals) -> dict[str, dict[str, set[int]]]:
    out: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for data in manuals:
        for r in data.repairs:
            assert r.file == data.file
            out[r.quirk][data.arch].add(r.line)
    return out


def test_every_entry_has_reason_repair_and_places():
    assert len(MANUAL_QUIRKS) >= 10
    for q in MANUAL_QUIRKS.values():
        assert q.reason and q.repair and q.seen, q.id
        for s in q.seen:
            assert s.arch in ARCHS and s.line > 0 and s.what, (q.id, s)


@pytest.mark.parametrize("quirk", sorted(MANUAL_QUIRKS))
def test_quirk_is_applied_where_the_table_says(quirk, applied, sources):
    """Each listed place is one where the reader applied the quirk, and the reader applies it in
    no manual the table does not list (a new place in a new manual must be added with its reason)."""
    q = MANUAL_QUIRKS[quirk]
    where = applied.get(quirk, {})
    assert set(where) == set(q.archs), f"{quirk}: applied in {sorted(where)}, table lists {sorted(q.archs)}"
    for s in q.seen:
        assert s.line in where[s.arch], f"{quirk}: not applied at {s.cite()} (applied at {sorted(where[s.arch])[:5]})"


def test_places_show_the_quirk_in_the_manual(sources):
    """The premise, read from the manuals: the lines the table cites hold what it says."""
    assert MANUALS.is_dir()
    wide = MANUAL_QUIRKS["encoding-value-wider"]
    for s in wide.seen:
        line = manual_line(s.arch, s.line)
        value = s.what.split()[0].lstrip("'b")
        printed = s.what.split(" in ")[1]
        assert "ENCODING" in line and printed in line and value in line.replace("'b", " "), (s, line)
        assert len(value) > int(printed.strip("[]").split(":")[0]) - int(printed.strip("[]").split(":")[1]) + 1
    swallow = MANUAL_QUIRKS["table-swallows-next"].seen[0]
    assert "SOP2 Opcodes" in manual_line(swallow.arch, swallow.line)
    assert manual_line(swallow.arch, swallow.line - 1).startswith("|")     # inside the field table
    for s in MANUAL_QUIRKS["vop3-promotion-rule"].seen:
        text = " ".join(manual_line(s.arch, s.line + k) for k in range(0, 3))
        enc, offset = s.what.split(" (")[0].split(" + ")
        assert f"{enc} opcode + {offset}" in text.replace("\\", ""), (s, text)
    for s in MANUAL_QUIRKS["combined-flat-table"].seen:
        heading = " ".join(manual_line(s.arch, s.line - k) for k in range(1, 12))
        assert "FLAT, GLOBAL and SCRATCH" in heading.replace("\\", ""), s


def test_reader_refuses_an_unlisted_quirk():
    from gpuisa.model import ManualData
    from gpuisa.sources.amd_manual import _repair

    with pytest.raises(KeyError):
        _repair(ManualData("rdna3", "x"), "no-such-quirk", 1)
