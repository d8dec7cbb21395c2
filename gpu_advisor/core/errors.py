"""Errors that mean "the user's input is wrong", shared by every layer that talks to a user."""

from __future__ import annotations


class UserInputError(ValueError):
    """Bad input the user can fix. The message names the file or field; the CLI prints it as one line
    and exits with code 2, the GUI shows it next to the field or in one dialog."""
