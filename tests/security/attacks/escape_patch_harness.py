"""Rewrites the harness from inside: replaces the test runner so every test reports 'ok'
with made-up observations, and the encoder so it cannot see the real values."""
# expect: status=fail
import sys

runner = sys.modules.get("graders.sandbox.runner")
encode = sys.modules.get("graders.sandbox.encode")
if encode is not None:
    encode.Encoder.value = lambda self, v, depth=0: {"t": "dict", "k": ["result"], "v": [0]}
if runner is not None:
    def run_test(self, spec, module, prefix):
        self.send({"type": "test", "id": spec.id, "status": "ok", "duration_ms": 0,
                   "obs": {"t": "dict", "k": ["result"], "v": [{"t": "pass"}]},
                   "output": "", "output_truncated": False})
    runner.Job.run_test = run_test


def double(x):
    return x * 3
