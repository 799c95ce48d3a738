"""Light, dark or the system's look (View ▸ Theme, remembered; `--theme` for one run).

Qt follows the desktop's colour scheme where the platform tells it; where it does not
(many X11 desktops, a remote session), a user who works in the dark needs to say so.
Light and Dark are the Fusion style with a palette of our own; every view that
colours text asks `timeline_model.dark_palette()`, so they all follow.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

THEMES = ("system", "light", "dark")
_DARK = {"Window": "#2b2b2b", "WindowText": "#e6e6e6", "Base": "#1f1f1f", "AlternateBase": "#2a2a2a",
         "ToolTipBase": "#3a3a3a", "ToolTipText": "#e6e6e6", "Text": "#e6e6e6", "Button": "#353535",
         "ButtonText": "#e6e6e6", "BrightText": "#ff6b6b", "Link": "#7fb2f0", "Highlight": "#2f65ca",
         "HighlightedText": "#ffffff", "PlaceholderText": "#9a9a9a", "Mid": "#3c3c3c", "Dark": "#1a1a1a",
         "Light": "#4a4a4a", "Midlight": "#404040", "Shadow": "#101010"}
_system: tuple[str, QPalette] | None = None  # the style and palette Qt started with


def saved() -> str:
    theme = QSettings().value("view/theme", "system", type=str)
    return theme if theme in THEMES else "system"


def apply(theme: str, remember: bool = False) -> None:
    global _system
    app = QApplication.instance()
    if _system is None:
        _system = (app.style().name(), QPalette(app.palette()))
    if theme == "system":
        app.setStyle(QStyleFactory.create(_system[0]) or app.style())
        app.setPalette(_system[1])
    else:
        app.setStyle(QStyleFactory.create("Fusion"))
        palette = QStyleFactory.create("Fusion").standardPalette()
        if theme == "dark":
            for role, colour in _DARK.items():
                palette.setColor(getattr(QPalette.ColorRole, role), QColor(colour))
            for role in ("Text", "WindowText", "ButtonText"):
                palette.setColor(QPalette.ColorGroup.Disabled, getattr(QPalette.ColorRole, role), QColor("#7a7a7a"))
        app.setPalette(palette)
    if remember:
        QSettings().setValue("view/theme", theme)
