#!/bin/bash
# Instructions inside Scenario::simulate for Zhao–Liu's impact (κ = 1e-8, μ = 2, θ0 = 1.3),
# at rtol = atol = 1e-8 and 1e-10, one run per method (docs/performance.md).
# usage: tools/perf/cg_impact.sh BINARY LABEL METHOD...   (callgrind files go to ./cg/)
B=$1; L=$2; shift 2
mkdir -p cg
for r in 1e-8 1e-10; do for k in "$@"; do
valgrind --tool=callgrind --callgrind-out-file=cg/${L}_${k}_$r.out --toggle-collect='*Scenario::simulate*' "$B" simulate --kappa 1e-8 --mu 2 --theta0 1.3 --rtol $r --atol $r --integrator $k --json > cg/${L}_${k}_$r.json 2> cg/${L}_${k}_$r.err
ir=$(grep summary: cg/${L}_${k}_$r.out | awk '{print $2}')
python3 -c "
import json; d=json.load(open('cg/${L}_${k}_$r.json'))['stats']; print('$L $k rtol=$r Ir=$ir steps', d['steps'], 'rhs', d['rhs_evals'], 'Ir/step %.0f' % ($ir/d['steps']))"
done; done
