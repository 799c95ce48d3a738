"""A throwaway PostgreSQL server for the tests: Debian's `postgresql` binaries, a cluster in a
temporary folder, listening on a free port of 127.0.0.1, trust authentication, gone at the end.

`initdb` and `pg_ctl` refuse to run as root; as root the cluster runs as the `postgres` user the
Debian package creates. Where no server can start (no binaries, no psycopg, no such user), `start`
says why and the tests that need it skip.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass


def _bin_dir() -> str | None:
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(found)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(versions[-1]) if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    bin_dir: str
    data: str
    port: int
    user: str | None  # the system user the cluster runs as (None: ourselves)

    def _run(self, *args: str) -> None:
        cmd = [os.path.join(self.bin_dir, args[0]), *args[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgresql+psycopg://{user}@127.0.0.1:{self.port}/{database}"

    def psql(self, database: str, user: str, statement: str) -> subprocess.CompletedProcess:
        """`statement` run by PostgreSQL's own client, `psql`, logged in as `user` (what a member could type)."""
        found = os.path.join(self.bin_dir, "psql")
        cmd = [found if os.path.exists(found) else "psql", "-X", "-h", "127.0.0.1", "-p", str(self.port), "-U", user,
               "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", statement]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    template: str | None = None  # a database with the store's schema, copied for each migrated one

    def fresh_database(self, migrated: bool = False) -> str:
        """A new database on the server, empty or (`migrated`) a copy of one the store's migrations
        ran on once (a copy takes ~0.1 s; running the migrations again would take a second)."""
        if migrated and self.template is None:
            from sessionscope import open_store
            template = self._create()
            open_store(self.url(template)).close()
            self.template = template
        return self.url(self._create(self.template if migrated else None))

    def _create(self, template: str | None = None) -> str:
        import psycopg
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return name

    def team(self, *who: str, admins: tuple[str, ...] = ()) -> tuple[str, dict[str, str]]:
        """A new database whose owner (postgres) turned a team store's rules on, with a login for each of `who`
        (those in `admins` admins); (the database, {who: login}). Logins are the whole server's: a tag a team
        keeps one test's members from meeting another's."""
        from sessionscope import open_store
        from sessionscope.safety import team
        url = self.fresh_database()
        tag = uuid.uuid4().hex[:6]
        names = {w: f"{w}_{tag}" for w in who}
        with open_store(url) as owner:
            done = owner.write(team.init)
            assert any("rules on" in d for d in done), done
            for w, name in names.items():
                owner.write(team.add_member, name, admin=w in admins)
        return url.rsplit("/", 1)[1], names

    def drop(self, url: str) -> None:
        """The database `url` names, gone (at the end of the test that made it: kept to the end of the run, the
        store suite's databases took 2.2 GB)."""
        import psycopg
        name = url.rsplit("/", 1)[1].split("?", 1)[0]
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def version(self) -> str:
        import psycopg
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres") as conn:
            return conn.execute("SHOW server_version").fetchone()[0]

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.data, ignore_errors=True)


def start(settings: dict[str, str] | None = None, data: str | None = None) -> Server | str:
    """A running server, or the reason there is none; `settings` its own (postgresql.conf's names), `data` the
    folder to keep it in (default: a temporary one; fsync off unless `settings` say otherwise)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed"
    bin_dir = _bin_dir()
    if bin_dir is None:
        return "no PostgreSQL server binaries (apt-get install postgresql)"
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
        user = "postgres"
    if data is not None:
        os.makedirs(data, exist_ok=True)
        data = tempfile.mkdtemp(prefix="sessionscope-pg-", dir=data)
    else:
        data = tempfile.mkdtemp(prefix="sessionscope-pg-")
    if user:
        entry = pwd.getpwnam(user)
        os.chown(data, entry.pw_uid, entry.pw_gid)
    server = Server(bin_dir, data, _free_port(), user)
    try:
        server._run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        options = {"fsync": "off", **(settings or {})}
        server._run("pg_ctl", "-D", data, "-w", "-t", "300", "-l", os.path.join(data, "server.log"), "-o",
                    f"-p {server.port} -k {data} -c listen_addresses=127.0.0.1 "
                    + " ".join(f"-c {k}={v}" for k, v in options.items()), "start")
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(data, ignore_errors=True)
        detail = getattr(exc, "stderr", b"") or b""
        return f"the PostgreSQL server did not start: {exc} {detail.decode(errors='replace')[-300:]}"
    return server
