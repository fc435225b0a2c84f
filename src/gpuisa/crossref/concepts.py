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
