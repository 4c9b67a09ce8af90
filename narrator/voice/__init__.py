"""The judge's voice. Port: `Voice` (text → mono float32 at SAMPLE_RATE). Adapters: `EdgeVoice` (edge-tts,
online), `EspeakVoice` (espeak-ng, offline), `FallbackVoice` (one, then the other). `VoiceCache` keeps
decoded pieces on disk; `Speaker` renders a judge's Line from cached pieces. `make_voice` / `make_speaker`
wire the defaults (edge-tts with espeak-ng fallback, through the cache).

Heavy imports (edge_tts, aiohttp, platformdirs) happen inside the functions that need them.
"""

from narrator.voice import espeak_voices
from narrator.voice.base import Audio, MissingPiece, Voice, VoiceError, VoiceSettings, VoiceUnavailable
from narrator.voice.bootstrap import BACKENDS, DEFAULT_VOICES, make_speaker, make_voice, pieces_to_build
from narrator.voice.cache import CACHE_ENV, CachedVoice, VoiceCache, default_cache_dir
from narrator.voice.edge import DEFAULT_EDGE_VOICE, EdgeVoice
from narrator.voice.espeak import DEFAULT_ESPEAK_VOICE, EspeakVoice
from narrator.voice.fallback import FallbackVoice
from narrator.voice.speaker import Gaps, Speaker, is_pause

__all__ = [
    "BACKENDS", "CACHE_ENV", "DEFAULT_EDGE_VOICE", "DEFAULT_ESPEAK_VOICE", "DEFAULT_VOICES", "Audio",
    "CachedVoice", "EdgeVoice", "EspeakVoice", "FallbackVoice", "Gaps", "MissingPiece", "Speaker", "Voice",
    "VoiceCache", "VoiceError", "VoiceSettings", "VoiceUnavailable", "default_cache_dir", "espeak_voices", "is_pause",
    "make_speaker", "make_voice", "pieces_to_build",
]  # fmt: skip
