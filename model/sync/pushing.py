"""Pushing the plan (sessionscope.sync.choices) into a team store: redacted, incremental, resumable, idempotent.

Each session goes in pages of events, one team write transaction a page: the session row (made by the first
page), the redacted events chained from the team copy's last hash, and the row's counters. A page is redacted
before its transaction and written only if the team copy still ends where the page begins (read under the team
store's write lock): whatever was cut, slept or ran twice, the next page starts where the team copy ends. The last
page also carries the session's notes, star and pins, and a fingerprint of everything pushed (an HMAC under the
store's placeholder key, so it tells the team nothing), which lets an unchanged session be passed over without
reading it again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, Refused, StoreUnavailable
from sessionscope.export.core import redactor_for
from sessionscope.export.redact import Finding, Redactor
from sessionscope.recall import search
from sessionscope.safety import audit
from sessionscope.store import chain, db, ingest, keys, people, settings
from sessionscope.store.schema import EVENT, NOTE, PIN, SESSION, SOURCE, STAR
from sessionscope.sync.choices import SyncPlan, plan, shown

PAGE_EVENTS = 1000
PAGE_BYTES = 16 << 20  # of text and payload a page: a session of big tool outputs goes in smaller pages
_CHUNK = 500  # ids per IN (...)
# a session's fields that are ids, counters and times: never secrets, carried as they are (the rest is redacted)
_AS_THEY_ARE = frozenset({"id", "tool_id", "source_id", "status", "status_changed_at", "created_at", "updated_at",
                          "tokens_in", "tokens_out", "event_count", "last_seq", "last_hash", "head_event_id",
                          "forked_from_session", "forked_from_event", "imported_by", "owner", "shared"})
_JSON_FIELDS = frozenset({"meta", "budget", "tags"})
_COUNTERS = ("last_seq", "last_hash", "event_count", "head_event_id")  # what the team copy holds, not the local row
_EVENT_COLUMNS = ("id", "session_id", "parent_id", "seq", "depth", "ts", "kind", "role", "text", "payload",
                  "tokens_in", "tokens_out", "sidechain", "agent_id")

Progress = Callable[[int, int, str], None]


@dataclass
class SyncReport:
    """What a sync did (or, `dry_run`, would do)."""

    target: str  # the team store's address, its password left out
    dry_run: bool = False
    pushed: list[str] = field(default_factory=list)  # sessions whose team copy changed
    events: int = 0
    up_to_date: int = 0
    redacted: int = 0  # secret occurrences replaced in what was pushed
    kinds: dict[str, int] = field(default_factory=dict)  # of them, by kind of secret
    waiting: list[str] = field(default_factory=list)
    held: list[tuple[str, str]] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)  # team copies no longer shared
    problems: list[tuple[str, str]] = field(default_factory=list)  # sessions not pushed, and why
    findings: list[Finding] = field(default_factory=list)  # the review: what was found (never the secret)
    cancelled: bool = False
    seconds: float = 0.0
    at: float = field(default_factory=time.time)

    def as_dict(self, findings: bool = True) -> dict[str, Any]:
        out = {"target": self.target, "dry_run": self.dry_run, "pushed": self.pushed, "events": self.events,
               "up_to_date": self.up_to_date, "redacted": self.redacted, "kinds": self.kinds, "waiting": self.waiting,
               "held": [{"session": s, "why": w} for s, w in self.held], "withdrawn": self.withdrawn,
               "problems": [{"session": s, "why": w} for s, w in self.problems], "cancelled": self.cancelled,
               "seconds": round(self.seconds, 3), "at": self.at}
        if findings:
            out["findings"] = [f.as_dict() for f in self.findings]
        return out


class _Moved(Exception):
    """The team copy no longer ends where a page begins (another sync pushed meanwhile): go on from its end."""

    def __init__(self, seq: int, last_hash: str):
        self.seq, self.last_hash = seq, last_hash


@dataclass
class _Team:
    """A session's team copy as a push finds it."""

    last_seq: int
    last_hash: str
    shared: bool
    synced: dict  # its meta's `synced` record ({} for a copy a sync did not make)
    imported_by: str


def store_id(redactor: Redactor) -> str:
    """This store's name in team copies: derived from its placeholder key, so it says nothing else."""
    return hmac.new(redactor.key, b"sessionscope store", hashlib.sha256).hexdigest()[:16]


def push(local, team, *, dry_run: bool = False, progress: Progress | None = None,
         cancel: threading.Event | None = None, target: str = "") -> SyncReport:
    """Push what the user chose to share into `team` (an open Store); what was done. StoreUnavailable when the team
    store cannot be reached or written: what was pushed before is kept, and the next sync goes on from there."""
    started = time.monotonic()
    with local.reader() as conn:
        chosen = plan(conn)
    redactor = redactor_for(local)
    report = SyncReport(target or shown(team.url), dry_run, waiting=list(chosen.waiting), held=list(chosen.held))
    job = _Push(local, team, redactor, report, dry_run)
    job.run(chosen, progress, cancel)
    if not dry_run:
        team.warm(report.pushed)
    report.findings = redactor.review()
    report.seconds = time.monotonic() - started
    return report


class _Push:
    """One sync's work (not shared between threads)."""

    def __init__(self, local, team, redactor: Redactor, report: SyncReport, dry_run: bool):
        self.local, self.team, self.redactor, self.report, self.dry_run = local, team, redactor, report, dry_run
        self.store_id, self.who = store_id(redactor), people.who()
        self.sources: dict[int | None, int] = {}  # local source id → the team's

    def run(self, chosen: SyncPlan, progress: Progress | None, cancel: threading.Event | None) -> None:
        ids = list(chosen.push)
        with self.local.reader() as conn:
            rows = {r["id"]: dict(r) for i in range(0, len(ids), _CHUNK) for r in conn.execute(
                sa.select(SESSION).where(SESSION.c.id.in_(ids[i:i + _CHUNK]))).mappings()}
        copies = self._team_copies(ids + list(chosen.withdrawn))
        todo = [(sid, rows[sid]["last_seq"] - (copies[sid].last_seq if sid in copies else 0)) for sid in ids if sid in rows]
        total, done = sum(max(0, n) for _, n in todo), 0
        for sid, _n in todo:
            if cancel is not None and cancel.is_set():
                self.report.cancelled = True
                break
            row = rows[sid]
            why = self._refusal(row, copies.get(sid))
            if why:
                self.report.problems.append((sid, why))
                continue
            extras = self._extras(sid)
            mark = self._fingerprint(row, extras)
            copy = copies.get(sid)
            if copy and copy.last_seq == row["last_seq"] and copy.synced.get("fingerprint") == mark and copy.shared:
                self.report.up_to_date += 1
                continue

            def step(n: int, title: str = row["title"] or sid) -> None:
                if progress:
                    progress(done + n, total, title)
            try:
                pushed = self._session(row, copy, extras, mark, step, cancel)
            except (Refused, InvalidInput) as exc:
                self.report.problems.append((sid, str(exc)))
                continue
            except sa.exc.IntegrityError as exc:
                self.report.problems.append((sid, _taken(exc)))
                continue
            done += pushed
            if self.report.cancelled:
                break
        if not self.dry_run and not self.report.cancelled:
            self._withdraw([sid for sid in chosen.withdrawn if sid in copies and copies[sid].shared
                            and copies[sid].synced.get("store") == self.store_id])

    # -- reading ------------------------------------------------------------------------------------------------

    def _team_copies(self, ids: list[str]) -> dict[str, _Team]:
        out = {}
        try:
            with self.team.reader() as conn:
                for i in range(0, len(ids), _CHUNK):
                    for r in conn.execute(sa.select(SESSION.c.id, SESSION.c.last_seq, SESSION.c.last_hash,
                                                    SESSION.c.shared, SESSION.c.meta, SESSION.c.imported_by)
                                          .where(SESSION.c.id.in_(ids[i:i + _CHUNK]))):
                        out[r.id] = _Team(r.last_seq, r.last_hash, bool(r.shared), _synced(r.meta), r.imported_by)
        except sa.exc.OperationalError as exc:
            raise StoreUnavailable(f"the team store could not be read: {str(exc.orig).strip()}") from exc
        return out

    def _refusal(self, row: dict, copy: _Team | None) -> str | None:
        if copy is None:
            return None
        if copy.synced.get("store") != self.store_id:
            return (f"the team store holds session {row['id']} already, not pushed from this store (brought in by "
                    f"{copy.imported_by or 'someone else'}): left as it is there")
        if copy.last_seq > row["last_seq"]:
            return f"its team copy has {copy.last_seq} events, more than this store's {row['last_seq']}: left alone"
        return None

    def _extras(self, sid: str) -> dict[str, Any]:
        """The session's notes, star and pins: the user's own marks, carried with it."""
        with self.local.reader() as conn:
            notes = [dict(r) for r in conn.execute(sa.select(NOTE).where(NOTE.c.session_id == sid)
                                                   .order_by(NOTE.c.created_at, NOTE.c.id)).mappings()]
            star = conn.execute(sa.select(STAR.c.starred_at).where(STAR.c.session_id == sid)).scalar()
            pins = [dict(r) for r in conn.execute(sa.select(PIN).where(PIN.c.session_id == sid)
                                                  .order_by(PIN.c.event_id)).mappings()]
        return {"notes": notes, "star": star, "pins": pins}

    def _fingerprint(self, row: dict, extras: dict) -> str:
        what = orjson.dumps([row, extras], option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        return hmac.new(self.redactor.key, what, hashlib.sha256).hexdigest()[:32]

    def _page(self, sid: str, after: int) -> list[dict]:
        """The session's next events after seq `after`, at most a page."""
        out, size = [], 0
        with self.local.reader() as conn:
            result = conn.execute(sa.select(*(EVENT.c[c] for c in _EVENT_COLUMNS))
                                  .where(EVENT.c.session_id == sid, EVENT.c.seq > after)
                                  .order_by(EVENT.c.seq).limit(PAGE_EVENTS))
            for r in result.mappings():
                out.append(dict(r))
                size += len(r["text"]) + len(r["payload"] or "")
                if size >= PAGE_BYTES:
                    break
            result.close()
        return out

    # -- one session --------------------------------------------------------------------------------------------

    def _session(self, row: dict, copy: _Team | None, extras: dict, mark: str, step, cancel) -> int:
        """Push one session from where its team copy ends; the events pushed."""
        sid = row["id"]
        seq, last = (copy.last_seq, copy.last_hash) if copy else (0, "")
        before = self.redactor.occurrences
        fields = self._redacted_row(row)
        notes = [n | {"text": self.redactor.redact_text(n["text"], f"session {sid[:8]} · your note")}
                 for n in extras["notes"]]
        in_fields = self.redactor.occurrences - before  # the session's own fields and notes, as they are now
        pushed = 0
        while True:
            page = self._page(sid, seq)
            kinds_before, occ_before = self._kinds(), self.redactor.occurrences
            events, changed = [], 0
            for e in page:
                place = f"session {sid[:8]} · event #{e['seq']}"
                text = self.redactor.redact_text(e["text"], place)
                payload = self.redactor.redact_payload(e["payload"] or "", place)
                changed += text != e["text"] or payload != (e["payload"] or "")
                ev = e | {"text": text, "payload": payload, "sidechain": bool(e["sidechain"])}
                ev["hash"] = last = chain.link(last, ev)
                events.append(ev)
            final = not page or page[-1]["seq"] >= row["last_seq"]
            found = {"occurrences": self.redactor.occurrences - occ_before, "events": changed,
                     "kinds": dict(self._kinds() - kinds_before)}
            if not self.dry_run and (events or final):
                step_extras = {"notes": notes, "star": extras["star"], "pins": extras["pins"], "mark": mark,
                               "fields": in_fields} if final else None
                try:
                    self.team.write_session(row["id"], self._apply, row, fields, seq, events, found, step_extras)
                except _Moved as moved:  # another sync got there first: from where it ended
                    seq, last = moved.seq, moved.last_hash
                    continue
            if events:
                seq = events[-1]["seq"]
                pushed += len(events)
                self.report.events += len(events)
                self.report.redacted += found["occurrences"]
                for k, n in found["kinds"].items():
                    self.report.kinds[k] = self.report.kinds.get(k, 0) + n
                step(pushed)
            if final:
                break
            if cancel is not None and cancel.is_set():
                self.report.cancelled = True
                break
        self.report.redacted += in_fields
        self.report.pushed.append(sid)
        return pushed

    def _kinds(self) -> Counter:
        """Occurrences replaced so far, by kind of secret."""
        out: Counter = Counter()
        for f in self.redactor.findings.values():
            out[f.kind] += f.count
        return out

    def _redacted_row(self, row: dict) -> dict:
        where = f"session {row['id'][:8]} · "
        out = {}
        for k, v in row.items():
            if k in _AS_THEY_ARE or not isinstance(v, str) or not v:
                out[k] = v
            elif k in _JSON_FIELDS:
                out[k] = self.redactor.redact_payload(v, where + k)
            else:
                out[k] = self.redactor.redact_text(v, where + k)
        return out

    # -- writing (inside one team write transaction) -------------------------------------------------------------

    def _apply(self, conn: Connection, row: dict, fields: dict, expected: int, events: list[dict], found: dict,
               extras: dict | None) -> None:
        sid = row["id"]
        current = conn.execute(sa.select(SESSION.c.last_seq, SESSION.c.last_hash, SESSION.c.event_count,
                                         SESSION.c.meta).where(SESSION.c.id == sid)).first()
        if current is None:
            if expected:
                raise _Moved(0, "")
            self._insert_session(conn, fields)
            current = conn.execute(sa.select(SESSION.c.last_seq, SESSION.c.last_hash, SESSION.c.event_count,
                                             SESSION.c.meta).where(SESSION.c.id == sid)).first()
        elif current.last_seq != expected:
            raise _Moved(current.last_seq, current.last_hash)
        if events:
            taken = keys.take_keys(conn, len(events))  # (beside other members' pages: not always consecutive)
            ingest.insert_rows(conn, [e | {"pk": k} for e, k in zip(events, taken)])
            search.index_range(conn, taken[0], taken[-1])  # (SQLite only, where they are)
        synced = _synced(current.meta)
        was = synced.get("redacted") or {}
        kinds = Counter(was.get("kinds") or {}) + Counter(found["kinds"])
        synced = {"store": self.store_id, "from": self.who, "at": time.time(),
                  "fingerprint": extras["mark"] if extras else synced.get("fingerprint", ""),
                  "redacted": {"occurrences": int(was.get("occurrences", 0)) + found["occurrences"],
                               "events": int(was.get("events", 0)) + found["events"], "kinds": dict(kinds),
                               "fields": extras["fields"] if extras else int(was.get("fields", 0))}}
        meta = _loads(fields.get("meta")) | {"synced": synced}
        last_seq = events[-1]["seq"] if events else current.last_seq
        values = {k: v for k, v in fields.items() if k in SESSION.c and k not in ("id", "source_id", "owner", "shared",
                                                                                  "meta", *_COUNTERS)}
        values |= {"meta": json.dumps(meta, default=str), "shared": True, "last_seq": last_seq,
                   "last_hash": events[-1]["hash"] if events else current.last_hash,
                   "event_count": current.event_count + len(events),
                   "head_event_id": self._head(conn, row, last_seq, events)}
        db.update(conn, SESSION, values, id=sid)
        if extras is not None:
            self._marks(conn, sid, extras)
            audit.within(conn, "sync", "ok", session_id=sid, detail={
                "from": self.who, "events": last_seq, "redacted": synced["redacted"]})

    def _head(self, conn: Connection, row: dict, last_seq: int, events: list[dict]) -> str | None:
        """The local head when the copy holds it; while it does not yet, the newest event pushed."""
        head = row["head_event_id"]
        if head and conn.execute(sa.select(EVENT.c.seq).where(EVENT.c.id == head)).scalar() is not None:
            return head
        if events:
            return events[-1]["id"]
        return conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == row["id"])).scalar()

    def _insert_session(self, conn: Connection, fields: dict) -> None:
        values = {k: v for k, v in fields.items() if k in SESSION.c and k not in ("owner", *_COUNTERS)}
        values |= {"source_id": self._source(conn, fields.get("source_id")), "last_seq": 0, "last_hash": "",
                   "event_count": 0, "head_event_id": None, "shared": True}
        db.insert(conn, SESSION, values)

    def _source(self, conn: Connection, local_id: int | None) -> int | None:
        """The team's source row for a local source: its kind, and where it was on whose machine (never scanned)."""
        if local_id in self.sources:
            return self.sources[local_id]
        with self.local.reader() as lc:
            src = lc.execute(sa.select(SOURCE.c.kind, SOURCE.c.location).where(SOURCE.c.id == local_id)).first()
        kind = src.kind if src else "native"
        location = f"{self.who}:{self.redactor.redact_text(src.location if src else '', 'source')}"
        which = sa.select(SOURCE.c.id).where(SOURCE.c.kind == kind, SOURCE.c.location == location)
        values = {"kind": kind, "location": location, "enabled": False, "added_at": time.time()}
        found: int | None = conn.execute(which).scalar()
        if found is None:
            if conn.dialect.name == "postgresql":  # (this member's other sync may be adding it at once)
                from sqlalchemy.dialects.postgresql import insert
                conn.execute(insert(SOURCE).values(**values).on_conflict_do_nothing())
            else:
                conn.execute(SOURCE.insert().values(**values))
            found = conn.execute(which).scalar_one()
        self.sources[local_id] = found
        return found

    def _marks(self, conn: Connection, sid: str, extras: dict) -> None:
        """The team copy's notes, star and pins become the local session's (the local store is the truth)."""
        conn.execute(NOTE.delete().where(NOTE.c.session_id == sid))
        for n in extras["notes"]:
            conn.execute(NOTE.insert().values(**{c.name: n[c.name] for c in NOTE.columns}))
        conn.execute(STAR.delete().where(STAR.c.session_id == sid))
        if extras["star"] is not None:
            conn.execute(STAR.insert().values(session_id=sid, starred_at=extras["star"]))
        conn.execute(PIN.delete().where(PIN.c.session_id == sid))
        for p in extras["pins"]:
            if conn.execute(sa.select(EVENT.c.pk).where(EVENT.c.id == p["event_id"])).first():
                conn.execute(PIN.delete().where(PIN.c.event_id == p["event_id"]))
                conn.execute(PIN.insert().values(**p))

    def _withdraw(self, ids: list[str]) -> None:
        """Team copies of sessions the user no longer shares: kept (they are the user's), no longer shared."""
        if not ids:
            return

        def work(conn):
            for sid in ids:
                db.update(conn, SESSION, {"shared": False}, id=sid)
                audit.within(conn, "sync.withdraw", "ok", session_id=sid, detail={"from": self.who})
        self.team.write(work)
        self.report.withdrawn += ids


def _loads(text: str | None) -> dict:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _synced(meta: str | None) -> dict:
    value = _loads(meta).get("synced")
    return value if isinstance(value, dict) else {}


def _taken(exc: sa.exc.IntegrityError) -> str:
    if db.sqlstate(exc) == "23505" or "UNIQUE" in str(exc.orig):
        return ("an id of it is taken in the team store by another member's session (the same session brought in "
                "twice?): left out")
    return f"the team store refused it: {str(exc.orig).splitlines()[0]}"


def last_report(conn: Connection) -> dict | None:
    """The last sync's report as the local store keeps it (without its review), or None."""
    raw = settings.get(conn, "sync.last")
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def keep_report(conn: Connection, report: SyncReport) -> None:
    settings.put(conn, "sync.last", json.dumps(report.as_dict(findings=False)))


def fail_report(conn: Connection, target: str, error: str) -> None:
    """A sync that did not reach its end, for the app's and `sync status`'s word on it."""
    settings.put(conn, "sync.last", json.dumps({"target": target, "error": error, "at": time.time()}))




def copies(conn: Connection) -> dict[str, dict]:
    """{session id: its `synced` record} of the sessions in this store that are redacted copies a sync pushed
    (what `verify` says of them: their chains are over the redacted events)."""
    rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.meta).where(SESSION.c.meta.like('%"synced"%')))
    return {sid: synced for sid, meta in rows if (synced := _synced(meta)).get("store")}
