"""QActions, menus, the toolbar and context menus, made from the action table (gui/window/action_table.py).

The window's own actions are made once (`build`); a context menu that acts on what was clicked (a tree
node) is made at each click from the same rows (`popup`), so its texts, icons, shortcuts and rules are the
window's. Nothing that acts is built anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QToolBar, QWidget

from sessionscope.gui.window.action_table import MENUS, SUBMENUS, TABLE, Context, Row, in_place

_SCOPES = {"window": Qt.ShortcutContext.WindowShortcut, "widget": Qt.ShortcutContext.WidgetShortcut,
           "children": Qt.ShortcutContext.WidgetWithChildrenShortcut}


def make(row: Row, parent: QWidget, run: Callable[[Row, bool], None]) -> QAction:
    """A QAction for `row` that calls `run(row, checked)`."""
    a = QAction(row.text, parent)
    a.setObjectName(row.id)
    if row.shortcut is not None:
        a.setShortcut(QKeySequence(row.shortcut))
        a.setShortcutContext(_SCOPES[row.scope])
    if isinstance(row.icon, str):  # one shipped with the app (resources/icons/<name>.svg)
        from PySide6.QtGui import QIcon

        from sessionscope.resources import resource_path
        a.setIcon(QIcon(str(resource_path(f"icons/{row.icon}.svg"))))
    elif row.icon is not None:
        a.setIcon(parent.style().standardIcon(row.icon))
    if row.short:
        a.setIconText(row.short)
    if row.tip:
        a.setStatusTip(row.tip)
        a.setToolTip(row.tip)
    a.setCheckable(row.checkable)
    a.triggered.connect(lambda checked=False, row=row: run(row, checked))
    return a


def build(window: QWidget, run: Callable[[Row, bool], None]) -> dict[str, QAction]:
    """The window's actions: one QAction a row that appears anywhere but in a per-click menu."""
    per_click = {"tree", "fork_node"}
    return {row.id: make(row, window, run) for row in TABLE if set(row.places) - per_click}


def fill(target: QMenu | QToolBar | QWidget, place: str, actions: dict[str, QAction]) -> None:
    """Add the place's rows to a menu, a toolbar or a widget's context menu, with their separators."""
    for row in in_place(place):
        if row.id in actions:
            if place in row.separated and target.actions():
                if isinstance(target, QWidget) and not isinstance(target, (QMenu, QToolBar)):
                    sep = QAction(target)
                    sep.setSeparator(True)
                    target.addAction(sep)
                else:
                    target.addSeparator()
            target.addAction(actions[row.id])


def install_menus(window, actions: dict[str, QAction]) -> None:
    """The menu bar (a submenu at the end of its menu; an exclusive group of checkable rows in a submenu)."""
    for key, title in MENUS.items():
        menu = window.menuBar().addMenu(title)
        menu.setObjectName(f"menu.{key}")
        menu.setToolTipsVisible(True)  # a greyed-out action says why
        fill(menu, key, actions)
        for sub, (parent, sub_title) in SUBMENUS.items():
            if parent == key:
                submenu = menu.addMenu(sub_title)
                submenu.setObjectName(f"menu.{sub}")
                group = QActionGroup(submenu)
                fill(submenu, sub, actions)
                for a in submenu.actions():
                    group.addAction(a)


def popup(parent: QWidget, place: str, ctx: Context, run: Callable[[Row, Context], None]) -> QMenu:
    """A context menu of `place` for what was clicked: fresh actions, each enabled by its row's rule in `ctx`."""
    menu = QMenu(parent)
    menu.setToolTipsVisible(True)
    for row in in_place(place):
        if place in row.separated and menu.actions():
            menu.addSeparator()
        a = make(row, menu, lambda r, _checked: run(r, ctx))
        if row.checkable:  # it shows what is now; `ctx.checked` is what choosing it makes
            a.setChecked(not ctx.checked)
        why = row.refusal(ctx)
        a.setEnabled(why is None)
        if why:
            a.setToolTip(row.tooltip(why))
        menu.addAction(a)
    return menu


def shortcut_rows() -> list[tuple[str, str]]:
    """Help ▸ Keyboard Shortcuts: (what, keys) for every row with a shortcut or a gesture, once each."""
    rows, seen = [], set()
    for row in TABLE:
        keys = QKeySequence(row.shortcut).toString(QKeySequence.SequenceFormat.NativeText) if row.shortcut else ""
        keys = " or ".join(k for k in (keys, row.gesture) if k)
        what = row.name
        if keys and (what, keys) not in seen:
            seen.add((what, keys))
            rows.append((what, keys))
    return rows
