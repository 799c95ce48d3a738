"""A team store's rules, kept by PostgreSQL itself (#38): who may read, change and delete which sessions.

Every session has an owner, the database login that brought it in (`session.owner`, which the server fills
from `session_user`: a client cannot claim another's name). `init` (run once by the database's owner) turns on
row-level security with these rules:

- a member reads their own sessions, those their owners share one by one (`session.shared`) and those of the
  projects their owners share (`project_share`); what hangs off a session (events, notes, pins, stars, file
  checkpoints) is read exactly when the session is;
- a member changes and deletes only their own sessions and what hangs off them, what is derived from them (caches,
  blame's index, vectors, fact snapshots) included: a reader of another's session computes it, and does not keep it
  (`changeable`);
- a member of `sessionscope_admin` reads and changes everything;
- the audit log takes inserts only, from everyone, the admin and the database's owner included (a trigger),
  and records the login as the actor (the client's own word for itself kept in the entry's detail);
- scan state is the importing member's own (`source_file`, through its `source`, whose kind all may read); settings
  are read by all (but the redaction key) and changed by admins;
- a member holds no right on the sequences: keys come from the owner's functions, which only move them forward.

The rules are the server's: `psql` as a member meets the same refusals as the app. The app asks the same
functions (`sessionscope_may_change`, migration 0020) to offer only what they allow. SQLite has no logins:
nothing here applies to it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, Refused
from sessionscope.safety.team_sql import (
    AUDIT_GUARD,
    BLOB_FUNCTION,
    KEY_FUNCTIONS,
    MEMBER_KEY_FUNCTION,
    SEARCH_FUNCTION,
    SECRET_SETTINGS,
    USAGE_FUNCTION,
)

MEMBER = "sessionscope_member"
ADMIN = "sessionscope_admin"

# the tables a session's rows are kept in, by how their rows are reached
CHILDREN = ("event", "event_alias", "checkpoint_backup", "star", "pin", "note")  # written by the session's owner
DERIVED = ("outline_cache", "usage_cache", "tool_cache", "vitals_cache", "file_touch", "commit_link", "embedding")
OWNED = ("mirror_entry", "mirror_summary", "live_signal")  # before any session: their own owner column
TEAM_STATE = ("source", "source_file")  # where each member's tools were scanned, how far: each member's own
# settings are changed by admins; the schema's revision by the owner; payload dictionaries are SQLite's alone
READ_ONLY = ("setting", "alembic_version", "payload_dict")

def _visible(s: str) -> str:
    """Whether the session row `s` is one this login may read (an admin aside): the read rule, as SQL."""
    return (f"{s}.owner = session_user OR {s}.shared OR EXISTS (SELECT 1 FROM project_share p "
            f"WHERE p.owner = {s}.owner AND p.project = {s}.project)")


VISIBLE = _visible("session")
OWN = "sessionscope_may_change(owner)"


def _session_of(table: str, test: str) -> str:
    return f"EXISTS (SELECT 1 FROM session s WHERE s.id = {table}.session_id{test})"


def _policies() -> list[str]:
    """The rules as SQL, every one replaced when `init` runs again (a newer version's rules replace older)."""
    out: list[str] = []

    def policy(table: str, name: str, command: str, using: str | None, check: str | None = None) -> None:
        out.append(f"DROP POLICY IF EXISTS {name} ON {table}")
        sql = f"CREATE POLICY {name} ON {table} FOR {command} TO {MEMBER}"
        if using is not None:
            sql += f" USING ({using})"
        if check is not None:
            sql += f" WITH CHECK ({check})"
        out.append(sql)

    def admin(table: str) -> None:
        out.append(f"DROP POLICY IF EXISTS team_admin ON {table}")
        out.append(f"CREATE POLICY team_admin ON {table} FOR ALL TO {ADMIN} USING (true) WITH CHECK (true)")

    policy("session", "team_read", "SELECT", VISIBLE)
    policy("session", "team_insert", "INSERT", None, "owner = session_user")
    policy("session", "team_update", "UPDATE", "owner = session_user", "owner = session_user")
    policy("session", "team_delete", "DELETE", "owner = session_user")
    admin("session")
    for table in CHILDREN + DERIVED:
        seen, own = _session_of(table, ""), _session_of(table, f" AND {OWN.replace('owner', 's.owner')}")
        # what is derived from a session (caches, blame's index, vectors) is written by whoever may change it: a
        # reader who could write them planted another's usage, blame attribution and search ranking
        writer = own
        policy(table, "team_read", "SELECT", seen)
        policy(table, "team_insert", "INSERT", None, writer)
        policy(table, "team_update", "UPDATE", writer, writer)
        policy(table, "team_delete", "DELETE", writer)
        admin(table)
    # a fact snapshot is reached through its event (and so its session), and written by whoever may change that
    seen_event = "EXISTS (SELECT 1 FROM event e WHERE e.id = fact_snapshot.event_id)"
    own_event = ("EXISTS (SELECT 1 FROM event e JOIN session s ON s.id = e.session_id "
                 f"WHERE e.id = fact_snapshot.event_id AND {OWN.replace('owner', 's.owner')})")
    policy("fact_snapshot", "team_read", "SELECT", seen_event)
    policy("fact_snapshot", "team_insert", "INSERT", None, own_event)
    policy("fact_snapshot", "team_update", "UPDATE", own_event, own_event)
    policy("fact_snapshot", "team_delete", "DELETE", own_event)
    admin("fact_snapshot")
    for table in OWNED:
        policy(table, "team_own", "ALL", "owner = session_user", "owner = session_user")
        admin(table)
    # scan state is the importing member's own (#58: bob read alice's file paths, and one UPDATE of an offset made her
    # next import skip her new lines); a source's kind and place are read by all (a shared session's tool)
    for table in TEAM_STATE:
        out.append(f"DROP POLICY IF EXISTS team_all ON {table}")
    mine = "owner = session_user"
    policy("source", "team_read", "SELECT", "true")
    policy("source", "team_insert", "INSERT", None, mine)
    policy("source", "team_update", "UPDATE", mine, mine)
    policy("source", "team_delete", "DELETE", mine)
    admin("source")
    own_file = f"EXISTS (SELECT 1 FROM source s WHERE s.id = source_file.source_id AND s.{mine})"
    policy("source_file", "team_own", "ALL", own_file, own_file)
    admin("source_file")
    for table in READ_ONLY:
        policy(table, "team_read", "SELECT", "true" if table != "setting" else
               f"key NOT IN ({', '.join(repr(k) for k in SECRET_SETTINGS)})")
        admin(table)
    # a file's content is read with a checkpoint of a session one may read; a member adds one only through the
    # owner's function, which checks its bytes against its hash (BLOB_FUNCTION); only an admin removes one (a
    # member's garbage collection cannot see who else needs it)
    policy("file_blob", "team_read", "SELECT",
           "EXISTS (SELECT 1 FROM checkpoint_backup c WHERE c.blob_hash = file_blob.hash)")
    out.append("DROP POLICY IF EXISTS team_insert ON file_blob")  # (a member stores one through sessionscope_put_blob)
    admin("file_blob")
    policy("project_share", "team_read", "SELECT", "true")
    policy("project_share", "team_own", "ALL", "owner = session_user", "owner = session_user")
    admin("project_share")
    # the audit log: one's own entries and those about sessions one may read; inserts only (see the trigger)
    policy("audit", "team_read", "SELECT", f"actor = session_user OR {_session_of('audit', '')}")
    policy("audit", "team_insert", "INSERT", None, "actor = session_user")
    out.append("DROP POLICY IF EXISTS team_admin ON audit")
    out.append(f"CREATE POLICY team_admin ON audit FOR SELECT TO {ADMIN} USING (true)")
    return out


def _keys_through_functions(conn: Connection) -> None:
    """Every serial column of the store's tables takes its default through sessionscope_nextval, and members lose
    every right on the sequences (see KEY_FUNCTIONS)."""
    schema = _schema(conn)
    for table, column, default in conn.exec_driver_sql(
            "SELECT table_name, column_name, column_default FROM information_schema.columns "
            "WHERE table_schema = %s AND column_default LIKE 'nextval(%%'", (schema,)).all():
        if table not in ALL_TABLES:
            continue
        seq = re.match(r"nextval\('([^']+)'", default)
        if seq:
            conn.exec_driver_sql(f"ALTER TABLE {table} ALTER COLUMN {column} "
                                 f"SET DEFAULT sessionscope_nextval('{seq.group(1)}'::regclass)")
    conn.exec_driver_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {MEMBER}")


# LangGraph's PostgresSaver tables, where the store is the checkpointer of a member's graphs
# (sessionscope.adapters.langgraph): made by `init` as langgraph's own setup makes them (a member may not make
# tables), each row its writer's (an owner column the server fills), so a member's graph state is theirs alone
LANGGRAPH_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def _langgraph_migrations() -> list[str] | None:
    try:
        from langgraph.checkpoint.postgres.base import BasePostgresSaver
    except ImportError:  # (langgraph-checkpoint-postgres: the langgraph extra)
        return None
    return list(BasePostgresSaver.MIGRATIONS)


def _langgraph_tables(conn: Connection) -> list[str]:
    """PostgresSaver's tables and their rules, in `init`'s transaction: its own migrations, run as its setup runs
    them (but an index is made plainly, not CONCURRENTLY, which no transaction may), and recorded in its
    checkpoint_migrations, so its setup finds nothing left to do."""
    migrations = _langgraph_migrations()
    if migrations is None:
        return ["LangGraph's checkpointer tables not made: langgraph-checkpoint-postgres is not installed here "
                "(run init again where it is, for members whose graphs use the store as their checkpointer)"]
    with conn.connection.driver_connection.cursor() as cur:
        cur.execute(migrations[0])
        row = cur.execute("SELECT v FROM checkpoint_migrations ORDER BY v DESC LIMIT 1").fetchone()
        version = -1 if row is None else row[0]
        for v in range(version + 1, len(migrations)):
            cur.execute(migrations[v].replace(" CONCURRENTLY", ""))
            cur.execute("INSERT INTO checkpoint_migrations (v) VALUES (%s)", (v,))
        for table in LANGGRAPH_TABLES:
            cur.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT session_user")
            cur.execute(f"REVOKE ALL ON {table} FROM {MEMBER}")
            cur.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {MEMBER}")
            for name, rule in (("team_own", f"FOR ALL TO {MEMBER} USING (owner = session_user) "
                                            "WITH CHECK (owner = session_user)"),
                               ("team_admin", f"FOR ALL TO {ADMIN} USING (true) WITH CHECK (true)")):
                cur.execute(f"DROP POLICY IF EXISTS {name} ON {table}")
                cur.execute(f"CREATE POLICY {name} ON {table} {rule}")
            cur.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        cur.execute(f"GRANT SELECT ON checkpoint_migrations TO {MEMBER}")
    return [f"LangGraph's checkpointer tables ready, each member's rows theirs alone ({', '.join(LANGGRAPH_TABLES)})"]


def langgraph_tables_ready(conn) -> None:
    """Before the store checkpoints a graph (sessionscope.adapters.langgraph; `conn` a psycopg connection in
    autocommit): PostgresSaver's tables as its setup makes them, made now where this login may make them (a store
    of one's own), else said (a team store's member: its owner's `team init` makes them)."""
    migrations = _langgraph_migrations() or []
    row = conn.execute("SELECT to_regclass('checkpoint_migrations') IS NOT NULL AS made").fetchone()
    if row["made"]:
        newest = conn.execute("SELECT max(v) AS v FROM checkpoint_migrations").fetchone()["v"]
        if newest is not None and newest >= len(migrations) - 1:
            return
    from langgraph.checkpoint.postgres import PostgresSaver
    try:
        PostgresSaver(conn).setup()
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != "42501":
            raise
        raise Refused("this team store has no tables for LangGraph's checkpoints yet (or older ones than this "
                      "langgraph's): its owner makes them with `sessionscope team init`, where the langgraph extra "
                      "is installed") from None


ALL_TABLES = ("session", "fact_snapshot", "file_blob", "project_share", "audit", *CHILDREN, *DERIVED, *OWNED,
              *TEAM_STATE, *READ_ONLY)


@dataclass
class TeamStatus:
    login: str
    admin: bool
    rules_on: bool
    owner: bool  # the login owns the database's tables (it may run `init`)
    members: list[tuple[str, bool]] = field(default_factory=list)  # (login, admin), when the login may list them
    projects: list[str] = field(default_factory=list)  # the projects this login shares


def _require_postgres(conn: Connection) -> None:
    if conn.dialect.name != "postgresql":
        raise InvalidInput("team rules are a PostgreSQL store's (a SQLite store has one user: its file's owner)")


def status(conn: Connection) -> TeamStatus:
    """Who this login is in the team; on SQLite (one user, no rules) an empty login, the store its own."""
    if conn.dialect.name != "postgresql":
        return TeamStatus("", False, False, True)
    login, admin, on, owner = conn.exec_driver_sql(
        "SELECT session_user, sessionscope_is_admin(), sessionscope_rules_on(), "
        "pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'session'::regclass), 'MEMBER')").one()
    members = [] if not on else [(name, bool(is_admin)) for name, is_admin in conn.exec_driver_sql(
        "SELECT r.rolname, pg_has_role(r.oid, %s, 'MEMBER') FROM pg_roles r "
        "WHERE r.rolcanlogin AND NOT r.rolsuper AND pg_has_role(r.oid, %s, 'MEMBER') ORDER BY r.rolname",
        (ADMIN, MEMBER)).all()]
    projects = [p for (p,) in conn.exec_driver_sql(
        "SELECT project FROM project_share WHERE owner = session_user ORDER BY project").all()]
    return TeamStatus(login, bool(admin), bool(on), bool(owner), members, projects)


def init(conn: Connection) -> list[str]:
    """Create the roles, grant them the tables and turn the rules on; what was done, in words. Run by the
    tables' owner (it owns them: PostgreSQL lets only the owner change their rules); running it again
    replaces the rules with this version's. Sessions brought in before (no owner yet) become the owner's."""
    _require_postgres(conn)
    st = status(conn)
    if not st.owner:
        raise Refused(f"only the owner of the store's tables may turn the team rules on ({st.login} is not): "
                      "run `sessionscope team init` as the login that created the store")
    done = []
    for role in (MEMBER, ADMIN):
        if not conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).first():
            conn.exec_driver_sql(f"CREATE ROLE {role} NOLOGIN")
            done.append(f"role {role} created")
    conn.exec_driver_sql(f"GRANT {MEMBER} TO {ADMIN}")
    database = conn.exec_driver_sql("SELECT current_database()").scalar()
    conn.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO {MEMBER}')
    conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {_schema(conn)} TO {MEMBER}")
    for table in ALL_TABLES:
        rights = "SELECT, INSERT" if table == "audit" else "SELECT" if table in READ_ONLY else \
            "SELECT, INSERT, UPDATE, DELETE"
        conn.exec_driver_sql(f"REVOKE ALL ON {table} FROM {MEMBER}")
        conn.exec_driver_sql(f"GRANT {rights} ON {table} TO {MEMBER}")
    for table in READ_ONLY:
        conn.exec_driver_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {ADMIN}")
    for table in ("session", "source", *OWNED):
        n = conn.exec_driver_sql(f"UPDATE {table} SET owner = session_user WHERE owner = ''").rowcount
        if n and table == "session":
            done.append(f"{n} session(s) brought in before now given to {st.login}")
    for statement in _policies():
        conn.exec_driver_sql(statement)
    with conn.connection.driver_connection.cursor() as cur:  # (no parameters: its `%` is plpgsql's own)
        cur.execute(AUDIT_GUARD)
        for function in (SEARCH_FUNCTION, USAGE_FUNCTION, KEY_FUNCTIONS, MEMBER_KEY_FUNCTION, BLOB_FUNCTION):
            cur.execute(function.format(schema=_schema(conn), visible=_visible("s"), member=MEMBER,
                                        tables=", ".join(f"'{t}'" for t in ALL_TABLES)))
    _keys_through_functions(conn)
    for table in ALL_TABLES:
        conn.exec_driver_sql(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    done.append(f"rules on for {len(ALL_TABLES)} tables; the audit log takes inserts only")
    done += _langgraph_tables(conn)
    return done


def own_sources(conn: Connection):
    """A condition on SOURCE: this login's sources (its scan state: where its files lie, how far each was read).
    Every one on SQLite; on PostgreSQL those of this login, whose rows `owner` names (migration 0023)."""
    import sqlalchemy as sa

    from sessionscope.store.schema import SOURCE
    if conn.dialect.name != "postgresql":
        return sa.true()
    return SOURCE.c.owner == sa.literal_column("session_user")


def changeable(conn: Connection, session_ids) -> set[str]:
    """Of `session_ids`, those this login may change, and so keep what is derived from (caches, indexes): all of
    them but on a team store under its rules, where only one's own (an admin's: all)."""
    ids = list(session_ids)
    if conn.dialect.name != "postgresql" or not ids or not conn.exec_driver_sql(
            "SELECT row_security_active('session')").scalar():
        return set(ids)
    return {sid for (sid,) in conn.exec_driver_sql(
        "SELECT id FROM session WHERE id = ANY(%s) AND sessionscope_may_change(owner)", (ids,)).all()}


_NAME = re.compile(r"^[a-z_][a-z0-9_.-]{0,62}$")


def _schema(conn: Connection) -> str:
    return conn.exec_driver_sql("SELECT current_schema()").scalar()


def add_member(conn: Connection, name: str, *, admin: bool = False, password: str | None = None) -> str:
    """Make `name` a member (a login role, created when it does not exist), an admin with `admin`; in words."""
    _require_postgres(conn)
    if not _NAME.match(name):
        raise InvalidInput(f"{name!r} is not a member name this store takes (lower-case letters, digits, _ . -)")
    if name in (MEMBER, ADMIN):
        raise InvalidInput(f"{name} is the team's own role")
    from psycopg import sql

    raw = conn.connection.driver_connection
    ident = sql.Identifier(name)
    exists = conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).first() is not None
    with raw.cursor() as cur:
        if not exists:
            statement = sql.SQL("CREATE ROLE {} LOGIN").format(ident)
            if password:
                statement += sql.SQL(" PASSWORD {}").format(sql.Literal(password))
            cur.execute(statement)
        elif password:
            cur.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(ident, sql.Literal(password)))
        cur.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(ADMIN if admin else MEMBER), ident))
    return f"{name} {'is now' if exists else 'created as'} {'an admin' if admin else 'a member'} of the team"


def share_project(conn: Connection, project: str, on: bool = True) -> bool:
    """Share every session of `project` this login owns (or stop); whether that changed anything."""
    _require_postgres(conn)
    if not project.strip():
        raise InvalidInput("name the project to share (as the session list shows it)")
    if not on:
        return conn.exec_driver_sql("DELETE FROM project_share WHERE owner = session_user AND project = %s",
                                    (project,)).rowcount > 0
    return conn.exec_driver_sql("INSERT INTO project_share (owner, project, shared_at) VALUES (session_user, %s, %s) "
                                "ON CONFLICT DO NOTHING", (project, time.time())).rowcount > 0


def share(conn: Connection, session_id: str, on: bool = True) -> bool:
    """Share one session with the team (or stop); whether that changed anything. The rules let only its owner
    (or an admin) change it: anyone else changes nothing, and is told so by the operation (ops.share)."""
    _require_postgres(conn)
    return conn.exec_driver_sql("UPDATE session SET shared = %s WHERE id = %s AND shared <> %s",
                                (on, session_id, on)).rowcount > 0
