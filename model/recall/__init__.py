"""Finding what was said again: the search language, full-text and by meaning, the user's notes, and the MCP server for agents."""
