"""What the chat services' data exports share (ChatGPT's, claude.ai's): the `conversations.json` a user
downloads, as it is or inside the export's zip."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL

from sessionscope.safety.untrusted import shown
from sessionscope.sources import json_stream
from sessionscope.sources.documents import Transcript

MAX_MEMBER_BYTES = 2 << 30  # an export's conversations.json, unzipped


def conversation_stream(path: Path) -> Iterator[Any]:
    """The export's conversations one at a time (sessionscope.sources.json_stream: streamed, nesting bounded): the
    JSON file itself, or `conversations.json` inside its zip."""
    with open(path, "rb") as fh:
        zipped = fh.read(4) == b"PK\x03\x04"
        if not zipped:
            fh.seek(0)
            yield from json_stream.items(fh)
            return
    with zipfile.ZipFile(path) as z:
        name = next((n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"), None)
        if name is None:
            raise ValueError("the zip holds no conversations.json")
        if z.getinfo(name).file_size > MAX_MEMBER_BYTES:
            raise ValueError("its conversations.json is over 2 GB unzipped: not read")
        with z.open(name) as member:
            yield from json_stream.items(member)


def sniff_conversations(doc: Any, is_conversation: Callable[[Any], bool]) -> bool:
    """An export's conversations (an array of them), or one conversation."""
    if isinstance(doc, list):  # (its first a conversation, and most of those after it: a stray item is said later)
        head = doc[:5]
        return bool(head) and is_conversation(head[0]) and 2 * sum(map(is_conversation, head)) > len(head)
    return is_conversation(doc)


def export_files(root: Path) -> list[Path]:
    """The exports a folder holds (`conversations.json`), or the file named."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("conversations.json") if p.is_file())


def builder(is_conversation: Callable[[Any], bool], conversation: Callable[[dict, float], Any], service: str):
    """A documents.read_streamed `build` for a service's export: each conversation `is_conversation` recognises,
    read by `conversation(it, the file's mtime)`, one at a time. A conversation that cannot be read is said (a
    transcript with its problem and no events) and the next one is read: one bad conversation loses no other."""
    def failed(problem: str) -> Transcript:
        return Transcript(NAMESPACE_URL, "unreadable", problems=[problem])

    def build(path: Path) -> Iterator[Any]:
        mtime = path.stat().st_mtime
        for n, c in enumerate(conversation_stream(path)):
            if isinstance(c, json_stream.Unreadable):
                yield failed(f"conversation {c.index + 1}: cannot be read ({c.why})")
            elif not is_conversation(c):
                if n == 0:
                    raise ValueError(f"not a {service} export")
                yield failed(f"item {n + 1} is not a {service} conversation: not read")
            else:
                try:
                    yield conversation(c, mtime)
                except Exception as exc:  # a shape the reader did not foresee: this conversation alone is lost
                    cid = c.get("id") or c.get("uuid") or c.get("conversation_id") or f"#{n + 1}"
                    yield failed(f"conversation {shown(cid)}: cannot be read ({type(exc).__name__}: {shown(str(exc))})")
    return build


def zip_claims(path: Path, sniff: Callable[[Any], bool]) -> bool:
    """Whether a zip is a data export whose conversations `sniff` recognises: its conversations.json is read as far
    as its first conversation (streamed: the export may be gigabytes, and one conversation of 200,000 messages
    outgrew any fixed first part)."""
    if path.suffix != ".zip":
        return False
    try:
        with zipfile.ZipFile(path) as z:
            name = next((n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"), None)
            if name is None:
                return False
            with z.open(name) as fh:
                first = next(json_stream.items(fh), None)
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    return first is not None and not isinstance(first, json_stream.Unreadable) and sniff([first])
