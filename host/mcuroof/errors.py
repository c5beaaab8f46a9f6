"""The one error type users see: `mcuroof: <message>` and exit status 2 (traceback only with --debug)."""


class UserError(Exception):
    """A problem the user can fix: bad input, a missing board, an unwritable folder."""


class BoardError(UserError):
    """The board or the link to it failed (timeout, reset, exception on the board)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run: the message says what was kept and how to go on."""


def read_text(path, what: str) -> str:
    """A user's text file, or one line naming the problem: unreadable, or not text (`what`: what it
    should have been, e.g. "a results.json")."""
    try:
        return open(path, encoding="utf-8").read()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not {what} (not text)") from None


def writable_file(path, what: str) -> None:
    """Make the folders of an output file that a command writes at its end, and check it can be
    written there, so that it fails before it prints or measures anything (`what`: "the plot")."""
    import os
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path}: is a folder; name a file for {what}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{path}: cannot write {what} ({e.strerror})") from None
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"{path}: cannot write {what} (permission denied)")
