"""High Card, the tests' example game: its engine (``engine``) and its builder (``builder``)."""
