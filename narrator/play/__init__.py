"""`narrator play`: a real game night, hands-free, from the first card to the recap.

Modules: `options` (presets, role lists and rules from the command line), `paths` (where games and the
config live), `config` (the TOML config `narrator setup` writes), `store` (saved games: journal + meta),
`loop` (the live loop), `console` (the host's screen), `recap` / `recap_page` (after the game),
`doctor` / `setup` (preparing a device). Heavy imports happen inside functions.
"""
