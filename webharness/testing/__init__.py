"""Tools for testing agents, the annotator and webharness itself."""
