#!/usr/bin/env python3
"""Every 10 s, per process whose pid is in DIR/*.pid: its cumulative CPU seconds and those of its JIT compiler
threads (C1/C2 CompilerThread*), from /proc; one line per sample on stdout, until killed. Used for the warm-up
figures of docs/performance.md (run 13): how much of a fresh cluster's first seconds go to compiling. A lower
bound for the compilers: HotSpot ends idle compiler threads, and their time leaves /proc with them.

    scripts/jit-cpu-sample.py DIR
"""
import glob
import os
import sys
import time

TICKS = os.sysconf('SC_CLK_TCK')
COMPILERS = ('C1 Compil', 'C2 Compil')


def cpu_seconds(stat_path):
    """utime + stime of a /proc/.../stat file, in seconds (fields 14 and 15, after the command in parentheses)."""
    with open(stat_path) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def sample(pid):
    """(process CPU s, its compiler threads' CPU s)."""
    jit = 0.0
    for task in glob.glob('/proc/%s/task/*' % pid):
        try:
            with open(task + '/comm') as f:
                if f.read().startswith(COMPILERS):
                    jit += cpu_seconds(task + '/stat')
        except OSError:  # the thread ended between the listing and the read
            pass
    return cpu_seconds('/proc/%s/stat' % pid), jit


def main(directory):
    while not glob.glob(directory + '/n*.pid'):
        time.sleep(0.2)
    start = time.time()
    while True:
        line = ['%6.1f' % (time.time() - start)]
        for pid_file in sorted(glob.glob(directory + '/*.pid')):
            try:
                with open(pid_file) as f:
                    total, jit = sample(f.read().strip())
            except OSError:  # the process is gone
                continue
            line.append('%s cpu %.1f jit %.1f' % (os.path.basename(pid_file)[:-4], total, jit))
        print('  '.join(line), flush=True)
        time.sleep(10)


if __name__ == '__main__':
    main(sys.argv[1])
