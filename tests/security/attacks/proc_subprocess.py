"""Runs a shell through subprocess."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import subprocess


def double(x):
    subprocess.run(["/bin/sh", "-c", "echo escaped"], check=True)
    return x * 2
