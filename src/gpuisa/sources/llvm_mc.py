"""Read LLVM's AMDGPU MC tests: real assembly <-> bytes pairs and rejections, per gfx target.

The tests under llvm/test/MC/AMDGPU (assembler) and llvm/test/MC/Disassembler/AMDGPU are the
largest public body of checked AMDGPU encodings. Each file has RUN lines (which processor, which
features, which FileCheck prefixes) and check lines (`// GFX11: v_sad_u32 ... ; encoding: [...]`).
This reader binds every check line to the RUN lines of its prefix and yields McExample /
McNegative records. Whatever it cannot use is counted by reason and sampled, never fatal.
"""

from __future__ import annotations

import gc
import os
import re
import shlex
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from gpuisa.errors import SourceError
from gpuisa.model import Provenance, Skip
from gpuisa.model_llvm import Direction, McCorpus, McExample, McNegative, McRun
from gpuisa.sources.amd_names import canonical_instruction
from gpuisa.sources.layout import LLVM_MC_TESTS, llvm_mc_tests, llvm_tree
from gpuisa.workers import process_pool

SOURCE = "llvm-mc-test"
SAMPLES_PER_REASON = 20

# Processor names llvm-mc accepts besides gfxNNN, from the processor table of
# llvm/docs/AMDGPUUsage.rst (LLVM 23.1.1, lines 349-443) and llvm/lib/Target/AMDGPU/GCNProcessors.td.
CPU_ALIASES: dict[str, str] = {
    "tahiti": "gfx600",
    "pitcairn": "gfx601", "verde": "gfx601",
    "oland": "gfx602", "hainan": "gfx602",
    "kaveri": "gfx700",
    "hawaii": "gfx701",
    "kabini": "gfx703", "mullins": "gfx703",
    "bonaire": "gfx704",
    "carrizo": "gfx801",
    "iceland": "gfx802", "tonga": "gfx802",
    "fiji": "gfx803", "polaris10": "gfx803", "polaris11": "gfx803",
    "tongapro": "gfx805",
    "stoney": "gfx810",
}

# Processors of llvm/lib/Target/AMDGPU/GCNProcessors.td (LLVM 23.1.1), which are the gfx names of
# AMDGPUUsage.rst's processor table. llvm-mc warns about any other -mcpu and falls back to
# "generic", as the tests' -mcpu=gfx800 (dl-insts-err.s:1) and gfx1001 (xnack-mask.s:4) do.
KNOWN_PROCESSORS: frozenset[str] = frozenset({
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705", "gfx801",
    "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909",
    "gfx90a", "gfx90c", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102",
    "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1154", "gfx1170", "gfx1171", "gfx1172",
    "gfx1200", "gfx1201", "gfx1250", "gfx1251", "gfx1310", "gfx9-generic", "gfx9-4-generic",
    "gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx11-7-generic", "gfx12-generic",
    "gfx12-5-generic", "gfx13-generic", "generic", "generic-hsa"
})

_COMMENT = re.compile(r"^\s*(?://+|#+|;+)")
_RUN = re.compile(r"^\s*(?://+|#+|;+)\s*RUN:\s?(.*)$")
_DIRECTIVE = re.compile(
    r"^\s*(?://+|#+|;+)\s*([A-Za-z0-9_][A-Za-z0-9_-]*?)"
    r"(-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY|-COUNT-\d+)?:(.*)$"
)
_DIAG = re.compile(
    r"^\s*(?:\{\{[^}]*\}\})?(?:<stdin>|%s)?:?"
    r"(?:\[\[@LINE(?P<off>[+-]\d+)?\]\]:(?:(?P<col>\d+)|\{\{[^}]*\}\}):)?"
    r"\s*(?:\{\{[^}]*\}\})?\s*(?P<sev>error|warning):\s*(?P<msg>.*)$"
)
_ENC_BYTES = re.compile(r"^\[\s*((?:0[xX][0-9a-fA-F]{1,2}\s*,?\s*)+)\]")
_BARE_BYTES = re.compile(r"^\s*\[\s*0[xX][0-9a-fA-F]")
_FIXUP = re.compile(r"[\[,]\s*[A-Z]\s*[,\]]")
_HEX_BYTE = re.compile(r"0[xX]([0-9a-fA-F]{1,2})\b")
_TRIVIAL_REGEX = re.compile(r"\{\{(?:\$|\^|\s*| \*|\\s\*|\s\+)\}\}")
_SUBARCH = re.compile(r"^amdgpu(\d+)\.([0-9a-z]+)")


def test_files(root: Path) -> list[Path]:
    """Every assembler / disassembler test file (*.s, *.txt), sorted, regression/ included."""
    base = llvm_tree(root)
    files: list[Path] = []
    for d in LLVM_MC_TESTS:
        folder = base / d
        if folder.is_dir():
            files += [p for p in folder.rglob("*") if p.suffix in (".s", ".txt") and p.is_file()]
    return sorted(files)


# --------------------------------------------------------------------------------------------
# mnemonics


@lru_cache(maxsize=1 << 18)   # every example line is asked for several times per build
def mnemonic(asm: str) -> str:
    """The AMD manual's name for an LLVM assembly line: `v_sad_u32_e64 v5, ...` -> `V_SAD_U32`.

    Drops LLVM's encoding suffixes (_e32, _e64, _sdwa, _dpp, _e64_dpp, _dpp8); for a VOPD pair
    (`v_dual_x ... :: v_dual_y ...`) it names the X half, see `mnemonics` for both.
    """
    words = asm.split(None, 1)
    return canonical_instruction(words[0]) if words else ""


@lru_cache(maxsize=1 << 18)
def mnemonics(asm: str) -> tuple[str, ...]:
    """Manual names of every instruction on the line (two for a VOPD `::` pair)."""
    return tuple(m for m in (mnemonic(part) for part in asm.split("::")) if m)


# --------------------------------------------------------------------------------------------
# RUN lines


def normalize_mattr(values: Iterable[str]) -> str:
    """One canonical -mattr string: lower case, last setting of a feature wins, sorted."""
    state: dict[str, str] = {}
    for value in values:
        for item in value.split(","):
            item = item.strip().lower()
            if not item:
                continue
            sign, name = (item[0], item[1:]) if item[0] in "+-" else ("+", item)
            state[name] = sign
    return ",".join(f"{sign}{name}" for name, sign in sorted(state.items()))


def resolve_cpu(cpu: str, triple: str) -> str | None:
    """gfx name for a -mcpu value (aliases mapped) or, without one, for the triple; None if not AMDGPU.

    An -mcpu llvm-mc does not know gives "generic", the processor llvm-mc then really uses.
    """
    if triple.startswith("r600"):
        return None
    if cpu:
        cpu = CPU_ALIASES.get(cpu.lower(), cpu.lower())
        return cpu if cpu in KNOWN_PROCESSORS else "generic"
    m = _SUBARCH.match(triple)
    if m:
        major, minor = m.groups()
        return f"gfx{major}{minor}" if len(minor) == 2 else f"gfx{major}-{minor}-generic"
    return "generic"


@dataclass(slots=True)
class RunLine:
    """A parsed RUN line: the llvm-mc run it describes (if any) and the FileCheck prefixes it checks."""

    line: int
    prefixes: tuple[str, ...]
    run: McRun | None
    problem: str = ""              # why no McRun: "not llvm-mc", "input is not %s", ...


def _opt(tokens: list[str], i: int, names: tuple[str, ...]) -> tuple[str | None, int]:
    """Value of option tokens[i] if it is one of names (`-x=v`, `--x=v`, `-x v`), and tokens used."""
    tok = tokens[i]
    for name in names:
        for dash in ("-", "--"):
            flag = dash + name
            if tok == flag and i + 1 < len(tokens):
                return tokens[i + 1], 2
            if tok.startswith(flag + "="):
                return tok[len(flag) + 1:], 1
    return None, 0


@dataclass(slots=True)
class _McStage:
    triple: str = ""
    cpu: str = ""
    mattr: list[str] = field(default_factory=list)
    disassemble: bool = False
    show_encoding: bool = False
    filetype: str = "asm"
    reads_source: bool = False
    to_file: bool = False
    stderr: bool = False


def _parse_mc_stage(tokens: list[str]) -> _McStage:
    st = _McStage()
    i = 1
    while i < len(tokens):
        tok = tokens[i]
        for names, attr in ((("triple", "mtriple", "arch"), "triple"), (("mcpu",), "cpu"),
                            (("mattr",), "mattr"), (("filetype",), "filetype")):
            value, used = _opt(tokens, i, names)
            if used:
                if attr == "mattr":
                    st.mattr.append(value or "")
                else:
                    setattr(st, attr, value or "")
                i += used
                break
        else:
            if tok in ("-disassemble", "--disassemble", "-disassemble-all"):
                st.disassemble = True
            elif tok in ("-show-encoding", "--show-encoding"):
                st.show_encoding = True
            elif tok == "%s":
                st.reads_source = True
            elif tok in ("<", "0<") and i + 1 < len(tokens):
                st.reads_source = st.reads_source or tokens[i + 1] == "%s"
                i += 1
            elif tok in (">", "-o") and i + 1 < len(tokens):
                st.to_file = tokens[i + 1] not in ("-", "/dev/stdout")
                i += 1
            elif tok in ("2>&1", "|&"):
                st.stderr = True
            i += 1
    return st


def _parse_filecheck(tokens: list[str]) -> tuple[list[str], bool]:
    """Prefixes of a FileCheck stage (default CHECK) and whether it reads the test file itself."""
    prefixes: list[str] = []
    reads_source = False
    i = 1
    while i < len(tokens):
        value, used = _opt(tokens, i, ("check-prefix", "check-prefixes"))
        if used:
            prefixes += [p for p in (value or "").split(",") if p]
            i += used
            continue
        _, used = _opt(tokens, i, ("implicit-check-not", "D", "input-file", "comment-prefixes"))
        if used:
            i += used
            continue
        if tokens[i] == "%s":
            reads_source = True
        i += 1
    return prefixes or ["CHECK"], reads_source


def _stages(command: str) -> list[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    stages: list[list[str]] = [[]]
    for tok in lexer:
        if tok == "|":
            stages.append([])
        else:
            stages[-1].append(tok)
    out = []
    for st in stages:
        while st and st[0] in ("not", "--crash"):
            st = st[1:]
        if st:
            out.append(st)
    return out


def parse_run(command: str, line: int = 0) -> RunLine:
    """Parse one (joined) RUN command into its llvm-mc run and FileCheck prefixes."""
    try:
        stages = _stages(command)
    except ValueError:
        return RunLine(line, (), None, "unparsable RUN line")
    checks = [st for st in stages if os.path.basename(st[0]) == "FileCheck"]
    prefixes: tuple[str, ...] = ()
    if checks:
        found, reads = _parse_filecheck(checks[-1])
        prefixes = tuple(found) if reads else ()
    names = [os.path.basename(st[0]) for st in stages]
    mc = [_parse_mc_stage(st) for st, name in zip(stages, names, strict=True) if name == "llvm-mc"]
    if not mc:
        return RunLine(line, prefixes, None, "not llvm-mc")
    first, last = mc[0], mc[-1]
    feeder = names.index("llvm-mc")
    source_fed = feeder > 0 and "%s" in stages[feeder - 1]
    if not (first.reads_source or source_fed):
        return RunLine(line, prefixes, None, "input is not %s")
    last_mc = len(names) - 1 - names[::-1].index("llvm-mc")
    if last.to_file or last.filetype == "obj" or any(n != "FileCheck" for n in names[last_mc + 1:]):
        return RunLine(line, prefixes, None, "llvm-mc output goes to another tool")
    target = resolve_cpu(first.cpu, first.triple or "amdgcn")
    if target is None:
        return RunLine(line, prefixes, None, "not an AMDGPU triple")
    run = McRun(
        target=target,
        mattr=normalize_mattr(first.mattr),
        direction="disasm" if first.disassemble else "asm",
        roundtrip=len(mc) > 1 and last.disassemble and not first.disassemble,
        stderr=last.stderr,
        encodings=last.show_encoding and last.filetype == "asm",
        cpu=first.cpu,
        line=line,
    )
    return RunLine(line, prefixes, run)


def run_lines(lines: list[str]) -> list[RunLine]:
    """All RUN lines of a file, continuation lines (ending in a backslash) joined."""
    out: list[RunLine] = []
    pending: list[str] = []
    start = 0
    for no, text in enumerate(lines, 1):
        if "RUN:" not in text:
            continue
        m = _RUN.match(text)
        if not m:
            continue
        body = m.group(1).rstrip()
        if not pending:
            start = no
        if body.endswith("\\"):
            pending.append(body[:-1])
            continue
        pending.append(body)
        out.append(parse_run(" ".join(pending), start))
        pending = []
    if pending:
        out.append(parse_run(" ".join(pending), start))
    return out


# --------------------------------------------------------------------------------------------
# one file


@dataclass(slots=True)
class FileResult:
    """What one test file yielded; merged into an McCorpus.

    Readers fill compact rows (tuples pickle ~10x faster than dataclasses between processes);
    `inflate` turns them into McExample / McNegative records.
    """

    file: str
    direction: Direction = "asm"
    examples: list[McExample] = field(default_factory=list)
    negatives: list[McNegative] = field(default_factory=list)
    skips: Counter[str] = field(default_factory=Counter)
    samples: dict[str, list[Skip]] = field(default_factory=dict)
    check_lines: int = 0
    encoding_lines: int = 0
    encoding_skips: Counter[str] = field(default_factory=Counter)
    run_sets: list[tuple[McRun, ...]] = field(default_factory=list)
    example_rows: list[tuple] = field(default_factory=list)
    negative_rows: list[tuple] = field(default_factory=list)

    def inflate(self) -> FileResult:
        """Build the records from the rows (once); returns self."""
        rel, runs, d = self.file, self.run_sets, self.direction
        self.examples += [
            McExample(asm, data, runs[ri], d, prefix, Provenance(SOURCE, rel, no), inp, inl)
            for asm, data, ri, prefix, no, inp, inl in self.example_rows
        ]
        self.negatives += [
            McNegative(inp, msg, sev, runs[ri], d, prefix, Provenance(SOURCE, rel, no), inl, col)
            for inp, msg, sev, ri, prefix, no, inl, col in self.negative_rows
        ]
        self.example_rows, self.negative_rows = [], []
        return self


class _FileReader:
    """State for reading one file: its lines, inputs, prefix bindings and the result so far."""

    def __init__(self, path: Path, rel: str, text: str) -> None:
        self.rel = rel
        self.lines = text.splitlines()
        self.res = FileResult(rel)
        self.is_code = [bool(t.strip()) and not _COMMENT.match(t) for t in self.lines]
        self.used_inputs: set[int] = set()
        self.bound: dict[str, list[McRun]] = {}
        self.unbound: dict[str, str] = {}
        self.disasm_file = path.suffix == ".txt"
        self.block = self._blocks()
        self.prev_code, self.next_code = self._neighbours()
        self.after_style = True
        self._inputs: dict[int, str] = {}
        self._runs: dict[tuple[str, str], int] = {}

    # -- bookkeeping -----------------------------------------------------------------------
    def skip(self, reason: str, line: int | None, text: str = "", encoding: bool = False) -> None:
        self.res.skips[reason] += 1
        if encoding:
            self.res.encoding_skips[reason] += 1
        bucket = self.res.samples.setdefault(reason, [])
        if len(bucket) < SAMPLES_PER_REASON:
            bucket.append(Skip(self.rel, line, reason, text.strip()[:200]))

    def _blocks(self) -> list[int]:
        """Blank-line-separated block number of each line (checks and their input share a block)."""
        ids, current = [], 0
        for t in self.lines:
            if not t.strip():
                current += 1
            ids.append(current)
        return ids

    def _neighbours(self) -> tuple[list[int], list[int]]:
        """For each line index: the nearest code line at or before it, and at or after it (0: none)."""
        n = len(self.lines)
        prev, nxt = [0] * (n + 2), [0] * (n + 2)
        last = 0
        for i in range(1, n + 1):
            if self.is_code[i - 1]:
                last = i
            prev[i] = last
        last = 0
        for i in range(n, 0, -1):
            if self.is_code[i - 1]:
                last = i
            nxt[i] = last
        return prev, nxt

    # -- RUN binding -------------------------------------------------------------------------
    def bind_runs(self) -> None:
        for rl in run_lines(self.lines):
            for p in rl.prefixes:
                if rl.run is not None:
                    self.bound.setdefault(p, []).append(rl.run)
                else:
                    self.unbound.setdefault(p, rl.problem)
            if rl.run is None and rl.problem not in ("not llvm-mc", "llvm-mc output goes to another tool"):
                self.skip(f"RUN: {rl.problem}", rl.line, self.lines[rl.line - 1])
            elif rl.run is not None and rl.run.cpu and rl.run.target == "generic":
                self.skip("RUN: unknown -mcpu, llvm-mc uses generic (counted, not skipped)", rl.line,
                          self.lines[rl.line - 1])
        self.disasm_file = self._file_direction()
        self.res.direction = "disasm" if self.disasm_file else "asm"

    def _file_direction(self) -> bool:
        runs = [r for rs in self.bound.values() for r in rs]
        if not runs:
            return self.disasm_file
        return sum(r.direction == "disasm" for r in runs) * 2 > len(runs)

    # -- inputs ------------------------------------------------------------------------------
    def input_text(self, no: int) -> str:
        """The input part of code line `no` (1-based), trailing comments dropped."""
        cached = self._inputs.get(no)
        if cached is not None:
            return cached
        text = self.lines[no - 1]
        markers = ("#", "//", ";") if self.disasm_file else ("//", ";")
        for marker in markers:
            if marker in text:
                text = text.split(marker, 1)[0]
        text = text.strip() if self.disasm_file else " ".join(text.split())
        self._inputs[no] = text
        return text

    def input_bytes(self, no: int) -> bytes | None:
        found = _HEX_BYTE.findall(self.input_text(no))
        return bytes(int(b, 16) for b in found) if found else None

    def owner(self, no: int) -> int | None:
        """The code line a check at line `no` (without [[@LINE]]) belongs to: same block first."""
        blk = self.block[no - 1]
        before = self.prev_code[no - 1] if no > 1 else 0
        after = self.next_code[no + 1] if no < len(self.lines) else 0
        before = before if before and self.block[before - 1] == blk else 0
        after = after if after and self.block[after - 1] == blk else 0
        first, second = (before, after) if self.after_style else (after, before)
        return first or second or self.prev_code[no - 1] or None

    def decide_style(self, checks: list[tuple[int, str, str, str]]) -> None:
        """Whether checks follow (usual) or precede their input.

        Votes: a check whose text names the mnemonic (or, for disassembly, the bytes) of the
        neighbouring input counts twice; a run of check lines that touches an input line on only
        one side counts once for that side.
        """
        votes: Counter[str] = Counter()
        for no, _p, _s, body in checks[:200]:
            prev, nxt = self._prev_code(no), self._next_code(no)
            asm, enc = _split_encoding(body)
            for style, j in (("after", prev), ("before", nxt)):
                if j is None:
                    continue
                if self.disasm_file:
                    votes[style] += 2 * (enc is not None and self.input_bytes(j) == enc)
                elif asm:
                    words = self.input_text(j).split(None, 1)
                    votes[style] += 2 * (bool(words) and mnemonic(words[0]) == mnemonic(asm))
            votes["after"] += self._touches(no, -1) and not self._touches(no, 1)
            votes["before"] += self._touches(no, 1) and not self._touches(no, -1)
        self.after_style = votes["after"] >= votes["before"]

    def _touches(self, no: int, step: int) -> bool:
        """Whether the run of comment lines around `no` borders an input line in direction `step`."""
        j = no + step
        while 0 < j <= len(self.lines) and not self.is_code[j - 1] and self.lines[j - 1].strip():
            j += step
        return 0 < j <= len(self.lines) and self.is_code[j - 1]

    def _prev_code(self, no: int) -> int | None:
        j = self.prev_code[no - 1] if no > 1 else 0
        return j if j and no - j < 12 else None

    def _next_code(self, no: int) -> int | None:
        j = self.next_code[no + 1] if no < len(self.lines) else 0
        return j if j and j - no < 12 else None

    # -- checks ------------------------------------------------------------------------------
    def collect_checks(self) -> list[tuple[int, str, str, str]]:
        """(line, prefix, suffix, body) of every directive of a prefix some RUN line uses."""
        known = self.bound.keys() | self.unbound.keys()
        out = []
        for no, text in enumerate(self.lines, 1):
            if self.is_code[no - 1] or ":" not in text:
                continue
            m = _DIRECTIVE.match(text)
            if not m:
                continue
            prefix, suffix, body = m.group(1), m.group(2) or "", m.group(3)
            if prefix not in known and suffix and prefix + suffix in known:
                prefix, suffix = prefix + suffix, ""
            if prefix in known:
                out.append((no, prefix, suffix, body))
            elif ("encoding: [" in body or _BARE_BYTES.match(body)) and prefix != "RUN":
                self.skip("not a check: comment with an encoding", no, text)
        return out

    def read(self) -> FileResult:
        self.bind_runs()
        checks = self.collect_checks()
        self.decide_style(checks)
        last_diag: dict[str, bool] = {}
        pending_same: dict[str, tuple[int, str]] = {}
        for no, prefix, suffix, body in checks:
            self.res.check_lines += 1
            has_enc = "encoding:" in body or _BARE_BYTES.match(body) is not None
            self.res.encoding_lines += has_enc
            was_diag = last_diag.get(prefix, False)
            last_diag[prefix] = False
            if suffix in ("-NOT", "-LABEL", "-EMPTY") or suffix.startswith("-COUNT"):
                self.skip(f"{suffix[1:].split('-')[0]} directive", no, body, has_enc)
                continue
            if prefix not in self.bound:
                self.skip(f"prefix of a run without llvm-mc evidence ({self.unbound[prefix]})", no, body, has_enc)
                continue
            if suffix in ("-NEXT", "-SAME") and was_diag:
                last_diag[prefix] = True
                self.skip("diagnostic context line", no, body, has_enc)
                continue
            if suffix == "-SAME" and has_enc and prefix in pending_same:
                _first_no, first_body = pending_same.pop(prefix)   # `X: asm` + `X-SAME: ; encoding: [..]`
                body = first_body + " " + body
                self.res.skips["assembly output without encoding"] -= 1
            diag = _DIAG.match(body) if ("error" in body or "warning" in body) else None
            if diag:
                last_diag[prefix] = True
                self.negative(no, prefix, diag)
            elif has_enc:
                self.example_with_encoding(no, prefix, body)
            elif self.disasm_file:
                self.example_from_input(no, prefix, body)
            else:
                pending_same[prefix] = (no, body)
                self.skip("assembly output without encoding", no, body)
        self.count_unused_inputs()
        return self.res

    def runs_for(self, prefix: str, want: str) -> int:
        """Index in run_sets of the runs of `prefix` that can produce this kind of check line
        (all of them if none fits)."""
        key = (prefix, want)
        cached = self._runs.get(key)
        if cached is not None:
            return cached
        runs = self.bound[prefix]
        direction = "disasm" if self.disasm_file else "asm"
        runs = [r for r in runs if r.direction == direction] or runs
        if want == "encodings":
            chosen = [r for r in runs if r.encodings]
        elif want == "stderr":
            chosen = [r for r in runs if r.stderr]
        else:
            chosen = [r for r in runs if not r.stderr or r.encodings]
        self.res.run_sets.append(tuple(chosen or runs))
        self._runs[key] = index = len(self.res.run_sets) - 1
        return index

    def example_with_encoding(self, no: int, prefix: str, body: str) -> None:
        asm_text, enc_text = _split_encoding_text(body)
        enc = _parse_encoding(enc_text)
        if enc is None:
            if not enc_text.strip():
                reason = "encoding without bytes"
            elif _FIXUP.search(enc_text):
                reason = "encoding with fixup placeholders"
            else:
                reason = "malformed encoding"
            self.skip(reason, no, body, True)
            return
        asm = _clean_asm(asm_text)
        if asm is None:
            self.skip("regex in check", no, body, True)
            return
        src = self.owner(no)
        if not asm and not self.disasm_file and src is not None:
            asm = self.input_text(src)       # `// CHECK: encoding: [...]` checks the source line's bytes
        if not asm:
            self.skip("encoding without assembly", no, body, True)
            return
        inp = ""
        if src is not None:
            self.used_inputs.add(src)
            inp = self.input_text(src)
            asm = inp if inp == asm else asm       # share the string: saves ~25 MB on the corpus
        self.res.example_rows.append((asm, enc, self.runs_for(prefix, "encodings"), prefix, no, inp, src))

    def example_from_input(self, no: int, prefix: str, body: str) -> None:
        asm = _clean_asm(body)
        if asm is None:
            self.skip("regex in check", no, body)
            return
        if not asm:
            self.skip("empty check", no, body)
            return
        src = self.owner(no)
        data = self.input_bytes(src) if src else None
        if data is None:
            self.skip("disassembly check without input bytes", no, body)
            return
        self.used_inputs.add(src)
        self.res.example_rows.append((asm, data, self.runs_for(prefix, "output"), prefix, no,
                                      self.input_text(src), src))

    def negative(self, no: int, prefix: str, diag: re.Match[str]) -> None:
        off = diag.group("off")
        if "[[@LINE" in diag.group(0):
            src: int | None = no + int(off or 0)
            if not (0 < src <= len(self.lines)) or not self.is_code[src - 1]:
                self.skip("diagnostic points at no input line", no, diag.group(0), "encoding:" in diag.group(0))
                return
        else:
            src = self.owner(no)
            if src is None:
                self.skip("diagnostic without input line", no, diag.group(0))
                return
        self.used_inputs.add(src)
        col = diag.group("col")
        msg = _TRIVIAL_REGEX.sub("", diag.group("msg")).strip()
        self.res.negative_rows.append((self.input_text(src), msg, diag.group("sev"),
                                       self.runs_for(prefix, "stderr"), prefix, no, src,
                                       int(col) if col else None))

    def count_unused_inputs(self) -> None:
        if not self.bound:
            self.skip("file without llvm-mc RUN lines", None, self.rel)
            return
        for no, code in enumerate(self.is_code, 1):
            if code and no not in self.used_inputs:
                text = self.input_text(no)
                if not text:
                    continue
                if self.disasm_file:
                    self.skip("input bytes without check", no, text)
                elif text.startswith(".") or text.endswith(":"):
                    self.skip("directive or label without check", no, text)
                else:
                    self.skip("assembly input without check", no, text)


def _clean_asm(text: str) -> str | None:
    """Check text as plain assembly: trivial FileCheck regexes dropped, spaces collapsed; None if regex."""
    if "{{" in text or "[[" in text:
        text = _TRIVIAL_REGEX.sub(" ", text)
        if "{{" in text or "[[" in text:
            return None
    return " ".join(text.split())


def _parse_encoding(text: str) -> bytes | None:
    """Bytes of `[0x05,0x00,...]` (anything after the closing bracket ignored); None if malformed."""
    text = text.strip()
    end = text.find("]")
    if not text.startswith("[") or end < 0:
        return None
    flat = text[1:end].replace(" ", "").lower()
    n = flat.count("0x")
    digits = flat.replace("0x", "").replace(",", "")
    if n and len(digits) == 2 * n and flat.count(",") == n - 1:
        try:
            return bytes.fromhex(digits)
        except ValueError:
            return None
    m = _ENC_BYTES.match(text)       # rare spellings: single hex digits, trailing comma
    return bytes(int(b, 16) for b in _HEX_BYTE.findall(m.group(1))) if m else None


def _split_encoding_text(body: str) -> tuple[str, str]:
    """(assembly, encoding text) of a check: `asm ; encoding: [..]` or a bare `[0x..,..]`."""
    if "encoding:" in body:
        asm, _, enc = body.rpartition("encoding:")
        return asm.rstrip().rstrip(";"), enc
    if _BARE_BYTES.match(body):
        return "", body
    return body, ""


def _split_encoding(body: str) -> tuple[str, bytes | None]:
    asm, enc = _split_encoding_text(body)
    return asm.strip(), _parse_encoding(enc) if enc else None


def read_file(path: Path, root: Path | None = None) -> FileResult:
    """Read one test file; `root` is the sources root that provenance paths are relative to."""
    return _read_rows(path, root).inflate()


def _read_rows(path: Path, root: Path | None) -> FileResult:
    rel = path.relative_to(root).as_posix() if root else path.name
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        res = FileResult(rel)
        res.skips[f"unreadable file ({exc.strerror})"] += 1
        return res
    return _FileReader(path, rel, text).read()


def _read_one(args: tuple[str, str]) -> FileResult:
    path, root = args
    return _read_rows(Path(path), Path(root))


def _worker_init() -> None:
    gc.disable()      # the reader makes millions of small acyclic objects; see read_corpus


# --------------------------------------------------------------------------------------------
# the corpus


def iter_files(root: Path, processes: int | None = None) -> Iterator[FileResult]:
    """FileResults for every test file, in file order; files are read in parallel when it pays."""
    root = Path(root)
    files = test_files(root)
    if not files:
        raise SourceError(str(llvm_mc_tests(root)), "no LLVM MC test files found")
    workers = processes if processes is not None else min(os.cpu_count() or 1, 8)
    jobs = [(str(f), str(root)) for f in files]
    if workers <= 1:
        for job in jobs:
            yield _read_one(job).inflate()
        return
    with process_pool(workers, initializer=_worker_init) as pool:
        for res in pool.map(_read_one, jobs, chunksize=4):
            yield res.inflate()


def read_corpus(root: Path, processes: int | None = None) -> McCorpus:
    """Read every MC test file under the sources root `root` (or an LLVM tree).

    The cyclic garbage collector is paused meanwhile: building ~760k acyclic records otherwise
    triggers repeated full collections that cost more than the parsing (measured 3.0 s vs 0.9 s).
    """
    corpus = McCorpus()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for res in iter_files(Path(root), processes):
            merge(corpus, res)
    finally:
        if was_enabled:
            gc.enable()
    return corpus


def merge(corpus: McCorpus, res: FileResult) -> None:
    """Add one file's result to the corpus, keeping at most SAMPLES_PER_REASON samples a reason."""
    corpus.files += 1
    corpus.examples += res.examples
    corpus.negatives += res.negatives
    corpus.skips.update(res.skips)
    corpus.encoding_skips.update(res.encoding_skips)
    corpus.check_lines += res.check_lines
    corpus.encoding_lines += res.encoding_lines
    for reason, items in res.samples.items():
        bucket = corpus.samples.setdefault(reason, [])
        bucket += items[: SAMPLES_PER_REASON - len(bucket)]


def skip_report(corpus: McCorpus) -> str:
    """Human-readable skip counts with a few samples each, for `gpuisa` commands and the bench."""
    out = [f"{corpus.files} files, {corpus.check_lines} check lines, {corpus.encoding_lines} with encodings"]
    for reason, n in corpus.skips.most_common():
        enc = corpus.encoding_skips.get(reason, 0)
        out.append(f"  {n:8d}  {reason}" + (f"  ({enc} with encodings)" if enc else ""))
        for s in corpus.samples.get(reason, [])[:3]:
            out.append(f"            {s.file}:{s.line}: {s.text[:100]}")
    return "\n".join(out)


def examples_by_mnemonic(examples: Iterable[McExample]) -> dict[str, list[McExample]]:
    """Group examples by manual-style mnemonic (a VOPD pair counts for both halves)."""
    out: dict[str, list[McExample]] = {}
    for ex in examples:
        for name in mnemonics(ex.asm):
            out.setdefault(name, []).append(ex)
    return out

