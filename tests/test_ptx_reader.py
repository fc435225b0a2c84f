"""The PTX ISA manual reader: facts checked against the manual's own text (file:line cited).

Paths are relative to ../shared/sources/ptx-isa-9.4/ unless they name another edition.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.paths import default_sources
from gpuisa.sources import ptx_syntax
from gpuisa.sources.ptx_docs import read_manual

SOURCES = default_sources()
PTX94 = SOURCES / "ptx-isa-9.4"
PTX91 = SOURCES / "ptx-isa-9.1"
CH9 = PTX94 / "9-instruction-set"

needs_sources = pytest.mark.skipif(not CH9.is_dir(), reason=f"PTX ISA 9.4 sources not found under {SOURCES}")


@pytest.fixture(scope="module")
def manual():
    if not CH9.is_dir():
        pytest.skip(f"PTX ISA 9.4 sources not found under {SOURCES}")
    return read_manual(PTX94, older=PTX91 if PTX91.is_dir() else None)


def _one(manual, name, section_prefix="9.7"):
    found = [i for i in manual.find(name) if i.section.startswith(section_prefix)]
    assert found, f"{name} not found"
    return found[0]


@needs_sources
def test_clmad_category_and_summary(manual):
    clmad = _one(manual, "clmad")
    # 9.7.1.5-integer-arithmetic-instructionsclmad.md:2  title "9.7.1.5. Integer Arithmetic Instructions: clmad"
    # 9.7.1-integer-arithmetic-instructions.md:2         title "9.7.1. Integer Arithmetic Instructions"
    assert clmad.section == "9.7.1.5"
    assert clmad.category == "Integer Arithmetic Instructions"
    # 9.7.1.5-...clmad.md:16  "Perform carryless multiply and add operation."
    assert clmad.summary == "Perform carryless multiply and add operation."
    # 9.7.1.5-...clmad.md:28 and :45 (description, semantics)
    assert "carryless multiplication of `a` and `b`" in clmad.description
    assert "tmp[127:0] = 0;" in clmad.semantics
    assert any("clmad.hi.u64 Rd, Ra, Rb, Rc;" in e for e in clmad.examples)   # :80


@needs_sources
def test_clmad_forms_and_documented_requirements(manual):
    clmad = _one(manual, "clmad")
    forms = {f.form: f for f in clmad.forms}
    # 9.7.1.5-...clmad.md:21-23  "clmad.mode.u64 d, a, b, c;"  ".mode = { .hi, .lo };"
    assert set(forms) == {"clmad.lo.u64", "clmad.hi.u64"}
    for f in forms.values():
        assert f.types == (".u64",)
        assert f.documented_version == "9.3"          # :65 "Introduced in PTX ISA version 9.3."
        assert f.documented_sm == ("sm_80+",)          # :69 "Requires `sm_80` or higher."
        assert f.operands == "d, a, b, c"


@needs_sources
def test_sad_forms(manual):
    sad = _one(manual, "sad")
    # 9.7.1.8-integer-arithmetic-instructionssad.md:21-24  ".type = { .u16, .u32, .u64, .s16, .s32, .s64 };"
    assert {f.form for f in sad.forms} == {f"sad.{t}" for t in ("u16", "u32", "u64", "s16", "s32", "s64")}
    assert all(f.documented_sm == ("all",) for f in sad.forms)   # :43 "Supported on all target architectures."


@needs_sources
def test_per_qualifier_notes(manual):
    add = _one(manual, "add", "9.7.1.")
    forms = {f.form: f for f in add.forms}
    # 9.7.1.1-integer-arithmetic-instructionsadd.md:81  "`add.u16x2` and `add.s16x2` introduced in PTX ISA version 8.0."
    # :89 "`add.u16x2` and `add.s16x2` require `sm_90` or higher."
    assert forms["add.u16x2"].documented_version == "8.0"
    assert forms["add.u16x2"].documented_sm == ("sm_90+",)
    # :79 "Introduced in PTX ISA version 1.0." / :87 "Supported on all target architectures."
    assert forms["add.s32"].documented_version == "1.0"
    assert forms["add.s32"].documented_sm == ("all",)
    # :83 "`add{.sat}.u8x4` ... introduced in PTX ISA version 9.2."  :91-95 sm_107f / sm_120f families
    assert forms["add.sat.u8x4"].documented_version == "9.2"
    assert forms["add.sat.u8x4"].documented_sm == ("sm_107f+", "sm_120f+")
    # :103 the example writes the modifiers in another order: "add.s8x4.sat p, q, r;"
    assert "add.s8x4.sat" in forms and forms["add.s8x4.sat"].origin == "example"


def _syntax_sections_by_file() -> dict[str, int]:
    """Independent count: "Syntax" paragraphs per chapter 9 file (each opens one instruction section)."""
    out = {}
    for path in CH9.glob("*.md"):
        lines = path.read_text(encoding="utf-8").split("\n")
        n = sum(1 for i, ln in enumerate(lines) if ln.strip() == "Syntax" and not lines[i - 1].strip())
        if n:
            out[path.name] = n
    return out


@needs_sources
def test_every_instruction_section_of_chapter_9_is_found(manual):
    expected = _syntax_sections_by_file()
    found: dict[str, int] = {}
    for ins in manual.instructions:
        name = ins.provenance.file.split("/")[-1]
        found[name] = found.get(name, 0) + 1
    assert found == expected
    assert manual.sections_total == sum(expected.values()) == len(manual.instructions)
    assert not manual.skips
    # every section has a name, a category and at least one syntax line (the `{}` and `@` notations aside)
    for ins in manual.instructions:
        assert ins.names and ins.category, ins.section
        if ins.names not in (("{}",), ("@",)):
            assert ins.forms, ins.section


@needs_sources
def test_grouped_sections(manual):
    # 9.7.15.16-...mbarrier.md:975  "... `mbarrier.test_wait` / `mbarrier.try_wait`"
    wait = _one(manual, "mbarrier.try_wait")
    assert wait.names == ("mbarrier.test_wait", "mbarrier.try_wait")
    assert wait.section == "9.7.15.16.19"
    assert wait.category == "Parallel Synchronization and Communication Instructions"
    # 9.7.20.1-scalar-video-instructions.md:119  "`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`" with `vop = {...}`
    vadd = _one(manual, "vsub")
    assert {f.name for f in vadd.forms} == {"vadd", "vsub", "vabsdiff", "vmin", "vmax"}
    # 9.7.18.7-...:18  "`tcgen05.alloc`, `tcgen05.dealloc`, `tcgen05.relinquish_alloc_permit`"
    alloc = _one(manual, "tcgen05.dealloc")
    assert alloc.names == ("tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit")
    # 9.7.10.28-...asynchronous-copy.md:432  cp.async.bulk inside the grouped "Asynchronous copy" file
    bulk = _one(manual, "cp.async.bulk")
    assert bulk.section == "9.7.10.28.4.1" and bulk.capped


@needs_sources
def test_syntax_typos_are_reported(manual):
    # 9.7.10.19-...applypriority.async.bulk.tensor.md:21 uses `.completion_mechansim`, the sets define
    # `.completion_mechanism` (:26); the form is still expanded with the defined set
    ins = _one(manual, "applypriority.async.bulk.tensor")
    assert any("completion_mechansim" in i for i in ins.syntax_issues)
    assert all("mechansim" not in f.form for f in ins.forms)
    assert any(".bulk_group" in f.form for f in ins.forms)
    # 9.7.10.22-...isspacep.md:21  ".space = { const, .global, ... }"
    isspacep = _one(manual, "isspacep")
    assert "isspacep.const" in {f.form for f in isspacep.forms}


@needs_sources
def test_release_notes(manual):
    # 13-release-notes/13.2-changes-in-ptx-isa-version-9.3.md:15  "Adds support for `clmad` instruction."
    hits = [r for r in manual.releases if "clmad" in r.names]
    assert any(r.version == "9.3" and r.kind == "feature" and r.provenance.line == 15 for r in hits)
    # 13-release-notes/13-release-notes.md:168-172  PTX ISA 7.0 is the first to list sm_80
    assert manual.target_versions["sm_80"] == "7.0"


@pytest.mark.skipif(not PTX91.is_dir(), reason="PTX ISA 9.1 sources not found")
@needs_sources
def test_cross_check_with_9_1(manual):
    # ptx-isa-9.1 has no clmad section (introduced in 9.3), so both forms are new since 9.1
    clmad = _one(manual, "clmad")
    assert set(clmad.new_since) == {"clmad.lo.u64", "clmad.hi.u64"}
    # 9.1 lists sad with the same six types: nothing new
    assert _one(manual, "sad").new_since == ()


# ---------------------------------------------------------------- malformed input

def test_malformed_sections_are_counted_not_raised(tmp_path: Path):
    ch9 = tmp_path / "ptx-isa-0.1" / "9-instruction-set"
    ch9.mkdir(parents=True)
    (ch9 / "9.7.1-integer-arithmetic-instructions.md").write_text(
        '---\ntitle: "9.7.1. Integer Arithmetic Instructions"\nsection: "9.7.1"\n---\n\n### 9.7.1. Integer\n')
    (ch9 / "9.7.1.1-x.md").write_text("---\ntitle: [unclosed\n---\n\n#### 9.7.1.1. Integer: `foo`\n\nSyntax\n\n"
                                     "```ptx\nfoo.type d, a;\n.type = { .u32 \n```\n")
    (ch9 / "9.7.1.2-y.md").write_text(
        "no front matter\n\n#### 9.7.1.2. Integer Arithmetic Instructions:\n\nSyntax\n\n```\nbar d;\n```\n")
    (ch9 / "9.7.1.3-z.md").write_bytes(b"\xff\xfe\x00bad")
    m = read_manual(tmp_path / "ptx-isa-0.1")
    reasons = " | ".join(s.reason for s in m.skips)
    assert "bad front matter" in reasons
    assert "no YAML front matter" in reasons
    assert "unreadable" in reasons
    assert "no instruction name in heading" in reasons
    assert "no 13-release-notes folder" in reasons
    foo = m.find("foo")
    assert foo and foo[0].syntax_issues        # the unclosed set is reported, not raised


def test_missing_manual_is_a_skip(tmp_path: Path):
    m = read_manual(tmp_path / "nowhere")
    assert not m.instructions and m.skips


# ---------------------------------------------------------------- syntax expansion

def _expand(code: str, bases=("op",)):
    lines = [(i + 1, t) for i, t in enumerate(code.split("\n"))]
    return ptx_syntax.expand([lines], bases)


def test_expansion_of_optional_and_nested_sets():
    exp = _expand("op{.sat}.ss.type d, [a];\n.ss = { .global, .shared{::cta, ::cluster} };\n"
                  ".type = { .u32, .s32 };")
    forms = {f for f, _ in exp.forms}
    assert len(forms) == 2 * 4 * 2
    assert "op.sat.shared::cluster.s32" in forms and "op.global.u32" in forms
    assert not exp.capped


def test_shared_definitions_and_groups():
    exp = _expand("op.atype.btype d, a;\n.atype = .btype = { .u8, .s8 };\n\nop.x.c d;\n.c = { .lo };")
    forms = [f for f, _ in exp.forms]
    assert forms[:4] == ["op.u8.u8", "op.u8.s8", "op.s8.u8", "op.s8.s8"] and "op.x.lo" in forms


def test_large_products_are_capped_with_a_covering_sample():
    values = ", ".join(f".v{i}" for i in range(12))
    exp = _expand(f"op.a.b.c d;\n.a = {{ {values} }};\n.b = {{ {values} }};\n.c = {{ {values} }};")
    forms = {f for f, _ in exp.forms}
    assert exp.capped and exp.total == 12 ** 3
    assert len(forms) == 1 + 3 * 11                 # the first form, then each other value of each slot once
    for slot in range(3):                            # every value of every slot appears in some form
        for i in range(12):
            assert any(f.split(".")[1 + slot] == f"v{i}" for f in forms)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.from_regex(r"[a-z][a-z0-9]{0,4}", fullmatch=True), min_size=1, max_size=4,
                         unique=True), min_size=1, max_size=3),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_expansion_is_the_product_of_the_sets(sets, optional):
    names = [f"s{i}" for i in range(len(sets))]
    template = "op" + "".join(f"{{.{n}}}" if optional[i] else f".{n}" for i, n in enumerate(names)) + " d;"
    defs = "\n".join(f".{n} = {{ {', '.join('.' + v for v in vals)} }};" for n, vals in zip(names, sets, strict=True))
    exp = _expand(template + "\n" + defs)
    slots = [([""] if optional[i] else []) + ["." + v for v in vals] for i, vals in enumerate(sets)]
    expected = {"op" + "".join(p) for p in itertools.product(*slots)}
    forms = [f for f, _ in exp.forms]
    assert exp.total == len(list(itertools.product(*slots)))
    assert len(set(forms)) == len(forms)              # unique
    assert set(forms) <= expected                      # nothing outside the product
    if exp.total <= ptx_syntax.CAP:
        assert set(forms) == expected
    assert all(re.fullmatch(r"op(\.[a-z0-9]+)*", f) for f in forms)


def test_minimal_operands():
    assert ptx_syntax.minimal_operands("d, [a]{.unified}{, cache_policy}") == "d, [a]"
    assert ptx_syntax.minimal_operands("p[|q], a, b, {!}c") == "p, a, b, c"
    assert ptx_syntax.minimal_operands("d, {-}a{.asel}, b{.bsel}") == "d, a, b"


def _manual_line(file: str, line: int) -> str:
    return (CH9 / file).read_text(encoding="utf-8").splitlines()[line - 1]


MMA = "9.7.16.5-matrix-multiply-accumulate-operation-usingmmainstruction.md"
LD = "9.7.10.8-data-movement-and-conversion-instructionsld.md"


@needs_sources
def test_notes_joined_by_with_need_every_side(manual):
    """"type X `mma` with shape Y": a form needs both. Before, any one backticked subject was enough, so
    m16n8k16.f32.f16 got the f64 line's sm_90 and the e4m3 line's PTX 8.7."""
    assert "`.f16` floating point type `mma` operation with `.m16n8k16` shape introduced in PTX ISA version 7.0" \
        in _manual_line(MMA, 1817)
    assert "`.f16` floating point type `mma` operation with `.m16n8k16` shape requires `sm_80`" in _manual_line(MMA, 1863)
    assert "`.f64` floating point type `mma` operation with `.m16n8k4`, `.m16n8k8`, and `.m16n8k16` shapes require " \
        "`sm_90`" in _manual_line(MMA, 1877)
    assert "`.u8/.s8` integer type `mma` operation with `.m8n8k16` shape introduced in PTX ISA version 6.5" \
        in _manual_line(MMA, 1811)
    forms = {f.form: f for f in _one(manual, "mma", "9.7.16.5").forms}
    f16 = forms["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"]
    assert (f16.documented_version, f16.documented_sm) == ("7.0", ("sm_80+",))
    f64 = forms["mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"]
    assert (f64.documented_version, f64.documented_sm) == ("7.8", ("sm_90+",))
    u8 = forms["mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32"]       # `.u8/.s8`: either spelling
    assert (u8.documented_version, u8.documented_sm) == ("6.5", ("sm_75+",))


@needs_sources
def test_notes_naming_a_syntax_set_reach_its_values(manual):
    """"Support for `.level1::eviction_priority` ... 7.4" names a Syntax set; the forms spell its values."""
    assert "Support for `.level1::eviction_priority`" in _manual_line(LD, 171) and "7.4" in _manual_line(LD, 171)
    assert "`.level::eviction_priority` qualifier requires `sm_70`" in _manual_line(LD, 205)   # the set's other name
    assert "generic addressing of .const space added in PTX ISA version 3.1" in _manual_line(LD, 169)
    forms = {f.form: f for f in _one(manual, "ld", "9.7.10").forms}
    evict = forms["ld.global.L1::evict_last.u32"]
    assert (evict.documented_version, evict.documented_sm) == ("7.4", ("sm_70+",))
    # a qualifier named without backticks is that qualifier's note, not the whole instruction's
    assert forms["ld.const.b8"].documented_version == "3.1"
    assert forms["ld.global.b8"].documented_version != "3.1"


@needs_sources
def test_a_form_the_sample_left_out_is_matched_by_its_template(manual):
    """ld's product is capped, so `ld.global.u32` is not listed; the template still spells it, a typo it does not."""
    assert _manual_line(LD, 21).startswith("ld{.weak}{.ss}{.cop}")
    assert ".global" in _manual_line(LD, 35) and ".u32" in _manual_line(LD, 46)
    ld = _one(manual, "ld", "9.7.10")
    assert "ld.global.u32" not in {f.form for f in ld.forms} and ld.capped
    found = ptx_syntax.matching_template(ld.syntax, ld.names, "LD.GLOBAL.L1::EVICT_LAST.U32")
    assert found is not None and found[1] == "ld.global.L1::evict_last.u32"
    assert ptx_syntax.matching_template(ld.syntax, ld.names, "ld.global.u33") is None
    assert ptx_syntax.matching_template(ld.syntax, ld.names, "ld.glob.u32") is None
