"""AMD assembler / disassembler driven by the catalog's resolved encodings and LLVM's syntax docs.

Modules, one job each: syntax (operand syntax tables), tables (per-target decode/encode tables),
operands (operand text <-> codes), decoder, encoder, elf (code objects).
"""
