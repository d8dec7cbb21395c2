"""A watched command's status line and the last lines of its output (stdout and stderr together)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from gpu_advisor.ui.theme import error_color

TAIL_LINES = 200
# Enough for TAIL_LINES lines of a chatty training log; the whole file stays on disk.
TAIL_BYTES = 64 * 1024


def read_tail(path: Path, max_bytes: int = TAIL_BYTES, lines: int = TAIL_LINES) -> str:
    """The last `lines` lines of the file's last `max_bytes` bytes ('' if it cannot be read)."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    # A progress bar (tqdm) redraws its line after a carriage return: show what a terminal shows.
    kept = [line.rsplit("\r", 1)[-1] for line in text.split("\n")]
    if size > max_bytes:
        kept = kept[1:]  # the first line was cut in the middle
    return "\n".join(kept[-lines - 1 :]).rstrip("\n")


class OutputPane(QWidget):
    """How the command ended (in the error colour when it failed) and the tail of its output."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.status = QLabel("")
        self.status.setAccessibleName("Command status")
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setMaximumBlockCount(TAIL_LINES)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setPlaceholderText("The command's output (stdout and stderr) appears here.")
        self.output.setAccessibleName("Command output")
        # three lines at the least (Qt's own least is five): a low window gives the plots the rest
        frame = 2 * self.output.frameWidth() + 2 * int(self.output.document().documentMargin())
        self.output.setMinimumHeight(3 * self.output.fontMetrics().lineSpacing() + frame)
        self.output.setToolTip(f"The last {TAIL_LINES} lines; the whole output is saved beside the results.")
        self.log_label = QLabel("")
        self.log_label.setEnabled(False)
        self.log_label.setWordWrap(True)
        layout.addWidget(self.status)
        layout.addWidget(self.output)
        layout.addWidget(self.log_label)

    def set_status(self, text: str, failed: bool = False) -> None:
        self.status.setText(text)
        color = error_color().name() if failed else ""
        self.status.setStyleSheet(f"color: {color}; font-weight: bold;" if failed else "font-weight: bold;")

    def show_tail(self, path: Path) -> None:
        """Show the last lines of the log (called at 1 Hz while the command runs, and at its end)."""
        text = read_tail(path)
        if text != self.output.toPlainText():
            self.output.setPlainText(text)
            bar = self.output.verticalScrollBar()
            bar.setValue(bar.maximum())
        self.log_label.setText(f"Full output: {path}")

    def show_message(self, text: str) -> None:
        """A message of ours in place of the output (the command could not start)."""
        self.output.setPlainText(text)
        self.log_label.setText("")

    def last_line(self) -> str:
        lines = self.output.toPlainText().splitlines()
        return lines[-1] if lines else ""
