"""What the language server says about an instruction, computed from the catalog's query API.

One object per catalog: it resolves mnemonics (LLVM spellings, PTX forms), looks up per-target
verdicts and PTX requirements, and writes hover text, completion lists and operand help. Every
answer is cached by its inputs: a hover or a diagnostic pass over a 10,000-line file asks the
catalog once per distinct mnemonic, not once per line.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

from gpuisa.archs import BY_KEY, TARGET_TO_ARCH, newest_first
from gpuisa.catalog.query import Catalog
from gpuisa.errors import GpuisaError

DEFAULT_PAGES = "http://127.0.0.1:8000"

_SM = re.compile(r"^sm_(\d+)([af]?)$")
_SM_REQ = re.compile(r"^sm_(\d+)([af]?)(\+?)$")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One target's verdict on one instruction, with the evidence that decided it."""

    verdict: str            # supported / not supported / inconclusive / unknown
    target: str
    evidence: str           # "LLVM MC test gfx11_unsupported.s:1518: ..." or "llvm-mc 22.1.8: ..."


@dataclass(frozen=True, slots=True)
class PtxRequirement:
    """What a PTX form needs: the sm targets and PTX ISA version, and who says so."""

    form: str
    sm: tuple[str, ...]     # ("sm_80+",) or ("sm_90a",) as the source writes them
    version: str | None     # "9.3"
    source: str             # "verified by ptxas 13.5.37" / "documented (PTX ISA 9.4 §9.7.1.5, file:line)"
    verified: bool          # a tool's verdict (evidence) rather than the manual's notes


def arch_of_target(target: str) -> str | None:
    """Arch key for a gfx target (gfx1100 -> rdna3); None when gpuisa knows no such target."""
    return TARGET_TO_ARCH.get(target.lower())


def is_ptx_target(target: str) -> bool:
    return bool(_SM.match(target.lower()))


def sm_satisfies(target: str, requirement: str) -> bool | None:
    """Whether `.target sm_75` meets a requirement like `sm_80+`, `sm_90a`, `sm_100f+`; None if unreadable."""
    if requirement == "all":
        return True
    t, r = _SM.match(target.lower()), _SM_REQ.match(requirement.lower())
    if not t or not r:
        return None
    num, suffix = int(t.group(1)), t.group(2)
    need, kind, plus = int(r.group(1)), r.group(2), r.group(3)
    if kind == "":
        return num >= need if plus else num == need
    same_family = num // 10 == need // 10
    if kind == "a":
        return suffix == "a" and (num >= need and same_family if plus else num == need)
    return suffix in ("a", "f") and same_family and num >= need       # family-specific "f"


def describe_sm(requirement: str) -> str:
    return requirement[:-1] + " or higher" if requirement.endswith("+") else requirement


def _version_key(v: str) -> tuple[int, int]:
    major, _, minor = v.partition(".")
    return (int(major) if major.isdigit() else 0, int(minor) if minor.isdigit() else 0)


def version_satisfies(have: str, need: str) -> bool:
    return _version_key(have) >= _version_key(need)


class Facts:
    """Cached, thread-safe answers about instructions for one opened catalog.

    Each thread reads through its own read-only connection to the catalog file, so the thread that
    warms the hover cache never makes a request wait on a lock; the caches are shared."""

    def __init__(self, catalog: Catalog, pages: str = DEFAULT_PAGES) -> None:
        self.catalog = catalog
        self._local = threading.local()
        self._local.catalog = catalog
        self.pages = pages.rstrip("/")
        self._resolved: dict[str, str | None] = {}
        self._targets: dict[str, dict[str, dict]] = {}
        self._docs: dict[tuple[str, str | None], dict | None] = {}
        self._ptx: dict[str, dict | None] = {}
        self._completions: dict[str, list[tuple[str, str]]] = {}
        self._ptx_names: list[str] | None = None

    @property
    def db(self) -> Catalog:
        """This thread's catalog connection (opened on first use)."""
        cat = getattr(self._local, "catalog", None)
        if cat is None:
            cat = self._local.catalog = Catalog(self.catalog.path)
        return cat

    # ------------------------------------------------------------------ AMD

    def amd_key(self, mnemonic: str) -> str | None:
        """Catalog key (V_SAD_U32) of an AMD mnemonic as written (v_sad_u32_e64); None if unknown."""
        low = mnemonic.lower()
        if low in self._resolved:
            return self._resolved[low]
        key = self.db.key_of(low)       # the catalog's one name resolver; None for PTX names and unknowns
        self._resolved[low] = key
        return key

    def targets(self, key: str) -> dict[str, dict]:
        found = self._targets.get(key)
        if found is None:
            found = self._targets[key] = self.db.targets(key)
        return found

    def verdict(self, key: str, target: str) -> Verdict | None:
        entry = self.targets(key).get(target.lower())
        if entry is None:
            return None
        return Verdict(entry["verdict"], target.lower(), _evidence(entry))

    def amd_doc(self, key: str, arch: str | None) -> dict | None:
        """The page document for the arch (or the newest that has it); None when not found."""
        ck = (key, arch)
        if ck not in self._docs:
            try:
                doc = self.db.show(key, arch).as_json()
            except GpuisaError:
                doc = None
            self._docs[ck] = doc
        return self._docs[ck]

    def amd_doc_for_target(self, key: str, target: str | None) -> tuple[dict | None, str | None]:
        """(document, note): the target's arch when its manual has the instruction, else the newest."""
        arch = arch_of_target(target) if target else None
        newest = self.amd_doc(key, None)
        if newest is None:
            return None, None
        if arch is None:
            return newest, None
        if arch in newest["archs"]:
            return self.amd_doc(key, arch), None
        return newest, f"not in the {BY_KEY[arch].display} manual; shown: {newest['arch_display']}"

    def hover_amd(self, mnemonic: str, target: str | None) -> str | None:
        key = self.amd_key(mnemonic)
        if key is None:
            return None
        return self._hover_amd(key, (target or "").lower())

    @lru_cache(maxsize=4096)  # noqa: B019 - one Facts per server; the cache lives as long as it
    def _hover_amd(self, key: str, target: str) -> str:
        doc, note = self.amd_doc_for_target(key, target or None)
        if doc is None:
            return f"**{key.lower()}**"
        out = [f"**{doc['name']}** · {doc['arch_display']} · {doc['category']}", ""]
        if doc.get("summary"):
            out += [doc["summary"], ""]
        if note:
            out += [f"_{note}_", ""]
        where = f"{target}, {doc['arch_display']}" if target and not note else doc["arch_display"]
        for enc in doc["encodings"][:2]:
            width = f"{enc['width']}-bit, " if enc.get("width") else ""
            ident = f", identifier `{enc['identifier']}`" if enc.get("identifier") else ""
            out.append(f"**Encoding ({where}):** {enc['encoding']}, {width}opcode {enc['opcode']}{ident}  ")
        errata = [e for e in doc.get("errata", []) if e.get("arch") == doc["arch"]]
        for e in errata[:2]:
            out.append(f"_Erratum ({e['kind']}): {e['detail']}_  ")
        if target:
            v = self.verdict(key, target)
            if v is None:
                out.append(f"**{target}:** gpuisa knows no such target")
            elif v.verdict == "unknown":
                out.append(f"**no evidence for {target}** ({v.evidence})")
            else:
                out.append(f"**{v.verdict} on {target}** ({v.evidence})")
        out.append("")
        if doc.get("operands"):
            ops = ", ".join(f"{o['name']} ({o['access']}, {o.get('format') or o.get('register_class') or ''})".replace(", )", ")")
                            for o in doc["operands"])
            out += [f"**Operands:** {ops}", ""]
        out += _semantics_and_equivalents(doc, "ptx")
        out.append(f"[{doc['name']} on {doc['arch_display']}]({self.pages}/amd/{doc['arch']}/{doc['name']})")
        return "\n".join(out)

    def amd_completions(self, target: str | None) -> list[tuple[str, str]]:
        """(mnemonic, summary) for every instruction of the target's arch not refuted on the target."""
        tkey = (target or "").lower()
        found = self._completions.get(tkey)
        if found is not None:
            return found
        arch = arch_of_target(tkey) if tkey else None
        items: dict[str, str] = {}
        archs = [arch] if arch else newest_first(list(BY_KEY))
        for a in archs:
            groups = self.db.arch_instructions(a)
            for group in groups.values():
                for ins in group:
                    items.setdefault(ins["name"], ins["summary"] or "")
        if arch:
            for name in list(items):
                v = self.verdict(name.upper(), tkey)
                if v is not None and v.verdict == "not supported":
                    del items[name]
        found = sorted(items.items())
        self._completions[tkey] = found
        return found

    def amd_signature(self, mnemonic: str, target: str | None) -> tuple[str, list[tuple[str, str]], str] | None:
        """(label, [(operand, doc)], documentation) for signature help."""
        key = self.amd_key(mnemonic)
        if key is None:
            return None
        doc, _ = self.amd_doc_for_target(key, target)
        if doc is None:
            return None
        # operands in assembler order, LLVM's spelling where the syntax pages give it; modifiers are not positional
        params = [((o.get("syntax") or o["name"]).lower(),
                   f"{o['access']}; {o.get('register_class') or ''}; {o.get('format') or ''}".strip("; "))
                  for o in doc.get("operands", []) if o.get("role") != "modifier"]
        label = doc["name"] + (" " + ", ".join(p for p, _ in params) if params else "")
        example = next((e["asm"] for e in doc.get("examples", [])), "")
        text = doc.get("summary") or ""
        if example:
            text += f"\n\nExample: `{example}`"
        return label, params, text

    # ------------------------------------------------------------------ PTX

    def ptx_doc(self, opcode: str) -> dict | None:
        """The PTX document for an opcode as written: that exact form, else its instruction.

        Only an exact form carries requirements: `ld.global.u32` must not borrow those of a longer
        form such as `ld.global.u32.proxy::readonly` that the catalog's prefix lookup would find."""
        low = opcode.lower()
        if low in self._ptx:
            return self._ptx[low]
        doc = None
        try:
            shown = self.db.show_ptx(low)
            doc = shown.as_json() if shown is not None else None
            if doc is not None and doc.get("form") and doc["form"].lower() != low:
                doc = None
            if doc is None:
                parts = low.split(".")
                for n in range(len(parts), 0, -1):
                    found = self.db.show_ptx(".".join(parts[:n]))
                    if found is not None and not found.form:
                        doc = found.as_json()
                        break
        except GpuisaError:
            doc = None
        self._ptx[low] = doc
        return doc

    def ptx_requirement(self, opcode: str) -> PtxRequirement | None:
        """The target and version a PTX form needs; None unless the opcode is exactly a known form."""
        doc = self.ptx_doc(opcode)
        if doc is None or not doc.get("form"):
            return None
        form = doc["forms"][0]
        verified = form.get("verified") or {}
        documented = form.get("documented") or {}
        tool = (doc.get("verification") or {}).get("tool") or "ptxas"
        if verified.get("status") == "verified" and verified.get("sm"):
            sm = tuple(s if s.endswith("+") or _SM_REQ.match(s) is None or s[-1] in "af" else s + "+"
                       for s in verified["sm"])
            return PtxRequirement(form["form"], sm, verified.get("ptx_version") or documented.get("ptx_version"),
                                  f"verified by {tool}", True)
        sm = tuple(documented.get("sm") or ())
        if not sm and not documented.get("ptx_version"):
            return None
        src = form.get("source") or {}
        edition = next((s.get("edition") for s in doc.get("sources", []) if s.get("edition")), "")
        where = f"{src.get('file', '')}:{src.get('line', '')}" if src.get("file") else ""
        label = f"PTX ISA {edition} §{form['section']}" if edition else f"§{form['section']}"
        return PtxRequirement(form["form"], sm, documented.get("ptx_version"),
                              f"documented ({label}{', ' + where if where else ''})", False)

    def ptx_unmet(self, opcode: str, target: str | None, version: str | None) -> tuple[str, bool] | None:
        """(why a PTX form cannot be used on this `.target` / `.version`, whether a tool verified that);
        None when it can be used or nothing is known."""
        req = self.ptx_requirement(opcode)
        if req is None:
            return None
        problems = []
        if target and req.sm:
            ok = [sm_satisfies(target, r) for r in req.sm]
            if None not in ok and not any(ok):
                problems.append(f"needs {' or '.join(describe_sm(r) for r in req.sm)} (.target {target})")
        if version and req.version and not version_satisfies(version, req.version):
            problems.append(f"needs PTX ISA {req.version} (.version {version})")
        if not problems:
            return None
        return f"{req.form} {'; '.join(problems)}: {req.source}", req.verified

    def hover_ptx(self, opcode: str, target: str | None, version: str | None) -> str | None:
        return self._hover_ptx(opcode.lower(), (target or "").lower(), version or "")

    @lru_cache(maxsize=4096)  # noqa: B019 - one Facts per server
    def _hover_ptx(self, opcode: str, target: str, version: str) -> str | None:
        doc = self.ptx_doc(opcode)
        if doc is None:
            return None
        title = doc.get("form") or doc["name"]
        out = [f"**{title}** · PTX · {doc.get('category') or ''}".rstrip(" ·"), ""]
        if doc.get("summary"):
            out += [doc["summary"], ""]
        if doc.get("form"):
            f = doc["forms"][0]
            documented = f.get("documented") or {}
            if documented:
                out.append(f"**Documented:** PTX ISA {documented.get('ptx_version') or '?'}, "
                           f"{', '.join(documented.get('sm') or []) or 'all targets'}  ")
            v = f.get("verified")
            tool = (doc.get("verification") or {}).get("tool") or "ptxas"
            if v:
                if v.get("status") == "verified":
                    out.append(f"**Verified** with {tool}: PTX ISA {v.get('ptx_version')}, {', '.join(v.get('sm') or [])}  ")
                else:
                    out.append(f"**{v.get('status')}** with {tool}: {v.get('message') or ''}  ")
            else:
                out.append("_Not verified with ptxas in this catalog (built without --verify)_  ")
            if target or version:
                unmet = self.ptx_unmet(opcode, target or None, version or None)
                here = " / ".join(x for x in (f".target {target}" if target else "",
                                              f".version {version}" if version else "") if x)
                out.append(f"**{here}:** " + ("usable" if unmet is None else unmet[0]))
            if f.get("sass"):
                out.append("**SASS:** " + "; ".join(f"{t}: {' '.join(ops)}" for t, ops in list(f["sass"].items())[:4]))
            out.append("")
        elif doc.get("syntax"):
            out += [_fenced(doc["syntax"]), ""]
        out += _semantics_and_equivalents(doc, "amd")
        out.append(f"[{doc['name']} in the PTX reference]({self.pages}/ptx/{doc['name']})")
        return "\n".join(out)

    def ptx_completions(self, prefix: str = "") -> list[tuple[str, str]]:
        """PTX instruction names, and once one is typed with a `.` after it, its forms (clmad.lo.u64)."""
        if self._ptx_names is None:
            self._ptx_names = sorted(set(self.db.ptx_names()))
        names = [(n, "") for n in self._ptx_names]
        owners = [n for n in self._ptx_names if prefix.startswith(n.lower() + ".")]
        if not owners:
            return names
        doc = self.ptx_doc(max(owners, key=len))
        forms = []
        for f in (doc or {}).get("forms", []):
            documented = f.get("documented") or {}
            detail = f"PTX ISA {documented.get('ptx_version')}; {', '.join(documented.get('sm') or [])}" \
                if documented.get("ptx_version") else ""
            forms.append((f["form"], detail))
        return names + forms

    def ptx_signature(self, opcode: str) -> tuple[str, list[tuple[str, str]], str] | None:
        doc = self.ptx_doc(opcode)
        if doc is None:
            return None
        operands = (doc["forms"][0].get("operands") if doc.get("form") and doc.get("forms") else "") or ""
        params = [(p.strip(), "") for p in operands.split(",") if p.strip()]
        label = (doc.get("form") or doc["name"]) + (" " + ", ".join(p for p, _ in params) if params else "")
        return label, params, (doc.get("syntax") or doc.get("summary") or "")[:2000]


def _semantics_and_equivalents(doc: dict, other: str) -> list[str]:
    """The hover's tail, the same for both vendors: the semantics block, then up to four of the other side's equivalents."""
    out: list[str] = []
    if doc.get("semantics"):
        out += [_fenced(doc["semantics"]), ""]
    eq = doc.get("equivalents") or []
    if eq:
        label = "PTX" if other == "ptx" else "AMD"
        out += [f"**{label} equivalents:** " + "; ".join(_equivalent_line(e, other) for e in _first_per(eq, other)[:4]), ""]
    return out


def _fenced(text: str, limit: int = 1500) -> str:
    """A code block for hover Markdown; the PTX manual's blocks come fenced already."""
    text = text.strip()
    if text.startswith("```"):
        return text if len(text) <= limit else text[:limit] + "\n```"
    return "```\n" + text[:limit] + "\n```"


def _evidence(entry: dict) -> str:
    """One line naming who decided a verdict: the tool and version, or the LLVM test (release) file:line."""
    tool = entry.get("tool") or ""
    file = entry.get("file") or ""
    where = f"{file.rsplit('/', 1)[-1]}:{entry.get('line')}" if file else ""
    kind = entry.get("evidence") or ""
    if not tool and kind == "llvm-test":
        release = re.match(r"llvm-project-([\d.]+)/", file)
        tool = f"LLVM {release.group(1)} MC test" if release else "LLVM MC test"
    who = tool or kind
    detail = entry.get("detail") or ""
    if entry.get("spelling"):
        detail = f"as {entry['spelling']}" + (f"; {detail}" if detail else "")
    parts = [p for p in (who, where) if p]
    return (" ".join(parts) + (f": {detail}" if detail else "")).strip()


def _first_per(mappings: list[dict], side: str) -> list[dict]:
    seen: set[str] = set()
    out = []
    for m in mappings:
        k = m.get(side) or m.get("concept", "")
        if k in seen:
            continue
        seen.add(k)
        out.append(m)
    return out


def _equivalent_line(m: dict, side: str) -> str:
    name = m.get(side) or "(sequence)"
    evidence = (m.get("evidence") or {}).get("kind", "")
    return f"`{name}` {m.get('level', '')}" + (f" ({evidence})" if evidence else "")
