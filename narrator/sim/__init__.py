"""Playing games without a table: deals, a random host for property tests and benchmarks, scenario files."""
