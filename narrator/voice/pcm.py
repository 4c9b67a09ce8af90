"""Audio plumbing for the voices: WAV parsing, MP3 decoding (ffmpeg), resampling, silence and trimming.

Everything returns mono float32 at SAMPLE_RATE unless it says otherwise.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from narrator.audio import SAMPLE_RATE
from narrator.voice.base import Audio, VoiceError


def silence(duration_ms: float) -> Audio:
    """`duration_ms` ms of silence."""
    return np.zeros(round(SAMPLE_RATE * duration_ms / 1000), dtype=np.float32)


def duration_ms(audio: Audio) -> float:
    """ms. How long `audio` plays at SAMPLE_RATE."""
    return 1000.0 * len(audio) / SAMPLE_RATE


def read_wav(data: bytes) -> tuple[Audio, int]:
    """A PCM WAV file's samples mixed down to mono float32, and its rate in Hz.

    Tolerates the "streaming" header espeak-ng writes to a pipe (chunk sizes of 0x7fffffff): the data chunk
    runs to the end of the bytes."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise VoiceError("not a WAV file")
    pos = 12
    channels = rate = bits = 0
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        body = pos + 8
        if chunk == b"fmt ":
            fmt, channels, rate = struct.unpack("<HHI", data[body : body + 8])
            bits = struct.unpack("<H", data[body + 14 : body + 16])[0]
            if fmt != 1 or bits != 16:
                raise VoiceError(f"unsupported WAV encoding (format {fmt}, {bits} bits); expected 16-bit PCM")
        elif chunk == b"data":
            if not channels:
                raise VoiceError("WAV data before its format chunk")
            raw = data[body : min(body + size, len(data))]
            raw = raw[: len(raw) - len(raw) % (2 * channels)]
            pcm = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
            return pcm.reshape(-1, channels).mean(axis=1, dtype=np.float32), rate
        pos = body + size + (size & 1)
    raise VoiceError("WAV file without a data chunk")


def decode_mp3(data: bytes) -> Audio:
    """MP3 bytes (what edge-tts sends) decoded by ffmpeg, mixed to mono and resampled to SAMPLE_RATE."""
    return decode_mp3s([data])[0]


def decode_mp3s(clips: Sequence[bytes]) -> list[Audio]:
    """Each of `clips` decoded as decode_mp3 does, by one ffmpeg for all of them: starting ffmpeg costs
    ~0.1 s, ten times what decoding a one-second clip does, so a voice build decodes its pieces in batches."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise VoiceError("ffmpeg is needed to decode edge-tts audio: install it (./dev does) or use --backend espeak")
    if not clips:
        return []
    with tempfile.TemporaryDirectory(prefix="narrator-mp3-") as tmp:
        folder = Path(tmp)
        inputs: list[str] = []
        outputs: list[str] = []
        for i, data in enumerate(clips):
            (folder / f"{i}.mp3").write_bytes(data)
            inputs += ["-f", "mp3", "-i", str(folder / f"{i}.mp3")]
            outputs += ["-map", f"{i}:a", "-ac", "1", "-ar", str(SAMPLE_RATE), "-f", "f32le", str(folder / f"{i}.pcm")]
        proc = subprocess.run(
            [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", *inputs, *outputs],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            reason = proc.stderr.decode(errors="replace").strip().splitlines()
            raise VoiceError(f"ffmpeg could not decode the MP3: {reason[-1] if reason else proc.returncode}")
        return [np.fromfile(folder / f"{i}.pcm", dtype="<f4").astype(np.float32) for i in range(len(clips))]


def trim(audio: Audio, threshold: float = 0.01, margin_ms: float = 20.0) -> Audio:
    """`audio` without its leading and trailing silence, keeping `margin_ms` ms either side of the sound.

    Silence is anything below `threshold` times the peak (-40 dB by default)."""
    if audio.size == 0:
        return audio
    peak = float(np.max(np.abs(audio)))
    if peak == 0.0:
        return audio[:0]
    loud = np.flatnonzero(np.abs(audio) >= threshold * peak)
    margin = round(SAMPLE_RATE * margin_ms / 1000)
    return audio[max(0, loud[0] - margin) : loud[-1] + 1 + margin]
