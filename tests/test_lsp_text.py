"""The language server's reader of assembly text, without a server: targets, statements, labels.

Inputs are lines of LLVM's MC tests and of the PTX manual (read from ../shared/sources), plus
arbitrary text from hypothesis: the reader must never raise and every span must lie on its line.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.lsp import asm_text
from gpuisa.lsp.facts import describe_sm, sm_satisfies, version_satisfies
from tests.conftest import SOURCES

MC = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"


def test_targets_from_run_lines_directives_and_comments():
    text = (MC / "gfx942_asm_features.s").read_text()
    doc = asm_text.read("file:///x.s", text)
    # gfx942_asm_features.s:1: "// RUN: llvm-mc -triple=amdgcn -mcpu=gfx942 -show-encoding %s | ..."
    assert text.splitlines()[0].startswith("// RUN: llvm-mc -triple=amdgcn -mcpu=gfx942")
    assert (doc.target.target, doc.target.how, doc.target.span.line) == ("gfx942", "RUN line", 0)
    over = asm_text.read("file:///x.s", '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:xnack+"\n' + text)
    assert (over.target.target, over.target.how) == ("gfx90a", ".amdgcn_target")
    comment = asm_text.read("file:///x.s", "// gpuisa: target=gfx1100\n" + '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n')
    assert (comment.target.target, comment.target.how) == ("gfx1100", "gpuisa comment")
    ptx = asm_text.read("file:///k.ptx", ".version 9.3\n.target sm_80, texmode_independent\n")
    assert (ptx.dialect, ptx.target.target, ptx.target.ptx_version) == ("ptx", "sm_80", "9.3")
    assert asm_text.read("file:///k.txt", "// x\n.version 8.0\n.target sm_75\n").dialect == "ptx"


def test_objdump_listing_symbols_and_statements():
    listing = ("\nk.o:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n"
               "0000000000000000 <my_kernel>:\n"
               "\tv_sad_u32 v5, v1, v2, s3                                   // 000000000000: D6250005 000E0501\n"
               "\ts_endpgm                                                   // 000000000008: BFB00000\n")
    doc = asm_text.read("file:///k.lst", listing)
    assert asm_text.is_listing(doc)
    assert [k.name for k in doc.kernels] == ["my_kernel"]
    assert [i.mnemonic for i in doc.instructions] == ["v_sad_u32", "s_endpgm"]
    assert doc.instructions[0].operands == "v5, v1, v2, s3"


def test_gpuisa_disasm_listing():
    listing = ("my_kernel:\n"
               "0x0000: 05 00 25 d6 01 05 0e 00              v_sad_u32 v5, v1, v2, s3\n"
               "0x0008: 00 00 b0 bf                          s_endpgm\n")
    doc = asm_text.read("file:///k.lst", listing)
    assert asm_text.is_listing(doc)
    assert [k.name for k in doc.kernels] == ["my_kernel"]
    assert [(i.mnemonic, i.operands) for i in doc.instructions] == [("v_sad_u32", "v5, v1, v2, s3"), ("s_endpgm", "")]
    assert doc.instructions[0].span.start == listing.splitlines()[1].index("v_sad_u32")


def test_ptx_statements_guards_and_multiple_per_line():
    doc = asm_text.read("file:///k.ptx", "@!%p1 bra $L1; add.s32 %r1, %r2, 1; // add\n"
                                         "$L1: cp.async.bulk.shared::cluster.global [a], [b];\n")
    assert [(i.mnemonic, i.span.line) for i in doc.instructions] == [
        ("bra", 0), ("add.s32", 0), ("cp.async.bulk.shared::cluster.global", 1)]
    assert "$L1" in doc.labels and [u.name for u in doc.label_uses] == ["$L1"]


def test_sm_and_version_rules():
    # the PTX manual writes requirements as sm_80+ (this or higher), sm_90a (exactly), sm_100f+ (family)
    assert sm_satisfies("sm_80", "sm_80+") and sm_satisfies("sm_90a", "sm_80+")
    assert not sm_satisfies("sm_75", "sm_80+")
    assert sm_satisfies("sm_90a", "sm_90a") and not sm_satisfies("sm_90", "sm_90a")
    assert not sm_satisfies("sm_100a", "sm_90a")
    assert sm_satisfies("sm_103f", "sm_100f+") and not sm_satisfies("sm_120f", "sm_100f+")
    assert sm_satisfies("sm_50", "all") and sm_satisfies("sm_50", "weird") is None
    assert describe_sm("sm_80+") == "sm_80 or higher"
    assert version_satisfies("9.3", "9.3") and not version_satisfies("8.7", "9.3") and version_satisfies("10.0", "9.3")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.sampled_from(["file:///x.s", "file:///x.ptx"]))
def test_any_text_reads_without_error(text, uri):
    doc = asm_text.read(uri, text)
    for ins in doc.instructions:
        line = doc.lines[ins.span.line]
        assert 0 <= ins.span.start < ins.span.end <= len(line)
        assert line[ins.span.start:ins.span.end] == ins.mnemonic
    for lab in list(doc.labels.values()) + doc.label_uses:
        assert doc.lines[lab.span.line][lab.span.start:lab.span.end] == lab.name


def test_long_lines_are_skipped_not_parsed():
    doc = asm_text.read("file:///x.s", "v_nop\n" + "v_sad_u32 " + "v1, " * 300_000 + "\ns_endpgm\n")
    assert doc.skipped_lines == [1]
    assert [i.mnemonic for i in doc.instructions] == ["v_nop", "s_endpgm"]
