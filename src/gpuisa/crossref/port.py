"""`gpuisa port`: PTX instruction statements -> the AMD instruction (or sequence) discovery found for each.

Takes statements already split from the text (line, columns, guard, mnemonic, operand text) and
the Rosetta rows of one arch; carries each PTX operand into the AMD operand slot the row's wiring
names (S0 = b, S1 = a, S2 = 0 ...). A statement with no mapping says why; a malformed one gets
an error naming line:column. Never raises on user text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuisa.crossref.discovery import EQ, EQR, PAIRS, SEQ, decided
from gpuisa.crossref.ptx_forms import WrittenForms
from gpuisa.errors import GpuisaError

# PTX register names that read as AMD registers in the ported listing (v1 is a VGPR, s0 an SGPR, vcc
# the condition mask): the listing would be ambiguous, so the statement is an error until renamed.
# Names from LLVM's AMDGPUUsage "Register" syntax (v, s, a, ttmp, vcc, exec, scc, m0 ...).
AMD_REGISTER = re.compile(r"(?:[vsa]\d+|[vsa]\[\d+:\d+\]|ttmp\d+|vcc(?:_lo|_hi)?|exec(?:_lo|_hi)?|scc|m0|vccz|execz)",
                          re.I)
ERROR = "error"
NOT_INSTRUCTION = "not an instruction"
OUTSIDE = "outside the Rosetta"
UNMAPPED = "no mapping"


@dataclass(frozen=True, slots=True)
class Statement:
    """One PTX instruction statement as written, with where its parts are (0-based columns)."""

    line: int                  # 1-based
    text: str                  # the statement as written (without the `;`)
    mnemonic: str
    column: int                # of the mnemonic
    operands: str
    operands_column: int
    guard: str = ""            # `@%p1`, `@!%p`


def split_operands(text: str, start: int) -> list[tuple[str, int]]:
    """Top-level comma-separated operands with their columns (`{a, b}` and `[x+4]` stay whole)."""
    out: list[tuple[str, int]] = []
    depth, begin = 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == "," and depth <= 0:
            part = text[begin:i]
            lead = len(part) - len(part.lstrip())
            if part.strip():
                out.append((part.strip(), start + begin + lead))
            begin = i + 1
    return out


def operand_names(operands: str) -> list[str]:
    """The manual's operand names of a form (`p[|q], a, b` -> p, a, b; `{!}c` -> c)."""
    out = []
    for part in split_operands(operands.split(";")[0], 0):
        name = re.sub(r"\[\|?\w*\]|\{[^}]*\}|[\[\]{}!|]", "", part[0]).strip()
        if name:
            out.append(name.split()[0])
    return out


def _bad_registers(st: Statement, ops: list[tuple[str, int]]) -> list[str]:
    errors = []
    for text, col in ops:
        for m in re.finditer(r"[%\w\[\]:]+", text):
            word = m.group(0)
            if not word.startswith("%") and AMD_REGISTER.fullmatch(word):
                errors.append(f"{st.line}:{col + m.start() + 1}: register name {word!r} is an AMD register "
                              "in the ported listing; rename it (PTX registers are usually %r1, %rd1 ...)")
    return errors


def port_statement(st: Statement, forms: WrittenForms, row_for: Callable[[str, str], dict[str, Any]],
                   chapter_of: Callable[[str], str | None]) -> dict[str, Any]:
    """One output entry: {line, ptx, level, amd | sequence, evidence | reason | errors}."""
    out: dict[str, Any] = {"line": st.line, "ptx": st.text.strip()}
    try:
        found, chapter = forms.resolve(st.mnemonic)
    except GpuisaError:
        head = st.mnemonic.split(".")[0]
        where = chapter_of(head)
        if where is None:
            return out | {"level": ERROR, "errors": [f"{st.line}:{st.column + 1}: unknown PTX instruction "
                                                     f"{st.mnemonic!r}"]}
        return out | {"level": OUTSIDE, "reason": f"{head} is in the manual's {where!r} chapter; the Rosetta maps "
                                                  "the integer, logic, comparison, floating-point and cvt chapters"}
    ops = split_operands(st.operands, st.operands_column)
    names = operand_names(found.form.operands)
    errors = _bad_registers(st, ops)
    if len(ops) != len(names):
        errors.insert(0, f"{st.line}:{st.operands_column + 1}: {st.mnemonic} takes {len(names)} operands "
                         f"({', '.join(names)}), got {len(ops)}")
    if errors:
        return out | {"level": ERROR, "errors": errors}
    row = row_for(found.form.form, chapter)
    carried = {n: t for n, (t, _) in zip(names, ops, strict=True)}
    guard = [f"guarded by {st.guard}: on AMD the statement runs under an EXEC mask made from that predicate"] \
        if st.guard else []
    level = row["level"]
    out["level"] = level
    out["form"] = row["form"]
    if level in (EQ, EQR):
        out["amd"] = amd_text(row["amd"], row.get("wiring", {}), carried, names[0])
        out["evidence"] = row["evidence"]["detail"]
        out["restrictions"] = list(row.get("restrictions", [])) + guard
    elif level == SEQ:
        out["sequence"] = [amd_text(s["amd"], s["wiring"], carried | {f"t{i}": f"%tmp{i}" for i in range(4)},
                                    s.get("out", names[0]), dest_text=_dest(s, carried, names[0]))
                           for s in row["sequence"]]
        out["evidence"] = row["evidence"]["detail"]
        out["restrictions"] = list(row.get("restrictions", [])) + guard
    else:
        why = row.get("reason") or "no mapping"
        near = row.get("nearest")
        if near and decided(row):
            why += f" (nearest: {near['amd']}: {near['evidence']['detail']})"
        out["reason"] = why
    return out


def fusable_pairs(statements: list[Statement], forms: WrittenForms) -> dict[int, str]:
    """{index of the first statement: PAIRS name} where statement i writes t and statement i+1 reads t as its first
    source (`shl.b64 t, a, b; add.u64 d, t, c`), nothing later reads t, and neither is guarded."""
    out: dict[int, str] = {}
    by_forms = {(first, second): name for name, (first, second, _, _) in PAIRS.items()}
    for i in range(len(statements) - 1):
        s1, s2 = statements[i], statements[i + 1]
        if s1.guard or s2.guard:
            continue
        try:
            f1, f2 = forms.resolve(s1.mnemonic)[0].form.form, forms.resolve(s2.mnemonic)[0].form.form
        except GpuisaError:
            continue
        name = by_forms.get((f1, f2))
        ops1 = [t for t, _ in split_operands(s1.operands, 0)]
        ops2 = [t for t, _ in split_operands(s2.operands, 0)]
        if name is None or len(ops1) != 3 or len(ops2) != 3 or ops2[1] != ops1[0] or ops2[2] == ops1[0]:
            continue
        later = " ".join(st.operands for st in statements[i + 2:])
        if re.search(rf"(?<![\w%]){re.escape(ops1[0])}(?!\w)", later):
            continue
        out[i] = name
    return out


def port_pair(s1: Statement, s2: Statement, row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Entries for a fused pair: the first line points at the second, which carries the AMD instruction."""
    ops1 = [t for t, _ in split_operands(s1.operands, 0)]
    ops2 = [t for t, _ in split_operands(s2.operands, 0)]
    carried = {"a": ops1[1], "b": ops1[2], "c": ops2[2], "d": ops2[0]}
    first = {"line": s1.line, "ptx": s1.text.strip(), "level": row["level"], "form": row["form"],
             "amd": f"(fused into line {s2.line})", "evidence": row["evidence"]["detail"],
             "restrictions": list(row.get("restrictions", []))}
    second = {"line": s2.line, "ptx": s2.text.strip(), "level": row["level"], "form": row["form"],
              "amd": amd_text(row["amd"], row.get("wiring", {}), carried, "d"),
              "evidence": row["evidence"]["detail"], "restrictions": [*row.get("restrictions", []),
                                                               f"fused with line {s1.line} ({ops1[0]} is not read again)"]}
    return first, second


def _dest(step: dict[str, Any], carried: dict[str, str], dest: str) -> str:
    out = step.get("out", "r")
    return carried[dest] if out == "r" else f"%tmp{out.lstrip('t')}"


def amd_text(name: str, wiring: dict[str, str], carried: dict[str, str], dest: str, dest_text: str = "") -> str:
    """`v_add_u32 %r1, %r2, %r3`: the AMD instruction with the PTX operands in its slots (S0, S1, S2 order), then
    the predicate or carry it reads as VCC/SCC (`v_cndmask_b32 %r1, %r3, %r2, %p1`: the mask operand)."""
    slots = [wiring[k] for k in sorted(wiring) if re.fullmatch(r"S\d", k)]
    flags = [wiring[k] for k in ("VCC", "SCC") if k in wiring]
    args = [dest_text or carried.get(dest, dest)] + [carried.get(v, v) for v in (*slots, *flags)]
    return f"{name} {', '.join(args)}"
