"""Wall time of Zhao-Liu's impact (kappa = 1e-8, mu = 2, theta0 = 1.3) as the harness itself
times it (`simulate --repeat REPEAT --json`: stats.wall_time_s is the median over REPEAT runs
in one process, warm caches as in criterion's loop, benches/impact.rs), for several builds and
methods in one interleaved run: round after round, every (binary, method) once, so that a load
change on the machine hits all of them alike. Prints the median over the rounds and its ratio
to the first entry (docs/performance.md, "The floor: hand-written loops"). A build whose
`simulate` has no --repeat (the tree of commit 8824ba6^1, say) gets it from
tools/perf/old_repeat.patch (a measurement patch, never committed to that build).
An entry `LABEL=hand:BINARY:METHOD` is the hand-written loop of tools/perf/handloop/
(`BINARY RTOL REPEAT METHOD`: the median over REPEAT impacts in one process). RTOL may be a
comma-separated list: each round then runs every entry at every tolerance.

usage: python3 tools/perf/wall_impact.py ROUNDS REPEAT RTOL[,RTOL...] LABEL=[hand:]BINARY:METHOD ...
e.g.   python3 tools/perf/wall_impact.py 20 200 1e-10 old_tsit45=/tmp/old/target/release/rigid-limit:tsit45 \
           tsit5=target/release/rigid-limit:tsit5
       python3 tools/perf/wall_impact.py 15 300 1e-8,1e-10 \
           hand=hand:tools/perf/handloop/target/release/handloop:dop853 dop853=target/release/rigid-limit:dop853
"""
import json
import statistics
import subprocess
import sys

rounds, repeat, rtols = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(',')
entries = []
for spec in sys.argv[4:]:
    label, rest = spec.split('=', 1)
    hand = rest.startswith('hand:')
    binary, method = rest.removeprefix('hand:').rsplit(':', 1)
    entries.append((label, binary, method, hand))


def seconds_per_impact(binary, method, hand, rtol):
    if hand:
        out = subprocess.run([binary, rtol, repeat, method], capture_output=True, text=True,
                             check=True).stdout
        return json.loads(out)['seconds_per_impact']
    out = subprocess.run(
        [binary, 'simulate', '--kappa', '1e-8', '--mu', '2', '--theta0', '1.3', '--rtol', rtol,
         '--atol', rtol, '--integrator', method, '--repeat', repeat, '--json'],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)['stats']['wall_time_s']


times = {(rtol, label): [] for rtol in rtols for label, _, _, _ in entries}
for _ in range(rounds):
    for rtol in rtols:
        for label, binary, method, hand in entries:
            times[(rtol, label)].append(seconds_per_impact(binary, method, hand, rtol))
for rtol in rtols:
    first = statistics.median(times[(rtol, entries[0][0])])
    print(f'rtol {rtol}, {rounds} rounds of {repeat} runs, median wall time per impact (ratio to {entries[0][0]})')
    for label, _, _, _ in entries:
        t = times[(rtol, label)]
        m = statistics.median(t)
        q = statistics.quantiles(t, n=4)
        # The ratio round by round (the entries of one round ran back to back): its quartiles
        # are the spread of the comparison itself.
        r = [x / y for x, y in zip(t, times[(rtol, entries[0][0])])]
        rq = statistics.quantiles(r, n=4)
        print(f'{label:12s} {m * 1e6:8.1f} us  (quartiles {q[0] * 1e6:.1f}-{q[2] * 1e6:.1f})  '
              f'{m / first:.3f}  (per-round ratio quartiles {rq[0]:.3f}-{rq[2]:.3f})')
