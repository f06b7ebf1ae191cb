#!/usr/bin/python3
"""A Qt 5 window with the fields the desktop tests look at, as
fields_app.py's GTK one: an entry, a password entry, a PIN entry (digits,
hidden), a text view and a button, each holding the text desktop.py
gives. The same commands on standard input:

    focus NAME     gives NAME (entry, password, pin, text, button) the focus,
                   the cursor at the end of its text
    quit

It prints "ready" once its window is shown, and "done" after each command."""

import sys

from PyQt5.QtCore import QSocketNotifier, Qt, QTimer
from PyQt5.QtGui import QTextCursor
from PyQt5.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop import TEXTS


def main():
    app = QApplication(sys.argv)
    window = QWidget()
    window.setWindowTitle("vkbd fields, Qt 5")
    layout = QVBoxLayout(window)
    entry = QLineEdit(TEXTS["entry"])
    password = QLineEdit(TEXTS["password"])
    password.setEchoMode(QLineEdit.Password)
    pin = QLineEdit(TEXTS["pin"])
    pin.setEchoMode(QLineEdit.Password)
    pin.setInputMethodHints(Qt.ImhDigitsOnly | Qt.ImhHiddenText | Qt.ImhSensitiveData)
    view = QPlainTextEdit(TEXTS["text"])
    button = QPushButton("A button")
    widgets = {"entry": entry, "password": password, "pin": pin, "text": view, "button": button}
    for widget in widgets.values():
        layout.addWidget(widget)

    def enter(widget):
        widget.setFocus(Qt.OtherFocusReason)
        if isinstance(widget, QLineEdit):
            widget.end(False)
        elif isinstance(widget, QPlainTextEdit):
            widget.moveCursor(QTextCursor.End)
        print("done", flush=True)

    def command():
        line = sys.stdin.readline()
        if not line:
            app.quit()
            return
        name, _, argument = line.rstrip("\n").partition(" ")
        if name == "focus":
            # Away and back, a moment apart, as fields_app.py does.
            widget = widgets[argument]
            button.setFocus(Qt.OtherFocusReason)
            QTimer.singleShot(300, lambda: enter(widget))
        elif name == "quit":
            app.quit()
        else:
            print("done", flush=True)

    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Read)
    notifier.activated.connect(command)
    window.showMaximized()
    QTimer.singleShot(500, lambda: print("ready", flush=True))
    app.exec_()


if __name__ == "__main__":
    main()
