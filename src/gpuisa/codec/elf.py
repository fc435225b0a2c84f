"""AMDGPU code objects: the bytes of every kernel / function symbol in .text (pyelftools).

Raw files that are not ELF are decoded whole; an ELF for another machine is refused by name.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from gpuisa.errors import GpuisaError

EM_AMDGPU = 224   # ELF machine number of AMDGPU (llvm/docs/AMDGPUUsage.rst, "ELF Header")


@dataclass(frozen=True, slots=True)
class CodeRange:
    """Bytes of one symbol (or the whole .text) and where they sit in the section."""

    name: str
    offset: int          # offset within .text
    data: bytes


def is_elf(data: bytes) -> bool:
    return data[:4] == b"\x7fELF"


def code_ranges(data: bytes, where: str) -> list[CodeRange]:
    """Kernel and function symbols of .text in an AMDGPU ELF, in address order; .text whole if none."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        machine = elf.header["e_machine"]
        if machine not in ("EM_AMDGPU", EM_AMDGPU):
            raise GpuisaError(f"{where}: an ELF file for {machine}, not an AMDGPU code object")
        text = elf.get_section_by_name(".text")
        if text is None:
            raise GpuisaError(f"{where}: AMDGPU ELF without a .text section")
        body = text.data()
        base = text["sh_addr"]
        index = next((i for i, s in enumerate(elf.iter_sections()) if s.name == ".text"), -1)
        syms: list[tuple[int, int, str]] = []
        symtab = elf.get_section_by_name(".symtab")
        if symtab is not None:
            for sym in symtab.iter_symbols():
                if sym["st_shndx"] != index or sym["st_info"]["type"] not in ("STT_FUNC", "STT_AMDGPU_HSA_KERNEL"):
                    continue
                syms.append((sym["st_value"] - base, sym["st_size"], sym.name))
    except ELFError as exc:
        raise GpuisaError(f"{where}: damaged ELF file ({exc})") from None
    except (ValueError, KeyError, IndexError, OSError) as exc:   # pyelftools on truncated headers
        raise GpuisaError(f"{where}: damaged ELF file ({exc})") from None
    if not syms:
        return [CodeRange(".text", 0, body)]
    out = []
    for start, size, name in sorted(syms):
        if start < 0 or start > len(body):
            raise GpuisaError(f"{where}: symbol {name} lies outside .text")
        end = len(body) if size == 0 else min(len(body), start + size)
        out.append(CodeRange(name, start, body[start:end]))
    return out
