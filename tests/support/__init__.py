"""What the tests and the benches run against: databases, Redis, workers and whole stacks (devstack)."""
