"""model/ (the sessionscope package) never imports Qt or sessionscope.gui: every module imports with PySide6 made unimportable."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO


def test_every_model_module_imports_without_qt():
    script = textwrap.dedent("""
        import importlib, pkgutil, sys

        def front_end(name):
            return name.split(".")[0] in ("PySide6", "shiboken6") or name.startswith("sessionscope.gui")

        class Block:
            def find_spec(self, name, path=None, target=None):
                if front_end(name):
                    raise ImportError("blocked: " + name)

        sys.meta_path.insert(0, Block())
        import sessionscope
        # the model is sessionscope's own folder; installed, gui/ sits inside it as sessionscope/gui
        names = [m.name for m in pkgutil.walk_packages(sessionscope.__path__, "sessionscope.",
                                                       onerror=lambda name: None)
                 if ".migrations" not in m.name and not front_end(m.name) and not m.name.endswith("__main__")]
        for name in names:
            importlib.import_module(name)
        leaked = [m for m in sys.modules if front_end(m)]
        assert not leaked, leaked
        print(len(names))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 10


def test_cli_imports_no_qt():
    """Every module of the command line loads without Qt: only opening the window needs it."""
    script = textwrap.dedent("""
        import importlib, pkgutil, sys
        import sessionscope.cli as cli
        for m in pkgutil.iter_modules(cli.__path__, "sessionscope.cli."):
            if not m.name.endswith("__main__"):
                importlib.import_module(m.name)
        print([m for m in sys.modules if m.startswith("PySide6")])
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_no_model_function_imports_qt_later():
    """No import anywhere in model/ — at a module's top or inside a function, run only later — names Qt or the
    window (PySide6, shiboken6, sessionscope.gui, a relative `gui`), nor does any import_module string, but the
    command line's opening of the window. With every
    module importing without Qt (above), this holds the whole model to it, as re-running the model suite with Qt
    unimportable did (11 % of the suite's time)."""
    import ast

    def front_end(name: str) -> bool:
        return name.split(".")[0] in ("PySide6", "shiboken6") or name.startswith("sessionscope.gui")

    found = []
    for path in sorted((REPO / "model").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
                if node.level and (node.module or "").split(".")[0] == "gui":
                    names.append("sessionscope.gui")
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
            found += [f"{path.relative_to(REPO)}:{node.lineno} {n}" for n in names if front_end(n.lstrip("."))]
    # the one door: the command line opens the window (`sessionscope` with no command) by importing its app
    assert [f.split(":")[0] + " " + f.split(" ")[1] for f in found] == ["model/cli/main.py sessionscope.gui.window.app"], found


def test_gui_names_no_tool():
    """The window acts and shows through the source registry and the capabilities a Source declares
    (takes_messages, workspaces, export_formats, describe, summary, only_a_copy): no module of gui/ imports
    a tool's package or names a tool, so a new tool adds its package and one registry line."""
    import re

    from sessionscope import sources
    tools = "|".join(k for k in sources.kinds() if k != "native")
    pattern = rf"sessionscope\.sources\.({tools})\b|[\"'](?:{tools})[\"']|\[[\"']managed[\"']\]|claude_actions|== [\"']claude"
    found = {}
    for path in sorted((REPO / "gui").rglob("*.py")):
        hits = re.findall(pattern, path.read_text())
        if hits:
            found[path.name] = hits
    assert not found


def _python_files(*folders: str):
    for folder in folders:
        yield from sorted((REPO / folder).rglob("*.py"))


def test_the_audit_log_is_written_by_one_module():
    """Entries reach the log through sessionscope.safety.audit alone (`audited`, `failed`, `within`): no module
    inserts rows of its own, and nobody calls the old hand-written `audit.record` or the Store's private `_act`."""
    import re
    offenders = {}
    for path in _python_files("model", "gui"):
        text = path.read_text()
        hits = re.findall(r"audit\.record\b|audit\._record\b|\._act\(|AUDIT\.insert\(", text)
        if hits and path.name != "audit.py":
            offenders[str(path.relative_to(REPO))] = hits
    assert not offenders


def test_the_window_builds_no_changes_and_calls_no_source_action():
    """The front ends act through sessionscope.ops: no `Changes(` is made under gui/, and no source's action
    (fork, rewind, archive, delete, rename, tag, write back, send) is called from there."""
    import re
    made, called = {}, {}
    for path in _python_files("gui"):
        text = path.read_text()
        if re.search(r"\bChanges\(", text):
            made[str(path.relative_to(REPO))] = True
        hits = re.findall(r"\bsrc\.(fork|rewind|archive|delete|rename|tag|write_back|send|interrupt|restore_plan)\(", text)
        if hits:
            called[str(path.relative_to(REPO))] = hits
    assert not made and not called


def test_the_store_never_calls_a_source():
    """The store (model/store/) is persistence and reading: sources and ops import it, never the other way round."""
    graph = _imports_graph()
    store = {m: sorted(t for t in targets if t.startswith(("sessionscope.sources", "sessionscope.ops")))
             for m, targets in graph.items() if m.startswith("sessionscope.store.")}
    assert len(store) >= 15 and not any(store.values()), store


def _imports_graph() -> dict[str, set[str]]:
    """{module: the modules of model/ and gui/ it imports}, every import counted, at a module's top or inside a
    function (a lazy import is an import all the same: it only hides the cycle until it runs)."""
    import ast

    def name_of(path):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        parts = ["sessionscope", *parts[1:]] if parts[0] == "model" else ["sessionscope", "gui", *parts[1:]]
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name_of(p): p for folder in ("model", "gui") for p in (REPO / folder).rglob("*.py")
               if "migrations" not in p.parts}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                mod = (base + (f".{node.module}" if node.module else "")) if node.level else node.module or ""
                targets = [mod, *(f"{mod}.{a.name}" for a in node.names)]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rsplit(".", 1)[0] if "." in target else ""
                if target and target != module and not module.startswith(target + "."):
                    graph[module].add(target)
    return graph


def test_no_import_cycle_lazy_or_not():
    """#59: no two modules of model/ or gui/ import each other, directly or round about, at any depth (a package
    importing its own submodules aside). Found by Tarjan's strongly connected components over every import."""
    import sys
    graph = _imports_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))
    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == [], cycles


def _store_writers() -> set[str]:
    """The Store's methods that write (their body opens a write transaction), read from its source."""
    import ast
    src = (REPO / "model" / "store" / "api.py").read_text()
    store = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "Store")
    return {f.name for f in store.body if isinstance(f, ast.FunctionDef)
            and any(w in ast.get_source_segment(src, f) for w in ("self.write(", "self.audited(", "db.run_session_write("))} | {
                "write", "audited"}


def test_the_front_ends_write_only_through_ops():
    """#59: the window, the command line and the MCP server change the store only through sessionscope.ops (its
    rule, its audit entry, its Changes): none calls a Store writer, writes a setting, a retention policy, a
    workspace or a watched place itself, or imports without ops.import_paths. Walked over every module."""
    import re
    writers = _store_writers()
    assert {"open_session", "append", "fork", "delete", "audited"} <= writers  # (the walk reads what it should)
    calls = re.compile(r"\b(?:store|self\.store|window\.store|self\._store)\.(" + "|".join(sorted(writers)) + r")\(")
    raw = re.compile(r"\bsettings\.put\(|\bretention\.(?:set_policy|plan)\(|\bset_watched\(|\bset_enabled\(|"
                     r"\bworkspaces\.(?:add|stop)\(|sources\.importing import[^\n]*\bimport_paths\b|\bsource_row\(|"
                     r"\baudit\.(?:audited|failed|within)\(")
    fronts = [*(REPO / "gui").rglob("*.py"), *(REPO / "model" / "cli").rglob("*.py"),
              REPO / "model" / "recall" / "mcp_server.py"]
    found = {}
    for path in fronts:
        text = path.read_text(encoding="utf-8")
        hits = calls.findall(text) + raw.findall(text)
        if hits:
            found[str(path.relative_to(REPO))] = hits
    assert len(fronts) > 80 and not found, found


def test_no_function_is_over_a_hundred_lines():
    """#59: a function of model/ or gui/ fits on a screen or two; a longer one is split where its steps part."""
    import ast
    long = []
    for path in _python_files("model", "gui"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 100:
                long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})")
    assert long == []
