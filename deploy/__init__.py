"""The deployment tooling: make lock, compose-up, compose-down and compose-test (see README)."""
