"""Executable semantics: AMD pseudocode and PTX Semantics blocks, parsed with lark and evaluated
bit-exactly on one lane or a wave (numpy), or lowered to z3 bit-vectors for proofs.

    evaluate(text, {"S0": 5, "S1": 3, "S2": 10}, "headed")        -> {"D0": 12}
    evaluate_wave(text, {"S0": array, ...})                         -> {"D0": array}
    eval_amd("v_lshl_add_u64", "cdna5", {...}, texts) / eval_ptx("clmad.lo.u64", {...}, texts)

`texts` is where the manual text comes from: a catalog (Catalog) or sources.read.ManualTexts;
semantics never open files themselves.
"""

from __future__ import annotations

from gpuisa.semantics.api import eval_amd, eval_ptx
from gpuisa.semantics.errors import EvalError, PseudocodeSyntaxError, SemanticsError, UnsupportedError
from gpuisa.semantics.ptx import ptx_semantics
from gpuisa.semantics.run import evaluate, evaluate_ptx, evaluate_wave, parse_block
from gpuisa.semantics.source import Texts

__all__ = ["EvalError", "PseudocodeSyntaxError", "SemanticsError", "Texts", "UnsupportedError",
           "eval_amd", "eval_ptx", "evaluate", "evaluate_ptx", "evaluate_wave", "parse_block", "ptx_semantics"]
