"""The design system, written down once: the type scale, the spacing, the palette (light and dark) and the
application's style sheet that applies them. Views ask here instead of choosing sizes and colours of their own.

- **Type**: the application's font is the body; every other size is a step of SCALE from it (a caption reads
  at 0.85, the reader at 1.15, a view's title at 1.5, a key figure at 1.9). Weights: 400 body, 600 titles and
  figures.
- **Spacing**: multiples of 4 px (SPACE: 4, 8, 12, 16, 24, 32): 8 inside a control, 12 inside a card, 16
  between cards, 24 around a page.
- **Colour**: a neutral surface (the palette's Window and Base), one raised surface for cards, one border, two
  text colours (text and muted), one accent (links, the selection, the heatmap's ramp) and three meanings
  (good, warn, bad). The roles of a conversation (you, the assistant, an agent, a tool, the system) have a
  colour each, used by the reader, the timeline and the exports alike.
- **Icons**: the one set shipped in resources/icons (Qt's standard pixmaps where none is shipped).
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

W = TypeVar("W", bound=QWidget)

SCALE = {"caption": 0.85, "body": 1.0, "reader": 1.15, "heading": 1.25, "title": 1.5, "figure": 1.9}
SPACE = (4, 8, 12, 16, 24, 32)
RADIUS = 6

PALETTE: dict[bool, dict[str, str]] = {  # light (False), dark (True)
    False: {"surface": "#f6f7f9", "raised": "#ffffff", "border": "#dfe3e8", "text": "#1f2328", "muted": "#5f6b7a",
            "accent": "#2f6fdb", "good": "#1a7f37", "warn": "#9a6700", "bad": "#cf222e"},
    True: {"surface": "#1e2023", "raised": "#26292e", "border": "#3a3f46", "text": "#e6e8eb", "muted": "#a0a8b3",
           "accent": "#6ea4f5", "good": "#57c26a", "warn": "#d8a93b", "bad": "#f0747a"},
}
RAMP: dict[bool, tuple[str, ...]] = {False: ("#ebedf0", "#c6dbf7", "#8db7ef", "#4f8be0", "#1f5fbf"),  # the accent's,
                                     True: ("#2c3036", "#1f3b63", "#2c5b9c", "#4682d6", "#7fb2f5")}  # nothing to most


def dark() -> bool:
    """Whether the application's palette is dark (its window colour, whatever theme set it)."""
    return QApplication.instance() is not None and \
        QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def colour(name: str) -> QColor:
    """A colour of the palette, for the theme shown."""
    return QColor(PALETTE[dark()][name])


def ramp() -> tuple[str, ...]:
    """The heatmap's five steps, nothing to most."""
    return RAMP[dark()]


def font(step: str, bold: bool = False, base: QFont | None = None) -> QFont:
    """The application's font at a step of the type scale."""
    f = QFont(base if base is not None else QApplication.font())
    f.setPointSizeF(round(f.pointSizeF() * SCALE[step], 1))
    if bold:
        f.setWeight(QFont.Weight.DemiBold)
    return f


def style(widget: W, step: str, bold: bool = False, muted: bool = False) -> W:
    """`widget` in a step of the type scale (and the muted text colour); returns it."""
    widget.setFont(font(step, bold))
    if muted:
        widget.setProperty("muted", True)
    return widget


def sheet() -> str:
    """The style sheet the themes share: cards raised on the surface, muted captions, calm inputs and headers."""
    p = PALETTE[dark()]
    return f"""
QFrame[card="true"] {{ background: {p['raised']}; border: 1px solid {p['border']}; border-radius: {RADIUS}px; }}
QFrame[card="true"] QLabel {{ background: transparent; border: none; }}
QLabel[muted="true"] {{ color: {p['muted']}; }}
QWidget#home-page {{ background: {p['surface']}; }}
QListWidget[flat="true"] {{ background: transparent; border: none; outline: none; }}
QListWidget[flat="true"]::item {{ padding: 4px 2px; border-radius: 4px; }}
QListWidget[flat="true"]::item:hover {{ background: {p['surface']}; }}
"""
