"""SQLite schema of the catalog. Bump SCHEMA_VERSION on any change; readers refuse other versions."""

SCHEMA_VERSION = 5

SCHEMA = """
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE archs(
  key TEXT PRIMARY KEY, display TEXT NOT NULL, family TEXT NOT NULL, targets TEXT NOT NULL,
  ord INTEGER NOT NULL, manual TEXT NOT NULL, coverage TEXT NOT NULL);
CREATE TABLE encodings(
  arch TEXT NOT NULL, name TEXT NOT NULL, width INTEGER NOT NULL, fields TEXT NOT NULL,
  provenance TEXT NOT NULL, PRIMARY KEY(arch, name));
CREATE TABLE instructions(
  name TEXT PRIMARY KEY, vendor TEXT NOT NULL, grp TEXT NOT NULL, summary TEXT NOT NULL,
  archs TEXT NOT NULL, aliases TEXT NOT NULL);
CREATE TABLE instr_arch(
  name TEXT NOT NULL, arch TEXT NOT NULL, manual_name TEXT NOT NULL, section TEXT NOT NULL,
  description TEXT NOT NULL, semantics TEXT NOT NULL, notes TEXT NOT NULL, style TEXT NOT NULL,
  operands TEXT NOT NULL, provenance TEXT, PRIMARY KEY(name, arch));
CREATE TABLE instr_enc(
  name TEXT NOT NULL, arch TEXT NOT NULL, encoding TEXT NOT NULL, layout TEXT, op_field TEXT NOT NULL,
  opcode INTEGER NOT NULL, identifier TEXT, rank INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX instr_enc_name ON instr_enc(name, arch);
CREATE INDEX instr_enc_arch ON instr_enc(arch, encoding, opcode);
CREATE TABLE aliases(alias TEXT PRIMARY KEY, name TEXT NOT NULL, evidence TEXT NOT NULL);
CREATE TABLE skips(arch TEXT, file TEXT, line INTEGER, reason TEXT NOT NULL, text TEXT);
CREATE TABLE errata(
  name TEXT NOT NULL, arch TEXT, kind TEXT NOT NULL, detail TEXT NOT NULL, sources TEXT NOT NULL);
CREATE INDEX errata_name ON errata(name);
CREATE TABLE llvm_examples(
  name TEXT NOT NULL, target TEXT NOT NULL, arch TEXT NOT NULL, asm TEXT NOT NULL, input TEXT NOT NULL,
  bytes TEXT NOT NULL, direction TEXT NOT NULL, mattr TEXT NOT NULL, file TEXT NOT NULL, line INTEGER,
  rank INTEGER NOT NULL);
CREATE INDEX llvm_examples_name ON llvm_examples(name, arch, rank);
CREATE TABLE llvm_counts(name TEXT NOT NULL, target TEXT NOT NULL, examples INTEGER NOT NULL,
  PRIMARY KEY(name, target));
CREATE TABLE targets(
  name TEXT NOT NULL, target TEXT NOT NULL, arch TEXT NOT NULL, verdict TEXT NOT NULL, evidence TEXT NOT NULL,
  detail TEXT NOT NULL, file TEXT, line INTEGER, tool TEXT, spelling TEXT, PRIMARY KEY(name, target));
CREATE TABLE agreement(
  arch TEXT NOT NULL, encoding TEXT NOT NULL, checked INTEGER NOT NULL, agree INTEGER NOT NULL,
  examples_checked INTEGER NOT NULL, examples_agree INTEGER NOT NULL, PRIMARY KEY(arch, encoding));
CREATE TABLE layout_status(
  arch TEXT NOT NULL, encoding TEXT NOT NULL, settled TEXT NOT NULL, manual_width INTEGER, manual_fields TEXT,
  PRIMARY KEY(arch, encoding));
CREATE TABLE corrections(
  quirk TEXT NOT NULL, arch TEXT NOT NULL, encoding TEXT NOT NULL, name TEXT NOT NULL, manual TEXT NOT NULL,
  resolved TEXT NOT NULL, evidence INTEGER NOT NULL, against INTEGER NOT NULL, settled TEXT NOT NULL,
  detail TEXT NOT NULL, sources TEXT NOT NULL);
CREATE INDEX corrections_at ON corrections(arch, encoding, name);
CREATE TABLE equivalents(name TEXT NOT NULL, vendor TEXT NOT NULL, mappings TEXT NOT NULL,
  PRIMARY KEY(name, vendor));
CREATE TABLE syntax_rows(
  name TEXT NOT NULL, arch TEXT NOT NULL, family TEXT NOT NULL, section TEXT NOT NULL, mnemonic TEXT NOT NULL,
  file TEXT NOT NULL, line INTEGER, served_by TEXT NOT NULL, PRIMARY KEY(name, arch));
CREATE TABLE operand_pages(
  label TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, size TEXT NOT NULL, size_bits INTEGER,
  accepts TEXT NOT NULL, kinds TEXT NOT NULL, text TEXT NOT NULL, file TEXT NOT NULL, line INTEGER);
CREATE VIRTUAL TABLE search_fts USING fts5(
  name, vendor, arch, summary, body, tokenize="unicode61 tokenchars '._'");
"""
