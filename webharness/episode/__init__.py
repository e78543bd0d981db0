"""One live episode: serving the site and its backend, running actions, settling, observing,
and the hooks wrappers use to change an episode."""

_EPISODE_NAMES = ("Episode", "EpisodeOptions", "Observed")
__all__ = list(_EPISODE_NAMES)


def __getattr__(name: str) -> object:
    """``from webharness.episode import Episode`` (the pre-0.2 module's names), loaded on
    use: the browser layer imports ``episode.site``, and ``episode.episode`` imports the
    browser layer, so importing it here eagerly would be a cycle."""
    if name in _EPISODE_NAMES:
        from webharness.episode import episode

        return getattr(episode, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
