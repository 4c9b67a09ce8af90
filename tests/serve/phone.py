"""A phone's browser for the tests: headless Chromium (the Debian package `chromium`) driven over the DevTools
protocol with aiohttp's websocket client, at a phone's width (390 CSS px, touch, 3× pixels). `Phone.open(url)`
loads a page and waits for its load event; `Phone.js(expr)` evaluates an expression in it."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--remote-debugging-port=0")
WIDTH, HEIGHT = 390, 844


class Phone:
    def __init__(self, profile: Path) -> None:
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if exe is None:
            raise RuntimeError("chromium not found: install the Debian package chromium (./dev does)")
        profile.mkdir(parents=True, exist_ok=True)
        log = profile / "chromium.log"  # a file, not a pipe: a chatty browser never blocks on it
        with log.open("w") as sink:
            self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=sink)
        deadline = time.monotonic() + 60
        self.browser_ws = ""
        while not self.browser_ws:
            if (found := re.search(r"DevTools listening on (ws://\S+)", log.read_text())) is not None:
                self.browser_ws = found.group(1)
            elif self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited before its DevTools address was printed: {log.read_text()}")
            elif time.monotonic() > deadline:
                raise RuntimeError("chromium printed no DevTools address within 60 s")
            else:
                time.sleep(0.05)
        self.loop = asyncio.new_event_loop()
        self._ids = itertools.count(1)
        self.session: Any = None
        self.ws: Any = None
        self.loop.run_until_complete(self._connect())

    async def _connect(self) -> None:
        import aiohttp

        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(self.browser_ws, max_msg_size=0)
        target = await self._call("Target.createTarget", {"url": "about:blank"})
        attached = await self._call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        self.sid = attached["sessionId"]
        await self._call("Page.enable", {}, self.sid)
        await self._call("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                                "deviceScaleFactor": 3, "mobile": True}, self.sid)
        await self._call("Emulation.setTouchEmulationEnabled", {"enabled": True}, self.sid)

    async def _call(self, method: str, params: dict[str, Any], sid: str | None = None,
                    until: str | None = None) -> dict[str, Any]:
        """Send one command; its result (and, with `until`, wait for that event after it)."""
        n = next(self._ids)
        message: dict[str, Any] = {"id": n, "method": method, "params": params}
        if sid is not None:
            message["sessionId"] = sid
        await self.ws.send_str(json.dumps(message))
        result: dict[str, Any] | None = None
        event_seen = until is None
        while result is None or not event_seen:
            got = json.loads((await asyncio.wait_for(self.ws.receive(), 60)).data)
            if got.get("id") == n:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                result = got["result"]
            elif until is not None and got.get("method") == until:
                event_seen = True
        return result

    def open(self, url: str) -> None:
        done = self.loop.run_until_complete(
            self._call("Page.navigate", {"url": url}, self.sid, until="Page.loadEventFired"))
        if done.get("errorText"):
            raise RuntimeError(f"{url}: {done['errorText']}")

    def js(self, expression: str) -> Any:
        got = self.loop.run_until_complete(self._call("Runtime.evaluate", {"expression": expression,
                                                                           "returnByValue": True}, self.sid))
        return got["result"].get("value")

    def close(self) -> None:
        async def bye() -> None:
            await self.ws.close()
            await self.session.close()

        try:
            self.loop.run_until_complete(bye())
        finally:
            self.loop.close()
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Phone:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
