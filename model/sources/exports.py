"""What the chat services' data exports share (ChatGPT's, claude.ai's): the `conversations.json` a user
downloads, as it is or inside the export's zip."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .documents import load_json

MAX_MEMBER_BYTES = 2 << 30  # an export's conversations.json, unzipped


def conversations(path: Path, data: bytes) -> Any:
    """The export's conversations: the JSON file itself, or `conversations.json` inside its zip."""
    if data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            name = next((n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"), None)
            if name is None:
                raise ValueError("the zip holds no conversations.json")
            if z.getinfo(name).file_size > MAX_MEMBER_BYTES:
                raise ValueError("its conversations.json is over 2 GB unzipped: not read")
            return load_json(z.read(name))
    return load_json(data)


def sniff_conversations(doc: Any, is_conversation: Callable[[Any], bool]) -> bool:
    """An export's conversations (an array of them), or one conversation."""
    if isinstance(doc, list):
        return bool(doc) and all(is_conversation(c) for c in doc[:5])
    return is_conversation(doc)


def export_files(root: Path) -> list[Path]:
    """The exports a folder holds (`conversations.json`), or the file named."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("conversations.json") if p.is_file())


def builder(is_conversation: Callable[[Any], bool], conversation: Callable[[dict, float], Any], service: str):
    """A documents.read_whole `build` for a service's export: each conversation `is_conversation` recognises,
    read by `conversation(it, the file's mtime)`."""
    def build(path: Path, data: bytes) -> list:
        doc = conversations(path, data)
        if not sniff_conversations(doc, is_conversation):
            raise ValueError(f"not a {service} export")
        mtime = path.stat().st_mtime
        return [conversation(c, mtime) for c in (doc if isinstance(doc, list) else [doc]) if is_conversation(c)]
    return build


def zip_claims(path: Path, sniff: Callable[[Any], bool]) -> bool:
    """Whether a zip is a data export whose conversations `sniff` recognises (only a small first part of
    conversations.json is read to tell)."""
    if path.suffix != ".zip":
        return False
    try:
        with zipfile.ZipFile(path) as z:
            name = next((n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"), None)
            if name is None:
                return False
            with z.open(name) as fh:
                head = fh.read(256 << 10)
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    return sniff(_first_item(head))


def _first_item(head: bytes) -> Any:
    """The first conversation of a JSON array read only in part (the export may be gigabytes)."""
    import json
    text = head.decode("utf-8", "replace").lstrip()
    if not text.startswith("["):
        return None
    try:
        return [json.JSONDecoder().raw_decode(text, 1 + len(text[1:]) - len(text[1:].lstrip()))[0]]
    except ValueError:
        return None
