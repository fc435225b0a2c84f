"""MCP server (`gpuisa mcp`): the catalog, semantics and codec as tools and resources for assistants."""
