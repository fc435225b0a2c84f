"""PTX mma fragments: which thread (%laneid) holds which element of A, B and C/D, read from the manual's own
formulas (ptx-isa-9.4 9.7.16.5.1-13 'Matrix Fragments for mma.mMnNkK': `row = groupID + 8  for ai where i >= 4`).

Each formula block of the manual is parsed into pieces (expression, condition) and evaluated with a small
arithmetic evaluator (ast, integers only: + - * % >> & | comparisons, `||`, `&&`), for every lane and
fragment index i. Which block belongs to which operand and type comes from the section's own headings
("* Multiplicand A:", "* `.tf32`:", "Fragment layout for Row Major matrix A", "when `.ctype` is `.f32`").
Where a formula is misprinted the fix is a named erratum (FORMULA_ERRATA) with its line.
mma.m8n8k4 with .f16 is four independent 8x8x4 products, one per quadpair (9.7.16.5.1 line 26): its
matrices carry a leading axis of 4 (the computation), lanes 4q..4q+3 and 16+4q..16+4q+3.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpuisa.semantics.errors import EvalError

MMA_MD = "ptx-isa-9.4/9-instruction-set/9.7.16.5-matrix-multiply-accumulate-operation-usingmmainstruction.md"

# Misprints in the formulas: manual text -> what is meant, with the line and why.
FORMULA_ERRATA: dict[str, tuple[str, str]] = {
    "col =      (threadID_in_group * 32) + i                    for ai where i < 64": (
        "col =      (threadID_in_group * 32) + (i & 0x1F)           for ai where i < 64",
        "9.7.16.5.13 line 1559 (m16n8k256 A col): as printed, a32-a63 reach columns past the thread's 32 and lane 3's "
        "a32 lands where another thread's element is; every other b1 A formula (m16n8k128 line 1473, this block's own "
        "i >= 64 line 1560) takes i & 0x1F"),
    "(i * 2) - 2 + (threadID_in_group      Otherwise": (
        "(i * 2) - 2 + (threadID_in_group)      Otherwise",
        "9.7.16.5.8 line 987 (m16n8k16 .f64 A col): the closing parenthesis is missing"),
}

_SECTION = re.compile(r"^#####\s+9\.7\.16\.5\.(\d+)\. Matrix Fragments for `mma\.m(\d+)n(\d+)k(\d+)`(.*)$")
_OPERAND = re.compile(r"^\s*\* (Multiplicand A|Multiplicand B|Accumulators)")
_TYPES = re.compile(r"`\.(\w+)`")


@dataclass(frozen=True, slots=True)
class Block:
    """One formula block: its section, operand (A, B, C), the heading lines above it, its text and first line."""

    section: str
    shape: tuple[int, int, int]
    title: str
    operand: str
    heading: str
    text: str
    line: int


def blocks(manual_text: str) -> list[Block]:
    """Every ```ptx formula block of the fragment sections, with the headings that say what it is for."""
    out: list[Block] = []
    section = title = operand = ""
    shape = (0, 0, 0)
    heading: list[str] = []
    lines = manual_text.splitlines()
    n = 0
    while n < len(lines):
        line = lines[n]
        s = _SECTION.match(line)
        if s:
            section, shape, title, operand, heading = s.group(1), tuple(map(int, s.group(2, 3, 4))), s.group(5), "", []
        elif line.startswith("#####"):
            section = ""
        elif section and _OPERAND.match(line):
            operand = {"Multiplicand A": "A", "Multiplicand B": "B", "Accumulators": "C"}[_OPERAND.match(line).group(1)]
            heading = []
        elif section and (re.match(r"^\s*\* `", line) or "Fragment layout for" in line):
            heading.append(line.strip())
        elif section and line.lstrip("> ").strip() == "```ptx":      # fences may sit in a '> ' quote
            end = next(j for j in range(n + 1, len(lines)) if lines[j].lstrip("> ").strip() == "```")
            body = [x[2:] if x.startswith("> ") else x for x in lines[n + 1:end]]
            out.append(Block(section, shape, title, operand, heading[-1] if heading else "", "\n".join(body), n + 2))
            n = end
        n += 1
    return out


# ------------------------------------------------------------------ formulas -> per (lane, i) values

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod,
        ast.RShift: operator.rshift, ast.LShift: operator.lshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
        ast.FloorDiv: operator.floordiv}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
        ast.NotEq: operator.ne}


def _value(node: ast.AST, env: dict[str, int]) -> int:
    """Integer arithmetic on a parsed formula; names from env; anything else is refused."""
    if isinstance(node, ast.Expression):
        return _value(node.body, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _BIN[type(node.op)](_value(node.left, env), _value(node.right, env))
    if isinstance(node, ast.BoolOp):
        vals = [_value(v, env) for v in node.values]
        return int(all(vals)) if isinstance(node.op, ast.And) else int(any(vals))
    if isinstance(node, ast.Compare):
        left = _value(node.left, env)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _value(right_node, env)
            if type(op) not in _CMP or not _CMP[type(op)](left, right):
                return 0
            left = right
        return 1
    raise EvalError(f"fragment formula: cannot evaluate {ast.dump(node)[:80]}")


def _python(expr: str) -> ast.Expression:
    """Manual notation -> a Python expression tree: %laneid, ||, &&, `i = {..}` ranges, `=` as equality."""
    e = expr.replace("%laneid", "lane").replace("||", " or ").replace("&&", " and ")
    e = re.sub(r"(?<![<>=!])=(?!=)", "==", e)
    try:
        return ast.parse(e.strip(), mode="eval")
    except SyntaxError:
        raise EvalError(f"fragment formula {expr!r}: not an expression this reader knows") from None


_PIECE = re.compile(r"^(?P<expr>.*?)(?:\s+(?P<cond>(?:for|if|otherwise|Otherwise)\b.*))?$")


def _condition(text: str) -> tuple[ast.Expression | None, bool]:
    """'for ai where i < 4 if %laneid < 16' -> (tree of 'i < 4 and lane < 16', otherwise?)."""
    if not text:
        return None, False
    if text.lower().startswith("otherwise"):
        return None, True
    parts = []
    t = text
    m = re.match(r"for\s+([abc])(\d+)((?:\s+and\s+[abc]\d+)*)\s*", t)
    if m:
        idx = [int(m.group(2))] + [int(x) for x in re.findall(r"[abc](\d+)", m.group(3))]
        parts.append(" or ".join(f"i == {v}" for v in idx))
        t = t[m.end():]
    t = re.sub(r"^for\s+[abc]i\s*", "", t)
    t = re.sub(r"where\s+i\s*=\s*\{[^}]*\}", "", t)           # the range of i: no condition
    t = re.sub(r"^where\s+", "", t.strip())
    otherwise = bool(re.search(r"\b[Oo]therwise\b", t))
    t = re.sub(r"\b[Oo]therwise\b", "", t)
    for cond in re.split(r"\bif\b", t):
        if cond.strip():
            parts.append(cond.strip())
    if not parts:
        return None, otherwise
    return _python(" and ".join(f"({p})" for p in parts)), otherwise


@dataclass(frozen=True, slots=True)
class Formula:
    """A parsed block: definitions (groupID = ...) and the pieces of row and col."""

    defs: tuple[tuple[str, ast.Expression], ...]
    row: tuple[tuple[ast.Expression, ast.Expression | None, bool], ...]
    col: tuple[tuple[ast.Expression, ast.Expression | None, bool], ...]

    def at(self, lane: int, i: int) -> tuple[int, int]:
        env = {"lane": lane, "i": i}
        for name, expr in self.defs:
            env[name] = _value(expr, env)
        return self._pick(self.row, env, "row"), self._pick(self.col, env, "col")

    @staticmethod
    def _pick(pieces: tuple, env: dict[str, int], what: str) -> int:
        for expr, cond, _ in pieces:
            if cond is None or _value(cond, env):
                return _value(expr, env)
        raise EvalError(f"fragment formula: no {what} piece holds for lane {env['lane']}, i {env['i']}")


def parse(block_text: str, errata: bool = True) -> Formula:
    """The manual's formula text -> Formula. A `where X = ...` line defines X for the pieces above it."""
    for bad, (good, _) in FORMULA_ERRATA.items() if errata else ():
        block_text = block_text.replace(bad, good)
    defs: list[tuple[str, ast.Expression]] = []
    pieces: dict[str, list[tuple[ast.Expression, ast.Expression | None, bool]]] = {"row": [], "col": []}
    current = ""
    for raw in block_text.splitlines():
        line = raw.strip()
        if not line:
            continue
        d = re.match(r"^(?:where\s+)?(\w+)\s*=\s*(.*?)(?:\s+for\s+[abc]i\s+where\s+i\s*=\s*\{[^}]*\})?$", line)
        if d and d.group(1) not in ("row", "col"):
            defs.append((d.group(1), _python(d.group(2))))
            continue
        w = re.match(r"^(row|col)\s*=\s*(.*)$", line)
        if w:
            current, line = w.group(1), w.group(2)
        if not current:
            raise EvalError(f"fragment formula line {raw!r}: no row = or col = before it")
        m = _PIECE.match(line)
        cond, otherwise = _condition((m.group("cond") or "").strip())
        pieces[current].append((_python(m.group("expr")), cond, otherwise))
    for key in pieces:     # 'otherwise' pieces are tried last
        pieces[key].sort(key=lambda p: p[2])
    # definitions (groupID, threadID_in_group, X) are evaluated before the pieces, in order; X uses lane and i
    return Formula(tuple(defs), tuple(pieces["row"]), tuple(pieces["col"]))


# ------------------------------------------------------------------ which block for which form


_INT8 = {"s8", "u8", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1"}


def _wanted(b: Block, operand: str, t: str, layout: str, a: str) -> bool:
    """Does block b give the layout of `operand` of type t (and row/col major layout, for mma.m8n8k4 .f16)?
    Accumulator blocks are headed by C's type or by A's (m16n8k8: "* `.f16`, `.bf16` and `.tf32`:")."""
    if b.operand != ("C" if operand in ("C", "D") else operand):
        return False
    h = b.heading
    if "Row Major" in h or "Column Major" in h:
        return ("Row Major" in h) == (layout == "row")
    if "`.ctype` is" in h:
        return f"`.ctype` is `.{t}`" in h
    types = set(_TYPES.findall(h))
    if not types:
        return True
    return t in types or (b.operand == "C" and a in types)


def _section_for(m: int, n: int, k: int, a: str, book: list[Block]) -> str:
    """The fragment section of an mma shape with A type a (9.7.16.5.1/2 split m8n8k4 by type, .8/.9 m16n8k16)."""
    titles = {b.section: b.title for b in book if b.shape == (m, n, k)}
    if not titles:
        raise EvalError(f"mma.m{m}n{n}k{k}: the manual has no fragment section for this shape")
    if len(titles) == 1:
        return next(iter(titles))
    for sec, title in titles.items():
        if f"`.{a}`" in title or ("integer" in title and a in _INT8) or ("floating" in title and a not in _INT8
                                                                           and "`." not in title):
            return sec
    raise EvalError(f"mma.m{m}n{n}k{k} with .{a}: no fragment section says it is for this type")


@lru_cache(maxsize=8)
def _book(manual_text: str) -> list[Block]:
    return blocks(manual_text)


def groups(m: int, n: int, k: int, a: str) -> int:
    """Independent products one warp computes: 4 for mma.m8n8k4 .f16 (one per quadpair), else 1."""
    return 4 if (m, n, k) == (8, 8, 4) and a == "f16" else 1


@lru_cache(maxsize=256)
def layout(manual_text: str, m: int, n: int, k: int, a: str, c: str, operand: str, major: str = "") -> np.ndarray:
    """(groups x rows x cols x 2): for every element, the (lane, fragment index i) that holds it.

    operand A (M x K), B (K x N), C/D (M x N); a is A's type, c C's; major 'row' or 'col' for A/B of mma.m8n8k4
    .f16 (default: A row, B col, the .row.col of every other shape)."""
    book = _book(manual_text)
    sec = _section_for(m, n, k, a, book)
    t = c if operand in ("C", "D") else a
    major = major or ("row" if operand == "A" else "col")
    cands = [b for b in book if b.section == sec and _wanted(b, operand, t, major, a)]
    if len(cands) != 1:
        raise EvalError(f"mma.m{m}n{n}k{k} .{t} {operand}: {len(cands)} fragment formulas match (9.7.16.5.{sec})")
    block = cands[0]
    f = parse(block.text)
    rows, cols = {"A": (m, k), "B": (k, n)}.get(operand, (m, n))
    g = groups(m, n, k, a)
    count = rows * cols * g // 32
    out = np.full((g, rows, cols, 2), -1)
    for lane in range(32):
        q = (lane % 16) // 4 if g == 4 else 0
        for i in range(count):
            r, col = f.at(lane, i)
            if not (0 <= r < rows and 0 <= col < cols) or out[q, r, col, 0] != -1:
                raise EvalError(f"9.7.16.5.{sec} {operand} (line {block.line}): lane {lane} a{i} -> ({r}, {col}) is "
                                "outside the matrix or held twice")
            out[q, r, col] = (lane, i)
    if (out < 0).any():
        raise EvalError(f"9.7.16.5.{sec} {operand} (line {block.line}): some elements are held by no thread")
    return out


def to_fragments(lay: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Matrix (groups x rows x cols, or rows x cols when one group) -> fragments (32 lanes x elements per thread)."""
    mat = np.asarray(matrix).reshape(lay.shape[:3])
    frags = np.zeros((32, int(lay[..., 1].max()) + 1), dtype=mat.dtype)
    frags[lay[..., 0], lay[..., 1]] = mat
    return frags


def from_fragments(lay: np.ndarray, frags: np.ndarray) -> np.ndarray:
    """Fragments (32 lanes x elements per thread) -> matrix (groups x rows x cols; rows x cols when one group)."""
    mat = np.asarray(frags)[lay[..., 0], lay[..., 1]]
    return mat[0] if lay.shape[0] == 1 else mat


# ------------------------------------------------------------------ mma.sp (9.7.16.6.2): sparse A


SPARSE_MD = ("ptx-isa-9.4/9-instruction-set/"
             "9.7.16.6-matrix-multiply-accumulate-operation-usingmma.spinstruction-with-sparse-matrix-a.md")
_SPARSE_SECTION = re.compile(r"^######\s+9\.7\.16\.6\.2\.(\d+)\. Matrix Fragments for sparse `mma\.m(\d+)n(\d+)k(\d+)` "
                             r"with (.*)$")
_SAME_AS = re.compile(r"Matrix fragments for (multiplicand B and accumulators C and D|accumulators C and D) are the "
                      r"same as in case of \[Matrix Fragments for mma\.m(\d+)n(\d+)k(\d+)(?: with ([\w ]+?) type)?\]")


@dataclass(frozen=True, slots=True)
class SparseSection:
    """One 9.7.16.6.2.N section: its shape, the types its title names, the packed-A formula block (text, line),
    the dense section its B and C/D are 'the same as' (None where B is only drawn), and its first line."""

    section: str
    shape: tuple[int, int, int]
    types: tuple[str, ...]
    a_text: str
    a_line: int
    b_same_as: tuple[int, int, int] | None
    cd_same_as: tuple[int, int, int] | None
    line: int


def sparse_sections(text: str) -> list[SparseSection]:
    """The fragment sections of mma.sp, read from the manual's text (formula blocks and 'same as' sentences)."""
    lines = text.splitlines()
    heads = [(n, _SPARSE_SECTION.match(x)) for n, x in enumerate(lines) if _SPARSE_SECTION.match(x)]
    out = []
    for n, m in heads:
        end = next((j for j in range(n + 1, len(lines)) if lines[j].startswith("#####")), len(lines))
        body = lines[n:end]
        start = next(j for j, x in enumerate(body) if x.strip() == "```ptx")
        stop = next(j for j in range(start + 1, len(body)) if body[j].strip() == "```")
        b_same = cd_same = None
        for x in body:
            s = _SAME_AS.search(x)
            if s:
                shape = (int(s.group(2)), int(s.group(3)), int(s.group(4)))
                cd_same = shape
                if s.group(1).startswith("multiplicand B"):
                    b_same = shape
        # the types a section serves: its title's, and those its tables and captions add (9.7.16.6.2.6's B table lists
        # .e3m2/.e2m3/.e2m1; 9.7.16.6.2.8's metadata caption '.u4/.s4/.e2m1')
        types = dict.fromkeys(_TYPES.findall(m.group(5)) + re.findall(r"<span>\.(\w+)</span>|`\.(\w+)`", "\n".join(body)))
        names = tuple(t if isinstance(t, str) else (t[0] or t[1]) for t in types)
        names = tuple(t for t in names if not re.match(r"m\d+n\d+k\d+$|b\d+$", t))
        out.append(SparseSection(m.group(1), (int(m.group(2)), int(m.group(3)), int(m.group(4))),
                                 tuple(dict.fromkeys(names)), "\n".join(body[start + 1:stop]),
                                 n + start + 2, b_same, cd_same, n + 1))
    return out


def _sparse_formula(a_text: str) -> tuple[Formula, int]:
    """The packed-A block -> (Formula whose `col` is firstcol, chunk width): 'col = [firstcol ... lastcol]' names the
    chunk of the two (four) nonzeros an ai belongs to; 'lastcol = firstcol + 3' gives its width."""
    width = re.search(r"lastcol\s*=\s*firstcol\s*\+\s*(\d+)", a_text)
    if not width:
        raise EvalError("mma.sp A formula: no 'lastcol = firstcol + W' line")
    kept = []
    for line in a_text.splitlines():
        s = line.split("//")[0].rstrip()
        if not s.strip() or s.strip() == "Where" or s.strip().startswith(("col =", "lastcol")):
            continue
        s = re.sub(r"\bFor (a)i\b", r"for \1i", s)          # 'For ai where i <  8' (9.7.16.6.2.2, .6, .8)
        kept.append(re.sub(r"^firstcol\s*=", "col =", s.strip()) if s.strip().startswith("firstcol") else s)
    return parse("\n".join(kept)), int(width.group(1)) + 1


def _sparse_section(book: list[SparseSection], m: int, n: int, k: int, a: str) -> SparseSection:
    cands = [s for s in book if s.shape == (m, n, k) and (a in s.types or (a in _INT8 and not s.types))]
    if len(cands) != 1:
        raise EvalError(f"mma.sp.m{m}n{n}k{k} .{a}: {len(cands)} fragment sections of 9.7.16.6.2 name this type")
    return cands[0]


@lru_cache(maxsize=8)
def _sparse_book(text: str) -> list[SparseSection]:
    return sparse_sections(text)


@lru_cache(maxsize=128)
def sparse_layout(sparse_text: str, dense_text: str, m: int, n: int, k: int, a: str, c: str,
                  operand: str) -> np.ndarray:
    """mma.sp fragments: (1 x rows x cols x 2) -> (lane, fragment index) like layout(). A is the packed M x K/2 matrix:
    ai holds a nonzero of row `row`, chunk [firstcol .. lastcol] of the logical A (9.7.16.6.2.N formula); the ai that
    share a chunk hold its nonzeros in order of i, so packed column = firstcol / 2 + (position among them). B and C/D
    come from the dense mma section the manual says they are 'the same as'; where the manual only draws B (a figure),
    EvalError says so."""
    sec = _sparse_section(_sparse_book(sparse_text), m, n, k, a)
    if operand in ("B", "C", "D"):
        same = sec.b_same_as if operand == "B" else sec.cd_same_as
        if same is None:
            raise EvalError(f"mma.sp.m{m}n{n}k{k} .{a} B: the manual gives this fragment only as a figure "
                            f"(9.7.16.6.2.{sec.section}, {SPARSE_MD}:{sec.line})")
        dm, dn, dk = same
        dense_a = a if operand == "B" else ("s8" if a in _INT8 and (dm, dn, dk) == (16, 8, 16) else a)
        return layout(dense_text, dm, dn, dk, dense_a, c, operand)
    f, width = _sparse_formula(sec.a_text)
    rows, cols = m, k // 2
    out = np.full((1, rows, cols, 2), -1)
    per_thread = rows * cols // 32
    for lane in range(32):
        seen: dict[tuple[int, int], int] = {}
        for i in range(per_thread):
            r, first = f.at(lane, i)
            slot = seen.get((r, first), 0)
            seen[(r, first)] = slot + 1
            col = first // 2 + slot
            if first % width or slot >= width // 2 or not (0 <= r < rows and 0 <= col < cols) or out[0, r, col, 0] >= 0:
                raise EvalError(f"9.7.16.6.2.{sec.section} A (line {sec.a_line}): lane {lane} a{i} -> row {r}, chunk "
                                f"{first} is outside the packed matrix, past the chunk's nonzeros or held twice")
            out[0, r, col] = (lane, i)
    if (out < 0).any():
        raise EvalError(f"9.7.16.6.2.{sec.section} A (line {sec.a_line}): some packed elements are held by no thread")
    return out


_PARAGRAPH = re.compile(r"^Sparse `mma\.sp")
_SELECTOR = re.compile(r"^\s*\* (.*?): (One thread|A thread-pair|All threads) within a group of four")
_SHAPE_TYPES = re.compile(r"`m(\d+)n(\d+)k(\d+)`(?: with ((?:`\.\w+`/?)+) type)?")


def metadata_threads(sparse_text: str, m: int, n: int, k: int, a: str, selector: int) -> tuple[int, ...]:
    """The lanes whose metadata operand mma.sp reads, for a sparsity selector (9.7.16.6.1: 'One thread within a group
    of four consecutive threads ... {0, 1, 2, 3}', 'A thread-pair ... 0 (threads T0, T1) or 1 (threads T2, T3)',
    'All threads ... must be 0'), read from the bullet for the shape and type. Which bits of a thread's metadata
    hold which chunk's indices the manual only draws (Figures 122-150): that part is not modelled."""
    kind = ""
    para: set[str] = set()
    for line in sparse_text.splitlines():
        if _PARAGRAPH.match(line):
            para = set(re.findall(r"`\.(\w+)`", line)) | ({"f16"} if "half-precision" in line else set())
            continue
        s = _SELECTOR.match(line)
        if not s:
            continue
        for g in _SHAPE_TYPES.finditer(s.group(1)):
            types = set(re.findall(r"\.(\w+)", g.group(4))) if g.group(4) else para
            if (int(g.group(1)), int(g.group(2)), int(g.group(3))) == (m, n, k) and a in types:
                kind = s.group(2)
    if not kind:
        raise EvalError(f"mma.sp.m{m}n{n}k{k} .{a}: no sparsity-selector rule in 9.7.16.6.1 names this shape and type")
    quad = {"One thread": (4, (selector,)), "A thread-pair": (2, (2 * selector, 2 * selector + 1)),
            "All threads": (1, (0, 1, 2, 3))}[kind]
    if not 0 <= selector < quad[0]:
        raise EvalError(f"mma.sp.m{m}n{n}k{k} .{a}: sparsity selector {selector} is undefined ({kind.lower()} per "
                        f"group of four: 0-{quad[0] - 1})")
    return tuple(lane for lane in range(32) if lane % 4 in quad[1])


# ------------------------------------------------------------------ block scaling (9.7.16.3): which threads and bytes

SCALE_MD = "ptx-isa-9.4/9-instruction-set/9.7.16.3-block-scaling-formma.sync.md"
# Valid selector values per .scale_vec_size (Table 46, SCALE_MD:143-188): byte-id-a, thread-id-a, byte-id-b,
# thread-id-b; and how many bytes of the selected scale word one thread contributes (:123-133: 1X one byte, 2X a byte
# pair, 0 lower two, 2 upper two, 4X all four).
SCALE_SELECTORS = {1: ((0, 1, 2, 3), (0, 1), (0, 1, 2, 3), (0, 1, 2, 3)),
                   2: ((0, 2), (0, 1), (0, 2), (0, 1, 2, 3)),
                   4: ((0,), (0, 1), (0,), (0, 1, 2, 3))}


def scale_threads(vec: int, byte_id_a: int, thread_id_a: int, byte_id_b: int,
                  thread_id_b: int) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """For block-scaled mma: {'A': (lanes, bytes), 'B': (lanes, bytes)} of scale-a-data / scale-b-data that hold SF_A
    and SF_B. SF_A: the thread pair %laneid % 4 in {0, 1} (thread-id-a 0) or {2, 3} (1) of every quad (SCALE_MD:105);
    SF_B: %laneid % 4 == thread-id-b (:113). Which row of SF_A (column of SF_B) each selected thread holds is drawn
    only (Figures 46-47, :109, :117): not modelled."""
    valid = SCALE_SELECTORS.get(vec)
    given = (byte_id_a, thread_id_a, byte_id_b, thread_id_b)
    names = ("byte-id-a", "thread-id-a", "byte-id-b", "thread-id-b")
    if valid is None:
        raise EvalError(f".scale_vec::{vec}X is not a scale vector size (1X, 2X, 4X)")
    for name, v, ok in zip(names, given, valid, strict=True):
        if v not in ok:
            raise EvalError(f"{name} {v} is undefined for .scale_vec::{vec}X (Table 46: {list(ok)})")
    lanes_a = tuple(lane for lane in range(32) if lane % 4 in (2 * thread_id_a, 2 * thread_id_a + 1))
    lanes_b = tuple(lane for lane in range(32) if lane % 4 == thread_id_b)
    return {"A": (lanes_a, tuple(range(byte_id_a, byte_id_a + vec))),
            "B": (lanes_b, tuple(range(byte_id_b, byte_id_b + vec)))}


# Fragment layouts the manual does not give as text, with the line that says so (tests read each line).
UNMODELLED = {
    "wmma": ("9.7.16.4.1", "ptx-isa-9.4/9-instruction-set/"
             "9.7.16.4-matrix-multiply-accumulate-operation-usingwmmainstructions.md", 22,
             "unspecified by design: 'The distribution of fragments loaded by the threads in a warp is unspecified and "
             "is target architecture dependent'"),
    "wgmma": ("9.7.17.5.1.1", "ptx-isa-9.4/9-instruction-set/9.7.17.5-asynchronous-warpgroup-level-matrix-multiply-"
              "accumulate-operation-usingwgmma.mma_asyncinstruction.md", 56,
              "given only as figures (Figures 151-158: register fragments of A and D per k); the text gives the "
              "element counts per thread, not which thread holds which element"),
    "mma.sp metadata": ("9.7.16.6.2", SPARSE_MD, 183,
                        "given only as figures (Figures 122-150); the text gives which threads contribute "
                        "(metadata_threads) but not which bits hold which chunk"),
    "mma.sp B (k32 f16/bf16, k16 tf32, k64 8-bit, k128 4-bit)": (
        "9.7.16.6.2.2/.3/.6/.8", SPARSE_MD, 237, "given only as figures (Figures 124, 127, 135-138, 145-148)"),
    "block-scale rows": ("9.7.16.3", SCALE_MD, 109, "which row of SF_A (column of SF_B) each selected thread holds is "
                                                    "only drawn (Figures 46-48); scale_threads gives the threads and bytes"),
}
