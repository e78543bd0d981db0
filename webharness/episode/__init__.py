"""One live episode: running actions, settling, observing, and the hooks wrappers use to
change an episode. The site it serves is the browser layer's (``webharness.browser.site``)."""

from webharness.episode.episode import Episode, EpisodeOptions, Observed

__all__ = ["Episode", "EpisodeOptions", "Observed"]
