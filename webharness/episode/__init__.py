"""One live episode: serving the site and its backend, running actions, settling, observing,
and the hooks wrappers use to change an episode."""

from webharness.episode.episode import Episode, EpisodeOptions, Observed

__all__ = ["Episode", "EpisodeOptions", "Observed"]
