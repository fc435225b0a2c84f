"""CLI command modules; each exposes register(app: typer.Typer).

Every command module is imported on every `gpuisa` start (to list the commands), so a command imports
the subsystem it drives (codec, semantics, web, lsp, mcp, build) inside its function: `gpuisa show`
should not pay for lark, numpy, z3, fastapi or pygls. That is the one reason for function-level
imports here; import-linter still sees them (tests/test_layers.py).
"""
