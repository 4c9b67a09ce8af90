"""Shared pytest fixtures and hooks. Each section belongs to the tests that use it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import settings
from xdist.remote import Producer
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController

# --- Property tests (hypothesis) -------------------------------------------------------------------------
# No per-example deadline: a worker at the lowest priority beside real-time tests waits for a core, and an
# example that takes 0.4 ms alone took 460 ms there (a "flaky" failure that says nothing about the code).
# How fast the parsers are is measured by benchmarks (docs/benchmarks.md), not by a wall clock in a test.
settings.register_profile("narrator", deadline=None)
settings.load_profile("narrator")

# --- Running in parallel (pytest-xdist: `./dev test` runs `-n <2 per core> --dist loadgroup`) -----------
# Three rules keep parallel workers out of each other's way, for every test file, including ones not yet
# written: each worker has a sound server of its own (a private XDG_RUNTIME_DIR, so the `pulse` fixture
# below starts one per worker and its null sinks record only that worker's sound); the tests that share an
# instance of a module- or class-scoped fixture (an expensive set-up they only read) run on one worker, so
# the set-up is made once rather than once per worker; and the real-time tests (below) run only on workers at
# normal priority, while the workers beyond one per core compute at the lowest priority in the time the
# real-time tests leave idle (RealtimeFirstScheduling, at the end of this section).

REALTIME_FIXTURES = ("pulse",)
"""A test that uses one of these, directly or through another fixture (every room of tests/room/), plays or
records through the sound server in real time: it is marked `realtime`."""
NICEST = 19  # the lowest priority: such a worker has a core only when the real-time ones leave it idle


def cores() -> int:
    return len(os.sched_getaffinity(0))


REALTIME_WORKERS = "NARRATOR_REALTIME_WORKERS"
"""The number of workers at normal priority (those that take the real-time tests), to measure another split."""


def realtime_workers() -> int:
    """One per core, or $NARRATOR_REALTIME_WORKERS. Three of four on two cores was measured (docs/benchmarks.md,
    session 5): the real-time half ends ~200 s sooner, but under the other engineers' load both whole runs lost a
    live-audio test to output underflows (and one of two runs with two lost two real-time tests): one per core
    until quiet runs decide."""
    value = os.environ.get(REALTIME_WORKERS, "")
    return int(value) if value.isdigit() and int(value) > 0 else cores()


def is_niced(worker: str) -> bool:
    """Workers gw0 … gw<n-1> run at normal priority (n: realtime_workers()); the ones beyond at NICEST."""
    return worker.startswith("gw") and worker[2:].isdigit() and int(worker[2:]) >= realtime_workers()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{LASTS}(seconds): a test far longer than the others: handed out first")
    if hasattr(config.option, "loadscopereorder"):  # groups are handed out in the order collected (below)
        config.option.loadscopereorder = False
    # Without xdist (`-n 0`) the run has a sound server of its own too: other runs on the machine (another
    # engineer's room test, a benchmark) would otherwise share the default server, its sinks named alike,
    # and one room would hear the other's host and players.
    worker = os.environ.get("PYTEST_XDIST_WORKER") or "main"
    if is_niced(worker):  # every thread of this worker (Linux keeps a priority per thread), and what it starts
        for task in os.listdir("/proc/self/task"):
            os.setpriority(os.PRIO_PROCESS, int(task), NICEST)
    runtime = tempfile.mkdtemp(prefix=f"narrator-{worker}-", dir="/tmp")  # short: it holds the server's socket
    os.environ["XDG_RUNTIME_DIR"] = runtime
    for name in ("PULSE_RUNTIME_PATH", "PULSE_SERVER"):  # both would point every worker at one server
        os.environ.pop(name, None)
    config.add_cleanup(lambda: shutil.rmtree(runtime, ignore_errors=True))


SHARED_SCOPES = ("class", "module", "package")


def shared_setups(item: pytest.Item) -> list[str]:
    """The fixture instances wider than one test (but narrower than the session) that `item` uses: the
    fixture's name and where its one instance lives (the module, class or package)."""
    info = getattr(item, "_fixtureinfo", None)
    found = []
    for name in info.names_closure if info is not None else ():
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope in SHARED_SCOPES:
            module = item.nodeid.split("::", 1)[0]
            where = {"package": os.path.dirname(module), "module": module,
                     "class": "::".join(item.nodeid.split("::")[:2])}[defs[-1].scope]
            found.append(f"{where}::{name}")
    return found


@pytest.hookimpl(wrapper=True)  # before xdist reads the marks, and after it has (or has not) used them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Tests that share a set-up go to one worker together (the `xdist_group` mark, honoured by
    `--dist loadgroup`): tests are joined when they use the same instance of a shared fixture, directly or
    through another test, so two set-ups of one module that no test uses together may run on two workers.
    A test that uses the sound server is marked `realtime`; it and its group are named for the scheduler."""
    for item in items:
        if set(REALTIME_FIXTURES) & set(getattr(getattr(item, "_fixtureinfo", None), "names_closure", ())):
            item.add_marker(pytest.mark.realtime)
    group_and_order(items)
    yield
    if getattr(config.option, "loadgroup", False):
        name_the_groups(items)


def name_the_groups(items: list[pytest.Item]) -> None:
    """On an xdist worker under `--dist loadgroup`: each grouped test's id ends in `@group`, which is how the
    controller sees the group. xdist 3.8 writes it to `item._nodeid`, which pytest no longer reads (the id
    is `item._id`), so every group was silently ignored — each worker then made every shared set-up itself
    (the edge-tts voice cache twice over). Here it is written where this pytest keeps it."""
    for item in items:
        names = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group") if m.args})
        suffix = f"@{'_'.join(names)}"
        if not names or item.nodeid.endswith(suffix):  # none, or xdist's own writing took
            continue
        grouped = item.nodeid + suffix
        if hasattr(item, "_id"):
            from _pytest.nodeid import coerce_node_id

            item._id = coerce_node_id(grouped)
        else:
            item._nodeid = grouped
        assert item.nodeid == grouped, "this pytest keeps a test's id elsewhere: the groups would be ignored"


REALTIME = "realtime"
"""The group of the real-time tests that share no set-up (each its own work unit, see below); a group holding
a real-time test is named `realtime:<its set-up>`: the controller sees only the tests' ids, and so their groups."""


def group_and_order(items: list[pytest.Item]) -> None:
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    uses = {item.nodeid: shared_setups(item) for item in items}
    for keys in uses.values():
        for key in keys[1:]:
            parent[root(key)] = root(keys[0])
    realtime_groups = {root(uses[i.nodeid][0]) for i in items if uses[i.nodeid] and i.get_closest_marker(REALTIME)}
    for item in items:
        if uses[item.nodeid]:
            group = root(uses[item.nodeid][0])
            item.add_marker(pytest.mark.xdist_group(f"{REALTIME}:{group}" if group in realtime_groups else group))
        elif item.get_closest_marker(REALTIME):
            item.add_marker(pytest.mark.xdist_group(REALTIME))
    # The long work first, the short last (longest first is how a few workers finish together): the groups
    # holding a slow test (a slow test sharing an expensive set-up, such as the voice cache builds), the
    # other slow tests, the other groups (a shared set-up), then the rest, each part in the order collected.
    # xdist hands the work out in this order: pytest_configure turns off its own (by group size, which left
    # single slow tests such as the voice cache builds to the end, one worker busy while the other idled).
    slow_groups = {root(uses[i.nodeid][0]) for i in items if uses[i.nodeid] and i.get_closest_marker("slow")}

    def part(item: pytest.Item) -> tuple[int, float]:
        """The part, then the longest first within it (`lasts`)."""
        grouped = bool(uses[item.nodeid])
        lasts = item.get_closest_marker(LASTS)
        first = -float(lasts.args[0]) if lasts is not None and lasts.args else 0.0
        if grouped and root(uses[item.nodeid][0]) in slow_groups:
            return 0, first
        return 1 if item.get_closest_marker("slow") else 2 if grouped else 3, first

    items.sort(key=part)


LASTS = "lasts"
"""`@pytest.mark.lasts(seconds)`: a test far longer than the others of its part (the short room game by voice):
handed out before them, so the real-time workers do not end waiting on it (in the order collected it started
a third of the way through the suite, and ended last)."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadGroupScheduling | None:
    return RealtimeFirstScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


class RealtimeFirstScheduling(LoadGroupScheduling):
    """`--dist loadgroup` (a group's tests on one worker, the work units handed out in the order collected,
    the long work first), except that a real-time unit (a real-time test, or a group holding one) goes only to
    a worker at normal priority, which takes the real-time units before any other and then the others from the
    front (the long ones); a niced worker takes the others from the back (the short ones: it computes only
    while a core idles, and a long unit started there would be left to the end) and stops when only
    real-time units are left. So the real-time tests start at once, two at a time on two cores as before,
    and the computing fills the time they leave idle."""

    def _split_scope(self, nodeid: str) -> str:
        scope = super()._split_scope(nodeid)
        return f"{REALTIME}:{nodeid}" if scope == REALTIME else scope  # a real-time test of no group: a unit

    def _next_unit(self, node: WorkerController) -> str | None:
        units: list[str] = list(self.workqueue)
        realtime = [unit for unit in units if unit.startswith(f"{REALTIME}:")]
        if is_niced(node.gateway.id) and any(not is_niced(n.gateway.id) and not n.shutting_down for n in self.nodes):
            return next((unit for unit in reversed(units) if unit not in realtime), None)
        return realtime[0] if realtime else units[0] if units else None

    def _assign_work_unit(self, node: WorkerController) -> None:
        unit = self._next_unit(node)
        if unit is not None:
            self.workqueue.move_to_end(unit, last=False)  # where the base class takes it
            super()._assign_work_unit(node)

    def _reschedule(self, node: WorkerController) -> None:
        if self.workqueue and not node.shutting_down and self._next_unit(node) is None:
            node.shutdown()  # a niced worker, and only real-time units are left: it finishes what it holds
            return
        super()._reschedule(node)

    def schedule(self) -> None:
        # The base class stops the last nodes when there are more nodes than units: let those be niced ones.
        self.assigned_work = dict(sorted(self.assigned_work.items(), key=lambda kv: is_niced(kv[0].gateway.id)))
        super().schedule()


# --- PulseAudio with null sinks (tests/audio) -------------------------------------------------------
# A real sound server with two virtual sinks, "room" (the table speaker) and "host" (the earpiece); each
# sink's ".monitor" source records exactly what was played into it. CI has pulseaudio installed, so a
# server that cannot be had is a failure with its reason, never a skip.

PULSE_SINKS = ("room", "host")


@dataclass
class PulseServer:
    sinks: tuple[str, ...] = PULSE_SINKS
    process: subprocess.Popen[bytes] | None = None
    """The daemon this session started, or None if one was already running."""
    loaded_modules: list[str] = field(default_factory=list)
    """Indices of the null-sink modules this session loaded (unloaded again at the end)."""


def _pactl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10, check=False)


@pytest.fixture(scope="session")
def pulse() -> Iterator[PulseServer]:
    """A PulseAudio server with null sinks `room` and `host`, started here if none is running."""
    for tool in ("pulseaudio", "pactl", "parec"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: install the Debian packages pulseaudio and pulseaudio-utils (./dev)")
    server = PulseServer()
    if _pactl("info").returncode != 0:
        log = tempfile.TemporaryFile()  # noqa: SIM115 (must outlive this block: read if start-up fails)
        server.process = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--log-target=stderr"],
            stdout=subprocess.DEVNULL, stderr=log,
        )
        deadline = time.monotonic() + 15
        while _pactl("info").returncode != 0:
            if server.process.poll() is not None or time.monotonic() > deadline:
                server.process.kill()
                log.seek(0)
                tail = log.read().decode(errors="replace")[-1500:]
                pytest.fail(f"could not start PulseAudio (exit {server.process.poll()}):\n{tail}")
            time.sleep(0.1)
    present = _pactl("list", "short", "sinks").stdout
    for sink in PULSE_SINKS:
        if not any(row.split("\t")[1:2] == [sink] for row in present.splitlines()):
            res = _pactl("load-module", "module-null-sink", f"sink_name={sink}")
            if res.returncode != 0:
                pytest.fail(f"could not create null sink {sink!r}: {res.stderr.strip()}")
            server.loaded_modules.append(res.stdout.strip())
    yield server
    for index in server.loaded_modules:
        _pactl("unload-module", index)
    if server.process is not None:
        server.process.terminate()
        server.process.wait(timeout=10)
