"""The documented `gpuisa show --json` contract (README) and the other CLI commands."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from gpuisa.catalog.merge import identifier
from gpuisa.model import Encoding, Field, Provenance


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpuisa", *args], capture_output=True, text=True, timeout=120)


def test_show_json_contract(catalog_path):
    result = _run("show", "v_sad_u32", "--arch", "cdna5", "--json", "--catalog", str(catalog_path))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    for key in ("name", "vendor", "arch", "group", "summary", "description", "semantics", "encodings",
                "operands", "generations", "sources"):
        assert key in doc
    assert doc["vendor"] == "amd" and doc["arch"] == "cdna5"
    enc = doc["encodings"][0]
    assert set(enc) >= {"encoding", "width", "opcode", "identifier", "fields"}
    assert enc["identifier"] == "0xD6250000"
    assert all(set(f) >= {"name", "bits", "value"} for f in enc["fields"])
    assert all(set(g) >= {"arch", "opcode", "encoding", "same_layout", "differs"} for g in doc["generations"])
    ops = {o["name"]: o for o in doc["operands"]}
    assert ops["VDST"]["access"] == "write" and ops["SRC2"]["access"] == "read"
    assert all(s.get("file") for s in doc["sources"])


def test_operands_from_pseudocode_types(catalog):
    # cdna4:14407 "D0.u64 = (S0.u64 << S1.u32[2 : 0].u32) + S2.u64": SRC1 is 32-bit, the rest 64-bit
    ops = {o["name"]: o["format"] for o in catalog.show("v_lshl_add_u64", "cdna4").as_json()["operands"]}
    assert ops == {"VDST": "64-bit unsigned integer", "SRC0": "64-bit unsigned integer",
                   "SRC1": "32-bit unsigned integer", "SRC2": "64-bit unsigned integer"}


def test_text_commands(catalog_path):
    for args in (("show", "v_mov_b32", "--arch", "rdna3"), ("search", "sad", "--limit", "5"), ("archs",),
                 ("diff", "--from", "rdna3", "--to", "rdna4"), ("diff", "v_sad_u32", "--from", "rdna2", "--to", "rdna3")):
        result = _run(*args, "--catalog", str(catalog_path))
        assert result.returncode == 0, (args, result.stderr)
        assert result.stdout.strip()


def test_bad_arch_and_limit(catalog_path):
    bad = _run("show", "v_sad_u32", "--arch", "rdna9", "--catalog", str(catalog_path))
    assert bad.returncode == 2 and "unknown architecture 'rdna9'" in bad.stderr
    absent = _run("show", "v_lshl_add_u64", "--arch", "rdna3", "--catalog", str(catalog_path))
    assert absent.returncode == 2 and "not in the rdna3 manual" in absent.stderr
    limit = _run("search", "sad", "--limit", "0", "--catalog", str(catalog_path))
    assert limit.returncode == 2 and "--limit" in limit.stderr


_VOP3 = Encoding("cdna5", "VOP3", 64, (
    Field("ENCODING", ((31, 26),), 0b110101), Field("OP", ((25, 16),)), Field("VDST", ((7, 0),)),
), Provenance("test", "t"))


@given(st.integers(min_value=0, max_value=(1 << 10) - 1))
def test_identifier_places_opcode_and_keeps_fixed_bits(opcode):
    ident = identifier(_VOP3, opcode)
    assert (ident >> 16) & 0x3FF == opcode
    assert ident >> 26 == 0b110101
    assert ident & 0xFFFF == 0


def test_identifier_split_field():
    enc = Encoding("x", "X", 32, (Field("OP", ((31, 30), (3, 0))),), Provenance("test", "t"))
    assert identifier(enc, 0b101101) == (0b10 << 30) | 0b1101
    assert identifier(enc, 1 << 6) is None   # does not fit the field


def test_equivalents_on_the_page(catalog):
    # the seed page of v_sad_u32 names PTX sad; here the level comes with its evidence
    eq = catalog.show("v_sad_u32", "rdna3").as_json()["equivalents"]
    sad = [e for e in eq if e["ptx"] == "sad.u32" and e["arch"] == "rdna3"]
    assert sad and sad[0]["level"] == "equivalent" and sad[0]["evidence"]["kind"] == "proved"


def test_eval_reads_the_catalog(catalog_path):
    import os

    env = {**os.environ, "GPUISA_CATALOG": str(catalog_path)}
    out = subprocess.run([sys.executable, "-m", "gpuisa", "eval", "v_sad_u32", "--arch", "rdna3", "S0=5", "S1=3", "S2=10"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and "D0 = 12" in out.stdout
