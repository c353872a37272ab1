#!/bin/bash
# What each guarantee of the event scan costs (docs/performance.md, "What the scan's guarantees
# cost"): HEAD built with tools/perf/ablation.patch, which switches parts of the scan off by
# environment variables (NOMARGIN: the domain margins; NOOBS: the two observers, peak normal
# force and maximum penetration; NODIP: the dip and turning-point searches), then instructions
# per impact (as cg_impact.sh) with each part off in turn, cumulatively.
# usage: tools/perf/ablate.sh METHOD...   (run from the repository root; files go to ./cg/)
set -e
ROOT=$(pwd); W=$(mktemp -d)/ablate
git worktree add --detach "$W" HEAD >/dev/null
trap 'git -C "$ROOT" worktree remove --force "$W"' EXIT
git -C "$W" apply "$ROOT/tools/perf/ablation.patch"
[ -d "$ROOT/target" ] && cp -r "$ROOT/target" "$W/"
(cd "$W" && cargo build --release --quiet)
B="$W/target/release/rigid-limit"
mkdir -p cg
for r in 1e-8 1e-10; do for k in "$@"; do
  for v in "" "NOMARGIN=1" "NOMARGIN=1 NOOBS=1" "NOMARGIN=1 NOOBS=1 NODIP=1"; do
    env $v valgrind --tool=callgrind --callgrind-out-file=cg/ablate.out --toggle-collect='*Scenario::simulate*' "$B" simulate --kappa 1e-8 --mu 2 --theta0 1.3 --rtol $r --atol $r --integrator $k --json > cg/ablate.json 2> cg/ablate.err
    python3 -c "
import json; d=json.load(open('cg/ablate.json'))
print('$k rtol=$r off=[' + ('${v:-none}'.replace('=1','')) + ']', 'Ir', open('cg/ablate.out').read().split('summary: ')[1].split()[0], 'steps', d['stats']['steps'], 'durations', d['durations'])"
  done
done; done
