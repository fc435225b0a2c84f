"""Cross-vendor concepts: the operations both ISAs express, under one stable key each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Concept:
    key: str
    title: str
    summary: str


CONCEPTS: dict[str, Concept] = {c.key: c for c in (
    Concept("sad", "Sum of absolute differences", "|a - b| + c, the motion-estimation primitive."),
    Concept("shift-add", "Shift and add", "(a << n) + c in one instruction (address arithmetic)."),
    Concept("bitfield-extract", "Bit-field extract", "len bits of a starting at pos, zero- or sign-extended."),
    Concept("bitfield-insert", "Bit-field insert", "len low bits of a written into b at pos."),
    Concept("popcount", "Population count", "Number of set bits."),
    Concept("bit-reverse", "Bit reverse", "Bits in reverse order."),
    Concept("leading-zeros", "Count leading zeros", "Zero bits above the most significant one."),
    Concept("carryless-multiply", "Carry-less multiply", "Product over GF(2)[x] (XOR instead of add), with XOR accumulate."),
    Concept("min-max", "Minimum / maximum / median", "Integer and float min, max and median of three."),
    Concept("multiply-high", "Multiply high / wide", "Upper half, or full double-width product, of an integer multiply."),
    Concept("multiply-add", "Integer multiply-add", "a * b + c kept to the low word."),
    Concept("add-carry", "Add with carry", "Multi-word addition through a carry flag."),
    Concept("byte-permute", "Byte permute", "Bytes of a 64-bit pair selected into a 32-bit result."),
    Concept("dot-product", "Packed dot product", "Sum of products of packed 8- or 16-bit lanes, accumulated."),
    Concept("float-arith", "Float add / multiply / fma", "IEEE binary32 arithmetic, round to nearest even."),
    Concept("conversion", "Conversions", "Between integer and float formats, with rounding and saturation."),
)}


# The concept of a PTX instruction, by its name (the synonym table in catalog/search_terms.py and the
# pages group equivalents under these keys). Forms that split by type or modifier are in concept_of.
PTX_CONCEPTS: dict[str, str] = {
    "sad": "sad", "bfe": "bitfield-extract", "bfi": "bitfield-insert", "popc": "popcount", "brev": "bit-reverse",
    "clz": "leading-zeros", "clmad": "carryless-multiply", "min": "min-max", "max": "min-max", "mad": "multiply-add",
    "mad24": "multiply-add", "addc": "add-carry", "subc": "add-carry", "prmt": "byte-permute", "dp4a": "dot-product",
    "dp2a": "dot-product", "fma": "float-arith", "cvt": "conversion",
}
_FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"}


def concept_of(form: str) -> str | None:
    """`popc.b32` -> popcount, `mul.hi.u32` -> multiply-high, `add.f32` -> float-arith, `shl.b64 + add.u64`
    -> shift-add; None for a form no concept covers."""
    if "+" in form:
        return "shift-add" if form.startswith("shl.") else None
    parts = form.split(".")
    base, mods = parts[0], set(parts[1:])
    if base in ("add", "sub", "mul", "div") and mods & _FLOAT_TYPES:
        return "float-arith"
    if base in ("add", "sub") and "cc" in mods:
        return "add-carry"
    if base in ("mul", "mad") and mods & {"hi", "wide"}:
        return "multiply-high"
    return PTX_CONCEPTS.get(base)
