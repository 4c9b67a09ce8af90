"""Fixtures for the voice tests: a network that is not there, a fake voice, and a local edge-tts server.

Nothing here mocks EdgeVoice away: network failures are real failed connections (a socket layer that
refuses to connect, a proxy port nobody listens on, a proxy that never answers), and the "edge" server
is a real WebSocket server on 127.0.0.1 speaking edge-tts's protocol (see voice_testkit).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from voice_testkit import EdgeServer, FakeVoice, Unplugged, running_edge_server, unplug

# ---- the network, unplugged -----------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Unplugged:
    return unplug(monkeypatch)


@pytest.fixture
def closed_port() -> int:
    """A local TCP port nobody listens on: connecting to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.fixture
def silent_proxy() -> Iterator[int]:
    """A local TCP port that accepts connections and never says a word (a proxy that hangs)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


# ---- a fake voice ------------------------------------------------------------------------------------


@pytest.fixture
def fake_voice() -> FakeVoice:
    return FakeVoice()


# ---- a local edge-tts server --------------------------------------------------------------------------


@pytest.fixture
def edge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[EdgeServer]:
    with running_edge_server(monkeypatch) as server:
        yield server
