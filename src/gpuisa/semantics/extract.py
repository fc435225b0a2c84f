"""Pull the statements out of pseudocode text before parsing.

Newer manuals ("headed" style) give a fenced block; it may carry functional examples
(`S_ABS_I32(0x00000001) => 0x00000001`), which are facts, not statements, so they are set
aside. Older manuals ("table" style: vega, vega7, rdna1, rdna2, cdna1, cdna2) put prose and
pseudocode in one table cell: `ABSDIFF(x, y) := (...) // UNSIGNED comparison D.u =
ABSDIFF(S0.u, S1.u) + S2.u. Dword SAD with accumulation.` Sentences are tried one by one
against the grammar; those that parse as statements are kept, the prose is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Tree
from lark.exceptions import LarkError

from gpuisa.semantics.dialect import SPACED_KEYWORDS
from gpuisa.semantics.grammar import parser

AMD_GRAMMAR = "amd_pseudocode.lark"

_EXAMPLE = re.compile(r"^\s*[A-Z][A-Z0-9_]*\s*\(.*\)\s*=>\s*(.*)$")
# a list of facts in a code block: "S1.u[0] -- value is a signaling NAN."
_PROSE_LINE = re.compile(r"^\s*\S+ -- [a-z]")
_EXAMPLE_INLINE = re.compile(r"\b([A-Z][A-Z0-9_]*)\s*\(([^()]*)\)\s*=>\s*(0x[0-9a-fA-F]+|-?\d+)")
# a period that ends a sentence: followed by space or end, not part of "..." or a number
_SENTENCE_END = re.compile(r"(?<!\.)\.(?=\s|$)")
# inside a // comment of one-line text, where the next statement begins
_STMT_START = re.compile(
    r"\b(?:(?:D\d?|S\d|SCC|VCC|EXEC|tmp|VDST|SDST|M0|PC)(?:\.[a-z]\w*)?(?:\[[^\]]*\])?(?:\.[a-z]\w*)?\s*"
    r"(?:=(?!=)|\+=|-=|\|=|&=|\^=)|if\b|for\b|endif\b|endfor\b|else\b|elsif\b)"
)


@dataclass(slots=True)
class Extracted:
    code: str                                   # statements to parse
    dropped: list[str] = field(default_factory=list)   # prose left out
    examples: list[tuple[str, str, str]] = field(default_factory=list)  # (NAME, args, result)


def extract_examples(text: str) -> list[tuple[str, str, str]]:
    """Functional examples `NAME(args) => result` found anywhere in a block."""
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in _EXAMPLE_INLINE.finditer(text)]


def prepare_headed(text: str) -> Extracted:
    """Drop example lines from a fenced block; the rest is parsed as it stands."""
    keep, dropped = [], []
    for line in text.splitlines():
        if _EXAMPLE.match(line) or _PROSE_LINE.match(line):
            dropped.append(line.strip())
        else:
            keep.append(line)
    return Extracted("\n".join(keep), dropped, extract_examples(text))


def _decomment(sentence: str, budget: list[int]) -> list[str]:
    """Readings of a one-line sentence with its // comments cut out (dialect rule open-comments).

    Without newlines a comment has no end, so each place where a statement could resume is a
    candidate; the caller keeps the first reading that parses.
    """
    i = sentence.find("//")
    if i < 0:
        return [sentence]
    before, after = sentence[:i], sentence[i + 2:]
    out: list[str] = []
    for m in _STMT_START.finditer(after):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        out.extend(before + " " + rest for rest in _decomment(after[m.start():], budget))
    out.append(before)
    return out


def _statement_ok(tree: Tree) -> bool:
    """A sentence is code when it has a real statement and no bare words."""
    stmts = tree.children[0].children
    real = False
    for st in stmts:
        if not isinstance(st, Tree):
            continue
        if st.data == "expr_stmt":
            child = st.children[0]
            if not (isinstance(child, Tree) and child.data == "call"):
                return False
        else:
            real = True
    return real


def _first_parse(sentence: str) -> str | None:
    """The first comment-free reading of a sentence that parses as statements, if any."""
    p = parser(AMD_GRAMMAR)
    for reading in _decomment(sentence, [24]):
        s = reading.strip().rstrip(";").strip()
        if not s:
            continue
        try:
            tree = p.parse(s)
        except LarkError:
            continue
        if _statement_ok(tree):
            return s
    return None


def prepare_table(text: str) -> Extracted:
    """Keep the sentences of an opcode-table cell that parse as statements (dialect rule prose-sentences)."""
    examples = extract_examples(text)
    body = _EXAMPLE_INLINE.sub(" ", text)
    for pattern, spelling in SPACED_KEYWORDS:
        body = re.sub(pattern, spelling, body)
    sentences = _SENTENCE_END.split(body)
    kept, dropped = [], []
    i = 0
    while i < len(sentences):
        # dialect rule full-stops-in-comments: "// Note: ... V_MAX_F32. D.f = ..." is one statement, so a
        # sentence that fails alone is retried joined with the next ones
        for j in range(i, min(i + 4, len(sentences))):
            found = _first_parse(". ".join(sentences[i:j + 1]))
            if found or ("//" not in sentences[i] and not _STMT_START.match(sentences[i].strip())):
                break
        if found:
            kept.append(found)
            i = j + 1
            continue
        if sentences[i].strip():
            dropped.append(sentences[i].strip())
        i += 1
    return Extracted(";\n".join(kept), dropped, examples)


def prepare(text: str, style: str) -> Extracted:
    if style == "table":
        return prepare_table(text)
    return prepare_headed(text)
