"""Search by meaning (#34), off until the user turns it on: the vectors of what was said, kept in the store.

What is embedded: prompts and replies, compaction summaries, facts and the user's notes (tool output too when
the user asks: it is two thirds of all text and mostly noise to a question). `embed` does what is not done yet,
in batches that each commit, so it is cancellable and resumable: it goes on after the newest event that has a
vector (events come in with growing row ids), and a note without one. Each vector is one signed byte a dimension
and a scale (`pack`): 260 bytes for the default model's 256 dimensions.

A search reads the vectors once into a compact array in memory (`Index`, refreshed with what is new) and scores
it exactly against the query's vector: a matrix product over one byte a dimension, fast enough for the few
hundred thousand texts a person's store holds (the benchmark), on SQLite and PostgreSQL alike.
sessionscope.recall.search fuses the nearest with its keyword ranking (reciprocal rank fusion).
"""

from __future__ import annotations

import json
import threading
import weakref
from dataclasses import asdict, dataclass
from typing import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, Refused
from sessionscope.recall import embedding
from sessionscope.store import settings, settled
from sessionscope.store.schema import EMBEDDING, EVENT, NOTE, SESSION, plain

SETTING = "semantic"
KINDS = ("message", "compaction_summary", "fact.set")
TOOL_KINDS = ("tool_result",)
BATCH = 2000
CANDIDATES = 1000  # the nearest texts a search filters by its operators (the rest are too far to rank)
# A text is near enough to be found when its cosine with the query is at least MIN_SCORE and at least
# RELATIVE × the nearest text's: a store always has a nearest text, which is no answer when it is far
MIN_SCORE = 0.3
RELATIVE = 0.6
_CHUNK = 32768  # rows scored at a time: a float32 copy of a chunk, never of the whole array


@dataclass(frozen=True)
class Config:
    enabled: bool = False
    model: str = embedding.DEFAULT_MODEL  # a Hugging Face repository, or a folder here
    tool_output: bool = False

    @property
    def kinds(self) -> tuple[str, ...]:
        return KINDS + (TOOL_KINDS if self.tool_output else ())


def config(conn: Connection) -> Config:
    raw = settings.get(conn, SETTING)
    if not raw:
        return Config()
    try:
        known = {k: v for k, v in json.loads(raw).items() if k in Config.__dataclass_fields__}
        return Config(**known)
    except (ValueError, TypeError, AttributeError):
        return Config()  # a value another version wrote: off, as if never set


def config_of(store) -> Config:
    with store.reader() as conn:
        return config(conn)


def configure(store, new: Config) -> Config:
    """Store the settings (a recorded change). Vectors of another model, or made with the other choice of tool
    output, are dropped in the same transaction: the next `embed` makes them all again."""
    if not new.model.strip():
        raise InvalidInput("name a model: a Hugging Face repository (owner/name) or a folder")
    if new.enabled:
        embedding._need("model2vec")  # turned on without the extra: said now, not at the first embedding

    def work(conn):
        old = config(conn)
        settings.put(conn, SETTING, json.dumps(asdict(new)))
        if (old.model, old.tool_output) != (new.model, new.tool_output):
            conn.execute(EMBEDDING.delete())
        return old
    store.audited("semantic.settings", work, detail=asdict(new))
    return new


@dataclass(frozen=True)
class Status:
    config: Config
    embedded: int  # texts with a vector
    pending: int  # texts without one yet
    size: int  # bytes of vectors in the store
    fetched: bool  # the model is here (a folder, or fetched before)


def status(store) -> Status:
    with store.reader() as conn:
        cfg = config(conn)
        n, size = conn.execute(sa.select(sa.func.count(), sa.func.coalesce(
            sa.func.sum(sa.func.length(EMBEDDING.c.vector)), 0))).one()
        pending = _count_pending(conn, cfg)
    try:
        fetched = embedding.local_path(cfg.model) is not None
    except Exception:
        fetched = False
    return Status(cfg, n, pending, int(size), fetched)


def pack(vectors) -> list[bytes]:
    """Unit vectors (float32 rows) as one signed byte a dimension, scaled to each vector's largest component,
    then the scale (float32): cosine scores keep their order to within ~1%."""
    import numpy as np
    peak = np.abs(vectors).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.rint(vectors / scale[:, None]).astype(np.int8)
    return [row.tobytes() + s.tobytes() for row, s in zip(q, scale)]


def _unpack(blobs: list[bytes], dim: int):
    import numpy as np
    raw = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), dim + 4)
    return raw[:, :dim].view(np.int8).copy(), raw[:, dim:].copy().view(np.float32).ravel()


# -- making vectors ---------------------------------------------------------------------------------------

def _after(conn: Connection) -> int:
    """The newest event with a vector: everything after it is still to do (embedding goes in row order)."""
    return conn.execute(sa.select(sa.func.coalesce(sa.func.max(EMBEDDING.c.event_pk), 0))).scalar()


def _own_only(conn: Connection):
    """On a team store under its rules, the sessions this login keeps vectors of (its own: sessionscope.safety.team), as a
    condition on a session id column's select; None elsewhere."""
    if conn.dialect.name != "postgresql" or not conn.exec_driver_sql("SELECT row_security_active('embedding')").scalar():
        return None
    return sa.select(SESSION.c.id).where(sa.func.sessionscope_may_change(SESSION.c.owner))


def _event_rows(cfg: Config, after: int, limit: int | None, own=None, upto: int | None = None):
    stmt = (sa.select(EVENT.c.pk, EVENT.c.session_id, sa.func.substr(plain(EVENT.c.text), 1, embedding.MAX_CHARS))
            .where(EVENT.c.pk > after, EVENT.c.kind.in_(cfg.kinds), EVENT.c.text != "").order_by(EVENT.c.pk))
    if upto is not None:  # (no further than the settled key: an event committed later below it would be passed over)
        stmt = stmt.where(EVENT.c.pk <= upto)
    if own is not None:
        stmt = stmt.where(EVENT.c.session_id.in_(own))
    return stmt.limit(limit) if limit else stmt


def _notes_without(columns=(NOTE.c.id, NOTE.c.session_id, NOTE.c.text), own=None):
    have = sa.select(EMBEDDING.c.note_id).where(EMBEDDING.c.note_id.is_not(None))
    stmt = sa.select(*columns).where(NOTE.c.id.not_in(have))
    return stmt.where(NOTE.c.session_id.in_(own)) if own is not None else stmt


def _count_pending(conn: Connection, cfg: Config) -> int:
    own = _own_only(conn)
    events = conn.execute(sa.select(sa.func.count()).select_from(
        _event_rows(cfg, _after(conn), None, own).subquery())).scalar()
    return events + conn.execute(_notes_without((sa.func.count(),), own)).scalar()


@dataclass
class Outcome:
    embedded: int
    cancelled: bool = False


def embed(store, progress: Callable[[int, int], None] | None = None, cancel: threading.Event | None = None,
          embedder: embedding.Embedder | None = None) -> Outcome:
    """Embed every text without a vector, a batch a transaction (`progress(done, total)` after each). Stopped by
    `cancel`, what was done is kept and the next call goes on from there."""
    with store.reader() as conn:
        cfg = config(conn)
        if not cfg.enabled:
            raise Refused("search by meaning is off: turn it on first (sessionscope semantic on)")
        total = _count_pending(conn, cfg)
    model = embedder or embedding.load(cfg.model)
    done = 0
    while True:
        if cancel is not None and cancel.is_set():
            return Outcome(done, cancelled=True)
        with store.reader() as conn:
            own = _own_only(conn)
            rows = conn.execute(_event_rows(cfg, _after(conn), BATCH, own, settled.settled_key(conn))).all()
            if not rows:
                rows = [(None, sid, text, nid) for nid, sid, text in conn.execute(
                    _notes_without(own=own).order_by(NOTE.c.created_at).limit(BATCH))]
        if not rows:
            return Outcome(done)
        blobs = pack(model.encode([r[2] for r in rows]))
        values = [{"session_id": r[1], "event_pk": r[0], "note_id": r[3] if len(r) > 3 else None, "vector": b}
                  for r, b in zip(rows, blobs)]
        # a model changed meanwhile (settings) leaves the batch out: its vectors would not match the others
        def keep(conn):  # (on a team store, vectors of one's own sessions only: see sessionscope.safety.team)
            from sessionscope.safety.team import changeable
            mine = changeable(conn, {v["session_id"] for v in values})
            kept = [v for v in values if v["session_id"] in mine]
            return config(conn) == cfg and kept and conn.execute(EMBEDDING.insert(), kept)
        store.write(keep)
        done += len(rows)
        if progress is not None:
            progress(done, max(total, done))


def forget_session(conn: Connection, session_id: str) -> None:
    """A session deleted: its vectors go with it (in the delete's transaction)."""
    conn.execute(EMBEDDING.delete().where(EMBEDDING.c.session_id == session_id))


def forget_note(conn: Connection, note_id: str) -> None:
    """A note edited or removed: its vector goes (an edited note is embedded again)."""
    conn.execute(EMBEDDING.delete().where(EMBEDDING.c.note_id == note_id))


# -- finding by meaning -----------------------------------------------------------------------------------

class Index:
    """Every vector of a store as one compact array, with what each row is; `refresh` reads only what is new
    (and everything again after vectors went: a deleted session, an edited note, a changed model)."""

    def __init__(self):
        import numpy as np
        self.lock = threading.Lock()
        self.key = (0, 0)  # (rows, newest id) when read
        self.dim = 0
        self.ids = np.zeros(0, dtype=np.int64)
        self.event_pks = np.zeros(0, dtype=np.int64)  # -1: a note's
        self.note_ids: dict[int, str] = {}  # row → note id
        self.session_codes = np.zeros(0, dtype=np.int32)
        self.sessions: list[str] = []
        self._codes: dict[str, int] = {}
        self.matrix = np.zeros((0, 0), dtype=np.int8)
        self.scales = np.zeros(0, dtype=np.float32)
        self._centroids = None

    def __len__(self) -> int:
        return len(self.ids)

    def refresh(self, conn: Connection) -> "Index":
        import numpy as np
        with self.lock:
            key = tuple(conn.execute(sa.select(sa.func.count(), sa.func.coalesce(sa.func.max(EMBEDDING.c.id), 0))).one())
            if key == self.key:
                return self
            newest = self.key[1]
            rows = conn.execute(sa.select(EMBEDDING.c.id, EMBEDDING.c.session_id, EMBEDDING.c.event_pk,
                                          EMBEDDING.c.note_id, EMBEDDING.c.vector)
                                .where(EMBEDDING.c.id > newest, EMBEDDING.c.id <= key[1]).order_by(EMBEDDING.c.id)).all()
            if len(self) + len(rows) != key[0]:  # some went: read them all again
                self.__init__()
                return self.refresh(conn)
            if rows:
                dim = len(rows[0].vector) - 4
                if self.dim and dim != self.dim:
                    self.__init__()
                    return self.refresh(conn)
                self.dim = dim
                matrix, scales = _unpack([r.vector for r in rows], dim)
                start = len(self)
                codes = [self._codes.setdefault(r.session_id, len(self._codes)) for r in rows]
                self.sessions = list(self._codes)
                for i, r in enumerate(rows):
                    if r.note_id is not None:
                        self.note_ids[start + i] = r.note_id
                self.ids = np.concatenate([self.ids, np.fromiter((r.id for r in rows), np.int64, len(rows))])
                self.event_pks = np.concatenate([self.event_pks, np.fromiter(
                    (-1 if r.event_pk is None else r.event_pk for r in rows), np.int64, len(rows))])
                self.session_codes = np.concatenate([self.session_codes, np.asarray(codes, dtype=np.int32)])
                self.matrix = matrix if not start else np.concatenate([self.matrix, matrix])
                self.scales = np.concatenate([self.scales, scales])
                self._centroids = None
            self.key = key
            return self

    def scores(self, query):
        """Every row's cosine with the unit vector `query`."""
        import numpy as np
        out = np.empty(len(self), dtype=np.float32)
        q = np.asarray(query, dtype=np.float32)
        for start in range(0, len(self), _CHUNK):
            part = self.matrix[start:start + _CHUNK]
            out[start:start + len(part)] = (part.astype(np.float32) @ q) * self.scales[start:start + len(part)]
        return out

    def nearest(self, query, k: int, mask=None, floor: float = -1.0, relative: float = 0.0) -> list[int]:
        """The rows of the `k` nearest texts, nearest first (`mask`: only rows where it is true; `floor`: only
        those at least so near; `relative`: and at least this share of the nearest one's score)."""
        import numpy as np
        if not len(self):
            return []
        s = self.scores(query)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        k = min(k, len(s))
        top = np.argpartition(-s, k - 1)[:k]
        top = top[np.argsort(-s[top], kind="stable")]
        if not len(top) or not np.isfinite(s[top[0]]):
            return []
        floor = max(floor, relative * float(s[top[0]]))
        return [int(i) for i in top if np.isfinite(s[i]) and s[i] >= floor]

    def centroids(self):
        """Each session's mean direction (a unit vector a row of `sessions`)."""
        import numpy as np
        if self._centroids is None:
            sums = np.zeros((len(self.sessions), self.dim), dtype=np.float32)
            for start in range(0, len(self), _CHUNK):
                part = self.matrix[start:start + _CHUNK].astype(np.float32) * self.scales[start:start + _CHUNK, None]
                np.add.at(sums, self.session_codes[start:start + _CHUNK], part)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            self._centroids = sums / np.where(norms > 0, norms, 1)
        return self._centroids


_INDEXES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def index(store, conn: Connection) -> Index:
    with _INDEXES_LOCK:
        found = _INDEXES.get(store)
        if found is None:
            found = _INDEXES[store] = Index()
    return found.refresh(conn)


@dataclass
class Ranker:
    """What sessionscope.recall.search asks for the meaning of a query: the nearest events' rows and notes' ids."""

    store: object
    model: embedding.Embedder

    def nearest(self, conn: Connection, text: str, k: int = CANDIDATES,
                session_prefix: str | None = None) -> tuple[list[int], list[str]]:
        import numpy as np
        idx = index(self.store, conn)
        if not len(idx) or not text.strip():
            return [], []
        mask = None
        if session_prefix:
            mask = np.isin(idx.session_codes, [c for c, s in enumerate(idx.sessions) if s.startswith(session_prefix)])
        rows = idx.nearest(self.model.encode([text])[0], k, mask, floor=MIN_SCORE, relative=RELATIVE)
        return ([int(idx.event_pks[r]) for r in rows if idx.event_pks[r] >= 0],
                [idx.note_ids[r] for r in rows if idx.event_pks[r] < 0])


def ranker(store) -> Ranker | None:
    """The meaning half of a search, when it is on, its model is here and there are vectors; else None (a
    search never waits for a model to be fetched)."""
    with store.reader() as conn:
        cfg = config(conn)
        if not cfg.enabled or not conn.execute(sa.select(EMBEDDING.c.id).limit(1)).first():
            return None
    try:
        return Ranker(store, embedding.load(cfg.model))
    except Exception:  # not fetched, the extra missing, a folder gone: keyword search alone, as when off
        return None


@dataclass(frozen=True)
class Similar:
    session_id: str
    title: str
    score: float  # cosine of the two sessions' mean directions, 1.0 the same
    updated_at: float

    def as_dict(self) -> dict:
        return asdict(self)


def similar_sessions(store, session_id: str, limit: int = 10) -> list[Similar]:
    """The sessions whose texts lie nearest to this one's on the whole (mean direction), nearest first."""
    import numpy as np
    with store.reader() as conn:
        cfg = config(conn)
        if not cfg.enabled:
            raise Refused("search by meaning is off: turn it on first (sessionscope semantic on)")
        idx = index(store, conn)
        if session_id not in idx._codes:
            raise Refused(f"session {session_id[:8]} has nothing embedded yet (sessionscope embed)")
        cents = idx.centroids()
        me = idx._codes[session_id]
        s = cents @ cents[me]
        s[me] = -np.inf
        order = [int(i) for i in np.argsort(-s)[:limit] if np.isfinite(s[i])]
        ids = [idx.sessions[i] for i in order]
        rows = {r.id: r for r in conn.execute(sa.select(SESSION.c.id, SESSION.c.title, SESSION.c.updated_at)
                                              .where(SESSION.c.id.in_(ids)))}
    return [Similar(sid, rows[sid].title, float(s[i]), rows[sid].updated_at)
            for i, sid in zip(order, ids) if sid in rows]


__all__ = ["Config", "config_of", "Index", "Ranker", "Similar", "Status", "config", "configure", "embed",
           "forget_note", "forget_session", "index", "pack", "ranker", "similar_sessions", "status"]
