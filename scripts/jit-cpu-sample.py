#!/usr/bin/env python3
"""Every 10 s, per process whose pid is in DIR/*.pid: its cumulative CPU seconds and those of its JIT compiler
threads (C1/C2 CompilerThread*), from /proc; one line per sample on stdout, until killed. Used for the warm-up
figures of docs/performance.md (run 13): how much of a fresh cluster's first seconds go to compiling.

    scripts/jit-cpu-sample.py DIR
"""
import glob, os, sys, time
d = sys.argv[1]; hz = os.sysconf('SC_CLK_TCK')
def cpu(statpath):
    s = open(statpath).read(); rest = s[s.rindex(')') + 2:].split()
    return (int(rest[11]) + int(rest[12])) / hz
while not glob.glob(d + '/n*.pid'): time.sleep(0.2)
t0 = time.time()
while True:
    out = ['%6.1f' % (time.time() - t0)]
    for f in sorted(glob.glob(d + '/*.pid')):
        try:
            p = open(f).read().strip(); tot = cpu('/proc/%s/stat' % p); jit = 0.0
            for t in glob.glob('/proc/%s/task/*' % p):
                try:
                    if open(t + '/comm').read().startswith(('C1 Compil', 'C2 Compil')): jit += cpu(t + '/stat')
                except OSError: pass
            out.append('%s cpu %.1f jit %.1f' % (os.path.basename(f)[:-4], tot, jit))
        except OSError: pass
    print('  '.join(out), flush=True); time.sleep(10)
