"""Distributed mode: jobs carried over NATS JetStream (``stream``) from API nodes
(``remote``, a grading backend) to grading machines (``worker``)."""
