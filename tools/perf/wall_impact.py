"""Wall time of Zhao-Liu's impact (kappa = 1e-8, mu = 2, theta0 = 1.3) as the harness itself
times it (`simulate --repeat REPEAT --json`: stats.wall_time_s is the median over REPEAT runs
in one process, warm caches as in criterion's loop, benches/impact.rs), for several builds and
methods in one interleaved run: round after round, every (binary, method) once, so that a load
change on the machine hits all of them alike. Prints the median over the rounds and its ratio
to the first entry (docs/performance.md). A build without --repeat (before issue 15) gets it
from tools/perf/old_repeat.patch (a measurement patch, never committed to that build).

usage: python3 tools/perf/wall_impact.py ROUNDS REPEAT RTOL LABEL=BINARY:METHOD ...
e.g.   python3 tools/perf/wall_impact.py 20 200 1e-10 old_tsit45=/tmp/old/target/release/rigid-limit:tsit45 \
           tsit5=target/release/rigid-limit:tsit5
"""
import json
import statistics
import subprocess
import sys

rounds, repeat, rtol = int(sys.argv[1]), sys.argv[2], sys.argv[3]
entries = []
for spec in sys.argv[4:]:
    label, rest = spec.split('=', 1)
    binary, method = rest.rsplit(':', 1)
    entries.append((label, binary, method))
times = {label: [] for label, _, _ in entries}
for _ in range(rounds):
    for label, binary, method in entries:
        out = subprocess.run(
            [binary, 'simulate', '--kappa', '1e-8', '--mu', '2', '--theta0', '1.3', '--rtol', rtol,
             '--atol', rtol, '--integrator', method, '--repeat', repeat, '--json'],
            capture_output=True, text=True, check=True).stdout
        times[label].append(json.loads(out)['stats']['wall_time_s'])
first = statistics.median(times[entries[0][0]])
print(f'rtol {rtol}, {rounds} rounds of {repeat} runs, median wall time per impact (ratio to {entries[0][0]})')
for label, _, _ in entries:
    m = statistics.median(times[label])
    q = statistics.quantiles(times[label], n=4)
    print(f'{label:12s} {m * 1e6:8.1f} us  (quartiles {q[0] * 1e6:.1f}-{q[2] * 1e6:.1f})  {m / first:.3f}')
