"""Python API of the codec: `decode(data, target)` and `encode(text, target)`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from gpuisa.codec.decoder import Decoded, decode_bytes
from gpuisa.codec.elf import code_ranges, is_elf
from gpuisa.errors import GpuisaError

if TYPE_CHECKING:   # the assembler is imported where text is assembled: `gpuisa disasm` starts without it
    from gpuisa.codec.encoder import Encoded

_HEX_TOKEN = re.compile(r"^(?:0x)?([0-9a-f]+)$")


def parse_hex(tokens: list[str]) -> bytes:
    """Bytes from hex tokens: `05 00 25 d6`, `0x05,0x00`, `[0x05, 0x00]`, `050025d60105`.

    A token of exactly 8 digits (`D6250005`, `0xd6250005`) is a dword, least significant byte
    first in memory, as llvm-objdump prints instruction words."""
    out = bytearray()
    pieces = [p for t in tokens for p in re.split(r"[\s,\[\]]+", t) if p]
    for i, piece in enumerate(pieces):
        m = _HEX_TOKEN.match(piece.lower())
        if not m:
            raise GpuisaError(f"hex input token {i + 1} ({piece[:40]!r}) is not hexadecimal")
        digits = m.group(1)
        if len(digits) == 8:
            out += int(digits, 16).to_bytes(4, "little")
        elif len(digits) <= 2:
            out.append(int(digits, 16))
        elif len(digits) % 2 == 0:
            out += bytes.fromhex(digits)
        else:
            raise GpuisaError(f"hex input token {i + 1} ({piece[:40]!r}) has an odd number of digits")
    return bytes(out)


def decode(data: bytes, target: str, catalog: Path | None = None, true16: bool = False) -> list[Decoded]:
    """Decode raw instruction bytes, or every kernel of an AMDGPU ELF code object, for a gfx target
    (`true16`: 16-bit VGPRs printed as v1.l / v1.h, llvm-mc's -mattr=+real-true16)."""
    if is_elf(data):
        out: list[Decoded] = []
        for rng in code_ranges(data, "input"):
            out += decode_bytes(rng.data, target, catalog, base=rng.offset, symbol=rng.name, true16=true16)
        return out
    return decode_bytes(data, target, catalog, true16=true16)


def decode_file(path: Path, target: str, catalog: Path | None = None, true16: bool = False) -> list[Decoded]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GpuisaError(f"cannot read {path}: {exc.strerror}") from None
    if not data:
        raise GpuisaError(f"{path}: empty file, nothing to decode")
    if is_elf(data):
        out: list[Decoded] = []
        for rng in code_ranges(data, str(path)):
            out += decode_bytes(rng.data, target, catalog, base=rng.offset, symbol=rng.name, true16=true16)
        return out
    return decode_bytes(data, target, catalog, true16=true16)


def encode(text: str, target: str, catalog: Path | None = None) -> list[Encoded]:
    """Assemble LLVM-syntax lines for a gfx target; errors name line:column and why (AsmError)."""
    from gpuisa.codec.encoder import encode_text

    return encode_text(text, target, catalog)
