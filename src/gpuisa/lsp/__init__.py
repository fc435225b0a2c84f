"""Language server for AMDGPU assembly and PTX (`gpuisa lsp`): parsing, facts, checks, protocol."""
