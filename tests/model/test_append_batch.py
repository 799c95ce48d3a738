"""A batch of events appended at once (an SDK adapter's add_items) is what appending them one by one gives:
the same seq, parents, depths, chain, counts, head, search index and fact snapshots (#31)."""

from __future__ import annotations

from sessionscope.store.append import append_events


def _shape(events):
    return [(e.seq, e.depth, e.kind, e.role, e.text, e.payload, e.ts) for e in events]


def test_a_batch_is_what_appending_one_by_one_gives(store):
    one, batch = store.open_session(title="one by one"), store.open_session(title="batched")
    store.set_fact(one.id, "plan", "the same", ts=500.0)
    store.set_fact(batch.id, "plan", "the same", ts=500.0)
    events = [{"kind": "message", "role": "user" if i % 2 == 0 else "assistant", "text": f"line {i} zebra{i}",
               "payload": {"i": i}, "ts": 1_000.0 + i} for i in range(230)]  # past a fact snapshot (every 200)
    for e in events:
        store.append(one.id, e["kind"], role=e["role"], text=e["text"], payload=e["payload"], ts=e["ts"])
    assert store.write(lambda conn: append_events(conn, batch.id, events[:3])) == 3
    store.write(lambda conn: append_events(conn, batch.id, events[3:]))
    a, b = store.events(one.id), store.events(batch.id)
    assert _shape(a) == _shape(b)
    assert [e.parent_id for e in b[1:]] == [e.id for e in b[:-1]]  # each under the one before
    sa_, sb = store.session(one.id), store.session(batch.id)
    assert (sa_.event_count, sa_.updated_at, sa_.status) == (sb.event_count, sb.updated_at, sb.status)
    assert sb.head_event_id == b[-1].id
    assert all(r.ok for r in store.verify())  # the chain holds
    assert {h.session_id for h in store.search("zebra229")} == {one.id, batch.id}  # indexed for search
    assert store.head_facts(batch.id) == store.head_facts(one.id) == {"plan": "the same"}
    store.append(batch.id, "message", role="user", text="after the batch")  # one by one again, on top
    assert store.events(batch.id)[-1].parent_id == b[-1].id and all(r.ok for r in store.verify(batch.id))
