"""espeak-ng: the offline voice. Robotic, but local, instant and always there (./dev installs it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

from narrator.audio.resample import resample
from narrator.voice import espeak_voices
from narrator.voice.base import Audio, VoiceError, VoiceSettings
from narrator.voice.pcm import read_wav

DEFAULT_ESPEAK_VOICE = espeak_voices.PREFERRED[0]
"""espeak-ng's Mandarin voice that speaks Mandarin ("cmn" reads it as English-spelled pinyin). Without
`voice`, EspeakVoice takes the best voice the installed espeak-ng offers (espeak_voices.choose)."""
BASE_SPEED_WPM = 180
"""words/min at rate "+0%". For Mandarin espeak-ng counts a syllable as a word: 180 is a calm 3 per second."""
BASE_PITCH = 50
"""espeak-ng pitch (0–99) at pitch "+0Hz"."""
PITCH_PER_HZ = 0.5
"""espeak-ng pitch steps per Hz of edge-style pitch shift (a rough mapping; the scales differ)."""
TIMEOUT_S = 30.0
"""s. One espeak-ng run; pieces are short, so this only catches a hung process."""


class EspeakVoice:
    """espeak-ng run once per piece, its WAV read from stdout and resampled (22 050 Hz → SAMPLE_RATE)."""

    def __init__(
        self, voice: str | None = None, *, rate: str = "+0%", pitch: str = "+0Hz",
        volume: str = "+0%", program: str = "espeak-ng",
    ) -> None:  # fmt: skip
        """`voice` None: the best installed voice that reads Chinese. A `voice` the installed espeak-ng does
        not have, or one that does not read Chinese, raises ValueError saying so. The key includes
        espeak-ng's version, so pieces rendered by another espeak-ng are rendered again."""
        release = espeak_voices.version(program)
        if voice is None:
            voice = espeak_voices.choose(program) or DEFAULT_ESPEAK_VOICE
        elif release:  # when espeak-ng is missing, synthesize() says so
            why = espeak_voices.problem(voice, program)
            if why:
                raise ValueError(why)
        self.settings = VoiceSettings("espeak", voice, rate, pitch, volume, engine=f"espeak-ng={release or 'none'}")
        self.program = program

    @property
    def key(self) -> str:
        return self.settings.key

    @property
    def label(self) -> str:
        return f"espeak-ng ({self.settings.voice})"

    def command(self) -> list[str]:
        """espeak-ng's arguments for these settings; the text goes to stdin (so it can never be an option)."""
        s = self.settings
        speed = round(BASE_SPEED_WPM * (1 + s.rate_percent / 100))
        pitch = round(BASE_PITCH + PITCH_PER_HZ * s.pitch_hz)
        amplitude = round(100 * (1 + s.volume_percent / 100))
        return [
            self.program, "-v", s.voice, "-s", str(max(80, min(450, speed))),
            "-p", str(max(0, min(99, pitch))), "-a", str(max(0, min(200, amplitude))),
            "-b", "1", "--stdin", "--stdout",
        ]  # fmt: skip

    def synthesize_many(self, texts: Sequence[str]) -> Iterator[tuple[str, Audio]]:
        """Each of `texts` with its audio, in order, as synthesize gives it, with one espeak-ng per core at
        a time (a voice build of ~900 pieces is that many short runs, each bound by the CPU)."""
        pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)))
        try:
            yield from zip(texts, pool.map(self.synthesize, texts), strict=True)
        finally:
            pool.shutdown(cancel_futures=True)

    def synthesize(self, text: str) -> Audio:
        args = self.command()
        exe = shutil.which(args[0])
        if exe is None:
            raise VoiceError(f"{self.program} not found: install the Debian package espeak-ng (./dev does)")
        try:
            proc = subprocess.run(
                [exe, *args[1:]], input=text.encode("utf-8"), capture_output=True, timeout=TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise VoiceError(f"{self.program} took longer than {TIMEOUT_S:.0f} s for {text!r}") from exc
        err = proc.stderr.decode(errors="replace").strip()
        if proc.returncode != 0 or not proc.stdout:
            raise VoiceError(f"{self.program} failed for {text!r} (exit {proc.returncode}): {err}")
        audio, rate = read_wav(proc.stdout)
        return resample(audio, rate)
