"""Helpers shared by the tests: small fakes of the services the library talks to."""
