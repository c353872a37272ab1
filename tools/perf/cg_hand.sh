#!/bin/bash
# Instructions inside simulate_impact of the hand-written loop (one impact, rtol 1e-8 and 1e-10;
# docs/performance.md), with METHOD tsit5 (the default) or dop853. Build it first:
# (cd tools/perf/handloop && cargo build --release [--features libm]); LABEL (default hand)
# names the output files.
# usage: tools/perf/cg_hand.sh [LABEL] [METHOD]   (callgrind files go to ./cg/)
H=$(dirname "$0")/handloop/target/release/handloop
L=${1:-hand}
M=${2:-tsit5}
mkdir -p cg
for r in 1e-8 1e-10; do
valgrind --tool=callgrind --callgrind-out-file=cg/${L}_$r.out --toggle-collect='*simulate_impact*' "$H" $r 1 "$M" > cg/${L}_$r.json 2> cg/${L}_$r.err
echo "$L rtol=$r Ir=$(grep summary: cg/${L}_$r.out | awk '{print $2}') $(cut -c1-400 cg/${L}_$r.json)"
done
