# Loads the ReLU Lab test plugin for the tests in this folder (as `pytest -p relulab.testing`).
pytest_plugins = ["relulab.testing"]
