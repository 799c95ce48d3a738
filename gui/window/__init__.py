"""The main window and what it is built from: the action table and menus, layout, theme, the sidebar, startup.

Imported first in the window's process, it keeps PySide6 from holding every module's source. PySide6 looks at each
module imported after it for `from __feature__ import …` by reading the module's source
(`shibokensupport.feature._mod_uses_pyside`: inspect.getsource), and linecache then kept every line of every module
the app imports: ~20 MB of the window's heap, measured with tracemalloc (744 files), for as long as it ran (#61: the
window's memory). The check is kept; the lines it read are let go as soon as it has answered (a traceback reads them
again when it needs them). Here rather than in `sessionscope.gui`: the import and embedding processes
(`sessionscope.gui.jobs`) load no Qt.
"""

from __future__ import annotations

import linecache
import sys

import PySide6.QtCore  # noqa: F401 (installs the check wrapped below)


def _let_go_of_sources() -> None:
    feature = sys.modules.get("shibokensupport.feature")
    check = getattr(feature, "_mod_uses_pyside", None)
    if check is None or getattr(check, "lets_go", False):
        return  # (another PySide6, or done already)

    def uses_pyside(module) -> bool:
        try:
            return check(module)
        finally:
            linecache.cache.pop(getattr(module, "__file__", None) or "", None)
    uses_pyside.lets_go = True  # type: ignore[attr-defined]
    feature._mod_uses_pyside = uses_pyside  # type: ignore[union-attr]


_let_go_of_sources()
