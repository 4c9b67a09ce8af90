"""The room fixture: tests/room/roomkit.py's PulseAudio room on the session's sound server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roomkit import Room


@pytest.fixture
def room(pulse: object, request: pytest.FixtureRequest) -> Iterator[Room]:
    """A room with WebRTC echo cancellation; parametrise indirectly with "speex" or None for another."""
    with Room(echo_cancel=getattr(request, "param", "webrtc")) as built:
        yield built
