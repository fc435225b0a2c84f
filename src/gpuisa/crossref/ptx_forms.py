"""A PTX instruction as a kernel writes it (`setp.lt.s32`, `cvt.rn.f32.s32`) -> the manual's form text.

The manual's form list is a covering set, not every spelling (`setp.lt.s32` is written
`setp.CmpOp{.ftz}.type` and listed as `setp.lt.b16` ...). A written mnemonic that is not listed is
matched against the Syntax templates of the listed forms with the same head: each template
component is a literal (`.lo`), a set the Syntax block defines (`.type = { .b16, ... }`) or an
optional `{...}`. The match takes the template's operands, so the form evaluates like a listed one.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

from gpuisa.errors import GpuisaError, NotFoundError
from gpuisa.model import InstructionDoc
from gpuisa.model_ptx import PtxFormText
from gpuisa.semantics.source import Texts

_SET = re.compile(r"((?:\.\w+\s*=\s*)+)\{([^}]*)\}")
_COMPONENT = re.compile(r"\{[^}]*\}|\.[\w:]+")


def syntax_sets(syntax: str) -> dict[str, tuple[str, ...]]:
    """`.dtype = .atype = { .u8, .u16 }` -> {'dtype': ('.u8', '.u16'), 'atype': (...)}; `.CmpOp = { eq, ne }`
    values are written without dots: they are modifiers all the same (`setp.eq`)."""
    out: dict[str, tuple[str, ...]] = {}
    for m in _SET.finditer(syntax):
        values = tuple("." + v.strip().lstrip(".") for v in m.group(2).split(",") if re.fullmatch(r"\.?\w+", v.strip()))
        for name in re.findall(r"\.(\w+)", m.group(1)):
            out.setdefault(name, values)
    return out


def _alternatives(token: str, sets: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], bool]:
    """The values a template component allows, and whether it may be left out."""
    optional = token.startswith("{")
    inner = token.strip("{}")
    values: list[str] = []
    for part in (p.strip() for p in inner.split(",")):
        if not part:
            continue
        part = part if part.startswith(".") else "." + part
        values += sets.get(part[1:], (part,))
    return tuple(values), optional


def matches_template(modifiers: tuple[str, ...], template: str, head: str, syntax: str) -> bool:
    """Whether `head` + modifiers is one spelling of the template's mnemonic."""
    mnemonic = template.split()[0] if template.split() else ""
    if not mnemonic.startswith(head):
        return False
    sets = syntax_sets(syntax)
    slots = [_alternatives(t, sets) for t in _COMPONENT.findall(mnemonic[len(head):])]

    @cache
    def fit(i: int, j: int) -> bool:
        if j == len(slots):
            return i == len(modifiers)
        values, optional = slots[j]
        if optional and fit(i, j + 1):
            return True
        return i < len(modifiers) and modifiers[i] in values and fit(i + 1, j + 1)

    return fit(0, 0)


class WrittenForms:
    """`Texts` whose ptx_form_text also answers written spellings the form list leaves out.

    `listed` is the manual's form list (`[(form, chapter)]`); the anchors for a written mnemonic
    are the listed forms with its head (`setp` for `setp.lt.s32`).
    """

    def __init__(self, texts: Texts, listed: list[tuple[str, str]]) -> None:
        self.texts = texts
        self.by_head: dict[str, list[str]] = {}
        self.chapter: dict[str, str] = {}
        for form, chapter in listed:
            self.by_head.setdefault(form.split(".")[0], []).append(form)
            self.chapter[form] = chapter
        self._found: dict[str, tuple[PtxFormText, str]] = {}

    def instruction_docs(self, arch: str) -> dict[str, list[InstructionDoc]]:
        return self.texts.instruction_docs(arch)

    def resolve(self, written: str) -> tuple[PtxFormText, str]:
        """(form text, chapter) for a written mnemonic; NotFoundError when no template fits."""
        key = written.strip().lower()
        if key in self._found:
            return self._found[key]
        head = key.split(".")[0]
        if key in self.chapter:
            out = (self.texts.ptx_form_text(key), self.chapter[key])
            self._found[key] = out
            return out
        seen: set[str] = set()
        for form in self.by_head.get(head, ()):
            found = self.texts.ptx_form_text(form)
            rec = found.form
            if rec.template in seen:
                continue
            seen.add(rec.template)
            name = rec.name.lower()
            if not key.startswith(name):
                continue
            mods = tuple("." + m for m in key[len(name):].split(".") if m)
            if matches_template(mods, rec.template, rec.name, found.syntax):
                types = tuple(m for m in mods if re.fullmatch(r"\.[usbf]\d+(x\d+)?|\.pred|\.bf16(x2)?", m))
                synth = replace(rec, form=key, modifiers=mods, types=types)
                out = (PtxFormText(synth, found.instruction, found.syntax, found.semantics, found.cite),
                       self.chapter[form])
                self._found[key] = out
                return out
        raise NotFoundError("PTX form", written, sorted(self.by_head.get(head, ()))[:8])

    def ptx_form_text(self, form: str) -> PtxFormText:
        try:
            return self.texts.ptx_form_text(form)
        except GpuisaError:
            return self.resolve(form)[0]
