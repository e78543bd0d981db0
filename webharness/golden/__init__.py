"""Golden paths: the oracle that plays them, playing an agent into a trace, and recording a
path from a person's input."""

__all__: list[str] = []  # users import the modules themselves
