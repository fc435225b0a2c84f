"""Wrappers around external oracles (llvm-mc, ptxas, cuobjdump): run them, parse them, cache them.

Each wrapper raises one clear exception type when its tool is missing, so callers can say
"verification skipped" instead of failing.
"""
