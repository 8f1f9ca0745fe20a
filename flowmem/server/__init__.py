"""The HTTP service and the MCP server: ``flowmem serve`` and ``flowmem mcp``."""
