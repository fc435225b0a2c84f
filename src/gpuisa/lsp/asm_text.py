"""Reads an assembly document (AMDGPU or PTX) into instructions, labels, kernels and its target.

Knows the two syntaxes and nothing of the catalog or of the protocol: the language server asks it
where each mnemonic, label and kernel is, and which target the file names. Lines are parsed one at
a time and cached by their text, so re-reading a 10,000-line file after a one-line edit parses one
line. Columns are Python string indices (the server converts them to the client's units).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

AMD = "amdgpu"
PTX = "ptx"

# Lines longer than this are not parsed (a 1 MB line of garbage is not assembly); the server
# still answers requests on them and logs that it skipped them.
MAX_LINE = 4096


@dataclass(frozen=True, slots=True)
class Span:
    line: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction statement: the mnemonic as written (`v_sad_u32_e64`, `clmad.lo.u64`)."""

    mnemonic: str
    span: Span                  # the mnemonic
    operands: str               # operand text as written, comment removed
    operands_start: int         # column of the operand text


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class Kernel:
    """A kernel or function: its name, where the name is, and the lines it spans."""

    name: str
    span: Span
    end_line: int
    kind: str                   # "kernel" or "function"


@dataclass(frozen=True, slots=True)
class TargetChoice:
    """The target a document names and where (None for line: it came from the client's settings)."""

    target: str                 # gfx1100 / sm_80 as written, lower-cased ("" when only .version is known)
    how: str                    # what named it: ".amdgcn_target", "gpuisa comment", ".target", "RUN line", "settings"
    span: Span | None           # where the name is written; None for the client's settings
    ptx_version: str | None = None   # PTX: the `.version` directive


@dataclass(slots=True)
class Document:
    """What the server needs of one document: its dialect, target, statements, labels, kernels."""

    dialect: str
    lines: list[str]
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, Label] = field(default_factory=dict)
    label_uses: list[Label] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    target: TargetChoice | None = None
    bad_targets: list[tuple[str, Span]] = field(default_factory=list)
    skipped_lines: list[int] = field(default_factory=list)
    by_line: dict[int, list[Instruction]] = field(default_factory=dict)

    def instruction_at(self, line: int, col: int) -> Instruction | None:
        """The instruction whose mnemonic is under (line, col)."""
        for ins in self.by_line.get(line, ()):
            if ins.span.start <= col <= ins.span.end:
                return ins
        return None

    def instruction_around(self, line: int, col: int) -> Instruction | None:
        """The instruction whose statement holds (line, col): mnemonic or operands (signature help)."""
        best = None
        for ins in self.by_line.get(line, ()):
            if ins.span.start <= col:
                best = ins
        return best


# ------------------------------------------------------------------------------ dialect


def dialect_of(uri: str, language_id: str | None, text: str) -> str:
    """PTX for .ptx files, languageId "ptx", or text that starts with `.version` / `.target sm_`."""
    if (language_id or "").lower() == PTX or uri.lower().endswith(".ptx"):
        return PTX
    head = text[:4000]
    if re.search(r"^\s*\.version\s+\d+\.\d+", head, re.M) and re.search(r"^\s*\.target\s+sm_", head, re.M):
        return PTX
    return AMD


# ------------------------------------------------------------------------------ target names

_GPUISA_COMMENT = re.compile(r"(?://|;|#)\s*gpuisa:\s*target\s*=\s*([\w.+:-]+)", re.I)
_AMDGCN_TARGET = re.compile(r"^\s*\.amdgcn_target\s+\"([^\"]*)\"")
_RUN_MCPU = re.compile(r"^\s*//\s*RUN:.*?-mcpu[= ](gfx\w+)")
_PTX_TARGET = re.compile(r"^\s*\.target\s+([\w, ]+)")
_PTX_VERSION = re.compile(r"^\s*\.version\s+(\d+\.\d+)")
_GFX = re.compile(r"(gfx[0-9a-f]+)")


def _gfx_of_triple(text: str) -> str | None:
    """`amdgcn-amd-amdhsa--gfx90a:xnack+` -> gfx90a."""
    m = _GFX.search(text.lower())
    return m.group(1) if m else None


# ------------------------------------------------------------------------------ AMD lines

_AMD_LABEL = re.compile(r"\s*([A-Za-z_.$][\w.$@]*)\s*:(?!:)")
_OBJDUMP_SYMBOL = re.compile(r"^[0-9a-fA-F]+\s+<([^>]+)>:\s*$")
# llvm-objdump listing lines that are neither code nor labels: "k.o:\tfile format elf64-amdgpu",
# "Disassembly of section .text:"
_LISTING_HEADER = re.compile(r"^(?:\S+:\s+file format\s|Disassembly of section\s)")
# `gpuisa disasm` lines: "0x0000: 05 00 25 d6 01 05 0e 00     v_sad_u32 v5, v1, v2, s3"
_DISASM_PREFIX = re.compile(r"\s*0x[0-9a-fA-F]+:\s+(?:[0-9a-fA-F]{2}\s+)+")
_AMD_MNEMONIC = re.compile(r"\s*([A-Za-z_][\w]*)")
_WORD = re.compile(r"[A-Za-z_.$][\w.$@]*")
_AMD_BRANCHES = ("s_branch", "s_cbranch_", "s_call_b64", "s_getpc", "s_setpc")


@dataclass(frozen=True, slots=True)
class _AmdLine:
    labels: tuple[tuple[str, int, int], ...]
    mnemonic: tuple[str, int, int] | None
    operands: tuple[str, int]
    directive: str | None


def _strip_amd_comment(text: str) -> str:
    """Drop `//`, `;` and `/* */` comments (outside strings); keeps columns by cutting, not shifting."""
    out = []
    i, n, quoted = 0, len(text), False
    while i < n:
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            if ch == ";" or text.startswith("//", i):
                break
            if text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    break
                out.append(" " * (end + 2 - i))
                i = end + 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=65536)
def _parse_amd_line(text: str) -> _AmdLine:
    if _LISTING_HEADER.match(text):
        return _AmdLine((), None, ("", 0), None)
    m = _OBJDUMP_SYMBOL.match(text)
    if m:
        start = text.index("<") + 1
        return _AmdLine(((m.group(1), start, start + len(m.group(1))),), None, ("", 0), None)
    code = _strip_amd_comment(text)
    labels = []
    dm = _DISASM_PREFIX.match(code)
    pos = dm.end() if dm else 0
    while True:
        lm = _AMD_LABEL.match(code, pos)
        if not lm:
            break
        labels.append((lm.group(1), lm.start(1), lm.end(1)))
        pos = lm.end()
    rest = code[pos:]
    stripped = rest.lstrip()
    if not stripped:
        return _AmdLine(tuple(labels), None, ("", 0), None)
    if stripped.startswith("."):
        word = stripped.split(None, 1)[0]
        return _AmdLine(tuple(labels), None, (stripped[len(word):].strip(), 0), word)
    mm = _AMD_MNEMONIC.match(code, pos)
    if not mm:
        return _AmdLine(tuple(labels), None, ("", 0), None)
    ops_start = mm.end(1)
    ops = code[ops_start:].rstrip()
    lead = len(ops) - len(ops.lstrip())
    return _AmdLine(tuple(labels), (mm.group(1), mm.start(1), mm.end(1)), (ops.strip(), ops_start + lead), None)


def _read_amd(doc: Document) -> None:
    lines = doc.lines
    kernel_names: dict[str, int] = {}
    kernel_ends: dict[str, int] = {}
    in_metadata = False
    for no, text in enumerate(lines):
        if len(text) > MAX_LINE:
            doc.skipped_lines.append(no)
            continue
        if in_metadata or text.lstrip().startswith(".amdgpu_metadata"):
            # YAML between .amdgpu_metadata and .end_amdgpu_metadata: keys are not labels
            in_metadata = ".end_amdgpu_metadata" not in text
            continue
        if "gpuisa:" in text:
            m = _GPUISA_COMMENT.search(text)
            if m:
                _set_target(doc, m.group(1).lower(), "gpuisa comment", no, m.start(1), m.end(1), explicit=True)
        if doc.target is None or doc.target.how == "RUN line":
            m = _AMDGCN_TARGET.match(text)
            if m:
                gfx = _gfx_of_triple(m.group(1))
                if gfx:
                    col = text.index(gfx)
                    _set_target(doc, gfx, ".amdgcn_target", no, col, col + len(gfx))
            elif doc.target is None:
                m = _RUN_MCPU.match(text)
                if m:
                    _set_target(doc, m.group(1).lower(), "RUN line", no, m.start(1), m.end(1))
        parsed = _parse_amd_line(text)
        for name, s, e in parsed.labels:
            doc.labels.setdefault(name, Label(name, Span(no, s, e)))
        if parsed.directive:
            d = parsed.directive
            arg = parsed.operands[0]
            if d == ".amdhsa_kernel" and arg:
                name = arg.split()[0]
                col = text.find(name)
                kernel_names.setdefault(name, no)
                doc.kernels.append(Kernel(name, Span(no, col, col + len(name)), no, "kernel"))
            elif d == ".end_amdhsa_kernel" and doc.kernels:
                k = doc.kernels[-1]
                doc.kernels[-1] = Kernel(k.name, k.span, no, k.kind)
            elif d == ".type" and "@function" in arg:
                kernel_names.setdefault(arg.split(",")[0].strip(), -1)
            elif d == ".size" and arg:
                kernel_ends[arg.split(",")[0].strip()] = no
            continue
        if parsed.mnemonic:
            mn, s, e = parsed.mnemonic
            ops, ops_col = parsed.operands
            doc.instructions.append(Instruction(mn, Span(no, s, e), ops, ops_col))
            if ops and mn.lower().startswith(_AMD_BRANCHES):
                _label_uses(doc, text, no, ops, ops_col)
    # an .amdhsa_kernel descriptor names a kernel whose code starts at the label of that name
    for i, k in enumerate(doc.kernels):
        lab = doc.labels.get(k.name)
        if lab is not None and lab.span.line < k.span.line:
            doc.kernels[i] = Kernel(k.name, lab.span, k.end_line, k.kind)
    # functions: a `.type name,@function` symbol's label, to its `.size` (or the next one)
    described = {k.name for k in doc.kernels}
    funcs = []
    for name in kernel_names:
        lab = doc.labels.get(name)
        if lab is None or name in described:
            continue
        funcs.append((lab.span.line, name, lab))
    # listings: llvm-objdump's `0000000000000000 <kernel>:` symbols, `gpuisa disasm`'s `kernel:` before code
    for name, lab in doc.labels.items():
        if name in kernel_names or name in described:
            continue
        nxt = lines[lab.span.line + 1] if lab.span.line + 1 < len(lines) else ""
        if _is_objdump_symbol(lines[lab.span.line]) or _DISASM_PREFIX.match(nxt):
            funcs.append((lab.span.line, name, lab))
    funcs.sort()
    for i, (line, name, lab) in enumerate(funcs):
        nxt = funcs[i + 1][0] - 1 if i + 1 < len(funcs) else len(lines) - 1
        end = kernel_ends.get(name, nxt)
        doc.kernels.append(Kernel(name, lab.span, max(end, line), "function"))
    doc.kernels.sort(key=lambda k: k.span.line)


def _is_objdump_symbol(text: str) -> bool:
    return bool(_OBJDUMP_SYMBOL.match(text))


def is_listing(doc: Document) -> bool:
    """llvm-objdump / `gpuisa disasm` output rather than assembler input (no assembler runs on it)."""
    head = doc.lines[:40]
    return any(_LISTING_HEADER.match(t) or _OBJDUMP_SYMBOL.match(t) or _DISASM_PREFIX.match(t) for t in head)


def _label_uses(doc: Document, text: str, no: int, ops: str, ops_col: int) -> None:
    for m in _WORD.finditer(ops):
        doc.label_uses.append(Label(m.group(0), Span(no, ops_col + m.start(), ops_col + m.end())))


# ------------------------------------------------------------------------------ PTX lines

_PTX_LABEL = re.compile(r"\s*([$%A-Za-z_][\w$]*)\s*:(?!:)")
_PTX_GUARD = re.compile(r"\s*@!?%?[\w$]+\s+")
_PTX_OPCODE = re.compile(r"\s*([A-Za-z_][\w]*(?:(?:\.|::)[\w]+)*)")
_PTX_ENTRY = re.compile(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([$A-Za-z_][\w$]*)")
_PTX_WORD = re.compile(r"[$%A-Za-z_][\w$]*")


@dataclass(frozen=True, slots=True)
class _PtxStmt:
    label: tuple[str, int, int] | None
    opcode: tuple[str, int, int] | None
    operands: tuple[str, int]
    directive: str | None


def _strip_ptx_comments(text: str, in_block: bool) -> tuple[str, bool]:
    """Blank out `//` and `/* */` comments (keeping columns); returns whether a block comment stays open."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if in_block:
            end = text.find("*/", i)
            if end < 0:
                out.append(" " * (n - i))
                return "".join(out), True
            out.append(" " * (end + 2 - i))
            i = end + 2
            in_block = False
            continue
        if text.startswith("//", i):
            break
        if text.startswith("/*", i):
            in_block = True
            out.append("  ")
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out), False


@lru_cache(maxsize=65536)
def _parse_ptx_code(code: str) -> tuple[_PtxStmt, ...]:
    """Statements on one comment-free line: `;`-separated, each maybe labelled and guarded."""
    stmts = []
    start = 0
    for part in code.split(";"):
        seg_start = start
        start += len(part) + 1
        if not part.strip():
            continue
        pos = seg_start
        label = None
        lm = _PTX_LABEL.match(code, pos)
        if lm and lm.end() <= seg_start + len(part):
            label = (lm.group(1), lm.start(1), lm.end(1))
            pos = lm.end()
        body = code[pos:seg_start + len(part)]
        stripped = body.strip().lstrip("{}").strip()
        if not stripped:
            stmts.append(_PtxStmt(label, None, ("", 0), None))
            continue
        if stripped.startswith("."):
            lead = body.index(stripped[0]) + pos
            stmts.append(_PtxStmt(label, None, (code[lead:seg_start + len(part)], lead), stripped.split()[0]))
            continue
        brace = len(body) - len(body.lstrip(" \t{}"))
        pos += brace
        gm = _PTX_GUARD.match(code, pos)
        if gm and gm.end() <= seg_start + len(part):
            pos = gm.end()
        om = _PTX_OPCODE.match(code, pos)
        if not om or om.end() > seg_start + len(part):
            stmts.append(_PtxStmt(label, None, ("", 0), None))
            continue
        ops = code[om.end():seg_start + len(part)]
        lead = len(ops) - len(ops.lstrip())
        stmts.append(_PtxStmt(label, (om.group(1), om.start(1), om.end(1)), (ops.strip(), om.end() + lead), None))
    return tuple(stmts)


def _read_ptx(doc: Document) -> None:
    in_block = False
    version = None
    for no, text in enumerate(doc.lines):
        if len(text) > MAX_LINE:
            doc.skipped_lines.append(no)
            continue
        if "gpuisa:" in text:
            m = _GPUISA_COMMENT.search(text)
            if m:
                _set_target(doc, m.group(1).lower(), "gpuisa comment", no, m.start(1), m.end(1), explicit=True)
        code, in_block = _strip_ptx_comments(text, in_block)
        if not code.strip():
            continue
        m = _PTX_VERSION.match(code)
        if m:
            version = m.group(1)
        m = _PTX_TARGET.match(code)
        if m and (doc.target is None or doc.target.how != "gpuisa comment"):
            first = m.group(1).split(",")[0].strip().lower()
            col = code.index(first, m.start(1)) if first in code else m.start(1)
            _set_target(doc, first, ".target", no, col, col + len(first))
        for em in _PTX_ENTRY.finditer(code):
            kind = "kernel" if em.group(1) == "entry" else "function"
            doc.kernels.append(Kernel(em.group(2), Span(no, em.start(2), em.end(2)), no, kind))
        for st in _parse_ptx_code(code):
            if st.label:
                name, s, e = st.label
                doc.labels.setdefault(name, Label(name, Span(no, s, e)))
            if st.opcode:
                op, s, e = st.opcode
                ops, ops_col = st.operands
                doc.instructions.append(Instruction(op, Span(no, s, e), ops, ops_col))
                if op.split(".")[0] in ("bra", "brx", "call") and ops:
                    for wm in _PTX_WORD.finditer(ops):
                        doc.label_uses.append(Label(wm.group(0), Span(no, ops_col + wm.start(), ops_col + wm.end())))
    if doc.target is not None and version is not None:
        doc.target = TargetChoice(doc.target.target, doc.target.how, doc.target.span, version)
    elif version is not None:
        doc.target = TargetChoice("", ".version", None, version)
    # a kernel runs to the line before the next one
    doc.kernels.sort(key=lambda k: k.span.line)
    for i, k in enumerate(doc.kernels):
        end = doc.kernels[i + 1].span.line - 1 if i + 1 < len(doc.kernels) else len(doc.lines) - 1
        doc.kernels[i] = Kernel(k.name, k.span, max(end, k.span.line), k.kind)


# ------------------------------------------------------------------------------ entry point


def _set_target(doc: Document, target: str, how: str, line: int, start: int, end: int, explicit: bool = False) -> None:
    """Record the file's target; the first `// gpuisa: target=` comment wins over directives."""
    if doc.target is not None and doc.target.how == "gpuisa comment":
        return
    doc.target = TargetChoice(target, how, Span(line, start, end))


def read(uri: str, text: str, language_id: str | None = None) -> Document:
    """Parse a whole document; never raises on any text (binary garbage gives no statements)."""
    dialect = dialect_of(uri, language_id, text)
    doc = Document(dialect, text.splitlines() or [""])
    if dialect == PTX:
        _read_ptx(doc)
    else:
        _read_amd(doc)
    for ins in doc.instructions:
        doc.by_line.setdefault(ins.span.line, []).append(ins)
    return doc


def word_at(text: str, col: int, pattern: re.Pattern[str] = _PTX_WORD) -> tuple[str, int, int] | None:
    """The label-like word under a column (for go to definition and references)."""
    for m in pattern.finditer(text):
        if m.start() <= col <= m.end():
            return m.group(0), m.start(), m.end()
        if m.start() > col:
            break
    return None
