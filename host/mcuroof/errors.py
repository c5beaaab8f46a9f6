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
