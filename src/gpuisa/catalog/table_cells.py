"""The older manuals' opcode-table cells, split into prose and pseudocode for the page.

Vega, Vega 7nm, RDNA 1-2 and CDNA 1-2 describe an instruction in one table cell that runs prose and
pseudocode together on one line (vega: `ABSDIFF(x, y) := (x > y ? x - y : y - x) // UNSIGNED
comparison D.u = ABSDIFF(S0.u, S1.u) + S2.u. Dword SAD with accumulation.`). The catalog keeps the
cell as the manual gives it (the evaluator reads it so); a page shows the prose as the Description
and the code as Semantics, one statement per line. Splitting only inserts line breaks and indents
and sorts sentences into the two parts: no character of the cell is dropped or changed.
"""

from __future__ import annotations

import re

# A full stop that ends a sentence: followed by a space or the end, not part of "..." (`0 ... 31`).
_SENTENCE_END = re.compile(r"(?<=[^.]\.)\s+|(?<=[^.]\.)$")
# A sentence is pseudocode when it assigns, comments or uses the control keywords (a `;` alone is prose:
# "Input and output modifiers not supported; this is an untyped operation.").
_CODE = re.compile(r":=|(?<![=!<>])=(?![=>])|\+=|-=|//|\b(?:if|for|endif|endfor|else|elsif)\b.*\b(?:then|do|endif|endfor)\b"
                   r"|^\s*(?:endif|endfor)\b|\b(?:D\d?|S\d|SCC|VCC|EXEC)(?:\.\w+)?(?:\[[^\]]*\])?\s*=")
# Where a statement resumes after a `//` comment (the cell has no line ends to close comments):
# an assignment to a name (`D.u = ...`, `tmp[31:0] = ...`), `if ... then`, `for x in`, or a closing keyword.
_RESUME = re.compile(r"\b[A-Za-z_]\w*(?:\.\w+)?(?:\[[^\]]*\])?(?:\.\w+)?\s*(?::=|\+=|-=|\|=|&=|\^=|=(?![=>]))"
                     r"|\bif\s+[^/;]*?\bthen\b|\bfor\s+\w+\s+in\b|\b(?:endif|endfor|else|elsif)\b")
_OPENS = re.compile(r"\b(?:then|do|else)$")
_CLOSES = re.compile(r"^(?:endif|endfor|else|elsif)\b")
# Line breaks: after `;`, after `then` / `do` / `else`, before `else` / `elsif` / `endif` / `endfor`.
_BREAKS = re.compile(r"(?<=;)\s+|(?<=\bthen)\s+|(?<=\bdo)\s+|(?<=\belse)\s+(?!if\b)|\s+(?=\b(?:else|elsif|endif|endfor)\b)")


def split_cell(cell: str) -> tuple[str, str]:
    """(prose, pseudocode laid out one statement per line) of an older manual's table cell."""
    prose: list[str] = []
    code: list[str] = []
    for sentence in _SENTENCE_END.split(cell.strip()):
        if sentence.strip():
            (code if _CODE.search(sentence) else prose).append(sentence.strip())
    return " ".join(prose), layout(" ".join(code))


def layout(code: str) -> str:
    """One statement per line, comments on the line of the statement they follow, blocks indented."""
    lines: list[str] = []
    for part in _BREAKS.split(code):
        lines.extend(_cut_comments(part.strip()))
    out: list[str] = []
    depth = 0
    for line in (x for x in lines if x):
        if _CLOSES.match(line):
            depth = max(0, depth - 1)
        out.append("  " * depth + line)
        if _OPENS.search(line.split("//", 1)[0].rstrip()):
            depth += 1
    return "\n".join(out)


def _cut_comments(line: str) -> list[str]:
    """`a = 1 // note b = 2` -> ['a = 1 // note', 'b = 2']: a comment ends where a statement resumes."""
    out: list[str] = []
    while "//" in line:
        start = line.index("//") + 2
        m = _RESUME.search(line, start)
        if m is None:
            break
        out.append(line[:m.start()].rstrip())
        line = line[m.start():]
    out.append(line)
    return out
