"""Runs a shell through os.system; returns the right answer only if the shell ran."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import errno
import os


def double(x):
    status = os.system("exit 7")
    if os.waitstatus_to_exitcode(status) == 7:
        return x * 2  # the shell ran: the attack worked
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
