"""Codec commands: disasm (bytes -> LLVM assembly), asm (assembly -> bytes), check-llvm."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Annotated

import typer

from gpuisa.errors import GpuisaError

TargetOpt = Annotated[str, typer.Option("--target", help="gfx target, e.g. gfx1100, gfx942, gfx1250.")]
CatalogOpt = Annotated[Path | None, typer.Option(
    "--catalog", help="Catalog file (default: $GPUISA_CATALOG or ~/.local/share/gpuisa/catalog.sqlite).")]
FileOpt = Annotated[Path | None, typer.Option("--file", "-f", help="Read the input from this file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document with every instruction.")]
True16Opt = Annotated[bool, typer.Option(
    "--real-true16", help="Print 16-bit VGPRs as v1.l / v1.h (llvm-mc -mattr=+real-true16; gfx11+).")]


def register(app: typer.Typer) -> None:
    app.command("disasm")(disasm)
    app.command("asm")(asm)
    app.command("check-llvm")(check_llvm)
    app.command("check-operands")(check_operands)


def asm(text: Annotated[str | None, typer.Argument(help="Assembly, e.g. \"v_sad_u32 v5, v1, v2, s3\".")] = None,
        target: TargetOpt = "", file: FileOpt = None, catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Assemble LLVM-syntax AMDGPU assembly (one instruction per line) to bytes."""
    from gpuisa.codec.api import encode

    if not target:
        raise GpuisaError("--target is required (a gfx target such as gfx1100)")
    if file is not None and text is not None:
        raise GpuisaError("give assembly text or --file, not both")
    where = "input"
    if file is not None:
        try:
            raw = file.read_bytes()
        except OSError as exc:
            raise GpuisaError(f"cannot read {file}: {exc.strerror}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GpuisaError(f"{file}: not UTF-8 text (byte {exc.start})") from None
        where = str(file)
    if text is None:
        raise GpuisaError("nothing to assemble: give assembly text or --file")
    try:
        encoded = encode(text, target, catalog)
    except GpuisaError as exc:
        raise GpuisaError(f"{where}:{exc}") from None
    if as_json:
        print(json.dumps({"target": target, "instructions": [e.to_json() for e in encoded]}, indent=1))
    else:
        print("\n".join(e.data.hex(" ") if len(encoded) == 1 else f"{e.data.hex(' '):<36} {e.text}"
                        for e in encoded))


def disasm(hexbytes: Annotated[list[str] | None, typer.Argument(help="Hex bytes (05 00 25 d6 ...) or dwords.")] = None,
           target: TargetOpt = "", file: FileOpt = None, catalog: CatalogOpt = None, as_json: JsonOpt = False,
           true16: True16Opt = False) -> None:
    """Disassemble raw words, a raw binary file or an AMDGPU ELF code object (every kernel in .text)."""
    collecting = gc.isenabled()
    gc.disable()   # see _disasm
    try:
        _disasm(hexbytes, target, file, catalog, as_json, true16)
    finally:
        if collecting:
            gc.enable()


def _disasm(hexbytes: list[str] | None, target: str, file: Path | None, catalog: Path | None, as_json: bool,
            true16: bool) -> None:
    """disasm without the cyclic garbage collector: decoding makes about ten short-lived objects per
    instruction, which reference counting frees, and each full collection they trigger walks the loaded
    tables and modules and finds nothing (0.06-0.07 s of 0.75 s CPU on 100k words, bench/bench_codec.py)."""
    from gpuisa.codec.api import decode, decode_file, parse_hex

    if not target:
        raise GpuisaError("--target is required (a gfx target such as gfx1100)")
    if file is not None and hexbytes:
        raise GpuisaError("give hex bytes or --file, not both")
    if file is not None:
        decoded = decode_file(file, target, catalog, true16=true16)
        where = str(file)
    else:
        if not hexbytes:
            raise GpuisaError("nothing to disassemble: give hex bytes or --file")
        data = parse_hex(hexbytes)
        if not data:
            raise GpuisaError("nothing to disassemble: no bytes in the input")
        decoded = decode(data, target, catalog, true16=true16)
        where = "input"
    if as_json:
        print(json.dumps({"target": target, "instructions": [d.to_json() | ({"symbol": d.symbol} if d.symbol else {})
                                                              for d in decoded]}, indent=1))
    else:
        symbol = None
        lines = []
        shown: dict[bytes, str] = {}   # bytes and text of a valid instruction, printed once per distinct one
        for d in decoded:
            if d.symbol and d.symbol != symbol:
                symbol = d.symbol
                lines.append(f"{symbol}:")
            tail = shown.get(d.data) if d.valid else None
            if tail is None:
                tail = f"{d.data.hex(' '):<36} {d.text if d.valid else f'<invalid: {d.reason}>'}"
                if d.valid:
                    shown[d.data] = tail
            lines.append(f"{d.offset:#06x}: {tail}")
        print("\n".join(lines))
    bad = [d for d in decoded if not d.valid]
    if bad:
        raise GpuisaError(f"{where}: {len(bad)} invalid word(s) for {target}, first at offset {bad[0].offset:#x}: "
                          f"{bad[0].reason}")


def check_llvm(target: Annotated[list[str] | None, typer.Option("--target", help="gfx target (repeatable).")] = None,
               sample: Annotated[int | None, typer.Option(help="Check a random sample of N examples per target.")] = None,
               top: Annotated[int, typer.Option(help="Failure classes to list per target.")] = 10,
               sources: Annotated[Path | None, typer.Option("--sources", help="Vendor sources folder.")] = None,
               catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Decode and encode every LLVM MC test example per target and encoding family, with failure classes."""
    from gpuisa import paths
    from gpuisa.codec.conformance import DEFAULT_TARGETS, run

    if sample is not None and sample < 1:
        raise GpuisaError("--sample must be at least 1")
    reports = run(sources or paths.default_sources(), tuple(target or DEFAULT_TARGETS), catalog, sample)
    if as_json:
        print(json.dumps([r.to_json(top) for r in reports], indent=1))
        return
    for r in reports:
        d, e = r.totals("decode"), r.totals("encode")
        print(f"{r.target}: decode {d.ok}/{d.total} ({d.rate:.1%}), encode {e.ok}/{e.total} ({e.rate:.1%})"
              + (f"; skipped {sum(r.skipped.values())} ({', '.join(f'{k}: {v}' for k, v in r.skipped.items())})"
                 if r.skipped else "")
              + "".join(f"; {k}: {v}" for k, v in r.notes.items()))
        fams = sorted(set(r.decode) | set(r.encode), key=lambda f: -(r.decode[f].total + r.encode[f].total))
        for fam in fams:
            dt, et = r.decode[fam], r.encode[fam]
            print(f"  {fam:<10} decode {dt.ok:>6}/{dt.total:<6} {dt.rate:6.1%}   encode {et.ok:>6}/{et.total:<6} {et.rate:6.1%}")
        for (direction, fam, why), n in r.failures.most_common(top):
            print(f"  fail {n:>6} {direction} {fam}: {why}   e.g. {r.samples[(direction, fam, why)][0]}")


def check_operands(family: Annotated[list[str] | None, typer.Option(
                       "--family", help="Syntax family to list (GFX9, GFX11, 'GFX12 (rdna4)' ...; repeatable).")] = None,
                   file: Annotated[list[Path] | None, typer.Option(
                       "--file", "-f", help="Check only this LLVM MC test file (repeatable).")] = None,
                   samples: Annotated[int, typer.Option(help="Mismatches to list per class (0: none).")] = 3,
                   top: Annotated[int, typer.Option(help="Mismatch classes to list per family.")] = 8,
                   sources: Annotated[Path | None, typer.Option("--sources", help="Vendor sources folder.")] = None,
                   as_json: Annotated[bool, typer.Option("--json", help="Every family with every mismatch.")] = False,
                   ) -> None:
    """Parse every LLVM MC example's operands against its target's syntax page (errata with file:line)."""
    from gpuisa import paths
    from gpuisa.codec.operand_check import run

    if samples < 0 or top < 0:
        raise GpuisaError("--samples and --top must be 0 or more")
    rep = run(sources or paths.default_sources(), files=file, families=family)
    chosen = [f for f in sorted(rep.families) if not family or f in family]
    if as_json:
        doc = rep.to_json()
        doc["families"] = {k: v for k, v in doc["families"].items() if k in chosen}
        print(json.dumps(doc, indent=1))
        return
    for fam in chosen:
        t = rep.families[fam]
        parsed = ", ".join(f"{k} {v}" for k, v in t.statuses.most_common() if k != "mismatch")
        print(f"{fam:<16} {t.ok:>7}/{t.total:<7} {t.rate:7.2%}  ({parsed}; served by {rep.served_by.get(fam, '')})")
    explained = rep.to_json(samples=0)
    for fix in explained["operand_evidence"].values():
        if fix["examples"]:
            print(f"operand evidence x{fix['examples']}: {fix['page']} corrected by LLVM's tests ({fix['tests']})")
    for rule, fix in explained["derived_rows"].items():
        if fix["examples"]:
            print(f"derived rows x{fix['examples']}: {rule}, as {fix['pattern']} ({fix['tests']})")
    for name, fix in explained["older_rows"].items():
        if fix["examples"]:
            print(f"older page's rows x{fix['examples']}: {name}: {fix['page']} read as {fix['older']}'s row ({fix['tests']})")
    if rep.no_page:
        print("no syntax page: " + ", ".join(f"{k} {v}" for k, v in rep.no_page.most_common()))
    if rep.invalid_text:
        print(f"skipped {rep.invalid_text} disassembler checks printing /*Invalid ...*/ (not valid examples)")
    for fam in chosen:
        kinds: dict[str, list] = {}
        for m in rep.families[fam].mismatches:
            kinds.setdefault(m.kind, []).append(m)
        for kind, ms in sorted(kinds.items(), key=lambda kv: -len(kv[1]))[:top]:
            print(f"  {fam} erratum x{len(ms)}: {kind}")
            for m in ms[:samples]:
                print(f"    {m.example}: {m.text}  [{m.row or 'no row'}]")
