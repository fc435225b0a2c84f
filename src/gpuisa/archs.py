"""The AMD architectures gpuisa knows: manual folder, family, display name, LLVM gfx targets.

Targets checked against llvm/docs/AMDGPUUsage.rst (LLVM 23.1.1) processor table.
Order is chronological within each family line; `newest_first` drives page defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuisa.errors import NotFoundError


@dataclass(frozen=True, slots=True)
class Arch:
    key: str            # manual folder name and catalog key, e.g. "rdna3.5"
    display: str        # "AMD RDNA 3.5"
    family: str         # GCN5 / RDNA / CDNA
    targets: tuple[str, ...]
    order: int          # release order, for "newest" and diffs


ARCHS: tuple[Arch, ...] = (
    Arch("vega", "AMD Vega (GCN 5)", "GCN5", ("gfx900", "gfx902", "gfx904", "gfx909", "gfx90c"), 0),
    Arch("vega7", "AMD Vega 7nm (GCN 5)", "GCN5", ("gfx906",), 1),
    Arch("cdna1", "AMD CDNA 1", "CDNA", ("gfx908",), 2),
    Arch("rdna1", "AMD RDNA 1", "RDNA", ("gfx1010", "gfx1011", "gfx1012", "gfx1013"), 3),
    Arch("rdna2", "AMD RDNA 2", "RDNA",
         ("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"), 4),
    Arch("cdna2", "AMD CDNA 2", "CDNA", ("gfx90a",), 5),
    Arch("rdna3", "AMD RDNA 3", "RDNA", ("gfx1100", "gfx1101", "gfx1102", "gfx1103"), 6),
    Arch("cdna3", "AMD CDNA 3", "CDNA", ("gfx942",), 7),
    Arch("rdna3.5", "AMD RDNA 3.5", "RDNA", ("gfx1150", "gfx1151", "gfx1152", "gfx1153"), 8),
    Arch("rdna4", "AMD RDNA 4", "RDNA", ("gfx1200", "gfx1201"), 9),
    Arch("cdna4", "AMD CDNA 4", "CDNA", ("gfx950",), 10),
    Arch("cdna5", "AMD CDNA 5", "CDNA", ("gfx1250", "gfx1251"), 11),
)

BY_KEY: dict[str, Arch] = {a.key: a for a in ARCHS}
TARGET_TO_ARCH: dict[str, str] = {t: a.key for a in ARCHS for t in a.targets}


def newest_first(keys: list[str] | set[str]) -> list[str]:
    """Arch keys sorted newest first (release order)."""
    return sorted(keys, key=lambda k: -BY_KEY[k].order)


def resolve_arch(name: str) -> Arch:
    """Accept an arch key ("rdna3", "RDNA3", "rdna-3.5") or a gfx target ("gfx1100")."""
    key = name.strip().lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in BY_KEY:
        return BY_KEY[key]
    if key in TARGET_TO_ARCH:
        return BY_KEY[TARGET_TO_ARCH[key]]
    raise NotFoundError("architecture", name, [a.key for a in ARCHS])
