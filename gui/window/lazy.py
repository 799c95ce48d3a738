"""Modules the window needs only once it is up, imported when first used (importlib's LazyLoader).

The window paints before the store opens; what its views call into (SQLAlchemy, every tool's source) costs more
than half a second to import, so a view names such a module with `lazy(...)` at the top and the import happens
at the first attribute asked of it, after the first paint."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """The module `name`: itself if it is imported already, else one whose code runs at its first use."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)  # as an import would: `sessionscope.insight.vitals` names it too
    return module


def load_now() -> None:
    """Import what the window's views use, and every action's module: on the worker that opened the store, so
    that no first click or first session shown imports on the UI thread."""
    from sessionscope import ops
    for name in ("sessionscope.insight.vitals", "sessionscope.live.states", "sessionscope.live.needs_you"):
        getattr(lazy(name), "__name__")  # (a lazy module runs its code at its first attribute)
    ops.preload()
