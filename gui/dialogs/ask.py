"""A line or a few paragraphs asked for, in a box sized for what is typed (QInputDialog's static getText opened
175 px wide: a title was cut as it was typed, a note written in a slot)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDoubleSpinBox, QInputDialog, QWidget

WIDTH = {False: 520, True: 640}  # a line, several lines


def text(parent: QWidget | None, title: str, label: str, value: str = "", *, lines: bool = False) -> str | None:
    """What the user typed, stripped (None: cancelled or nothing typed)."""
    box = QInputDialog(parent)
    box.setWindowTitle(title)
    box.setLabelText(label)
    box.setInputMode(QInputDialog.InputMode.TextInput)
    if lines:
        box.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
    box.setTextValue(value)
    box.setMinimumWidth(WIDTH[lines])
    box.resize(WIDTH[lines], 360 if lines else box.sizeHint().height())
    answer = box.textValue().strip() if box.exec() == QDialog.DialogCode.Accepted else ""
    box.deleteLater()
    return answer or None


def number_box(value: float | None, top: float, none: str, *, decimals: int = 0, prefix: str = "",
               suffix: str = "") -> QDoubleSpinBox:
    """A box for an amount from 0 to `top`, where 0 reads as `none` ("never", "no limit")."""
    box = QDoubleSpinBox()
    box.setRange(0, top)
    box.setDecimals(decimals)
    box.setPrefix(prefix)
    box.setSuffix(suffix)
    box.setSpecialValueText(none)
    box.setValue(value or 0)
    return box
