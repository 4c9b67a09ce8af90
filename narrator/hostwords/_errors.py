"""The two ways a host's words can fail, each carrying a refusal code the judge's script says aloud."""

from __future__ import annotations

from collections.abc import Mapping

from narrator.engine.refusals import Refusal


class NotUnderstood(ValueError):
    """The words could not be turned into an answer the prompt takes.

    `refusal` is a code with its values ("words.no_seat" → "没听清座位号，请再说一遍" in the script's
    `refusals:`), so the host hears it in the game's script and never sees English or internal names.
    """

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal

    @property
    def code(self) -> str:
        return self.refusal.code

    @property
    def values(self) -> Mapping[str, object]:
        return self.refusal.values


class Ambiguous(NotUnderstood):
    """The words have more than one reading (or contradict themselves) and the judge will not pick one."""


class Unlike(NotUnderstood):
    """Internal: the words do not look like this answer type at all.

    Kept apart from a plain `NotUnderstood` so that, when a prompt takes several types, the complaint of
    the type the host was clearly trying to give ("3号投了两次") wins over another type's "not recognised".
    """
