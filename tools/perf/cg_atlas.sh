#!/bin/bash
# Instructions inside compliant::simulate over a whole run of the atlas subset
# tools/perf/atlas_subset.toml (1008 impacts; docs/performance.md, "The atlas: which method").
# usage: tools/perf/cg_atlas.sh BINARY LABEL   (output in ./cg_atlas_LABEL/)
B=$1; L=$2
T=$(dirname "$0")/atlas_subset.toml
valgrind --tool=callgrind --callgrind-out-file=cg_atlas_$L.out --toggle-collect='rigid_limit::compliant::simulate::simulate*' "$B" run "$T" --out cg_atlas_$L --fresh > cg_atlas_$L.log 2>&1
echo "$L $(grep summary: cg_atlas_$L.out)"
