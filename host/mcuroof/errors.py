"""The one error type users see: `mcuroof: <message>` and exit status 2 (traceback only with --debug)."""


class UserError(Exception):
    """A problem the user can fix: bad input, a missing board, an unwritable folder."""


class BoardError(UserError):
    """The board or the link to it failed (timeout, reset, exception on the board)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run: the message says what was kept and how to go on."""
