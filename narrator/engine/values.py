"""A faster constructor for the engine's frozen values (events, answers, prompts).

A game builds hundreds of frozen, slotted dataclasses (every event, every prompt, every accepted answer).
The `__init__` that `dataclasses` writes for a frozen class sets each field with `object.__setattr__(self,
name, value)`, which looks the name up through the class hierarchy every time. `quick_init(cls)` gives the
class an `__init__` with the same signature that stores each argument through its slot's descriptor
directly: the same object, a third (an event) to a half (a prompt) cheaper to build. The class stays frozen
(assignment still raises FrozenInstanceError); only construction changes. Classes whose construction does
more than store its arguments (keyword-only fields, `__post_init__`) keep the dataclasses one.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses shows a default factory in the signature


FACTORY = _Factory()
"""The default of a field with a default factory: the factory is called when the argument is left out."""


def quick_init(cls: T) -> T:
    """Replace a frozen, slotted dataclass's `__init__` by one that sets its slots directly."""
    assert is_dataclass(cls) and "__slots__" in vars(cls), cls
    params = [f for f in fields(cls) if f.init]
    if hasattr(cls, "__post_init__") or len(params) != len(fields(cls)) or any(f.kw_only for f in params):
        return cls
    scope: dict[str, Any] = {"FACTORY": FACTORY}
    signature, body = ["self"], []
    for f in params:
        scope[f"set_{f.name}"] = getattr(cls, f.name).__set__  # the slot's member descriptor
        value = f.name
        if f.default_factory is not MISSING:  # a fresh default for each value, as dataclasses makes it
            scope[f"factory_{f.name}"] = f.default_factory
            signature.append(f"{f.name}=FACTORY")
            value = f"factory_{f.name}() if {f.name} is FACTORY else {f.name}"
        elif f.default is MISSING:
            signature.append(f.name)
        else:
            scope[f"default_{f.name}"] = f.default
            signature.append(f"{f.name}=default_{f.name}")
        body.append(f"    set_{f.name}(self, {value})")
    source = f"def __init__({', '.join(signature)}):\n" + ("\n".join(body) or "    pass") + "\n"
    made: dict[str, Any] = {}
    exec(source, scope, made)  # built from the class's own field names
    init = made["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {f.name: f.type for f in params} | {"return": None}
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def quick_init_all(base: type) -> None:
    """`quick_init` for every slotted dataclass below `base` (the event types; `dataclass(slots=True)` makes a
    new class, so the one it replaced is still listed until it is collected: it is left alone)."""
    sub: type
    for sub in base.__subclasses__():
        if is_dataclass(sub) and "__slots__" in vars(sub):
            quick_init(sub)
        quick_init_all(sub)
