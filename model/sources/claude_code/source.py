"""Claude Code's operations, as every source offers them (sessionscope.sources.base)."""

from __future__ import annotations

from pathlib import Path

from sessionscope.sources.base import Source, ToolFormat
from sessionscope.sources.claude_code import actions
from sessionscope.sources.claude_code.importer import KIND, default_roots, import_paths
from sessionscope.sources.claude_code.lines import CHAIN_TYPES, CHECKPOINT_TYPES, META_TYPES

LINE_TYPES = CHAIN_TYPES | CHECKPOINT_TYPES | META_TYPES  # a line of one of these types is Claude Code's


class ClaudeCodeSource(Source):
    kind = KIND
    label = "Claude Code"
    badge = ("Claude", "#b5512f")  # the session list's short name and colour
    resume_programs = actions.ALLOWED_RESUME
    has_checkpoints = True
    single_tag = True
    runs_here = True  # through claude-agent-sdk (sources/claude_code/runner)
    run_models = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5")
    export_formats = (ToolFormat("claude", "Claude Code transcript (resumable)",
                                 "a folder (empty: where claude --resume looks)", "Export Claude Code transcripts to"),)
    fork_note = ("A tool call whose result came after that point is closed as interrupted, as when you press "
                 "Esc in Claude Code; a reply cut after its thinking keeps the rest of that reply.")
    rewind_note = ("Claude Code cannot move a transcript back: a new session holding the conversation up to and "
                   "including this event, and nothing after it, will be written (the original stays as it is). "
                   "A tool call whose result came later is closed as interrupted, as when you press Esc.")

    def refusal(self, action: str, status: str | None) -> str | None:
        # resume and rewind work on the tool's files whatever the store's status; a summary of ours
        # written into a Claude transcript would be a line Claude Code never wrote
        if action in ("resume", "rewind", "run"):
            return None
        if action == "compact":
            return self.not_ours_to_compact()
        return super().refusal(action, status)

    def default_roots(self) -> list[Path]:
        return default_roots()

    def kind_for(self, path: Path) -> str:
        from sessionscope.sources.claude_code.places import kind_for
        return kind_for(path)  # (Claude Desktop's Cowork keeps Claude Code's transcripts)

    def sniff(self, obj) -> bool:
        if not (isinstance(obj, dict) and isinstance(obj.get("type"), str) and obj["type"] in LINE_TYPES):
            return False
        # Claude Code's envelope around Gemini's parts, or a system payload Claude never writes: Qwen Code's
        message = obj.get("message")
        if (isinstance(message, dict) and "parts" in message) or "systemPayload" in obj:
            return False
        # a conversation line of Claude Code's has its uuid or its message: Grok Build's `{type, content}` has neither
        return obj["type"] not in ("user", "assistant", "system") or "uuid" in obj or "message" in obj

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm=True, only=None):
        return import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)

    def catch_up(self, store, settle: float = 0.0):
        from sessionscope.sources.claude_code.mirror import catch_up
        return catch_up(store, settle)

    def turn(self, tail):
        from sessionscope.sources.claude_code.live import turn
        return turn(tail)

    def resume_command(self, session) -> list[str]:
        return actions.resume_command(session)

    def continue_command(self, session, prompt: str) -> list[str]:
        # `claude --resume ID PROMPT` opens the session and sends PROMPT as its next message; after "--" a
        # prompt that starts with "-" is the prompt, not an option
        return [*actions.resume_command(session), "--", prompt]

    def run(self, store, session, request, listener):
        from sessionscope.sources.claude_code import runner
        return runner.run(store, session, request, listener)

    def fork(self, store, session_id, at, title=None):
        return actions.fork(store, session_id, at, title)

    def rewind(self, store, session_id, to):
        return actions.rewind(store, session_id, to)

    def rename(self, store, session_id, title):
        return actions.rename(store, session_id, title)

    def tag(self, store, session_id, tags):
        if len(tags) > 1:
            from sessionscope.errors import InvalidInput
            raise InvalidInput("a Claude Code session has one tag (claude-agent-sdk's tag_session)")
        return actions.tag(store, session_id, tags[0] if tags else None)

    def write_back(self, store, session_id, target=None):
        return actions.write_back(store, session_id, target)

    def written_files(self, store, session_id):
        return actions.written_files(store, session_id)

    def delete_prompt(self, session) -> str:
        return super().delete_prompt(session) + (
            "\n\nIf Sessionscope wrote this session's transcript (a fork or a rewind), you may remove that file too, "
            "so claude --resume no longer lists it.")

    def changed_files(self, store, session_id):
        from sessionscope.sources.claude_code import checkpoints
        with store.reader() as conn:
            return checkpoints.changed_files(conn, session_id)

    def files_at(self, store, session_id, event_id):
        from sessionscope.sources.claude_code import checkpoints
        return checkpoints.files_at(store, session_id, event_id)

    def restore_plan(self, store, session_id, event_id, into=None):
        from sessionscope.sources.claude_code import checkpoints
        return checkpoints.restore_plan(store, session_id, event_id, into)


SOURCE = ClaudeCodeSource()
