#!/bin/bash
# Instructions inside simulate_impact of the hand-written Tsit5 loop (one impact, rtol 1e-8 and
# 1e-10; docs/performance.md). Build it first: (cd tools/perf/handloop && cargo build --release)
# usage: tools/perf/cg_hand.sh   (callgrind files go to ./cg/)
H=$(dirname "$0")/handloop/target/release/handloop
mkdir -p cg
for r in 1e-8 1e-10; do
valgrind --tool=callgrind --callgrind-out-file=cg/hand_$r.out --toggle-collect='*simulate_impact*' "$H" $r > cg/hand_$r.json 2> cg/hand_$r.err
echo "hand rtol=$r Ir=$(grep summary: cg/hand_$r.out | awk '{print $2}') $(cut -c1-400 cg/hand_$r.json)"
done
