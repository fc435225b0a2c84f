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
