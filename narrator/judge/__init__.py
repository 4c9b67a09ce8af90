"""The judge: turns the engine's prompts and events into lines to speak (public or host-only)."""
