"""Search by meaning's settings (a recorded change of the store, like the redaction patterns) and its job:
fetch the model when it is not here, then embed what is not embedded yet (sessionscope.recall.semantic)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from sessionscope.recall import embedding, semantic
from sessionscope.safety import audit

if TYPE_CHECKING:
    from sessionscope.store.api import Store


def set_semantic(store: Store, config: semantic.Config, *, actor: str | None = None) -> semantic.Config:
    """Turn search by meaning on or off, or choose its model or tool output (vectors of another model or
    choice go, to be made again)."""
    with audit.acting_as(actor):
        return semantic.configure(store, config)


def embed(store: Store, *, fetching: embedding.Progress | None = None, progress: Callable[[int, int], None] | None = None,
          cancel: threading.Event | None = None) -> semantic.Outcome:
    """The model fetched first when it is not here (`fetching`: its bytes), then every text without a vector
    embedded (`progress`: texts); `cancel` stops either, and the next call goes on from there."""
    cfg = semantic.config_of(store)
    if cfg.enabled:
        embedding.fetch(cfg.model, fetching, cancel)
    return semantic.embed(store, progress, cancel)
