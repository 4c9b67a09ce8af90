"""Audio: music beds, pacing, the mixer, the timing core (conductor.py: where and when every line is heard,
for render and live play), the speech timer, live playback, rendering to files and subtitles. Mono float32
at SAMPLE_RATE."""

SAMPLE_RATE = 24_000
"""Hz. edge-tts delivers 24 kHz; every clip in the project is resampled to this rate."""
