#!/bin/bash
# Instructions inside simulate_impact of the hand-written Tsit5 loop (one impact, rtol 1e-8 and
# 1e-10; docs/performance.md). Build it first: (cd tools/perf/handloop && cargo build --release
# [--features libm]); LABEL (default hand) names the output files.
# usage: tools/perf/cg_hand.sh [LABEL]   (callgrind files go to ./cg/)
H=$(dirname "$0")/handloop/target/release/handloop
L=${1:-hand}
mkdir -p cg
for r in 1e-8 1e-10; do
valgrind --tool=callgrind --callgrind-out-file=cg/${L}_$r.out --toggle-collect='*simulate_impact*' "$H" $r > cg/${L}_$r.json 2> cg/${L}_$r.err
echo "$L rtol=$r Ir=$(grep summary: cg/${L}_$r.out | awk '{print $2}') $(cut -c1-400 cg/${L}_$r.json)"
done
