"""Codec commands: disasm (bytes -> LLVM assembly), asm (assembly -> bytes), check-llvm."""

from __future__ import annotations

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


def register(app: typer.Typer) -> None:
    app.command("disasm")(disasm)
    app.command("asm")(asm)
    app.command("check-llvm")(check_llvm)


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
           target: TargetOpt = "", file: FileOpt = None, catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Disassemble raw words, a raw binary file or an AMDGPU ELF code object (every kernel in .text)."""
    from gpuisa.codec.api import decode, decode_file, parse_hex

    if not target:
        raise GpuisaError("--target is required (a gfx target such as gfx1100)")
    if file is not None and hexbytes:
        raise GpuisaError("give hex bytes or --file, not both")
    if file is not None:
        decoded = decode_file(file, target, catalog)
        where = str(file)
    else:
        if not hexbytes:
            raise GpuisaError("nothing to disassemble: give hex bytes or --file")
        data = parse_hex(hexbytes)
        if not data:
            raise GpuisaError("nothing to disassemble: no bytes in the input")
        decoded = decode(data, target, catalog)
        where = "input"
    if as_json:
        print(json.dumps({"target": target, "instructions": [d.to_json() | ({"symbol": d.symbol} if d.symbol else {})
                                                              for d in decoded]}, indent=1))
    else:
        symbol = None
        lines = []
        for d in decoded:
            if d.symbol and d.symbol != symbol:
                symbol = d.symbol
                lines.append(f"{symbol}:")
            text = d.text if d.valid else f"<invalid: {d.reason}>"
            lines.append(f"{d.offset:#06x}: {d.data.hex(' '):<36} {text}")
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
                 if r.skipped else ""))
        fams = sorted(set(r.decode) | set(r.encode), key=lambda f: -(r.decode[f].total + r.encode[f].total))
        for fam in fams:
            dt, et = r.decode[fam], r.encode[fam]
            print(f"  {fam:<10} decode {dt.ok:>6}/{dt.total:<6} {dt.rate:6.1%}   encode {et.ok:>6}/{et.total:<6} {et.rate:6.1%}")
        for (direction, fam, why), n in r.failures.most_common(top):
            print(f"  fail {n:>6} {direction} {fam}: {why}   e.g. {r.samples[(direction, fam, why)][0]}")
