"""Audio: music beds, pacing, the mixer, live playback and rendering to files. Mono float32 at SAMPLE_RATE."""

SAMPLE_RATE = 24_000
"""Hz. edge-tts delivers 24 kHz; every clip in the project is resampled to this rate."""
