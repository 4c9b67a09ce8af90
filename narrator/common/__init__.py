"""The ground floor: plain helpers every floor may use (Chinese text, numerals, the clock, where files go)."""
