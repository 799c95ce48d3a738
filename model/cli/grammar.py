"""The commands of the command line, in groups by concern: each command's options and their help, its handler
("module:function" of sessionscope.cli), whether it only reads or never opens the store, and one example
(sessionscope.cli.parser's `cmd` records them). Imports nothing of the store, so `--help` answers at once."""

from __future__ import annotations

import argparse

from sessionscope.cli.values import json_arg, json_or_text, parse_time

EVENT_HELP = "an event id (any prefix), or its number as `show` prints it in the first column"


def writing(cmd, common) -> None:
    """The commands of a native session written by hand: new, append, fact."""
    c = cmd("new", "open a new native session and print its id",
            run="commands:new",
            example='S=$(sessionscope new --title "fix login" --agent my-bot --budget \'{"tokens": 200000}\')')
    c.add_argument("--title", default="")
    c.add_argument("--agent", default="")
    c.add_argument("--project", default="")
    c.add_argument("--cwd", default="")
    c.add_argument("--model", default="")
    c.add_argument("--meta", type=json_arg, default=None, help="metadata as a JSON object")
    c.add_argument("--budget", type=json_arg, default=None, help='budget as JSON, e.g. {"tokens": 200000}')
    c.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")

    c = cmd("append", "append one event to a session",
            run="commands:append", example='sessionscope append $S --kind message --role user --text "the login page 500s"')
    c.add_argument("session")
    c.add_argument("--kind", required=True, help="message, tool_call, tool_result, thinking, …")
    c.add_argument("--role")
    c.add_argument("--text", default="")
    c.add_argument("--payload", type=json_arg, help="the raw payload as JSON")
    c.add_argument("--ts", type=parse_time, help="when it happened (default: now)")
    c.add_argument("--tokens-in", type=int, default=0)
    c.add_argument("--tokens-out", type=int, default=0)

    c = cmd("fact", "set or delete a durable fact",
            run="commands:fact", example='sessionscope fact set $S plan \'["reproduce", "fix", "test"]\'')
    fact_sub = c.add_subparsers(dest="fact_command", metavar="set|delete", required=True)
    f = fact_sub.add_parser("set", parents=[common], help="set KEY to VALUE (JSON or text)")
    f.add_argument("session")
    f.add_argument("key")
    f.add_argument("value", type=json_or_text)
    f = fact_sub.add_parser("delete", parents=[common], help="delete KEY")
    f.add_argument("session")
    f.add_argument("key")

def reading(cmd, common) -> None:
    """The commands of what a session holds: list, show, facts, diff, open."""
    c = cmd("list", "list sessions, newest activity first",
            run="commands:list_sessions", example='sessionscope list --source claude_code --tag release --limit 20', reads=True)
    c.add_argument("--all", action="store_true", help="include archived sessions")
    c.add_argument("--status")
    c.add_argument("--source", help="native, claude_code, codex, …")
    c.add_argument("--filter", help="words in the title, id or project")
    c.add_argument("--by", metavar="USER@HOST", help="only sessions this person brought into the store (a team store)")
    c.add_argument("--starred", action="store_true", help="only the sessions you starred")
    c.add_argument("--pinned", action="store_true", help="only the sessions with an event you pinned")
    c.add_argument("--tag", help="only the sessions carrying this tag (tags lists them)")
    c.add_argument("--sort", default="updated", help="updated, created, title, events, tokens, status, project")
    c.add_argument("--limit", type=int, default=None)

    c = cmd("show", "show a session's events (its log in append order)",
            run="commands:show", example='sessionscope show 3f2a9c1e --since 2h', reads=True)
    c.add_argument("session")
    c.add_argument("--from-seq", type=int)
    c.add_argument("--to-seq", type=int)
    c.add_argument("--since", type=parse_time)
    c.add_argument("--until", type=parse_time)
    c.add_argument("--branch", action="store_true", help="show the path from the root to the head instead")
    c.add_argument("--all", action="store_true", help="include the lines that are not the conversation (progress, "
                   "metadata, checkpoints, a tool's own context), hidden by default in text, each said by what its tool "
                   "calls it, [attachment: skill_listing] (--json has every event)")

    c = cmd("facts", "the durable facts at an event (or at a session's head)",
            run="commands:facts", example='sessionscope facts 3f2a9c1e', reads=True)
    c.add_argument("event", help="an event id, or a session id for its head")

    c = cmd("diff", "how the facts changed from A to B (events or sessions' heads)",
            run="commands:diff", example='sessionscope diff 3f2a9c1e 7b41d0aa', reads=True)
    c.add_argument("a")
    c.add_argument("b")

    c = cmd("open", "the window on a session: the open window is brought to it, else one opens on it "
            "(`sessionscope ID` and a sessionscope://session/ID link do the same)",
            run="opening:open_", example='sessionscope open 3f2a9c1e', no_store=True)
    c.add_argument("session", help="a session id (any prefix), or a sessionscope://session/ID link")

def acting(cmd, common) -> None:
    """The commands of what is done to a session: fork, rewind, resume, compact, close, pause, archive, delete,
    rename, tags, summarize."""
    c = cmd("fork", "start a new session from an event of this one: it ends at that event",
            run="tools:fork", example='sessionscope fork 3f2a9c1e --at 9d0c --continue "now try the other fix"')
    c.add_argument("session")
    c.add_argument("--at", required=True, metavar="EVENT", help=EVENT_HELP)
    c.add_argument("--title")
    c.add_argument("--end-of-turn", action="store_true",
                   help="fork at the last event of EVENT's turn (before the next prompt) instead")
    c.add_argument("--continue", dest="continue_with", metavar="TEXT",
                   help="and continue with TEXT (- reads standard input): print the command that opens the fork in "
                   "its tool with TEXT as the next prompt (claude --resume FORK -- TEXT); where the tool cannot "
                   "open the fork, TEXT becomes the fork's next message here")
    c.add_argument("--note", dest="notes", action="append", default=[], metavar="NOTE",
                   help="continue with this note's text (repeatable, in order; before --continue's TEXT)")

    c = cmd("run", "run the session's agent on from here with a prompt (Claude Code, through claude-agent-sdk): the "
            "reply streams here, tool calls ask at this terminal (elsewhere they are refused unless --allow names "
            "them), and the transcript is imported when it ends",
            run="running:run", example='sessionscope run 3f2a9c1e --prompt "now fix the failing test" --allow Read')
    c.add_argument("session")
    c.add_argument("--prompt", required=True, metavar="TEXT", help="what to say (- reads standard input)")
    c.add_argument("--fork", action="store_true", help="run a fork of the session (its tool writes it) and leave the "
                   "session as it is")
    c.add_argument("--at", metavar="EVENT", help="with --fork: fork at this event instead of the end (an id, or its "
                   "number in `show`'s first column)")
    c.add_argument("--model", help="the model for this run (default: the tool's own setting)")
    c.add_argument("--permission-mode", choices=("default", "acceptEdits", "plan", "bypassPermissions"),
                   help="the tool's permission mode for this run")
    c.add_argument("--allow", action="append", default=[], metavar="TOOL",
                   help="a tool allowed without asking (repeatable: --allow Read --allow Bash)")

    c = cmd("rewind", "move a session's head back to an earlier event",
            run="tools:rewind", example='sessionscope rewind 3f2a9c1e --to 9d0c --end-of-turn')
    c.add_argument("session")
    c.add_argument("--to", required=True, metavar="EVENT", help=EVENT_HELP)
    c.add_argument("--end-of-turn", action="store_true",
                   help="rewind to the last event of EVENT's turn (before the next prompt) instead")

    c = cmd("resume", "make a session active and print its resume context",
            run="tools:resume", example='sessionscope resume 3f2a9c1e', reads=True)
    c.add_argument("session")

    c = cmd("compact", "append a summary; earlier messages leave the resume context",
            run="commands:compact", example='sessionscope compact $S --summary "login fixed; tests pending"')
    c.add_argument("session")
    c.add_argument("--summary", required=True)

    for name, help_ in (("close", "close a session"), ("pause", "pause a session"),
                        ("archive", "archive a session: read-only and hidden from the list"),
                        ("unarchive", "bring an archived session back")):
        cmd(name, help_, run=f"commands:{name}", example=f"sessionscope {name} 3f2a9c1e").add_argument("session")

    c = cmd("delete", "delete a session and its events for good (recorded in the audit log)",
            run="commands:delete", example='sessionscope delete 3f2a9c1e --remove-files')
    c.add_argument("session")
    c.add_argument("--yes", "-y", action="store_true", help="do not ask")
    c.add_argument("--remove-files", action="store_true", help="also remove the transcript Sessionscope wrote for it "
                   "(a Claude Code fork or rewind), so claude --resume no longer lists it")

    c = cmd("rename", "give a session a new title",
            run="tools:rename", example='sessionscope rename 3f2a9c1e "login 500: root cause"')
    c.add_argument("session")
    c.add_argument("title")

    c = cmd("tag", "set a session's tags (tag SESSION [TAG…]), or add and take away some, keeping the others "
            "(tag SESSION --add TAG --remove TAG)",
            run="tools:tag", example='sessionscope tag 3f2a9c1e --add release --remove wip')
    c.add_argument("session")
    c.add_argument("tags", nargs="*", help="the session's tags, all of them (none: clears them)")
    c.add_argument("--add", action="append", default=[], metavar="TAG", help="add TAG (repeatable)")
    c.add_argument("--remove", action="append", default=[], metavar="TAG", help="take TAG away (repeatable)")

    c = cmd("tags", "every tag in use, with how many sessions carry it (list --tag TAG lists them)",
            run="tools:tags", example='sessionscope tags', reads=True)
    c.add_argument("--all", action="store_true", help="count archived sessions too")

    c = cmd("summarize", "ask a model (Anthropic's API: the [managed] extra and a key) for a title and a short "
            "summary of a session, kept as a generated note; what is sent is shown (redacted) and asked about first",
            run="tools:summarize", example='sessionscope summarize 3f2a9c1e')
    c.add_argument("session")
    c.add_argument("--show", action="store_true", help="only print what would be sent (redacted), send nothing")
    c.add_argument("--yes", "-y", action="store_true", help="send without asking (what is sent is still printed "
                   "on stderr)")
    c.add_argument("--model", default=None, help="the model to ask (default: claude-haiku-4-5)")

def marking(cmd, common) -> None:
    """The commands of the user's own marks: stars, pins, notes."""
    c = cmd("star", "star a session (list --starred lists them), or with --off take its star away",
            run="tools:star", example='sessionscope star 3f2a9c1e')
    c.add_argument("session")
    c.add_argument("--off", action="store_true", help="take the star away")

    c = cmd("pin", "pin an event of a session's history (pins lists them), or with --off take its pin away",
            run="tools:pin", example='sessionscope pin 3f2a9c1e 9d0c')
    c.add_argument("session")
    c.add_argument("event")
    c.add_argument("--off", action="store_true", help="take the pin away")

    c = cmd("pins", "list the events you pinned, newest first: of one session, or of all",
            run="tools:pins", example='sessionscope pins 3f2a9c1e', reads=True)
    c.add_argument("session", nargs="?")

    c = cmd("note", "your notes (Markdown) on a session or one of its events: add, edit, rm, list",
            run="tools:note", example='sessionscope note add 3f2a9c1e "ask about the retry budget" --event 9d0c')
    note_sub = c.add_subparsers(dest="note_command", metavar="add|edit|rm|list", required=True)
    n = note_sub.add_parser("add", parents=[common], help="a note on SESSION (with --event, on one of its events)")
    n.add_argument("session")
    n.add_argument("text", help="the note, Markdown; - reads it from standard input")
    n.add_argument("--event", help="the event it is about (an id or a prefix of one)")
    n = note_sub.add_parser("edit", parents=[common], help="the note's new text")
    n.add_argument("note", help="the note's id (or a prefix of it)")
    n.add_argument("text", help="the new text; - reads it from standard input")
    n = note_sub.add_parser("rm", parents=[common], help="take a note away (the audit log keeps what it said)")
    n.add_argument("note")
    n = note_sub.add_parser("list", parents=[common], help="one session's notes in its order, or every note, newest first")
    n.add_argument("session", nargs="?")

def keeping(cmd, common) -> None:
    """The commands of the store kept sound and shared out: repair, backup, verify, export, redaction."""
    c = cmd("repair", "rebuild a damaged SQLite store from every row it can still read, then import the tools' files "
            "again; the damaged file is kept beside it",
            run="backup:repair",
            example='sessionscope --store ~/.local/share/sessionscope/store.db repair', no_store=True)
    c.add_argument("--yes", "-y", action="store_true", help="do not ask")

    c = cmd("backup", "copy the store (SQLite's online backup: it stays in use) into the backups folder beside it; "
            "--list them, or --restore one", run="backup:backup", example='sessionscope backup --list', no_store=True)
    c.add_argument("--list", action="store_true", help="list the backups, newest first, without making one")
    c.add_argument("--restore", metavar="FILE", help="put FILE (a backup) in place of the store, after checking it; "
                   "the store as it is now is kept as a backup first")
    c.add_argument("--yes", "-y", action="store_true", help="do not ask before --restore")

    c = cmd("verify", "check hash chains (of the store, or of an exported .jsonl FILE); exit 1 naming the first break",
            run="commands:verify", example='sessionscope verify export.jsonl', reads=True)
    c.add_argument("session", nargs="?", metavar="SESSION|FILE")

    c = cmd("export", "export sessions, a branch or a search's sessions (md, html, jsonl, claude)",
            run="export:export", example='sessionscope export 3f2a9c1e -f html -o login.html --redact', reads=True)
    c.add_argument("sessions", nargs="*", metavar="SESSION")
    c.add_argument("--format", "-f", required=True, choices=("md", "html", "jsonl", "claude"))
    c.add_argument("-o", "--output", metavar="PATH",
                   help="the file to write (claude: a folder or .jsonl file; default: where claude --resume looks)")
    c.add_argument("--branch", metavar="EVENT", help="export one branch: root to this event")
    c.add_argument("--search", metavar="QUERY", help="export the sessions this search finds")
    c.add_argument("--detail", default="full", choices=("prompts", "conversation", "full"),
                   help="md and html: user prompts only, the conversation, or everything (default)")
    red = c.add_mutually_exclusive_group()
    red.add_argument("--redact", dest="redact", action="store_true", default=None,
                     help="replace secrets with placeholders (the review list is printed first)")
    red.add_argument("--no-redact", dest="redact", action="store_false", help="export secrets as they are")

    c = cmd("redaction", "your own redaction patterns (regular expressions), shared by the app and the CLI",
            run="export:redaction", example="sessionscope redaction --add 'ACME-[0-9]{6}'")
    c.add_argument("--add", action="append", metavar="REGEX")
    c.add_argument("--remove", action="append", metavar="REGEX")
    c.add_argument("--clear", action="store_true")
    c.add_argument("--allow", action="append", metavar="PLACEHOLDER",
                   help="a finding that is no secret, by the placeholder the review shows: left as it is from now on")
    c.add_argument("--disallow", action="append", metavar="PLACEHOLDER", help="take an --allow back")

def recalling(cmd, common) -> None:
    """The commands of finding again: search, by meaning, the MCP server."""
    c = cmd("search", "search every session: words, \"a phrase\", OR, -word, and kind: tool: source: project: "
            "session: since: until: has:error is:starred is:pinned note: (the manual: Search); the best hits first",
            run="commands:search", example="sessionscope search 'deploy* -flaky tool:Bash since:7d'", reads=True)
    c.add_argument("query", nargs="+")
    c.add_argument("--limit", type=int, default=50)
    c.add_argument("--session")
    c.add_argument("--sort", choices=("relevance", "time"), default="relevance",
                   help="the best hits first (default), or the newest")

    c = cmd("semantic", "search by meaning (off until turned on): show its state, turn it on or off, choose its "
            "local model; the app and `embed` embed prompts, replies, facts and notes (the manual: Search by meaning)",
            run="meaning:semantic", example='sessionscope semantic on')
    c.add_argument("state", nargs="?", choices=("on", "off", "status"), default="status")
    c.add_argument("--model", metavar="REPO|FOLDER", help="a model2vec model: a Hugging Face repository "
                   "(default minishlab/potion-base-8M, fetched once) or a folder here; another model embeds all again")
    tool = c.add_mutually_exclusive_group()
    tool.add_argument("--tool-output", dest="tool_output", action="store_true", default=None,
                      help="embed tool results too (more to embed, mostly noise to a question)")
    tool.add_argument("--no-tool-output", dest="tool_output", action="store_false",
                      help="leave tools' output out of what is embedded")

    cmd("embed", "fetch the model if it is not here, then embed every text without a vector (Ctrl+C stops; the "
        "next run goes on from there)", run="meaning:embed", example='sessionscope embed')

    c = cmd("similar", "the sessions nearest in meaning to one (search by meaning must be on)",
            run="meaning:similar", example='sessionscope similar 3f2a9c1e', reads=True)
    c.add_argument("session")
    c.add_argument("--limit", type=int, default=10)

def live(cmd, common) -> None:
    """The commands of who is working or waiting (status, hooks, hook), and the MCP server for agents."""
    c = cmd("status", "which agents are working, which wait for you (like ps for agents): the watched places read "
            "first, then each session's state from its last lines, its tool's process and the time",
            run="status:status", example='sessionscope status --watch')
    c.add_argument("--all", action="store_true", help="the ended sessions too")
    c.add_argument("--watch", action="store_true", help="redraw every two seconds until Ctrl+C")

    c = cmd("hooks", "exact live states from the agents' own hooks (opt-in): add Sessionscope's hooks to Claude "
            "Code's, Codex's or Gemini CLI's settings, take them out, or show what is installed",
            run="hooks:hooks", example='sessionscope hooks install --tool claude --dry-run', no_store=True)
    c.add_argument("action", nargs="?", choices=("install", "uninstall", "status"), default="status")
    c.add_argument("--tool", choices=("claude", "codex", "gemini", "all"), default=None,
                   help="one tool (default: install for each tool found here, uninstall from all)")
    c.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    c.add_argument("--statusline", action="store_true",
                   help="install: Claude Code's status line shows what your agents spent (sessionscope usage "
                        "statusline), unless it shows something of yours already (kept); uninstall takes it out")

    c = cmd("hook", "what an agent's hook runs (installed by `hooks install`): reads the hook's JSON on stdin and "
            "keeps the session's live state; silent, exit 0 always",
            run="hooks:hook", example="sessionscope hook --tool claude < hook-input.json", no_store=True)
    c.add_argument("--tool", choices=("claude", "codex", "gemini"), default=None)
    c.add_argument("payload", nargs="*", help=argparse.SUPPRESS)  # Codex's notify passes the JSON as an argument

    c = cmd("mcp", "serve every session to agents over the Model Context Protocol (stdio): search, transcripts, "
            "facts, notes, a project's handoff; read-only unless --allow-write; redacted as an export is",
            run="commands:mcp", example='claude mcp add sessionscope -- sessionscope mcp')
    c.add_argument("--allow-write", action="store_true", help="let agents add notes, pins and tags (never fork, "
                   "rewind, delete or restore)")
    c.add_argument("--no-redact", action="store_true", help="hand out secrets as they are (redacted by default: "
                   "a secret in one session must not reach another model)")
    c.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of "
                   "stdio, every request with the bearer token (printed on stderr, or SESSIONSCOPE_MCP_TOKEN's)")

def bringing_in(cmd, common) -> None:
    """The commands that bring sessions in and let them go: retention, import, scan, drift."""
    c = cmd("retention", "show, set or run the retention policy (off by default)",
            run="commands:retention", example='sessionscope retention --archive-after 30 --purge-after 180 --run --dry-run')
    c.add_argument("--archive-after", metavar="DAYS|off", help="archive sessions idle this many days")
    c.add_argument("--purge-after", metavar="DAYS|off", help="delete archived sessions after this many days")
    c.add_argument("--run", action="store_true", help="apply the policy now")
    c.add_argument("--dry-run", action="store_true", help="with --run: only say what would happen")

    c = cmd("import", "import Claude Code transcripts (files or folders, incremental) or a Sessionscope .jsonl export",
            run="tools:import_", example='sessionscope import ~/Downloads/transcripts')
    c.add_argument("paths", nargs="+", metavar="PATH")

    cmd("scan", "find and import the known places (~/.claude/projects, $CLAUDE_CONFIG_DIR, …)",
            run="tools:scan", example='sessionscope scan')

    cmd("drift", "what the readers met and did not understand, by tool and the tool's version (a format newer or "
                 "older than this Sessionscope knows): kept lines and document parts said as not known",
                         run="problems:drift", example='sessionscope drift')

def insight(cmd, common) -> None:
    """The commands of what the sessions add up to: stats, blame, commits."""
    c = cmd("stats", "how the agents' tool calls went (tools: calls, failures, time per call, output, retries, the "
                     "calls right before a correction) and how sessions went (sessions: their vital signs)",
                             run="stats:stats", example='sessionscope stats tools --by model --since 30d')
    c.add_argument("what", choices=("tools", "sessions"),
                   help="tools: the tool outcomes; sessions: each session's vital signs (time, turns, failures, "
                        "interruptions, compactions, loops, files changed, tests)")
    c.add_argument("sessions", nargs="*", metavar="SESSION", help="sessions: these sessions (default: the latest)")
    c.add_argument("--by", choices=("tool", "model", "project", "source"), default="tool",
                   help="tools: group by (default: tool)")
    c.add_argument("--since", metavar="WHEN", help="from this day (2026-11-01) or age (7d, 2w)")
    c.add_argument("--until", metavar="WHEN", help="up to this day (inclusive)")
    c.add_argument("--limit", type=int, default=20, metavar="N", help="sessions: at most N, latest first (default 20)")

    c = cmd("usage", "what the agents spent: tokens by kind and dollars in all, or by day, week, month, session, "
                     "project, model or tool (every tool that writes its tokens); Claude's five-hour billing blocks; "
                     "one line for Claude Code's status line",
            run="usage:usage", example='sessionscope usage daily --since 7d --breakdown', reads=True)
    c.add_argument("what", nargs="?", default="total",
                   choices=("total", "daily", "weekly", "monthly", "session", "project", "model", "tool", "blocks",
                            "statusline"),
                   help="total (default), a report by daily/weekly/monthly/session/project/model/tool, blocks (Claude's "
                        "five-hour windows), or statusline (reads Claude Code's JSON on stdin, prints one line)")
    c.add_argument("--since", metavar="WHEN", help="from this day (2026-11-01, 20261101) or age (7d, 2w)")
    c.add_argument("--until", metavar="WHEN", help="up to this day (inclusive)")
    c.add_argument("--tool", metavar="KIND", help="one tool's sessions, as `list --json` names it (claude_code, codex, "
                                                  "…); blocks and statusline: claude_code unless given")
    c.add_argument("--project", metavar="PATH", help="the sessions whose project holds PATH")
    c.add_argument("--breakdown", action="store_true", help="each row's models too")
    c.add_argument("--recent", action="store_true", help="blocks: the last three days' blocks and the active one")
    c.add_argument("--active", action="store_true", help="blocks: the active block alone")
    c.add_argument("--live", action="store_true", help="blocks: redraw every few seconds until interrupted (Ctrl+C)")
    c.add_argument("--interval", type=float, default=5.0, metavar="SECONDS", help="blocks --live: how often (default 5)")

    c = cmd("blame", "which session, and which of its events, wrote each line of a file (every tool's edits, "
                     "replayed; a line changed by hand since is said so)",
                             run="blame:blame", example='sessionscope blame src/login.py')
    c.add_argument("file", metavar="FILE[:LINE[-LINE]]", help="the file, and the lines to show (default: all)")

    c = cmd("commits", "the repository's git log, each commit an agent's shell made named with its session",
            run="blame:commits", example='sessionscope commits --limit 20')
    c.add_argument("folder", nargs="?", default=None, metavar="FOLDER", help="a folder in the repository (default: .)")
    c.add_argument("--limit", type=int, default=50, metavar="N", help="the newest N commits (default 50)")

def team(cmd, common) -> None:
    """The commands of a team store: its rules, sync."""
    c = cmd("team", "a team store's rules on PostgreSQL (owners, sharing, members): status; init (once, by the "
                    "store's owner); add-member NAME [--admin]; share / unshare SESSION or --project P",
                            run="team:team", example='sessionscope --store postgresql://me@db/team team add-member bob')
    c.add_argument("what", choices=("status", "init", "add-member", "share", "unshare"))
    c.add_argument("name", nargs="?", metavar="NAME|SESSION", help="add-member: the login; share: the session")
    c.add_argument("--project", metavar="P", help="share / unshare: every session of yours in this project")
    c.add_argument("--admin", action="store_true", help="add-member: an admin (reads and changes everything)")
    c.add_argument("--password-stdin", action="store_true",
                   help="add-member: read the new login's password from stdin (a server that asks for one)")

    c = cmd("sync", "push the sessions you share to a team store, secrets redacted first (only what is new; a cut "
                    "connection goes on from where it got): sync [--to URL] [--dry-run]; status; rule PROJECT "
                    "always|ask|never|default; share / skip SESSION…; target URL [--every MIN] | --forget",
                            run="sync:sync", example='sessionscope sync --dry-run')
    c.add_argument("what", nargs="?", choices=("push", "status", "rule", "share", "skip", "target"), default="push")
    c.add_argument("names", nargs="*", metavar="ARG", help="rule: PROJECT RULE; share, skip: sessions; target: URL")
    c.add_argument("--to", metavar="URL", help="the team store for this sync (default: the one `sync target` keeps)")
    c.add_argument("--dry-run", action="store_true", help="write nothing: say what would go and review the secrets "
                                                          "that would be redacted")
    c.add_argument("--default", dest="default_rule", choices=("always", "ask", "never"), default=None,
                   help="rule: the rule of every project without one (ask, unless set)")
    c.add_argument("--every", type=int, metavar="MIN", default=None,
                   help="target: minutes between the app's background syncs (0: only when asked)")
    c.add_argument("--forget", action="store_true", help="target: forget the team store (and its kept password)")

def tools(cmd, common) -> None:
    """The commands of a tool's own files and APIs (write-back, restore-files, pull, send, interrupt, key), the
    desktop entry, and the audit log."""
    c = cmd("write-back", "write a kept Claude Code session back so `claude --resume` finds it again "
            "(also: restore, its first name)", aliases=["restore"],
            run="tools:write_back", example='sessionscope write-back 3f2a9c1e')
    c.add_argument("session")
    c.add_argument("--to", metavar="FOLDER", help="the folder to write the transcript into (default: Claude Code's "
                   "projects folder for the session's cwd, ~/.claude/projects/<cwd as Claude names it>)")

    c = cmd("restore-files", "put a session's files back as they were at a prompt (Claude Code's checkpoints)",
            run="restore_files:restore_files", example='sessionscope restore-files 3f2a9c1e --to 9d0c --dry-run', reads=True)
    c.add_argument("session")
    c.add_argument("--to", metavar="EVENT", help="a prompt, or any event of its turn")
    c.add_argument("--dry-run", action="store_true", help="show what would change, with diffs; write nothing")
    c.add_argument("--only", nargs="+", metavar="PATH", help="restore just these paths (as the preview names them)")
    c.add_argument("--into", metavar="FOLDER", help="place the files under FOLDER instead of the session's folder")
    c.add_argument("--conversation", action="store_true", help="rewind the conversation to that prompt too")
    c.add_argument("--undo", action="store_true", help="put back what the last restore of this session changed "
                   "(previewed and asked like a restore; --dry-run shows it only)")
    c.add_argument("--redo", action="store_true", help="take back the last --undo (what it overwrote is put back)")
    c.add_argument("--yes", "-y", action="store_true", help="do not ask")

    workspace = argparse.ArgumentParser(add_help=False)
    workspace.add_argument("--openai", action="store_true",
                           help="OpenAI's hosted agent sessions (the key from $OPENAI_API_KEY or the keyring) instead of "
                                "Anthropic's managed agents")
    workspace.add_argument("--base-url", metavar="URL",
                           help="the API's address (default: $ANTHROPIC_BASE_URL or https://api.anthropic.com; with "
                                "--openai $OPENAI_BASE_URL or https://api.openai.com/v1)")
    workspace.add_argument("--workspace", "--project", metavar="ID",
                           help="the workspace (with --openai: the project), for a key that reaches several")
    c = cmd("pull", "pull sessions that live behind an API: Anthropic managed agents and OpenAI hosted agents (every "
            "workspace or project added; the first time, Anthropic's default, or OpenAI's with --openai)",
            parents=[workspace], run="managed:pull", example='sessionscope pull --workspace wrkspc_01ABC')
    c.add_argument("--session", action="append", metavar="ID", help="only this session (repeatable)")
    c = cmd("send", "send a user message to a session behind an API (a managed or hosted agent: it runs)",
            run="managed:send", example='sessionscope send 3f2a9c1e "now draft the postmortem"')
    c.add_argument("session")
    c.add_argument("text")
    c = cmd("interrupt", "interrupt a running managed or hosted agent session (OpenAI: its turn is cancelled)",
            run="managed:interrupt", example='sessionscope interrupt 3f2a9c1e')
    c.add_argument("session")
    c = cmd("key", "keep a workspace's Anthropic API key (--openai: a project's OpenAI key) in the system keyring "
            "(never in Sessionscope's files)",
            parents=[workspace], run="managed:key", example='sessionscope key --set', no_store=True)
    what = c.add_mutually_exclusive_group()
    what.add_argument("--set", action="store_true", help="read the key from stdin (asked without echo at a terminal)")
    what.add_argument("--forget", action="store_true", help="remove it from the keyring")

    c = cmd("install-desktop", "put Sessionscope in the desktop's menus (.desktop entry, AppStream metainfo, icon "
            "under $XDG_DATA_HOME)", run="desktop:install_desktop", example='sessionscope install-desktop', no_store=True)
    c.add_argument("--uninstall", action="store_true", help="remove them again")

    c = cmd("audit", "the audit log, newest first", run="commands:audit", example='sessionscope audit --limit 20', reads=True)
    c.add_argument("session", nargs="?")
    c.add_argument("--limit", type=int, default=50)


# What an argument means where its command does not say more: one sentence for each name used across commands
