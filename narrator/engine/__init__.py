"""The rules engine: pure, deterministic, no I/O (docs/architecture.md).

Importing the package registers the modern roles' part of the state fold (`modern_state`), so every
`State` folds every event whichever engine module was imported first."""

from narrator.engine import modern_state as modern_state
