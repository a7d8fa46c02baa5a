"""What the harness says while it runs, and the error of a bad command line."""


def log(message):
    print(message, flush=True)


class UsageError(Exception):
    """A command that cannot run as given (a missing program, a bad option): run.py prints
    the message and exits with 2."""
