"""`sessionscope team`: a team store's rules on PostgreSQL (sessionscope.safety.team): who is in the team, turning the
rules on, adding a member, sharing a session or a project."""

from __future__ import annotations

import sys

from sessionscope.cli.output import ACTOR, EXIT_USAGE, error, out


def team(store, args) -> int:
    """{login, admin, rules_on, owner, members[{name, admin}], projects, done}."""
    from sessionscope import ops
    from sessionscope.safety import team as rules

    done: list[str] = []
    if args.what == "init":
        done = ops.team_init(store, actor=ACTOR)
    elif args.what == "add-member":
        if not args.name:
            error("add-member needs the member's login: sessionscope team add-member NAME [--admin]")
            return EXIT_USAGE
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        done = [ops.team_add_member(store, args.name, admin=args.admin, password=password, actor=ACTOR)]
    elif args.what in ("share", "unshare"):
        on = args.what == "share"
        if args.project:
            ch = ops.share_project(store, args.project, on, actor=ACTOR)
            done = [f"project {args.project}: {'shared' if on else 'no longer shared'}"
                    + ("" if ch.detail["changed"] else " (it already was)" if on else " (it was not)")]
        elif args.name:
            ch = ops.share(store, store.resolve_session(args.name), on, actor=ACTOR)
            done = [f"{ch.session.title or ch.session.id}: {'shared with the team' if ch.session.shared else 'not shared'}"]
        else:
            error(f"{args.what} needs a session, or --project P")
            return EXIT_USAGE
    with store.reader() as conn:
        st = rules.status(conn)
    if not st.login:
        out(args, {"login": "", "admin": False, "rules_on": False, "owner": True, "members": [], "projects": [],
                   "done": done}, "a SQLite store has one user and no team rules (a team store is on PostgreSQL: "
                                  "sessionscope --store postgresql://… team init)")
        return 0
    lines = [*done, f"you are {st.login}" + (" (admin)" if st.admin else "") + (" (the store's owner)" if st.owner else ""),
             "team rules: " + ("on" if st.rules_on else "off (sessionscope team init, as the store's owner)")]
    if st.members:
        lines.append("members: " + ", ".join(n + (" (admin)" if a else "") for n, a in st.members))
    if st.projects:
        lines.append("your shared projects: " + ", ".join(st.projects))
    out(args, {"login": st.login, "admin": st.admin, "rules_on": st.rules_on, "owner": st.owner,
               "members": [{"name": n, "admin": a} for n, a in st.members], "projects": st.projects, "done": done},
        "\n".join(lines))
    return 0
