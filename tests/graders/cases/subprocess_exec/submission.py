import subprocess


def double(x):
    subprocess.run(["/bin/sh", "-c", "echo escaped"])
    return x * 2
