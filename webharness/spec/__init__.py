"""Task specs: the validated ``task.yaml`` model, seeded parameters, templating, success
criteria, and the catalogue of tasks (built-in and registered from folders)."""

__all__: list[str] = []  # users import the modules themselves
