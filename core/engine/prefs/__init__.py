"""core/engine/prefs."""
