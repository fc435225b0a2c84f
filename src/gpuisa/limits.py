"""Budgets for untrusted input, in one place so the CLI, the web app and the readers agree.

A request or argument over a size budget is refused before any work (a 400, or `gpuisa: error:`
with exit 2); a piece of work over its time budget is stopped (a 503 on the web, exit 2 in the CLI).
The numbers are far above anything real: the longest instruction name in the catalog is under 60
characters, and no useful search has more than a handful of words.
"""

from __future__ import annotations

# Command-line arguments (checked in cli.main before any command runs).
MAX_ARGUMENT_CHARS = 4096

# Instruction names (CLI, web paths, API queries).
MAX_NAME_CHARS = 128

# Search text: characters and words (full-text terms), and the time one search may take.
MAX_QUERY_CHARS = 200
MAX_QUERY_TERMS = 12
SEARCH_SECONDS = 1.0

# Web: worker threads for uncached requests, how many may wait for one, and a request's whole budget.
WEB_WORKERS = 4
WEB_QUEUE = 16
WEB_REQUEST_SECONDS = 5.0
# Web decode box: hex characters one request may carry (1 KiB of code), and how many instructions get a diagram.
WEB_DECODE_MAX_HEX = 4096
WEB_DECODE_DIAGRAMS = 32

# Vendor source files read by the build (bytes): the largest manual (rdna4) is 1.5 MB, a PTX section 125 kB.
MAX_MANUAL_BYTES = 16 << 20
MAX_PTX_SECTION_BYTES = 4 << 20
MAX_FRONT_MATTER_BYTES = 64 << 10

# `gpuisa fetch`: extracted archive members.
MAX_EXTRACTED_FILE_BYTES = 512 << 20
MAX_EXTRACTED_TOTAL_BYTES = 8 << 30
MAX_ARCHIVE_MEMBERS = 500_000

# Pseudocode evaluation: the longest block in the manuals is 2,321 characters and the widest value 1,024
# bits (WMMA operands). Text length, statements + expression nodes evaluated, nested calls, wall time,
# widest value in bits, array elements.
EVAL_MAX_TEXT = 16 << 10
EVAL_MAX_STEPS = 2_000_000
EVAL_MAX_CALLS = 64
EVAL_SECONDS = 5.0
EVAL_MAX_BITS = 4096
EVAL_MAX_ARRAY = 1 << 16
