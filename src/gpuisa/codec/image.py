"""Image (MIMG / VIMAGE / VSAMPLE) operand sizes: how many VGPRs vdata and vaddr take.

The syntax pages say only "depends on dmask, tfe and d16" and "depends on opcode, dim and a16"
(AMDGPUAsmGFX*.rst, vdata / vaddr); the rule itself is LLVM's (AMDGPUDisassembler::convertMIMGInst,
AMDGPUBaseInfo getAddrSizeMIMGOp). It is written here once, from the instruction's name (which
names its address arguments: _c compare, _o offset, _b bias, _d / _cd gradients, _l lod, _cl
clamp, _mip mip level) and the dimensions of AMDGPUModifierSyntax.rst's `dim` table.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# dim code -> (spelling, coordinates, gradient values). Spellings and order: AMDGPUModifierSyntax.rst:541
# (dim:SQ_RSRC_IMG_1D .. 2D_MSAA_ARRAY, codes 0..7); coordinates and gradients per dimension are
# LLVM's MIMGDimInfo (a cube takes 2-D gradients, an array index no gradient).
DIMS: tuple[tuple[str, int, int], ...] = (
    ("1D", 1, 2), ("2D", 2, 4), ("3D", 3, 6), ("CUBE", 3, 4),
    ("1D_ARRAY", 2, 2), ("2D_ARRAY", 3, 4), ("2D_MSAA", 3, 4), ("2D_MSAA_ARRAY", 4, 4),
)
DIM_CODES = {name: code for code, (name, _c, _g) in enumerate(DIMS)} | \
    {"SQ_RSRC_IMG_" + name: code for code, (name, _c, _g) in enumerate(DIMS)}

# Addresses in one NSA form at most (partial NSA puts the rest in the last operand as a range):
# gfx10 13 (three extra dwords of 4), gfx11 5, gfx12 VIMAGE 5 / VSAMPLE 4 (AMDGPUBaseInfo getNSAMaxSize).
NSA_MAX = {10: 13, 11: 5, 12: 5}
NSA_MAX_VSAMPLE = 4
# Every gfx10+ target has the _g16 opcodes, so a16 leaves gradients 32-bit there (gfx10_asm_mimg.s:542:
# image_sample_d dim:2D a16 takes v[0:4]); only a _g16 opcode packs them.

# Image modifiers in the order llvm-mc prints them, whichever the syntax row lists (the rows omit
# tfe on atomics and r128 on gfx10, which LLVM prints: mimg.s:447, gfx10_asm_mimg.s:44; gfx12 rows
# list them in another order than the printer: gfx12_asm_vimage.s:712, gfx12_asm_vsample.s:5).
MODIFIER_ORDER = ("dmask", "dim", "unorm", "glc", "slc", "dlc", "th", "scope", "nv", "r128", "a16", "tfe", "lwe",
                  "da", "d16")
MODIFIER_FIELDS = {"unorm": ("UNORM", "UNRM")}

IMAGE_ENCODINGS = frozenset({"MIMG", "VIMAGE", "VSAMPLE"})


@dataclass(frozen=True, slots=True)
class ImageArgs:
    """What an image mnemonic's name says about its address: extra args, gradients, lod/clamp/mip."""

    extra: int          # offset + bias + z-compare dwords
    gradients: bool
    g16: bool
    coordinates: bool
    lod: bool           # lod, clamp or mip level
    gather4: bool       # returns 4 channels whatever dmask says
    bvh: bool


@functools.lru_cache(maxsize=1024)
def args_of(mnemonic: str) -> ImageArgs:
    """The address arguments of an image instruction, from its name (image_sample_c_d_cl_o ...)."""
    name = mnemonic.removeprefix("image_")
    parts = name.split("_")
    kind = parts[0]
    if kind == "bvh" or kind.startswith("bvh"):
        return ImageArgs(0, False, False, False, False, False, True)
    if kind in ("sample", "gather4", "gather4h"):
        tags = set(parts[1:])
        extra = sum(1 for t in ("o", "b", "c") if t in tags)
        return ImageArgs(extra, bool(tags & {"d", "cd"}), "g16" in tags, True, bool(tags & {"l", "cl"}),
                         kind.startswith("gather4"), False)
    if kind == "get" and parts[1:2] == ["resinfo"]:
        return ImageArgs(0, False, False, False, True, False, False)
    if kind == "get" and parts[1:2] == ["lod"]:
        return ImageArgs(0, False, False, True, False, False, False)
    return ImageArgs(0, False, False, True, "mip" in parts, False, False)


def returns_four(mnemonic: str, gen: int) -> bool:
    """gather4, and gfx11+ msaa_load, return 4 channels for their one dmask bit (AMDGPUModifierSyntax.rst:407)."""
    return args_of(mnemonic).gather4 or (gen >= 11 and mnemonic.startswith("image_msaa_load"))


def address_dwords(mnemonic: str, gen: int, dim: int, a16: bool) -> int:
    """VGPRs of the address (gfx10+: from dim and a16, getAddrSizeMIMGOp)."""
    a = args_of(mnemonic)
    if a.bvh:
        return sum(bvh_arguments(mnemonic, a16))
    if gen < 10:
        # gfx9 has no dim: LLVM's disassembler prints its smallest address variant, the extra
        # arguments, one coordinate and one dword of gradients (gfx9_mimg.txt: image_sample_c_b_cl
        # v[1:3], image_load_mip v1; llvm-mc 22: image_sample_d v[1:2], image_sample_c_d_o v[1:4])
        return a.extra + 1 + (1 if a.gradients else 0)
    _name, coords, grads = DIMS[dim & 7]
    comps = (coords if a.coordinates else 0) + (1 if a.lod else 0)
    words = a.extra + ((comps + 1) // 2 if a16 else comps)
    if a.gradients:
        if a.g16:
            words += ((grads // 2) + 1) // 2 * 2
        else:
            words += grads
    return words


# Ray-tracing (BVH) instructions: the address is node pointer (2 dwords for bvh64), ray extent, origin,
# direction and inverse direction (3 each; a16 packs direction and inverse direction into 3), and the
# data 4 dwords (10 for bvh8 and dual: gfx12_dasm_vimage.txt). gfx10 NSA gives every dword its own VGPR
# (gfx1030_new.txt:78, 12 VGPRs); gfx11+ give each argument one operand (gfx12_dasm_vimage.txt
# `[v9, v10, v[11:13], v[14:16], v[17:19]]`). LLVM sets dmask 0xf, unorm and r128 and prints none of
# them (gfx1030_new.txt:99 `image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]` is 0xf1989f01: DMASK 0xf,
# UNRM 1, R128 1); a16 is the only modifier shown.
BVH_SET_FIELDS = (("DMASK", 0xF), ("UNRM", 1), ("UNORM", 1), ("R128", 1))


def bvh_arguments(mnemonic: str, a16: bool) -> tuple[int, ...]:
    """Dwords of each address argument of a BVH instruction."""
    node = 2 if "bvh64" in mnemonic or "bvh8" in mnemonic or "dual" in mnemonic else 1
    extent = 2 if "bvh8" in mnemonic or "dual" in mnemonic else 1
    if "bvh8" in mnemonic or "dual" in mnemonic:   # gfx12 `[v[0:1], v[11:12], v[3:5], v[6:8], v9]`
        return (node, extent, 3, 3, 2 if "dual" in mnemonic else 1)
    return (node, extent, 3, 3) if a16 else (node, extent, 3, 3, 3)


def nsa_sizes(mnemonic: str, addr: int, gen: int, encoding: str) -> list[int]:
    """VGPRs of each address operand of an NSA form holding `addr` address dwords."""
    if args_of(mnemonic).bvh and gen >= 11:
        return list(bvh_arguments(mnemonic, addr < sum(bvh_arguments(mnemonic, False))))
    slots = addr if gen == 10 else nsa_slots(addr, gen, encoding)
    return [1] * (slots - 1) + [addr - (slots - 1)]


def data_dwords(mnemonic: str, gen: int, dmask: int, tfe: bool, d16: bool) -> int:
    """VGPRs of vdata: one per dmask channel (gather4: 4), halved by packed d16, plus one for tfe."""
    if args_of(mnemonic).bvh:
        return 10 if "bvh8" in mnemonic or "dual" in mnemonic else 4
    n = 4 if returns_four(mnemonic, gen) else max(bin(dmask & 0xF).count("1"), 1)
    if d16:
        n = (n + 1) // 2
    return n + (1 if tfe else 0)


def nsa_slots(addr: int, gen: int, encoding: str) -> int:
    """Address operands of an NSA form holding `addr` addresses (the last may be a range)."""
    cap = NSA_MAX_VSAMPLE if encoding == "VSAMPLE" else NSA_MAX.get(gen, 13)
    return min(addr, cap)


def non_nsa_dwords(addr: int) -> int:
    """A contiguous address takes a register tuple LLVM has: 1..12 dwords, else 16."""
    return 16 if addr > 12 else addr


def field_of(modifier: str, fields) -> str | None:
    """The layout field of an image modifier (the manuals name UNORM `UNRM`)."""
    for name in MODIFIER_FIELDS.get(modifier, (modifier.upper(),)):
        if name in fields:
            return name
    return None
