"""The named tables for prose entries (semantics.prose): every entry rests on a manual line that says
what the table claims, and every borrowed text evaluates on the architecture that borrows it."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import prose
from gpuisa.semantics.coverage import coverage, run_random
from gpuisa.semantics.source import amd_semantics, resolver_for
from tests.conftest import MANUALS


def _near(cite: str, radius: int) -> str:
    path, line = cite.split(" ")[0].rsplit(":", 1)
    lines = (MANUALS.parent / path).read_text(encoding="utf-8").splitlines()
    n = int(line)
    return "\n".join(lines[max(0, n - 1 - radius): n + radius])


def _escaped(name: str) -> str:
    return name.replace("_", "\\_")


@pytest.mark.parametrize("name", sorted(prose.TIMING_ONLY))
def test_timing_only_entries_cite_their_instruction(name: str) -> None:
    _, line = prose.TIMING_ONLY[name]
    text = _near(line, 12)
    assert _escaped(name) in text or name in text


@pytest.mark.parametrize("name", sorted(prose.BORROWED))
def test_borrowed_entries_cite_the_older_cell(name: str) -> None:
    _, line = prose.BORROWED[name]
    assert name in _near(line, 0) or _escaped(name) in _near(line, 2)


@pytest.mark.parametrize(("arch", "name"), [("vega", "V_RNDNE_F32"), ("rdna1", "V_MOVRELS_B32"),
                                            ("cdna2", "S_SETREG_B32"), ("vega7", "V_XNOR_B32")])
def test_borrowed_text_is_the_donors_and_says_so(arch: str, name: str) -> None:
    from tests.conftest import TEXTS

    sem = amd_semantics(name, arch, TEXTS)
    assert sem.cite.startswith(f"amd-isa-manuals/{prose.DONORS[arch]}/README.md:")
    assert arch in sem.note and prose.DONORS[arch] in sem.note
    run_random(sem.text, sem.style, arch, 64, np.random.default_rng(0), resolver_for(arch, TEXTS), name, sem.name)


def test_rnde_borrowed_on_vega_rounds_half_to_even() -> None:
    """vega/README.md:2909: 'Round-to-nearest-even semantics.' - 2.5 -> 2.0, 3.5 -> 4.0, -2.5 -> -2.0."""
    from gpuisa.semantics.run import evaluate_wave, machine_for
    from tests.conftest import TEXTS, manual_line

    assert "Round-to-nearest-even semantics" in manual_line("vega", 2909)
    sem = amd_semantics("V_RNDNE_F32", "vega", TEXTS)
    out = evaluate_wave(sem.text, {"S0": np.array([2.5, 3.5, -2.5], dtype=np.float32)}, sem.style,
                        machine=machine_for("vega"))
    vals = out["D0"] if out["D0"].dtype == np.float32 else np.asarray(out["D0"], dtype=np.uint32).view(np.float32)
    assert vals.tolist() == [2.0, 4.0, -2.0]


@pytest.mark.parametrize(("arch", "helper"), sorted(prose.HELPER_DONORS))
def test_helper_donors_cite_the_same_operation(arch: str, helper: str) -> None:
    donor, line = prose.HELPER_DONORS[(arch, helper)]
    op = "maximum()" if "MAXIMUM" in helper else "minimum()"
    assert op in _near(line.split(" (")[0], 2)
    from tests.conftest import TEXTS

    assert helper in TEXTS.instruction_docs(donor)


def test_substitutions_are_counted() -> None:
    from tests.conftest import TEXTS

    cov = coverage("vega", TEXTS)
    assert sum(c.substituted for c in cov.units.values()) >= 20
