"""Qwen Code chats (`~/.qwen/projects/<project>/chats/<sessionId>.jsonl`), read as they are appended.

importer  lines → events (Claude-like records around Gemini-like parts), the session's tree by parentUuid
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.qwen_code.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401
