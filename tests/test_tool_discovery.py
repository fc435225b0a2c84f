"""Tool discovery by version, tools newer than the manual's forms, and tools that misbehave.

The fake tools here answer the questions the real ones answer (`--version`, the `.version 99.9`
probe, `--help`) with the real tools' wording: ptxas 13.0.88 prints "Unsupported .version 99.9;
current version is '9.0'", ptxas 13.5.37 "... is '9.5'" (run them to see). Then they hang, crash
or print garbage on real work, and the verifier must finish with "tool failed" verdicts.
"""

from __future__ import annotations

import stat
import textwrap
from pathlib import Path

import pytest

from gpuisa.paths import default_sources
from gpuisa.sources.ptx_docs import read_manual
from gpuisa.verify import discover
from gpuisa.verify import llvm_mc as v
from gpuisa.verify.ptx_tools import find_tools
from gpuisa.verify.ptxas import verify_manual

PTX94 = default_sources() / "ptx-isa-9.4"

# a shell script, not Python: the verifier runs it hundreds of times (a crash is pinned by halving files)
FAKE_PTXAS = textwrap.dedent("""\
    #!/bin/sh
    PATH=/usr/bin:/bin                  # the tests put only the fake's own folder on PATH
    src=""
    for a in "$@"; do
      case "$a" in
        --version) printf 'ptxas: NVIDIA (R) Ptx optimizing assembler\\nCuda compilation tools, release {rel}, V{ver}\\n'
                   exit 0;;
        --help) printf "%s\\n" "--gpu-name <gpu name>  (-arch)" "  Allowed values for this option:  'compute_75','compute_80'," \\
                       "  'sm_75','sm_80','sm_90','sm_90a','sm_100','sm_100a','sm_120'" "" "--other"
                exit 0;;
        *.ptx) src="$a";;
      esac
    done
    if grep -qF '.version 99.9' "$src"; then
      printf "ptxas %s, line 1; fatal   : Unsupported .version 99.9; current version is '{max}'\\n" "$src" >&2
      printf "ptxas fatal   : Ptx assembly aborted due to errors\\n" >&2
      exit 255
    fi
    mode='{mode}'
    case "$mode" in
      hang) exec sleep 60;;
      crash) kill -SEGV $$;;
      garbage) printf '\\000\\001 lorem ipsum\\n'; exit 3;;
      crash-on:*) if grep -qF -- "${{mode#crash-on:}} " "$src"; then kill -SEGV $$; fi;;
    esac
    exit 0
""")


def fake(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def fake_ptxas(folder: Path, rel: str = "13.5", ver: str = "13.5.37", max_ptx: str = "9.5", mode: str = "ok") -> Path:
    return fake(folder, "ptxas", FAKE_PTXAS.format(rel=rel, ver=ver, max=max_ptx, mode=mode))


def isolate(monkeypatch, path: str = "") -> None:
    """Discovery sees only the folders a test puts on PATH (no wheels, no /usr/local/cuda, no llvm-*)."""
    for var in ("GPUISA_PTXAS", "GPUISA_CUOBJDUMP", "GPUISA_LLVM_MC", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", path)
    monkeypatch.setattr(discover, "_wheel_dirs", lambda: [])
    monkeypatch.setattr(discover, "CUDA_GLOBS", ())
    monkeypatch.setattr(discover, "LLVM_GLOBS", ())


def test_newest_ptxas_wins_over_the_first_on_path(tmp_path, monkeypatch):
    old = fake_ptxas(tmp_path / "cuda-13.0", "13.0", "13.0.88", "9.0")
    new = fake_ptxas(tmp_path / "wheel", "13.5", "13.5.37", "9.5")
    isolate(monkeypatch, f"{old.parent}:{new.parent}")
    tools = find_tools()
    assert tools.ptxas == new and tools.version == "13.5.37"
    assert tools.max_ptx == "9.5"                          # its own answer, not a table
    assert "sm_90a" in tools.archs and "sm_107" not in tools.archs
    assert any("13.0.88" in n for n in tools.notes)        # the older copy is reported


def test_cuda_home_is_searched(tmp_path, monkeypatch):
    home = tmp_path / "cuda"
    fake_ptxas(home / "bin", "13.0", "13.0.88", "9.0")
    isolate(monkeypatch)
    monkeypatch.setenv("CUDA_HOME", str(home))
    tools = find_tools()
    assert tools.version == "13.0.88" and tools.max_ptx == "9.0"
    assert any("no ptxas from the nvidia pip wheels" in n for n in tools.notes)


@pytest.mark.parametrize("body, problem", [
    ("#!/bin/sh\nwhile :; do :; done\n", "timed out"),
    ("#!/bin/sh\necho 'lorem ipsum'\n", "prints no version"),
    ("#!/bin/sh\nkill -SEGV $$\n", "prints no version (exit -11)"),
])
def test_bad_tools_are_listed_never_chosen(tmp_path, monkeypatch, body, problem):
    bad = fake(tmp_path / "bad", "ptxas", body)
    good = fake_ptxas(tmp_path / "good", "13.0", "13.0.88", "9.0")
    isolate(monkeypatch, f"{bad.parent}:{good.parent}")
    monkeypatch.setattr(discover, "ASK_TIMEOUT", 1.0)
    found = discover.survey("ptxas")
    assert found.chosen is not None and found.chosen.path == str(good)
    assert any(c.path == str(bad) and problem in c.problem for c in found.candidates)


def test_newest_llvm_mc_wins_and_an_old_one_alone_is_refused(tmp_path, monkeypatch):
    script = "#!/bin/sh\necho 'LLVM (http://llvm.org/):'\necho '  LLVM version {v}'\n"
    old = fake(tmp_path / "bin", "llvm-mc", script.format(v="14.0.6"))
    new = fake(tmp_path / "llvm-22", "llvm-mc", script.format(v="22.1.8"))
    isolate(monkeypatch, f"{old.parent}:{new.parent}")
    assert v.find_llvm_mc().path == str(new)
    isolate(monkeypatch, str(old.parent))
    with pytest.raises(v.LlvmMcMissing, match=r"llvm-mc 14\.0\.6 .* older than 22"):
        v.find_llvm_mc()


@pytest.fixture(scope="module")
def manual():
    if not (PTX94 / "9-instruction-set").is_dir():
        pytest.skip("PTX ISA 9.4 sources not found")
    return read_manual(PTX94)


def test_form_newer_than_the_tool_is_beyond_not_rejected(manual, tmp_path, monkeypatch):
    # 9.7.1.5 clmad: "Introduced in PTX ISA version 9.3" (ptx-isa-9.4 ...clmad.md); a ptxas that
    # says "current version is '9.0'" cannot judge it
    isolate(monkeypatch, str(fake_ptxas(tmp_path / "old", "13.0", "13.0.88", "9.0").parent))
    form = next(f for i in manual.instructions if i.section == "9.7.1.5" for f in i.forms)
    assert form.documented_version == "9.3"
    result = verify_manual(manual, sections=["9.7.1.5"], cache=tmp_path / "c", sass_targets=())
    clmad = [x for x in result.verdicts.values() if x.name == "clmad"]
    assert clmad and all(x.status == "beyond" for x in clmad)
    assert clmad[0].message == "beyond ptxas 13.0 (max PTX 9.0)" and clmad[0].tool == "ptxas 13.0.88"
    assert not [e for e in result.errata if e.kind == "rejected"]


def real_old_ptxas() -> str | None:
    """A real ptxas older than PTX 9.3 among those installed (CUDA 13.0 on PATH here)."""
    for c in discover.survey("ptxas").candidates:
        if c.usable and (m := discover.ptxas_max_ptx(c.path)) and tuple(map(int, m.split("."))) < (9, 3):
            return c.path
    return None


@pytest.mark.tools
def test_real_cuda_13_0_ptxas_calls_clmad_beyond(manual, tmp_path, monkeypatch):
    old = real_old_ptxas()
    if old is None:
        pytest.skip("no ptxas older than PTX ISA 9.3 installed (CUDA 13.0's answers 'current version is 9.0')")
    monkeypatch.setenv("GPUISA_PTXAS", old)
    result = verify_manual(manual, sections=["9.7.1.5", "9.7.1.8"], cache=tmp_path, sass_targets=())
    assert result.verdicts[("9.7.1.5", "clmad.lo.u64")].status == "beyond"
    assert result.verdicts[("9.7.1.5", "clmad.lo.u64")].message.startswith("beyond ptxas 13.0 (max PTX 9.0)")
    # sad is PTX 1.0 (9.7.1.8-...sad.md:39): an old ptxas still verifies it
    assert result.verdicts[("9.7.1.8", "sad.u32")].status == "verified"


@pytest.mark.parametrize("mode", ["hang", "crash", "garbage"])
def test_misbehaving_ptxas_gives_tool_failed_and_finishes(manual, tmp_path, monkeypatch, mode):
    isolate(monkeypatch, str(fake_ptxas(tmp_path / "bad", mode=mode).parent))
    monkeypatch.setenv("GPUISA_TOOL_TIMEOUT", "2")
    result = verify_manual(manual, sections=["9.7.1.8"], cache=tmp_path / "c", sass_targets=(), workers=2)
    statuses = {x.status for x in result.verdicts.values()}
    assert statuses == {"tool failed"}, {k: (x.status, x.message) for k, x in result.verdicts.items()}
    assert all("ptxas 13.5.37" in x.message for x in result.verdicts.values())
    assert not (tmp_path / "c" / "ptxas" / "13.5.37" / "results").exists()   # failures are not cached


def test_a_crash_on_one_line_costs_that_form_only(manual, tmp_path, monkeypatch):
    # ptxas 13.5.37 segfaults on some single lines (`sust.p.3d.v2.b32.trap [surf0, {..}], %r4;`
    # with -arch sm_75): the crash is pinned on the line that causes it, the rest of its file is judged
    isolate(monkeypatch, str(fake_ptxas(tmp_path / "bad", mode="crash-on:sad.s64").parent))
    result = verify_manual(manual, sections=["9.7.1.8"], cache=tmp_path / "c", sass_targets=(), workers=2)
    crashed = {k[1]: x for k, x in result.verdicts.items() if x.status != "verified"}
    assert list(crashed) == ["sad.s64"], {k: (x.status, x.message) for k, x in crashed.items()}
    assert crashed["sad.s64"].status == "tool failed"
    assert crashed["sad.s64"].message.endswith("crashed (signal 11) on this line")
    assert len(result.verdicts) > 1
