"""The two ways a host's words can fail, each carrying a sentence the judge says aloud."""

from __future__ import annotations


class NotUnderstood(ValueError):
    """The words could not be turned into an answer the prompt takes.

    `reason` is a short Chinese sentence meant to be spoken to the host as is (for example
    "没听清座位号，请再说一遍"), so it never contains English or internal names.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Ambiguous(NotUnderstood):
    """The words have more than one reading (or contradict themselves) and the judge will not pick one."""


class Unlike(NotUnderstood):
    """Internal: the words do not look like this answer type at all.

    Kept apart from a plain `NotUnderstood` so that, when a prompt takes several types, the complaint of
    the type the host was clearly trying to give ("3号投了两次") wins over another type's "not recognised".
    """
