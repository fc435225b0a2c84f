"""Instructions whose manual entry is prose, not pseudocode the grammar reads, and how they are evaluated anyway.

Two named tables, each entry with the manual line it rests on:

TIMING_ONLY: waits, sleeps, clause and prefetch hints. Their text describes only when the wave
issues its next instruction; no register, memory or state value changes, so a functional model
evaluates them as doing nothing (S_NOP's helper). The text is kept on the page as it is.

BORROWED: the older manuals (vega, vega7, cdna1, cdna2; rdna1, rdna2) describe some opcodes in
prose or a notation of their own (`if(floor(S0.f) is even ...)`, `byte permute(byte in[8], ...)`,
"Copy one VGPR value to one SGPR"). The same opcode's pseudocode in the newer manual of the same
line (cdna3 for the GCN/CDNA manuals, rdna3 for RDNA1/2) states that operation, so it is evaluated
in its place; the result says so and cites both lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuisa.model import InstructionDoc

NO_EFFECT_TEXT = "nop()"      # builtins' nop: no architectural effect

# instruction -> (why it changes no value, a manual line saying what it does)
TIMING_ONLY: dict[str, tuple[str, str]] = {
    "S_WAITCNT": ("waits until outstanding memory counters are at or below SIMM16's levels",
                  "amd-isa-manuals/cdna3/README.md:4765"),
    "S_WAITCNT_VMCNT": ("waits for the vector-memory counter", "amd-isa-manuals/rdna3/README.md:6873"),
    "S_WAITCNT_EXPCNT": ("waits for the export counter", "amd-isa-manuals/rdna3/README.md:6890"),
    "S_WAITCNT_LGKMCNT": ("waits for the LDS/GDS/constant/message counter", "amd-isa-manuals/rdna3/README.md:6907"),
    "S_WAIT_LOADCNT_DSCNT": ("waits for the load and LDS counters", "amd-isa-manuals/rdna4/README.md:9933"),
    "S_WAIT_STORECNT_DSCNT": ("waits for the store and LDS counters", "amd-isa-manuals/rdna4/README.md:9951"),
    "S_WAIT_EVENT": ("sleeps until an event (export_ready)", "amd-isa-manuals/rdna3/README.md:8259"),
    "S_SLEEP": ("sleeps for 64*SIMM16[6:0] clocks", "amd-isa-manuals/rdna4/README.md:9408"),
    "S_CLAUSE": ("marks a clause of instructions to issue together", "amd-isa-manuals/rdna3/README.md:8035"),
    "S_DELAY_ALU": ("inserts issue delay for a dependent VALU instruction", "amd-isa-manuals/rdna3/README.md:8095"),
    "S_SETPRIO": ("sets the wave's issue priority (SIMM16[1:0]) among waves", "amd-isa-manuals/cdna3/README.md:4799"),
    "S_SETPRIO_INC_WG": ("raises the issue priority of the workgroup's waves", "amd-isa-manuals/cdna5/README.md:10844"),
    "S_SET_INST_PREFETCH_DISTANCE": ("sets how many instruction cache lines are prefetched",
                                     "amd-isa-manuals/rdna3/README.md:8011"),
}

# The older manuals and the newer manual of the same line whose pseudocode they borrow.
DONORS: dict[str, str] = {"vega": "cdna3", "vega7": "cdna3", "cdna1": "cdna3", "cdna2": "cdna3",
                          "rdna1": "rdna3", "rdna2": "rdna3"}
_V = "amd-isa-manuals/vega/README.md"
_R1 = "amd-isa-manuals/rdna1/README.md"
# instruction -> (what the older cell says instead of pseudocode, its line)
BORROWED: dict[str, tuple[str, str]] = {
    "V_CMP_CLASS_F32": ("prose: 'IEEE numeric class function specified in S1.u'", f"{_V}:3052"),
    "V_CMPX_CLASS_F32": ("prose, as V_CMP_CLASS_F32, also writing EXEC", f"{_V}:3053"),
    "V_CMP_CLASS_F64": ("prose, as V_CMP_CLASS_F32", f"{_V}:3054"),
    "V_CMPX_CLASS_F64": ("prose, as V_CMPX_CLASS_F32", f"{_V}:3055"),
    "V_CMP_CLASS_F16": ("prose, as V_CMP_CLASS_F32", f"{_V}:3056"),
    "V_CMPX_CLASS_F16": ("prose, as V_CMPX_CLASS_F32", f"{_V}:3057"),
    "V_CUBEID_F32": ("If/Else without then/endif", f"{_V}:3326"),
    "V_CUBESC_F32": ("If/Else without then/endif", f"{_V}:3327"),
    "V_CUBETC_F32": ("If/Else without then/endif", f"{_V}:3328"),
    "V_CUBEMA_F32": ("If/Else without then/endif", f"{_V}:3329"),
    "V_PERM_B32": ("a C function with array parameters: byte permute(byte in[8], byte sel)", f"{_V}:3367"),
    "V_READFIRSTLANE_B32": ("prose: 'Copy one VGPR value to one SGPR ... Lane# = FindFirst1fromLSB(exec)'",
                            f"{_V}:2882"),
    "V_READLANE_B32": ("prose: 'Copy one VGPR value to one SGPR ... S1 = Lane Select'", f"{_V}:3407"),
    "V_WRITELANE_B32": ("prose: 'Write value into one VGPR in one lane'", f"{_V}:3408"),
    "V_RNDNE_F16": ("'if(floor(S0.f16) is even && ...)': 'is even' as an operator", f"{_V}:2948"),
    "V_RNDNE_F32": ("'is even' as an operator", f"{_V}:2909"),
    "V_RNDNE_F64": ("'is even' as an operator", f"{_V}:2904"),
    "V_SAT_PK_U8_I16": ("'{16 'b0, sat8(...)}': a Verilog literal and an undefined sat8", f"{_V}:2956"),
    "V_TRIG_PREOP_F64": ("'2/PI[1200:0]': a 1201-bit constant by name", f"{_V}:3415"),
    "V_DIV_FIXUP_F32": ("'if (...) D.f = ... else if ...' without then/endif", f"{_V}:3352"),
    "V_DIV_FIXUP_F64": ("'if (...) D.d = ... else if ...' without then/endif", f"{_V}:3353"),
    "S_MOVRELS_B32": ("prose: 'addr = SGPR address appearing in instruction SRC0 field'", f"{_V}:2633"),
    "S_MOVRELS_B64": ("prose, as S_MOVRELS_B32", f"{_V}:2634"),
    "S_MOVRELD_B32": ("prose: 'addr = SGPR address appearing in instruction DST field'", f"{_V}:2635"),
    "S_MOVRELD_B64": ("prose, as S_MOVRELD_B32", f"{_V}:2636"),
    "S_MOVRELSD_2_B32": ("prose, as S_MOVRELS_B32 with two offsets", f"{_R1}:3105"),
    "V_MOVRELS_B32": ("prose: 'addr = VGPR address appearing in instruction SRC0 field'", f"{_R1}:3389"),
    "V_MOVRELD_B32": ("prose: 'addr = VGPR address appearing in instruction DST field'", f"{_R1}:3385"),
    "V_MOVRELSD_B32": ("prose, as V_MOVRELS_B32 and V_MOVRELD_B32", f"{_R1}:3390"),
    "V_MOVRELSD_2_B32": ("prose, as V_MOVRELSD_B32 with two offsets", f"{_R1}:3391"),
    "V_SWAPREL_B32": ("prose: 'Swap data between two relatively-indexed VGPRs'", f"{_R1}:3426"),
    "V_RCP_IFLAG_F32": ("prose: 'Reciprocal ... signals exceptions using integer divide by zero'", f"{_R1}:3357"),
    "V_FREXP_EXP_I32_F64": ("'exponent(S0.d) - 1023 + 1' written as a field of an expression", f"{_R1}:3376"),
    "V_XNOR_B32": ("'S0.b32 XNOR S1.b32': XNOR as an infix word", "amd-isa-manuals/vega7/README.md:2191"),
    "S_SETREG_B32": ("prose: 'hardware-reg = S0.u. Write some or all of the LSBs of D into a hardware register'",
                     f"{_V}:2583"),
    "S_SETREG_IMM32_B32": ("prose, as S_SETREG_B32 with a literal", f"{_V}:2584"),
    "S_GETREG_B32": ("prose: 'D.u = hardware-reg'", f"{_R1}:2976"),
    "S_TRAP": ("'Wait for all instructions to complete;' as a statement", f"{_V}:2693"),
}

# Helpers a manual calls without defining them (no V_MAXIMUM_F32 entry in cdna4), read from the manual
# that defines the same opcode, where the caller's own description names the same operation.
HELPER_DONORS: dict[tuple[str, str], tuple[str, str]] = {
    ("cdna4", "V_MAXIMUM_F32"): ("rdna4", "amd-isa-manuals/cdna4/README.md:15809 (V_MAXIMUM3_F32: "
                                          "'Select the IEEE maximum() of three ... inputs')"),
    ("cdna4", "V_MINIMUM_F32"): ("rdna4", "amd-isa-manuals/cdna4/README.md:15797 (V_MINIMUM3_F32: IEEE minimum())"),
    ("cdna4", "V_MAXIMUM3_F16"): ("rdna4", "amd-isa-manuals/cdna4/README.md:10371 (V_PK_MAXIMUM3_F16: "
                                           "'component-wise IEEE maximum() of three half-precision float inputs')"),
    ("cdna4", "V_MINIMUM3_F16"): ("rdna4", "amd-isa-manuals/cdna4/README.md:10357 (V_PK_MINIMUM3_F16: IEEE minimum())"),
    ("cdna4", "V_MAXIMUM_F16"): ("rdna4", "amd-isa-manuals/cdna4/README.md:10371 (the IEEE maximum() of F16 inputs)"),
    ("cdna4", "V_MINIMUM_F16"): ("rdna4", "amd-isa-manuals/cdna4/README.md:10357 (the IEEE minimum() of F16 inputs)"),
}


@dataclass(frozen=True, slots=True)
class Substitute:
    """What is evaluated in place of a manual entry, and why."""

    text: str
    style: str
    cite: str
    note: str


def substitute(name: str, arch: str, doc: InstructionDoc | None,
               donor_docs: dict[str, list[InstructionDoc]] | None) -> Substitute | None:
    """The text evaluated for `name` on `arch` when its own entry is prose (None: evaluate its own text)."""
    key = name.upper()
    own = doc.provenance.cite() if doc is not None else f"{arch}: no entry"
    if key in TIMING_ONLY:
        what, line = TIMING_ONLY[key]
        return Substitute(NO_EFFECT_TEXT, "headed", own,
                          f"timing only ({what}; {line}): no register or memory value changes")
    if key in BORROWED and arch in DONORS and donor_docs is not None and (doc is None or doc.style == "table"):
        donor = next((d for d in donor_docs.get(key, []) if d.pseudocode.strip()), None)
        if donor is None:
            return None
        what, line = BORROWED[key]
        return Substitute(donor.pseudocode, donor.style, donor.provenance.cite(),
                          f"{arch}'s entry ({own}) is {what} ({line}); evaluated with {DONORS[arch]}'s pseudocode "
                          "of the same opcode")
    return None
