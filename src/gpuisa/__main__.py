"""`python -m gpuisa` runs the CLI."""

from gpuisa.cli import main

main()
