"""Combinations a PTX Syntax block spells that the manual's prose forbids.

A Syntax block is a product of sets (`set.CmpOp.dtype.stype`), but the prose around it narrows the
product: "ordering comparisons are not defined for bit-size types", a table of the `.op` values each
type takes, "`.ashift` ... cannot be used with the collector". Such a combination is not a form of
the instruction, so the reader leaves it out of the forms (ptx_syntax.expand's `forbid`), counts it,
and names the line that forbids it; the verifier asks ptxas about one of them per rule (it should
refuse it; where it accepts, the page says so).

`PROSE_RESTRICTIONS` is the one table: each entry names the manual line (file under the edition's
root, 1-based line) and the words of that line that state the rule (tests read the line and find
each of them before trusting the entry). A rule never comes from ptxas's messages alone: a form
ptxas refuses without a manual line forbidding it stays a form, "rejected" with ptxas's words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpuisa.sources.ptx_syntax import is_state_space, is_type


@dataclass(frozen=True, slots=True)
class Restriction:
    """One prose rule over a form's modifiers.

    It applies to forms of `names` (in `sections`, or any section when empty) that carry any of
    `when` (every form when empty) and none of `unless`. The checked modifiers are the form's last
    data type (`check="last type"`: the source type of `set.lt.u32.s32`), all its data types
    ("types"), or those among `among` ("among"; `.kind::*` is a prefix). A checked modifier outside
    `allowed` (when given) or inside `denied` forbids the form; so does missing every one of `needs`,
    and with `check="same"`, two different modifiers of `among` (`.s8` with `.u8`)."""

    key: str
    names: tuple[str, ...]
    file: str                      # under the edition's root: "9-instruction-set/9.3.1.1-....md"
    line: int
    words: tuple[str, ...]         # what the line says, in its own words (tests find each on it)
    reason: str
    span: int = 1                  # lines from `line` the words lie on (an HTML table row spans several)
    when: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    check: str = "types"           # "last type", "types", "among"
    among: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    test: Callable[[tuple[str, ...]], bool] | None = None   # a rule no field above says (cvt's conversions)

    def applies(self, name: str, section: str) -> bool:
        return name.lower() in (n.lower() for n in self.names) and (not self.sections or section in self.sections)

    def forbids(self, mods: tuple[str, ...]) -> bool:
        present = set(mods)
        if self.when and not present & set(self.when):
            return False
        if present & set(self.unless):
            return False
        if self.needs and not present & set(self.needs):
            return True
        if self.test is not None:
            return self.test(mods)
        if self.check == "last type":
            typed = [m for m in mods if is_type(m)]
            checked = typed[-1:]
        elif self.check == "types":
            checked = [m for m in mods if is_type(m)]
        else:
            checked = [m for m in mods if any(m == a or (a.endswith("*") and m.startswith(a[:-1]))
                                              for a in self.among)]
            if self.check == "same":
                return len(set(checked)) > 1
        return any((self.allowed and m not in self.allowed) or m in self.denied for m in checked)

    @property
    def cite(self) -> str:
        return f"{self.file}:{self.line}" + (f"-{self.line + self.span - 1}" if self.span > 1 else "")


@dataclass(frozen=True, slots=True)
class MissingSet:
    """A placeholder a Syntax template uses but no set of its block defines (`fma.rnd.oob.{relu}.type`),
    read as the values the prose names for that template."""

    names: tuple[str, ...]
    sections: tuple[str, ...]
    placeholder: str               # ".type"
    values: tuple[str, ...]
    file: str
    line: int
    words: tuple[str, ...]         # what the line says (tests find each on it)
    reason: str
    span: int = 1

    @property
    def cite(self) -> str:
        return f"{self.file}:{self.line}" + (f"-{self.line + self.span - 1}" if self.span > 1 else "")


_BITS = (".b8", ".b16", ".b32", ".b64")
_UNSIGNED = (".u8", ".u16", ".u32", ".u64", ".u8x4", ".u16x2")
_FLOATS = (".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64")
_ORDERED = (".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs")
_UNORDERED = (".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan")
_MULTIMEM = ("multimem.ld_reduce", "multimem.st", "multimem.red")
_MULTIMEM_FILE = ("9-instruction-set/9.7.10.15-data-movement-and-conversion-instructionsmultimem.ld_reduce"
                  "multimem.stmultimem.red.md")
_MM_FLOATS = (".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".e5m2", ".e5m2x2", ".e5m2x4", ".e4m3",
              ".e4m3x2", ".e4m3x4")
_VECS = (".v2", ".v4", ".v8")
_TCGEN05_MMA = ("tcgen05.mma", "tcgen05.mma.sp")
_SCALE_VECTORSIZE = (".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32")   # :1843
_TCGEN05_FILE = "9-instruction-set/9.7.18.10-tensorcore-5th-generation-matrix-multiply-and-accumulate-operations.md"
_MMA_FILE = "9-instruction-set/9.7.16.5-matrix-multiply-accumulate-operation-usingmmainstruction.md"
_WMMA_FILE = "9-instruction-set/9.7.16.4-matrix-multiply-accumulate-operation-usingwmmainstructions.md"
_FABRIC_FILE = "9-instruction-set/9.7.11.5-fabric-operations.md"
_TEX_FILE = "9-instruction-set/9.7.12.3-texture-instructionstex.md"
_CVT_FILE = "9-instruction-set/9.7.10.24-data-movement-and-conversion-instructionscvt.md"
_SURED_FILE = "9-instruction-set/9.7.13.3-surface-instructionssured.md"
_TENSORMAP_FILE = "9-instruction-set/9.7.10.29-data-movement-and-conversion-instructionstensormap.replace.md"
_LD_FILE = "9-instruction-set/9.7.10.8-data-movement-and-conversion-instructionsld.md"
_ST_FILE = "9-instruction-set/9.7.10.11-data-movement-and-conversion-instructionsst.md"
_NOT_GLOBAL_SHARED = (".const", ".local", ".param", ".param::entry", ".param::func")
_L2_PRIORITY = (".L2::evict_normal", ".L2::evict_first", ".L2::evict_last")
_ATOM_FILE = "9-instruction-set/9.7.15.5-parallel-synchronization-and-communication-instructionsatom.md"
_RED_FILE = "9-instruction-set/9.7.15.6-parallel-synchronization-and-communication-instructionsred.md"
_ASYNC_COPY_FILE = "9-instruction-set/9.7.10.28-data-movement-and-conversion-instructions-asynchronous-copy.md"
_VALIDITY_REPORTS = tuple(f".mbarrier::report::validity::{v}" for v in (
    "per_16bytes::80000000", "per_16bytes::8000", "per_16bytes::80", "per_16bytes::8", "per_element::ff"))
_TENSOR_COPIES = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")
_OVERRIDE_ATTRIBUTES = (".override::global_dim", ".override::global_dim_stride")
# the fabric tensor operations refer to the same section for their overrides (fabric-operations.md:487, 580, 686)
_FABRIC_TENSOR = ("fabric.try_get.async.tensor", "fabric.try_put.async.tensor", "fabric.try_red.async.tensor")
_MBARRIER_FILE = "9-instruction-set/9.7.15.16-parallel-synchronization-and-communication-instructionsmbarrier.md"
_ATOMIC_OPS = (".add", ".inc", ".dec", ".min", ".max", ".and", ".or", ".xor", ".exch", ".cas")
# the rows whose types share a Syntax line with other operations (the .f16/.bf16 rows and atom's .b16/.b128 rows
# are spelled by lines that allow only their operations: nothing to exclude)
_SCALAR_OPS = (
    (".u32", (".add", ".inc", ".dec", ".min", ".max")), (".s32", (".add", ".min", ".max")),
    (".u64", (".add", ".min", ".max")), (".s64", (".min", ".max")), (".f32", (".add",)), (".f64", (".add",)))
_COMPARE = ("set", "setp")
_IRND = (".rni", ".rzi", ".rmi", ".rpi")
_FRND = (".rn", ".rna", ".rz", ".rm", ".rp")
_SCALAR_FLOATS = (".f16", ".bf16", ".f32", ".f64")
_SCALAR_INTS = tuple(f".{k}{n}" for k in "usb" for n in (8, 16, 32, 64))


def _types(mods: tuple[str, ...]) -> list[str]:
    return [m for m in mods if is_type(m)]


def _cvt_pair(mods: tuple[str, ...]) -> tuple[str, str] | None:
    """(.dtype, .atype) of a scalar `cvt{...}.dtype.atype`, None for packed and other forms."""
    ts = _types(mods)
    return (ts[-2], ts[-1]) if len(ts) == 2 else None


def _cvt_int_round(mods: tuple[str, ...]) -> bool:
    """Integer rounding on a conversion that is neither float-to-integer nor float-to-float."""
    pair = _cvt_pair(mods)
    return pair is not None and pair[1] not in _SCALAR_FLOATS


def _cvt_fp_round(mods: tuple[str, ...]) -> bool:
    """Floating-point rounding on a conversion to an integer type."""
    pair = _cvt_pair(mods)
    return pair is not None and pair[0] in _SCALAR_INTS


def _cvt_float_to_int_unrounded(mods: tuple[str, ...]) -> bool:
    """Float-to-integer without a rounding modifier."""
    pair = _cvt_pair(mods)
    return (pair is not None and not set(mods) & set(_IRND + _FRND) and pair[0] in _SCALAR_INTS
            and pair[1] in _SCALAR_FLOATS)


def _cvt_int_to_float_unrounded(mods: tuple[str, ...]) -> bool:
    """Integer-to-float without a rounding modifier."""
    pair = _cvt_pair(mods)
    return (pair is not None and not set(mods) & set(_IRND + _FRND) and pair[0] in _SCALAR_FLOATS
            and pair[1] in _SCALAR_INTS)


def _range(t: str) -> tuple[int, int]:
    n = int(t[2:])
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if t[1] == "s" else (0, (1 << n) - 1)


def _cvt_sat_impossible(mods: tuple[str, ...]) -> bool:
    """`.sat` on an integer conversion whose destination range holds the whole source range."""
    pair = _cvt_pair(mods)
    if pair is None or pair[0] not in _SCALAR_INTS or pair[1] not in _SCALAR_INTS:
        return False
    (dlo, dhi), (slo, shi) = _range(pair[0]), _range(pair[1])
    return dlo <= slo and dhi >= shi


_WIDTH = {".f16": 16, ".bf16": 16, ".f32": 32, ".f64": 64}


def _cvt_narrowing_unrounded(mods: tuple[str, ...]) -> bool:
    """A float-to-float conversion that loses precision (.f32 -> .bf16), without floating-point rounding."""
    pair = _cvt_pair(mods)
    return (pair is not None and not set(mods) & set(_FRND) and pair[0] in _WIDTH and pair[1] in _WIDTH
            and _WIDTH[pair[0]] < _WIDTH[pair[1]])


def _mma_types(mods: tuple[str, ...]) -> list[str]:
    """.dtype, .atype, .btype, .ctype of an `mma` form, in the order the Syntax writes them."""
    return _types(mods)[:4]


def _mma_c_f32_d_not(mods: tuple[str, ...]) -> bool:
    ts = _mma_types(mods)
    return len(ts) == 4 and ts[3] == ".f32" and ts[0] != ".f32"


def _mma_d_not_c(mods: tuple[str, ...]) -> bool:
    ts = _mma_types(mods)
    return len(ts) == 4 and ts[0] != ts[3]


def _mma_a_not_b(mods: tuple[str, ...]) -> bool:
    ts = _mma_types(mods)
    return len(ts) == 4 and ts[1] != ts[2]


_W32 = (".b32", ".s32", ".u32", ".f32")
_W64 = (".b64", ".s64", ".u64", ".f64")


def _l2_priority_without_vector(mods: tuple[str, ...]) -> bool:
    """`.L2::evict_*` other than on `.v8` of a 32-bit type or `.v4` of a 64-bit type."""
    present, ts = set(mods), _types(mods)
    t = ts[-1] if ts else ""
    return not ((".v8" in present and t in _W32) or (".v4" in present and t in _W64))


def _v4_64_off_global(mods: tuple[str, ...]) -> bool:
    """`.v4` of a 64-bit type in a state space other than .global (generic addressing is fine)."""
    ts = _types(mods)
    return bool(ts) and ts[-1] in _W64 and any(is_state_space(m) and m != ".global" for m in mods)


def _op_types(ops: tuple[str, ...], types: tuple[str, ...], space: str = "") -> Callable[[tuple[str, ...]], bool]:
    """A table row "these operations take these element types" (in `space`, when given): forbids a form with
    one of `ops` (and `space`) whose last type is not one of `types`."""
    def test(mods: tuple[str, ...]) -> bool:
        ts = _types(mods)
        return (bool(set(ops) & set(mods)) and (not space or space in mods) and bool(ts)
                and ts[-1] not in types)
    return test


def _op_rows(key: str, names: tuple[str, ...], file: str, rows: tuple[tuple[int, int, tuple[str, ...],
             tuple[str, ...], str], ...], sections: tuple[str, ...] = ()) -> tuple[Restriction, ...]:
    """One rule per row of a table of operations and element types: (line, span, ops, types, space)."""
    return tuple(Restriction(
        f"{key}-{ops[0][1:]}{'-' + space.split('::')[-1].lstrip('.') if space else ''}", names, file, line,
        tuple(o.strip("`") for o in (*ops, *types)), f"{', '.join(ops)}{' to ' + space if space else ''} take "
        f"{', '.join(types)}", span=span, test=_op_types(ops, types, space), sections=sections)
        for line, span, ops, types, space in rows)


def _scalar_rows(key: str, names: tuple[str, ...], file: str, first: int, rows: tuple[tuple[str, tuple[str, ...]], ...],
                 all_ops: tuple[str, ...], sections: tuple[str, ...]) -> tuple[Restriction, ...]:
    """One rule per row of a table of scalar types and the operations each takes (atom's Table 41)."""
    return tuple(Restriction(
        f"{key}-{t[1:]}", names, file, first + n, (f"`{t}`", *(f"`{o}" for o in ops)),
        f"scalar {t} takes {', '.join(ops)}", when=(t,), unless=(".v2", ".v4", ".v8"), check="among", among=all_ops,
        allowed=ops, sections=sections) for n, (t, ops) in enumerate(rows))


def _together(key: str, names: tuple[str, ...], file: str, line: int, sems: tuple[str, ...],
              scopes: tuple[str, ...]) -> tuple[Restriction, ...]:
    """"Qualifiers `.sem` and `.scope` must be specified together": neither without the other."""
    words = ("Qualifiers `.sem` and `.scope` must be specified together",)
    return (Restriction(f"{key}-sem-needs-scope", names, file, line, words, ".sem only with .scope", when=sems,
                        needs=scopes),
            Restriction(f"{key}-scope-needs-sem", names, file, line, words, ".scope only with .sem", when=scopes,
                        needs=sems))


_INT_CMP = "9-instruction-set/9.3.1.1-integer-and-bit-size-comparisons.md"

PROSE_RESTRICTIONS: tuple[Restriction, ...] = (
    Restriction(
        "compare-bit-size-order", _COMPARE, _INT_CMP, 14,
        ("The bit-size comparisons are `eq` and `ne`", "ordering comparisons are not defined for bit-size types"),
        "a bit-size source type takes only eq and ne", when=_ORDERED + _UNORDERED, check="last type",
        denied=_BITS),
    Restriction(
        "compare-unsigned-ops", _COMPARE, _INT_CMP, 14,
        ("The unsigned comparisons are", "`lo`", "`ls`", "`hi`", "`hs`"),
        "lo, ls, hi and hs are the unsigned comparisons: an unsigned source type only",
        when=(".lo", ".ls", ".hi", ".hs"), check="last type", allowed=_UNSIGNED),
    Restriction(
        "compare-float-ops", _COMPARE, _INT_CMP, 14,
        ("The signed integer comparisons are", "The unsigned comparisons are", "The bit-size comparisons are"),
        "the integer and bit-size comparisons this line lists do not include equ .. geu, num and nan (9.3.1.2 "
        "defines them for floating point): a floating-point source type only",
        when=_UNORDERED, check="last type", allowed=_FLOATS),
    Restriction(
        "set-ftz-f32", ("set",), "9-instruction-set/9.7.7.1-comparison-and-selection-instructionsset.md", 111,
        ("Modifier `.ftz` applies only to `.f32` comparisons",), "`.ftz` with an .f32 source type only",
        when=(".ftz",), check="last type", allowed=(".f32",), sections=("9.7.7.1",)),
    Restriction(
        "setp-ftz-f32", ("setp",), "9-instruction-set/9.7.7.2-comparison-and-selection-instructionssetp.md", 77,
        ("Modifier `.ftz` applies only to `.f32` comparisons",), "`.ftz` with an .f32 source type only",
        when=(".ftz",), check="last type", allowed=(".f32",), sections=("9.7.7.2",)),
    # multimem: the tables of .vec with the base floating-point type, and of .op with the base type
    Restriction(
        "multimem-no-vec", _MULTIMEM, _MULTIMEM_FILE, 92,
        ("No `.vec` specified", "`.f16x2`", "`.bf16x2`", "`.f32`", "`.f64`", "`.e5m2x4`", "`.e4m3x4`"),
        "a floating-point type without .vec is one of this row's", when=_MM_FLOATS, unless=_VECS,
        allowed=(".f16x2", ".bf16x2", ".f32", ".f64", ".e5m2x4", ".e4m3x4")),
    Restriction(
        "multimem-v2", _MULTIMEM, _MULTIMEM_FILE, 93,
        ("`.v2`", "`.f16`", "`.f16x2`", "`.bf16`", "`.bf16x2`", "`.f32`", "`.e5m2x2`", "`.e5m2x4`", "`.e4m3x2`",
         "`.e4m3x4`"), ".v2 takes this row's types", when=(".v2",),
        allowed=(".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".e5m2x2", ".e5m2x4", ".e4m3x2", ".e4m3x4")),
    Restriction(
        "multimem-v4", _MULTIMEM, _MULTIMEM_FILE, 94,
        ("`.v4`", "`.f16`", "`.f16x2`", "`.bf16`", "`.bf16x2`", "`.f32`", "`.e5m2`", "`.e5m2x2`", "`.e5m2x4`",
         "`.e4m3`", "`.e4m3x2`", "`.e4m3x4`"), ".v4 takes this row's types", when=(".v4",),
        allowed=(".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".e5m2", ".e5m2x2", ".e5m2x4", ".e4m3", ".e4m3x2",
                 ".e4m3x4")),
    Restriction(
        "multimem-v8", _MULTIMEM, _MULTIMEM_FILE, 95,
        ("`.v8`", "`.f16`", "`.bf16`", "`.e5m2`", "`.e4m3`", "`.e5m2x2`", "`.e4m3x2`"), ".v8 takes this row's types",
        when=(".v8",), allowed=(".f16", ".bf16", ".e5m2", ".e4m3", ".e5m2x2", ".e4m3x2")),
    Restriction(
        "multimem-add", _MULTIMEM, _MULTIMEM_FILE, 101,
        ("`.add`", "`.u32`", "`.u64`", "`.s32`", "`.f16`", "`.f16x2`", "`.bf16`", "`.bf16x2`", "`.f32`", "`.f64`",
         "`.e5m2`", "`.e5m2x2`", "`.e5m2x4`", "`.e4m3`", "`.e4m3x2`", "`.e4m3x4`"), ".add takes this row's types",
        when=(".add",), allowed=(".u32", ".u64", ".s32", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64",
                                 ".e5m2", ".e5m2x2", ".e5m2x4", ".e4m3", ".e4m3x2", ".e4m3x4")),
    Restriction(
        "multimem-bitwise", _MULTIMEM, _MULTIMEM_FILE, 102, ("`.and`", "`.or`", "`.xor`", "`.b32`", "`.b64`"),
        ".and, .or and .xor take .b32 or .b64", when=(".and", ".or", ".xor"), allowed=(".b32", ".b64")),
    Restriction(
        "multimem-minmax", _MULTIMEM, _MULTIMEM_FILE, 103,
        ("`.min`", "`.max`", "`.u32`", "`.s32`", "`.u64`", "`.s64`", "`.f16`", "`.f16x2`", "`.bf16`", "`.bf16x2`",
         "`.e5m2`", "`.e5m2x2`", "`.e5m2x4`", "`.e4m3`", "`.e4m3x2`", "`.e4m3x4`"), ".min and .max take this row's types",
        when=(".min", ".max"), allowed=(".u32", ".s32", ".u64", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2",
                                        ".e5m2", ".e5m2x2", ".e5m2x4", ".e4m3", ".e4m3x2", ".e4m3x4")),
    Restriction(
        "multimem-acc-f32", _MULTIMEM, _MULTIMEM_FILE, 111, ("`.f16`", "`.f16x2`", "`.bf16`", "`.bf16x2`", "`.acc::f32`"),
        ".acc::f32 accumulates this row's types", when=(".acc::f32",), allowed=(".f16", ".f16x2", ".bf16", ".bf16x2")),
    Restriction(
        "multimem-acc-f16", _MULTIMEM, _MULTIMEM_FILE, 112,
        ("`.e5m2`", "`.e4m3`", "`.e5m2x2`", "`.e4m3x2`", "`.e4m3x4`", "`.e5m2x4`", "`.acc::f16`"),
        ".acc::f16 accumulates this row's types", when=(".acc::f16",),
        allowed=(".e5m2", ".e4m3", ".e5m2x2", ".e4m3x2", ".e4m3x4", ".e5m2x4")),
    # wmma.mma: integer and sub-byte multiplicands of one signedness
    Restriction(
        "wmma-int-same-type", ("wmma.mma",), _WMMA_FILE, 754,
        ("the values for `.atype` and `.btype` must be the same", "both are `.s8` or both are `.u8`"),
        ".atype and .btype are the same", check="same", among=(".s8", ".u8")),
    Restriction(
        "wmma-subbyte-same-type", ("wmma.mma",), _WMMA_FILE, 756,
        ("the values for `.atype` and `.btype` must be the same", "both are `.s4`, both are `.u4`"),
        ".atype and .btype are the same", check="same", among=(".s4", ".u4", ".b1")),
    # tcgen05.mma: .ashift never with a collector that fills or uses A; Table 68's scale vector sizes per kind
    Restriction(
        "tcgen05-ashift-collector", ("tcgen05.mma",), _TCGEN05_FILE, 2046,
        ("It is illegal to specify either of `.collector::a::use` or `.collector::a::fill` along with `.ashift`",),
        ".ashift never with .collector::a::use or ::fill", when=(".ashift",), check="among",
        among=(".collector::a::use", ".collector::a::fill"), denied=(".collector::a::use", ".collector::a::fill")),
    Restriction(
        "tcgen05-sp-ashift-collector", ("tcgen05.mma.sp",), _TCGEN05_FILE, 2335,
        ("It is illegal to specify either of `.collector::a::use` or `.collector::a::fill` along with `.ashift`",),
        ".ashift never with .collector::a::use or ::fill", when=(".ashift",), check="among",
        among=(".collector::a::use", ".collector::a::fill"), denied=(".collector::a::use", ".collector::a::fill")),
    Restriction(
        "tcgen05-scale-vec-1x", _TCGEN05_MMA, _TCGEN05_FILE, 911, (".scale_vec::1X", ".kind::mxf8f6f4"),
        "Table 68: .scale_vec::1X with .kind::mxf8f6f4 only", span=2, when=(".scale_vec::1X",), check="among",
        among=(".kind::*",), allowed=(".kind::mxf8f6f4",)),
    Restriction(
        "tcgen05-scale-vec-2x", _TCGEN05_MMA, _TCGEN05_FILE, 918, (".scale_vec::2X", ".kind::mxf4,", ".kind::mxf4nvf4"),
        "Table 68: .scale_vec::2X with .kind::mxf4 or .kind::mxf4nvf4 only", span=3, when=(".scale_vec::2X",),
        check="among", among=(".kind::*",), allowed=(".kind::mxf4", ".kind::mxf4nvf4")),
    Restriction(
        "tcgen05-scale-vec-4x", _TCGEN05_MMA, _TCGEN05_FILE, 926, (".scale_vec::4X", ".kind::mxf4nvf4"),
        "Table 68: .scale_vec::4X with .kind::mxf4nvf4 only", span=2, when=(".scale_vec::4X",), check="among",
        among=(".kind::*",), allowed=(".kind::mxf4nvf4",)),
    Restriction(
        "tcgen05-block16", _TCGEN05_MMA, _TCGEN05_FILE, 933, (".block16", ".kind::mxf4nvf4"),
        "Table 68: .block16 with .kind::mxf4nvf4 only", span=2, when=(".block16",), check="among",
        among=(".kind::*",), allowed=(".kind::mxf4nvf4",)),
    Restriction(
        "tcgen05-mxf4nvf4-scale-vectorsize", ("tcgen05.mma",), _TCGEN05_FILE, 2033,
        ("For `.kind::mxf4nvf4`, the qualifier `.scale_vectorsize` must be explicitly specified",),
        ".kind::mxf4nvf4 names its .scale_vectorsize", when=(".kind::mxf4nvf4",), needs=_SCALE_VECTORSIZE),
    Restriction(
        "tcgen05-sp-mxf4nvf4-scale-vectorsize", ("tcgen05.mma.sp",), _TCGEN05_FILE, 2322,
        ("For `.kind::mxf4nvf4`, the qualifier `.scale_vectorsize` must be explicitly specified",),
        ".kind::mxf4nvf4 names its .scale_vectorsize", when=(".kind::mxf4nvf4",), needs=_SCALE_VECTORSIZE),
    # ldmatrix / stmatrix: element size per shape, matrices per shape, .trans where mandatory
    Restriction(
        "ldmatrix-m8n8-b16", ("ldmatrix",), _MMA_FILE, 2241, ("`.m8n8`", "16-bit"),
        ".m8n8 matrices hold 16-bit elements", when=(".m8n8",), allowed=(".b16",)),
    Restriction(
        "ldmatrix-m16n16-8bit", ("ldmatrix",), _MMA_FILE, 2242, ("`.m16n16`", "8-bit or 6-bit or 4-bit"),
        ".m16n16 matrices hold 8-, 6- or 4-bit elements", when=(".m16n16",), denied=(".b16",)),
    Restriction(
        "ldmatrix-m16n16-num", ("ldmatrix",), _MMA_FILE, 2299,
        ("When `.shape` is `.m16n16`, only `.x1` and `.x2` are valid values for `.num`",),
        ".m16n16 loads one or two matrices", when=(".m16n16",), check="among", among=(".x1", ".x2", ".x4"),
        allowed=(".x1", ".x2")),
    Restriction(
        "ldmatrix-m16n16-trans", ("ldmatrix",), _MMA_FILE, 2355,
        ("for 16x16 matrices, `.trans` is mandatory",), ".m16n16 needs .trans", when=(".m16n16",),
        needs=(".trans",)),
    Restriction(
        "stmatrix-m16n8-b8", ("stmatrix",), _MMA_FILE, 2507, ("`.m16n8` shape is valid only for `.b8` type",),
        ".m16n8 with .b8 only", when=(".m16n8",), allowed=(".b8",)),
    Restriction(
        "stmatrix-m16n8-trans", ("stmatrix",), _MMA_FILE, 2551,
        ("for 16x8 matrices, `.trans` is mandatory",), ".m16n8 needs .trans", when=(".m16n8",), needs=(".trans",)),
    # tex: the Syntax block's own comments on .ctype, and the mipmap modes without multi-sample geometries
    Restriction(
        "tex-cube-f32", ("tex",), _TEX_FILE, 38, (".ctype", ".cube, .acube require .f32"),
        "cubemap coordinates are .f32", when=(".cube", ".acube"), check="last type", allowed=(".f32",)),
    Restriction(
        "tex-2dms-s32", ("tex",), _TEX_FILE, 39, (".2dms, .a2dms require .s32",),
        "multi-sample coordinates are .s32", when=(".2dms", ".a2dms"), check="last type", allowed=(".s32",)),
    Restriction(
        "tex-level-no-ms", ("tex",), _TEX_FILE, 132, ("Geometries `.2dms` and `.a2dms` are not supported in this mode",),
        ".level takes no multi-sample geometry", when=(".level",), check="among", among=(".2dms", ".a2dms"),
        denied=(".2dms", ".a2dms")),
    Restriction(
        "tex-grad-no-ms", ("tex",), _TEX_FILE, 136, ("Geometries `.2dms` and `.a2dms` are not supported in this mode",),
        ".grad takes no multi-sample geometry", when=(".grad",), check="among", among=(".2dms", ".a2dms"),
        denied=(".2dms", ".a2dms")),
    # cvt: which conversions take which rounding, .ftz and .sat (Integer Notes, Floating Point Notes)
    Restriction(
        "cvt-irnd-illegal", ("cvt",), _CVT_FILE, 264,
        ("Integer rounding is required for float-to-integer conversions", "Integer rounding is illegal in all other "
         "instances"), "integer rounding needs a floating-point source", when=_IRND, test=_cvt_int_round),
    Restriction(
        "cvt-irnd-required", ("cvt",), _CVT_FILE, 264, ("Integer rounding is required for float-to-integer conversions",),
        "float-to-integer needs an integer rounding modifier", test=_cvt_float_to_int_unrounded),
    Restriction(
        "cvt-frnd-required", ("cvt",), _CVT_FILE, 320,
        ("Floating-point rounding is required for", "and for integer-to-float conversions"),
        "integer-to-float needs a floating-point rounding modifier", test=_cvt_int_to_float_unrounded),
    Restriction(
        "cvt-frnd-illegal", ("cvt",), _CVT_FILE, 320,
        ("Floating-point rounding is required for", "integer-to-float conversions",
         "Floating-point rounding is illegal in all other instances"),
        "floating-point rounding is not for an integer destination", when=_FRND, test=_cvt_fp_round),
    Restriction(
        "cvt-ftz-f32", ("cvt",), _CVT_FILE, 354,
        ("Modifier `.ftz` can only be specified when either `.dtype` or `.atype` is `.f32`",),
        ".ftz with an .f32 source or destination", when=(".ftz",), needs=(".f32",)),
    Restriction(
        "cvt-sat-possible", ("cvt",), _CVT_FILE, 314,
        ("the `.sat` modifier is illegal in cases where saturation is not possible",),
        ".sat never where the destination range holds the source range", when=(".sat",), test=_cvt_sat_impossible),
    Restriction(
        "cvt-frnd-narrowing", ("cvt",), _CVT_FILE, 320,
        ("Floating-point rounding is required for float-to-float conversions that result in loss of precision",),
        "a narrowing float-to-float conversion needs a floating-point rounding modifier",
        test=_cvt_narrowing_unrounded),
    # sured: the operations each type takes
    Restriction(
        "sured-b-add", ("sured",), _SURED_FILE, 35, ("Operation `add` applies to `.u32`, `.u64`, and `.s32` types",),
        "sured.b .add takes .u32, .u64, .s32", when=(".add",), unless=(".p",), allowed=(".u32", ".u64", ".s32")),
    Restriction(
        "sured-b-minmax", ("sured",), _SURED_FILE, 35,
        ("`min` and `max` apply to `.u32`, `.s32`, `.u64` and `.s64` types",), "sured.b .min/.max take .u32, .s32, "
        ".u64, .s64", when=(".min", ".max"), unless=(".p",), allowed=(".u32", ".s32", ".u64", ".s64")),
    Restriction(
        "sured-b-bitwise", ("sured",), _SURED_FILE, 35, ("operations `and` and `or` apply to `.b32` type",),
        "sured.b .and/.or take .b32", when=(".and", ".or"), unless=(".p",), allowed=(".b32",)),
    Restriction(
        "sured-p-b64", ("sured",), _SURED_FILE, 37, ("The instruction type `.b64` is restricted to `min` and `max`",),
        "sured.p .b64 with .min or .max only", when=(".b64",), unless=(".b",), check="among",
        among=(".add", ".min", ".max", ".and", ".or"), allowed=(".min", ".max")),
    # mma: the type restrictions of specific shapes (9.7.16.5.13)
    Restriction(
        "mma-m8n8k4-f32", ("mma",), _MMA_FILE, 1739, ("`.m8n8k4` : When `.ctype` is `.f32`, `.dtype` must also be `.f32`",),
        ".m8n8k4: an .f32 .ctype wants an .f32 .dtype", when=(".m8n8k4",), test=_mma_c_f32_d_not,
        sections=("9.7.16.5.14",)),
    Restriction(
        "mma-m16n8k8-d-c", ("mma",), _MMA_FILE, 1741, ("`.m16n8k8`", "`.dtype` must be the same as `.ctype`"),
        ".m16n8k8: .dtype is .ctype", span=3, when=(".m16n8k8",), test=_mma_d_not_c, sections=("9.7.16.5.14",)),
    Restriction(
        "mma-m16n8k8-a-b", ("mma",), _MMA_FILE, 1741, ("`.m16n8k8`", "`.atype` must be the same as `.btype`"),
        ".m16n8k8: .atype is .btype", span=5, when=(".m16n8k8",), test=_mma_a_not_b, sections=("9.7.16.5.14",)),
    Restriction(
        "mma-m16n8k16-d-c", ("mma",), _MMA_FILE, 1747,
        ("`.m16n8k16` and `.m16n8k32`", "`.dtype` must be the same as `.ctype`"), ".m16n8k16, .m16n8k32: .dtype is "
        ".ctype", span=3, when=(".m16n8k16", ".m16n8k32"), test=_mma_d_not_c, sections=("9.7.16.5.14",)),
    # tensormap.replace: the width of new_val per field
    Restriction(
        "tensormap-b64-fields", ("tensormap.replace",), _TENSORMAP_FILE, 41,
        ("When `.field` is specified as `.global_address` or `.global_stride`, `.type` must be `.b64`",),
        ".global_address and .global_stride take .b64", when=(".global_address", ".global_stride"),
        check="last type", allowed=(".b64",)),
    Restriction(
        "tensormap-b32-fields", ("tensormap.replace",), _TENSORMAP_FILE, 41, ("Otherwise, `.type` must be `.b32`",),
        "the other fields take .b32", unless=(".global_address", ".global_stride"), check="last type",
        allowed=(".b32",)),
    # ld / st: state spaces of .relaxed/.acquire/.release and .proxy::readonly; .L2 eviction and .v4 of 64 bits
    Restriction(
        "ld-sem-space", ("ld",), _LD_FILE, 79,
        ("`.relaxed` and `.acquire`", "May be used with `.global`, `.shared` spaces"),
        ".relaxed and .acquire with .global, .shared or generic addressing", span=3, when=(".relaxed", ".acquire"),
        check="among", among=_NOT_GLOBAL_SHARED, denied=_NOT_GLOBAL_SHARED, sections=("9.7.10.8",)),
    Restriction(
        "ld-proxy-readonly", ("ld",), _LD_FILE, 71,
        ("The `proxy::readonly` qualifier may only be used with `global` state space or with generic addressing",),
        ".proxy::readonly with .global or generic addressing", when=(".proxy::readonly",), check="among",
        among=(".const", ".local", ".param", ".param::entry", ".param::func", ".shared", ".shared::cta",
               ".shared::cluster"), denied=(".const", ".local", ".param", ".param::entry", ".param::func", ".shared",
                                            ".shared::cta", ".shared::cluster"), sections=("9.7.10.8",)),
    Restriction(
        "ld-l2-priority", ("ld",), _LD_FILE, 109,
        ("Qualifier `.level2::eviction_priority` is supported if:", "`.vec` is `.v8` and `.type` is `.b32`",
         "OR `.vec` is `.v4` and `.type` is `.b64`"), ".L2 eviction on .v8 of 32 bits or .v4 of 64 bits only",
        span=7, when=_L2_PRIORITY, test=_l2_priority_without_vector, sections=("9.7.10.8",)),
    Restriction(
        "ld-v4-b64-global", ("ld",), _LD_FILE, 103,
        ("The `.v4` (`.vec`) qualifier with type `.b64` or `.s64` or `.u64` or `.f64` is supported if:",
         "State space is `.global` or with generic addressing"), ".v4 of 64 bits in .global or generic addressing",
        span=3, when=(".v4",), test=_v4_64_off_global, sections=("9.7.10.8",)),
    Restriction(
        "st-sem-space", ("st",), _ST_FILE, 69, ("May be used with `.global`, `.shared` spaces",),
        ".relaxed and .release with .global, .shared or generic addressing", when=(".relaxed", ".release"),
        check="among", among=_NOT_GLOBAL_SHARED, denied=_NOT_GLOBAL_SHARED, sections=("9.7.10.11",)),
    Restriction(
        "st-l2-priority", ("st",), _ST_FILE, 95,
        ("Qualifier `.level2::eviction_priority` is supported if:", "`.vec` is `.v8` and `.type` is `.b32`",
         "OR `.vec` is `.v4` and `.type` is `.b64`"), ".L2 eviction on .v8 of 32 bits or .v4 of 64 bits only",
        span=7, when=_L2_PRIORITY, test=_l2_priority_without_vector, sections=("9.7.10.11",)),
    Restriction(
        "st-v4-b64-global", ("st",), _ST_FILE, 89,
        ("The `.v4` (`.vec`) qualifier with type `.b64` or `.s64` or `.u64` or `.f64` is supported if:",
         "State space is `.global` or with generic addressing"), ".v4 of 64 bits in .global or generic addressing",
        span=3, when=(".v4",), test=_v4_64_off_global, sections=("9.7.10.11",)),
    # atom / red: Tables 41 and 42, the operations each scalar type takes
    *_scalar_rows("atom-scalar", ("atom",), _ATOM_FILE, 82, _SCALAR_OPS, _ATOMIC_OPS, ("9.7.15.5",)),
    *_scalar_rows("atom-scalar", ("atom",), _ATOM_FILE, 93, ((".b32", (".and", ".or", ".xor", ".exch", ".cas")),
                  (".b64", (".and", ".or", ".xor", ".exch", ".cas"))), _ATOMIC_OPS, ("9.7.15.5",)),
    *_scalar_rows("red-scalar", ("red",), _RED_FILE, 76, _SCALAR_OPS, _ATOMIC_OPS, ("9.7.15.6",)),
    *_scalar_rows("red-scalar", ("red",), _RED_FILE, 86, ((".b32", (".and", ".or", ".xor")),
                  (".b64", (".and", ".or", ".xor"))), _ATOMIC_OPS, ("9.7.15.6",)),
    # cp.reduce.async.bulk (per destination) and multimem.cp.reduce.async.bulk: the tables of .redOp and element
    # type (cp.reduce.async.bulk.tensor's forms carry no type: the tensor-map holds it)
    *_op_rows("cp-reduce", ("cp.reduce.async.bulk",), _ASYNC_COPY_FILE, (
        (816, 2, (".add",), (".u32", ".s32", ".u64"), ".shared::cluster"),
        (820, 2, (".min", ".max"), (".u32", ".s32"), ".shared::cluster"),
        (824, 2, (".inc", ".dec"), (".u32",), ".shared::cluster"),
        (828, 2, (".and", ".or", ".xor"), (".b32",), ".shared::cluster"),
        (833, 2, (".add",), (".u32", ".s32", ".u64", ".f32", ".f64", ".f16", ".bf16"), ".global"),
        (837, 2, (".min", ".max"), (".u32", ".s32", ".u64", ".s64", ".f16", ".bf16"), ".global"),
        (841, 2, (".inc", ".dec"), (".u32",), ".global"),
        (845, 2, (".and", ".or", ".xor"), (".b32", ".b64"), ".global"))),
    *_op_rows("multimem-cp-reduce", ("multimem.cp.reduce.async.bulk",), _ASYNC_COPY_FILE, (
        (1136, 1, (".add",), (".u32", ".s32", ".u64", ".f32", ".f64", ".f16", ".bf16"), ""),
        (1137, 1, (".min", ".max"), (".u32", ".s32", ".u64", ".s64", ".f16", ".bf16"), ""),
        (1138, 1, (".inc", ".dec"), (".u32",), ""),
        (1139, 1, (".and", ".or", ".xor"), (".b32", ".b64"), ""))),
    # cp.async.bulk: .ignore_oob without a validity report
    Restriction(
        "cp-async-bulk-ignore-oob-report", ("cp.async.bulk",), _ASYNC_COPY_FILE, 563,
        ("In presence of `.ignore_oob`, the qualifier `.report_mechanism`, if specified, must be set to "
         "`.mbarrier::report::disabled`",), ".ignore_oob with no validity report", when=(".ignore_oob",),
        check="among", among=(".mbarrier::report::validity::*",), denied=_VALIDITY_REPORTS),
    # bulk tensor copies: Tensor Attribute Override (9.7.10.28.5.2.2) and the 2-dimensional gather4/scatter4 modes
    Restriction(
        "tensor-override-needs-address", _TENSOR_COPIES, _ASYNC_COPY_FILE, 1349,
        ("while using `.override_attribute` qualifier, it is mandatory to also specify `.override::global_address`",),
        ".override_attribute needs .override::global_address", when=_OVERRIDE_ATTRIBUTES,
        needs=(".override::global_address",)),
    Restriction(
        "tensor-override-tile", _TENSOR_COPIES, _ASYNC_COPY_FILE, 1351,
        ("The qualifier `.load_mode` if specified must be set to `.tile`",), ".override_attribute in .tile mode only",
        when=_OVERRIDE_ATTRIBUTES, check="among", among=(".tile::*", ".im2col*"), allowed=(".tile",)),
    Restriction(
        "tensor-override-1d", _TENSOR_COPIES + _FABRIC_TENSOR, _ASYNC_COPY_FILE, 1357,
        ("For `.1d` tensors, since stride is absent, only `.override::global_dim` is valid",),
        ".1d overrides the dimension only", when=(".1d",), check="among", among=_OVERRIDE_ATTRIBUTES,
        allowed=(".override::global_dim",)),
    Restriction(
        "tensor-override-2d", _TENSOR_COPIES + _FABRIC_TENSOR, _ASYNC_COPY_FILE, 1357,
        ("For tensors with dimensionality of at least 2", "only `.override::global_dim_stride` is valid"),
        "2d and up override dimension and stride together", when=(".2d", ".3d", ".4d", ".5d"), check="among",
        among=_OVERRIDE_ATTRIBUTES, allowed=(".override::global_dim_stride",)),
    Restriction(
        "tensor-gather4-scatter4-2d", _TENSOR_COPIES, _ASYNC_COPY_FILE, 1559,
        ("In `.tile::gather4` mode, four rows in 2-dimensional source tensor",
         "In `.tile::scatter4` mode, single 2-dimensional source tensor"), ".tile::gather4 and ::scatter4 on 2d tensors",
        when=(".tile::gather4", ".tile::scatter4"), check="among", among=(".1d", ".2d", ".3d", ".4d", ".5d"),
        allowed=(".2d",)),
    # mbarrier.test_wait / try_wait: .sem and .scope together (line 987 spells them apart)
    *_together("mbarrier-wait", ("mbarrier.test_wait", "mbarrier.try_wait"), _MBARRIER_FILE, 1059,
               (".acquire", ".relaxed"), (".cta", ".cluster")),
    # mixed-precision fma: the rounding modifier has no default
    Restriction(
        "fma-mixed-rnd", ("fma",), "9-instruction-set/9.7.5.3-mixed-precision-floating-point-instructionsfma.md", 50,
        ("Rounding modifiers(no default):",), "a rounding modifier is required (no default)",
        needs=(".rn", ".rz", ".rm", ".rp"), sections=("9.7.5.3",)),
)

# Placeholders a template uses that no set of its Syntax block defines.
MISSING_SETS: tuple[MissingSet, ...] = (
    MissingSet(
        ("fma",), ("9.7.4.4",), ".type", (".f16", ".f16x2", ".bf16", ".bf16x2"),
        "9-instruction-set/9.7.4.4-half-precision-floating-point-instructionsfma.md", 76,
        ("`fma.oob.{f16, f16x2, bf16, bf16x2}`",),
        "`fma.rnd.oob.{relu}.type` (line 27): the Out Of Bounds note names the types .oob takes"),
    MissingSet(
        ("fabric.try_red.async.tensor",), (), ".type", ("none",), _FABRIC_FILE, 650,
        ("The type of each data element in the source and the destination array is specified by the `tensorMap`",),
        "`.redOp.type` (line 622): the element type comes from the tensor-map, so the form spells none (ptxas 13.5 "
        "refuses a type there: \"Unexpected instruction types specified\")"),
    MissingSet(
        ("cvt",), (), ".fp16x2", (".f16x2", ".bf16x2"), _CVT_FILE, 84, (".fp16x2type = { .f16x2, .bf16x2 }",),
        "line 36 spells `.fp16x2` where its siblings (lines 42, 48, 64) use the set `.fp16x2type`"),
)


def missing_sets(names: tuple[str, ...], section: str) -> tuple[MissingSet, ...]:
    """The placeholder readings that apply to this instruction section."""
    lows = {n.lower() for n in names}
    return tuple(m for m in MISSING_SETS if lows & {n.lower() for n in m.names}
                 and (not m.sections or section in m.sections))


def for_instruction(names: tuple[str, ...], section: str) -> tuple[Restriction, ...]:
    """The rules that can apply to forms of this instruction section."""
    return tuple(r for r in PROSE_RESTRICTIONS if any(r.applies(n, section) for n in names))


def forbidder(rules: tuple[Restriction, ...],
              split: Callable[[str], tuple[str, tuple[str, ...]]]) -> Callable[[str], Restriction | None]:
    """form -> the first rule that forbids it (None: allowed); `split` gives (name, modifiers)."""
    def forbid(form: str) -> Restriction | None:
        name, mods = split(form)
        low = name.lower()
        return next((r for r in rules if low in (n.lower() for n in r.names) and r.forbids(mods)), None)
    return forbid
