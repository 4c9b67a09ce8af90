"""The model installer against a local HTTP server (127.0.0.1 only): good, truncated, wrong-hash,
endless, stalled and path-escaping downloads, zip bombs, reinstalls and Ctrl-C. Nothing escapes the
target, nothing half-installed counts as installed, and a failure leaves the models folder as it was."""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.listen.models import (
    MODEL_NAME,
    MODEL_SIZE,
    InstallError,
    extract,
    find_model,
    install,
    installed,
    is_model,
    model_problems,
    remove,
    swap_in,
)


def model_zip(extra: list[tuple[zipfile.ZipInfo | str, bytes]] = ()) -> bytes:  # type: ignore[assignment]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(f"{MODEL_NAME}/am/final.mdl", b"acoustic model " * 100)
        z.writestr(f"{MODEL_NAME}/conf/model.conf", b"--min-active=200\n")
        z.writestr(f"{MODEL_NAME}/graph/words.txt", "七 1\n号 2\n".encode())
        for name, data in extra:
            z.writestr(name, data)
    return buf.getvalue()


def link_entry(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


GOOD = model_zip()
FILES: dict[str, tuple[bytes, int | None]] = {
    "/good.zip": (GOOD, None),
    "/truncated.zip": (GOOD[: len(GOOD) // 2], None),
    "/cut.zip": (GOOD[: len(GOOD) // 2], len(GOOD)),  # the server promises more than it sends
    "/wrong-hash.zip": (GOOD[:-1] + bytes([GOOD[-1] ^ 1]), None),
}
ESCAPING = {
    "/dotdot.zip": model_zip([("../evil.txt", b"x")]),
    "/absolute.zip": model_zip([("/tmp/evil.txt", b"x")]),
    "/link.zip": model_zip([link_entry(f"{MODEL_NAME}/link", "/etc/passwd")]),
}
FILES.update({k: (v, None) for k, v in ESCAPING.items()})


STALLED = threading.Event()
"""Set once /stall.zip has sent its first bytes and stopped sending."""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/endless.zip":  # no Content-Length, and a body that never ends
            self.send_response(200)
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"\0" * 65536)
            except OSError:
                return
        if self.path == "/stall.zip":  # promises the published size, sends a little, then nothing
            self.send_response(200)
            self.send_header("Content-Length", str(MODEL_SIZE))
            self.end_headers()
            self.wfile.write(GOOD[:100])
            self.wfile.flush()
            STALLED.set()
            time.sleep(60)
            return
        if self.path not in FILES:
            self.send_error(404)
            return
        body, length = FILES[self.path]
        self.send_response(200)
        self.send_header("Content-Length", str(length or len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def checks(body: bytes) -> dict[str, object]:
    return {"size": len(body), "sha256": hashlib.sha256(body).hexdigest()}


def nothing_installed(root: Path) -> None:
    """No model, no leftovers; a models folder the install had to create is gone again."""
    assert find_model(MODEL_NAME, [root / "models"]) is None
    leftovers = [p for p in (root / "models").rglob("*")] if (root / "models").exists() else []
    assert leftovers == []
    assert [p.name for p in root.iterdir()] in ([], ["models"])
    assert not (root / "evil.txt").exists() and not Path("/tmp/evil.txt").exists()


def test_a_good_download_installs_and_can_be_listed_and_removed(server: str, tmp_path: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    folder = install(tmp_path / "models", url=server + "/good.zip", progress=lambda a, b: seen.append((a, b)),
                     **checks(GOOD))  # type: ignore[arg-type]
    assert folder == tmp_path / "models" / MODEL_NAME
    assert (folder / "graph" / "words.txt").read_text(encoding="utf-8").startswith("七")
    assert seen[-1] == (len(GOOD), len(GOOD))
    assert [n for n, _, _ in installed([tmp_path / "models"])] == [MODEL_NAME]
    assert model_problems([tmp_path / "models"]) == []
    assert remove(MODEL_NAME, [tmp_path / "models"]) == [folder]
    assert find_model(MODEL_NAME, [tmp_path / "models"]) is None


@pytest.mark.parametrize(("path", "message"), [
    ("/truncated.zip", "bytes, not the"),
    ("/cut.zip", "bytes, not the"),
    ("/wrong-hash.zip", "SHA-256"),
    ("/missing.zip", "could not download"),
])
def test_a_bad_download_installs_nothing(server: str, tmp_path: Path, path: str, message: str) -> None:
    with pytest.raises(InstallError, match=message):
        install(tmp_path / "models", url=server + path, **checks(GOOD))  # type: ignore[arg-type]
    nothing_installed(tmp_path)
    assert not (tmp_path / "models").exists()  # the folder it made for the model is not left behind


@pytest.mark.parametrize("path", sorted(ESCAPING))
def test_a_zip_escaping_its_folder_is_never_unpacked(server: str, tmp_path: Path, path: str) -> None:
    body = ESCAPING[path]
    (tmp_path / "models").mkdir()
    with pytest.raises(InstallError, match="never unpacked"):
        install(tmp_path / "models", url=server + path, **checks(body))  # type: ignore[arg-type]
    nothing_installed(tmp_path)


def test_from_zip_checks_the_published_size_and_hash(tmp_path: Path) -> None:
    z = tmp_path / "model.zip"
    z.write_bytes(GOOD)
    result = CliRunner().invoke(app, ["model", "install", "--from-zip", str(z), "--dir", str(tmp_path / "m")])
    assert result.exit_code == 1
    assert "not the 43,898,754 of" in result.output and "nothing was installed" in result.output
    assert find_model(MODEL_NAME, [tmp_path / "m"]) is None
    folder = install(tmp_path / "m", from_zip=z, **checks(GOOD))  # type: ignore[arg-type]
    assert find_model(MODEL_NAME, [tmp_path / "m"]) == folder


def test_a_failing_mirror_is_one_sentence_and_exit_1(server: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["model", "install", "--url", server + "/good.zip", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "nothing was installed" in result.output
    assert find_model(MODEL_NAME, [tmp_path]) is None


def test_problems_name_the_fix_and_list_remove_say_what_is_there(tmp_path: Path) -> None:
    problems = model_problems([tmp_path])
    assert len(problems) == 1 and problems[0].fix == "narrator model install"
    (tmp_path / MODEL_NAME / "am").mkdir(parents=True)
    assert "incomplete" in model_problems([tmp_path])[0].what
    runner = CliRunner()
    out = runner.invoke(app, ["model", "check", "--dir", str(tmp_path), "--no-vocabulary"])
    assert out.exit_code == 1 and "fix: narrator model" in out.output
    out = runner.invoke(app, ["model", "remove", "--dir", str(tmp_path)])
    assert out.exit_code == 0 and not (tmp_path / MODEL_NAME).exists()  # an incomplete one goes too
    out = runner.invoke(app, ["model", "remove", "--dir", str(tmp_path)])
    assert out.exit_code == 2 and "is not installed" in out.output  # not found: 2, like every other
    out = runner.invoke(app, ["model", "list", "--dir", str(tmp_path)])
    assert out.exit_code == 0 and str(tmp_path) in out.output


# --- a download that is not what it claims ---------------------------------------------------------------

def test_an_endless_download_without_a_length_stops_at_the_expected_size(server: str, tmp_path: Path) -> None:
    seen: list[int] = []
    with pytest.raises(InstallError, match="sent more than"):
        install(tmp_path / "models", url=server + "/endless.zip", progress=lambda got, _: seen.append(got),
                **checks(GOOD))  # type: ignore[arg-type]
    assert all(got <= len(GOOD) for got in seen)  # never took a byte past the model's size
    nothing_installed(tmp_path)
    assert not (tmp_path / "models").exists()


def test_a_length_that_is_not_the_models_is_refused_before_reading(server: str, tmp_path: Path) -> None:
    seen: list[int] = []
    with pytest.raises(InstallError, match=r"offers [0-9,]+ bytes, not the"):
        install(tmp_path / "models", url=server + "/good.zip", progress=lambda got, _: seen.append(got),
                size=len(GOOD) + 1, sha256="0" * 64)
    assert seen == []
    nothing_installed(tmp_path)


def test_the_cli_stops_an_endless_download_in_one_line(server: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["model", "install", "--url", server + "/endless.zip", "--dir",
                                      str(tmp_path / "m")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "nothing was installed" in result.output and not (tmp_path / "m").exists()


@pytest.mark.realtime  # stops within 5 s of wall time
@pytest.mark.slow
def test_ctrl_c_during_a_stalled_download_stops_at_once_and_leaves_nothing(server: str, tmp_path: Path) -> None:
    """The real command in its own process, started as a shell starts a background job (SIGINT ignored),
    interrupted while it waits on a server that stopped sending."""
    STALLED.clear()
    target = tmp_path / "models"
    cmd = [sys.executable, "-c", "from narrator.cli.main import main; main()", "model", "install",
           "--url", server + "/stall.zip", "--dir", str(target)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert STALLED.wait(30), "the installer never started downloading"
        time.sleep(0.5)  # now it is blocked reading a socket that sends nothing
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - sent < 5
    assert proc.returncode == 130, err
    assert "interrupted: nothing was installed" in err and "Traceback" not in err
    assert not target.exists()


# --- what a zip unpacks to ---------------------------------------------------------------------------------

def bomb(path: Path, megabytes: int) -> Path:
    """A model zip with one entry of `megabytes` MB of zeros (deflate packs it about 1000 : 1)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{MODEL_NAME}/am/final.mdl", b"acoustic model")
        z.writestr(f"{MODEL_NAME}/conf/model.conf", b"--min-active=200\n")
        with z.open(f"{MODEL_NAME}/graph/HCLr.fst", "w") as big:
            for _ in range(megabytes):
                big.write(bytes(1 << 20))
    return path


def test_a_zip_bomb_is_refused_before_a_byte_is_unpacked(tmp_path: Path) -> None:
    z = bomb(tmp_path / "bomb.zip", 100)
    assert z.stat().st_size < 1 << 20
    with pytest.raises(InstallError, match="unpacks to more than"):
        extract(z, tmp_path / "models")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bomb.zip"]  # not even the models folder


def test_unpacked_bytes_are_counted_as_they_are_written(tmp_path: Path) -> None:
    """A limit below what the zip's own directory declares: refused either way, nothing left."""
    z = bomb(tmp_path / "bomb.zip", 2)
    (tmp_path / "models").mkdir()
    with pytest.raises(InstallError, match="unpacks to more than"):
        extract(z, tmp_path / "models", max_bytes=1 << 20)
    assert list((tmp_path / "models").iterdir()) == []


def test_a_zip_with_too_many_entries_is_refused(tmp_path: Path) -> None:
    z = tmp_path / "many.zip"
    z.write_bytes(model_zip([(f"{MODEL_NAME}/junk/{i}", b"") for i in range(50)]))
    with pytest.raises(InstallError, match="entries, more than the 20"):
        extract(z, tmp_path / "models", max_entries=20)
    assert not (tmp_path / "models").exists()
    assert is_model(extract(z, tmp_path / "models"))  # within the real limit it installs


# --- reinstalling ------------------------------------------------------------------------------------------

def test_a_reinstall_swaps_the_new_model_in_before_the_old_one_goes(tmp_path: Path) -> None:
    old_zip, new_zip = tmp_path / "old.zip", tmp_path / "new.zip"
    old_zip.write_bytes(GOOD)
    new_body = model_zip([(f"{MODEL_NAME}/README", b"the new one")])
    new_zip.write_bytes(new_body)
    models = tmp_path / "models"
    folder = install(models, from_zip=old_zip, **checks(GOOD))  # type: ignore[arg-type]
    # A bad second install leaves the first one as it was.
    with pytest.raises(InstallError):
        install(models, from_zip=new_zip, **checks(GOOD))  # type: ignore[arg-type]
    assert is_model(folder) and not (folder / "README").exists()
    # Watch the folder while the new one goes in: it is a whole model at every moment.
    gaps: list[float] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if not is_model(folder):
                gaps.append(time.monotonic())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(20):
            assert install(models, from_zip=new_zip, **checks(new_body)) == folder  # type: ignore[arg-type]
            assert install(models, from_zip=old_zip, **checks(GOOD)) == folder  # type: ignore[arg-type]
    finally:
        done.set()
        watcher.join()
    assert gaps == []
    assert sorted(p.name for p in models.iterdir()) == [MODEL_NAME]  # no old copies, no temporary folders


def test_swap_in_replaces_a_folder_and_keeps_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "final").mkdir()
    (tmp_path / "final" / "old").write_text("old")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "new").write_text("new")
    swap_in(tmp_path / "new", tmp_path / "final")
    assert os.listdir(tmp_path) == ["final"] and os.listdir(tmp_path / "final") == ["new"]


def test_models_live_under_narrator_data_dir_when_it_is_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from narrator.listen.models import model_dirs, user_models_dir

    monkeypatch.setenv("NARRATOR_DATA_DIR", str(tmp_path / "data"))
    assert user_models_dir() == tmp_path / "data" / "models"
    assert model_dirs()[0] == tmp_path / "data" / "models"


def test_a_zip_that_is_not_there_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["model", "install", "--from-zip", str(tmp_path / "nope.zip"),
                                      "--dir", str(tmp_path / "m")])
    assert result.exit_code == 2 and result.output.strip().startswith("✗ --from-zip")
    assert "nothing was installed" in result.output and not (tmp_path / "m").exists()
