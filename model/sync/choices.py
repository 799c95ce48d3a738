"""What a sync pushes, and where: the user's choices, kept in the local store's settings.

    sync.target     the team store's URL, its password left out (kept in the system keyring, or in ~/.pgpass)
    sync.every      minutes between background syncs in the app (0: only when asked)
    sync.rules      {project: always | ask | never}
    sync.default    the rule of a project that has none (ask)
    sync.declined   the sessions the user said no to (their team copy, if any, is no longer shared)

A session the user shares is `session.shared` (the column a team store's rules read too).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, Refused
from sessionscope.store import settings
from sessionscope.store.schema import SESSION

RULES = ("always", "ask", "never")
DEFAULT_RULE = "ask"  # nothing leaves before the user says so


def _json(conn: Connection, key: str, empty):
    raw = settings.get(conn, key)
    try:
        value = json.loads(raw) if raw else empty
    except ValueError:
        return empty
    return value if isinstance(value, type(empty)) else empty


def project_rules(conn: Connection) -> dict[str, str]:
    """{project: rule} for the projects the user gave a rule."""
    return {p: r for p, r in _json(conn, "sync.rules", {}).items() if r in RULES}


def default_rule(conn: Connection) -> str:
    rule = settings.get(conn, "sync.default")
    return rule if rule in RULES else DEFAULT_RULE


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise InvalidInput(f"{rule!r} is not a sharing rule: use always, ask or never")


def set_project_rule(conn: Connection, project: str, rule: str | None) -> None:
    """A project's rule (None: back to the default rule)."""
    if rule is not None:
        _check_rule(rule)
    rules = project_rules(conn)
    if rule is None:
        rules.pop(project, None)
    else:
        rules[project] = rule
    settings.put(conn, "sync.rules", json.dumps(rules, sort_keys=True))


def set_default_rule(conn: Connection, rule: str) -> None:
    _check_rule(rule)
    settings.put(conn, "sync.default", rule)


def declined(conn: Connection) -> set[str]:
    return {s for s in _json(conn, "sync.declined", []) if isinstance(s, str)}


def decide(conn: Connection, session_ids: list[str], share: bool) -> int:
    """The user's yes (share) or no to each session; how many changed. A no is remembered, so a project that asks
    does not ask again, and the session's team copy, if one was pushed, is no longer shared at the next sync."""
    ids = list(dict.fromkeys(session_ids))
    shared = dict(conn.execute(sa.select(SESSION.c.id, SESSION.c.shared).where(SESSION.c.id.in_(ids))).all())
    for sid in ids:
        if sid not in shared:
            raise InvalidInput(f"no session {sid} in this store")
    no = declined(conn)
    changed = sum(1 for sid in ids if bool(shared[sid]) != share or (sid in no) == share)
    conn.execute(SESSION.update().where(SESSION.c.id.in_(ids), SESSION.c.shared != share).values(shared=share))
    no = (no - set(ids)) if share else (no | set(ids))
    # (the list is pruned of sessions no longer in the store whenever it is written)
    alive = set(conn.execute(sa.select(SESSION.c.id).where(SESSION.c.id.in_(sorted(no)))).scalars()) if no else set()
    settings.put(conn, "sync.declined", json.dumps(sorted(no & alive)))
    return changed


def every_minutes(conn: Connection) -> int:
    try:
        return max(0, int(settings.get(conn, "sync.every") or 0))
    except ValueError:
        return 0


def set_every_minutes(conn: Connection, minutes: int) -> None:
    if minutes < 0 or minutes > 24 * 60:
        raise InvalidInput("sync every 0 (never in the background) to 1440 minutes")
    settings.put(conn, "sync.every", str(int(minutes)))


# -- the team store's address ----------------------------------------------------------------------------------

KEYRING_PREFIX = "sync:"


def _parts(url: str) -> tuple[str, str | None]:
    """(the URL without its password, the password or None)."""
    from sessionscope.store import db
    return db.split_address(url)


def shown(url: str) -> str:
    """The address as it may be shown and recorded: its password left out."""
    return _parts(url)[0]


def target(conn: Connection) -> str | None:
    """The remembered team store's address (without its password), or None."""
    return settings.get(conn, "sync.target") or None


def remember_target(conn: Connection, url: str) -> str:
    """Remember the team store's address; a password in it goes to the system keyring, never into a file. The
    address kept (without the password)."""
    bare, password = _parts(url)
    if bare.startswith("sqlite") and bare.rstrip("/").endswith(":"):
        raise InvalidInput("name the team store's file or server")
    if password:
        from sessionscope.sources import remote
        try:
            remote.set_api_key(KEYRING_PREFIX + bare, password)
        except Exception as exc:
            raise Refused(f"the password cannot be kept ({exc}): leave it out of the address and put it in ~/.pgpass "
                          "(PostgreSQL's own password file) or $PGPASSWORD") from None
    settings.put(conn, "sync.target", bare)
    return bare


def forget_target(conn: Connection) -> None:
    """Forget the team store's address (and the password kept for it)."""
    bare = target(conn)
    if bare:
        from sessionscope.sources import remote
        try:
            remote.set_api_key(KEYRING_PREFIX + bare, None)
        except Exception:  # (no keyring here: nothing was kept in one)
            pass
    conn.execute(sa.text("DELETE FROM setting WHERE key = 'sync.target'"))


def target_url(bare: str) -> str:
    """The address to connect to: the remembered one with its password from the keyring put back, when one was
    kept (else libpq finds it in ~/.pgpass or $PGPASSWORD)."""
    from sqlalchemy.engine import make_url

    from sessionscope.sources import remote
    password = remote.api_key("SESSIONSCOPE_SYNC_PASSWORD", KEYRING_PREFIX + bare)
    if not password:
        return bare
    return make_url(bare).set(password=password).render_as_string(hide_password=False)


# -- what to push -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SyncPlan:
    """The sessions a sync pushes (every fork after the sessions it continues), those waiting for the user's yes
    or no, those held back (with why), and those whose team copy must no longer be shared."""

    push: tuple[str, ...]
    waiting: tuple[str, ...]
    held: tuple[tuple[str, str], ...]
    withdrawn: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"push": list(self.push), "waiting": list(self.waiting),
                "held": [{"session": s, "why": w} for s, w in self.held], "withdrawn": list(self.withdrawn)}


def plan(conn: Connection) -> SyncPlan:
    """What a sync would push now, by the user's choices."""
    rules, default, no = project_rules(conn), default_rule(conn), declined(conn)
    rows = {r.id: r for r in conn.execute(sa.select(SESSION.c.id, SESSION.c.project, SESSION.c.shared,
                                                    SESSION.c.forked_from_session).order_by(SESSION.c.created_at))}

    def rule(sid: str) -> str:
        return rules.get(rows[sid].project, default)

    def why_not(sid: str) -> str | None:
        """Why a session must stay at home, or None."""
        r = rows[sid]
        if rule(sid) == "never":
            return f"its project {r.project or '(no project)'} is never shared"
        if sid in no and not r.shared:
            return "you chose not to share it"
        return None

    wanted, waiting, held, withdrawn = [], [], [], []
    for sid, r in rows.items():
        if why_not(sid):
            withdrawn.append(sid)
            if r.shared:  # the user's yes meets the project's never: said, not pushed
                held.append((sid, why_not(sid)))
        elif r.shared or rule(sid) == "always":
            wanted.append(sid)
        else:
            waiting.append(sid)

    push: list[str] = []
    for sid in wanted:
        line, cur = [], sid  # the session and the sessions it continues, newest first
        while cur and cur in rows and cur not in push and cur not in line:
            line.append(cur)
            cur = rows[cur].forked_from_session
        stop = next(((o, why_not(o)) for o in line[1:] if why_not(o)), None)
        if stop:
            held.append((sid, f"it continues session {stop[0][:8]}, which stays at home: {stop[1]}"))
            continue
        push += reversed(line)
    pushed = set(push)
    return SyncPlan(tuple(push), tuple(s for s in waiting if s not in pushed), tuple(held), tuple(withdrawn))


def projects(conn: Connection) -> list[tuple[str, int]]:
    """(project, sessions) of every project in the store, the busiest first: the ones a rule can be given."""
    rows = conn.execute(sa.select(SESSION.c.project, sa.func.count()).group_by(SESSION.c.project)
                        .order_by(sa.func.count().desc(), SESSION.c.project))
    return [(p or "", n) for p, n in rows]
