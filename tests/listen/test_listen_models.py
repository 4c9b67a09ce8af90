"""The model installer against a local HTTP server (127.0.0.1 only): good, truncated, wrong-hash and
path-escaping zips. Nothing escapes the target, and nothing half-installed counts as installed."""

from __future__ import annotations

import hashlib
import http.server
import io
import stat
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from narrator.cli.main import app
from narrator.listen.models import (
    MODEL_NAME,
    InstallError,
    find_model,
    install,
    installed,
    model_problems,
    remove,
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


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
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
    assert find_model(MODEL_NAME, [root / "models"]) is None
    leftovers = [p for p in (root / "models").rglob("*")] if (root / "models").exists() else []
    assert leftovers == []
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
    assert out.exit_code == 1 and "is not installed" in out.output
    out = runner.invoke(app, ["model", "list", "--dir", str(tmp_path)])
    assert out.exit_code == 0 and str(tmp_path) in out.output
