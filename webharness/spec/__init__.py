"""Task specs: the validated ``task.yaml`` model, seeded parameters, templating, success
criteria and the built-in catalogue."""
