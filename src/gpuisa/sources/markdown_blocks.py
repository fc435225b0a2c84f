"""Flatten a Markdown document into a list of blocks (heading, table, code, text) with line numbers.

markdown-it-py does the parsing (CommonMark + GFM tables); this module only turns its token
stream into plain-text blocks the manual readers can walk in order. Cell and heading text is
rendered from inline children, so escapes (`V\\_SAD`) and entities (`&#124;`) are decoded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

BlockKind = Literal["heading", "table", "code", "text"]


@dataclass(slots=True)
class Block:
    kind: BlockKind
    line: int                          # 1-based first line in the file
    text: str = ""                     # heading / paragraph / code text
    level: int = 0                     # heading level
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    row_lines: list[int] = field(default_factory=list)


_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")


def inline_text(tok: Token) -> str:
    """Plain text of an inline token: text and code spans, emphasis markers and HTML dropped."""
    parts: list[str] = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
    return "".join(parts).strip()


def parse_blocks(text: str) -> list[Block]:
    """Parse Markdown text into blocks in document order."""
    tokens = _PARSER.parse(text)
    blocks: list[Block] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        line = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "heading_open":
            blocks.append(Block("heading", line, inline_text(tokens[i + 1]), level=int(tok.tag[1])))
            i += 3
            continue
        if tok.type == "table_open":
            block = Block("table", line)
            row: list[str] | None = None
            in_head = False
            i += 1
            while i < n and tokens[i].type != "table_close":
                t = tokens[i]
                if t.type == "thead_open":
                    in_head = True
                elif t.type == "thead_close":
                    in_head = False
                elif t.type == "tr_open":
                    row = []
                    if not in_head:
                        block.row_lines.append((t.map[0] + 1) if t.map else line)
                elif t.type == "inline" and row is not None:
                    row.append(inline_text(t))
                elif t.type == "tr_close" and row is not None:
                    if in_head:
                        block.header = row
                    else:
                        block.rows.append(row)
                    row = None
                i += 1
            blocks.append(block)
            i += 1
            continue
        if tok.type in ("fence", "code_block"):
            blocks.append(Block("code", line, tok.content.rstrip("\n")))
        elif tok.type == "inline":
            # paragraphs and list items; a paragraph that is one code span is code in older manuals
            children = tok.children or []
            only_code = len(children) == 1 and children[0].type == "code_inline"
            blocks.append(Block("code" if only_code else "text", line, inline_text(tok)))
        elif tok.type == "html_block":
            pass
        i += 1
    return blocks
