#!/bin/bash
# The runs that check a speed-up changes no result (docs/performance.md): `simulate --json` of
# tsit5, dop853, tsit45 and radau5 on Zhao–Liu's impact at rtol 1e-8 and 1e-10, on the grazing
# re-contact run and on the slip stop inside a long first step (tests/it/validity.rs) at 1e-12.
# usage: tools/simulate_set.sh BINARY DIR   then   python3 tools/compare_simulate_json.py --exact DIR_A DIR_B
B=$1; D=$2; mkdir -p "$D"
for m in tsit5 dop853 tsit45 radau5; do
  for r in 1e-8 1e-10; do
    "$B" simulate --kappa 1e-8 --mu 2 --theta0 1.3 --rtol $r --atol $r --integrator $m --json > "$D/impact_${m}_$r.json"
  done
  "$B" simulate --kappa 1e-6 --mu 1 --theta0 1 --u0 -0.5 --t-end 1 --rtol 1e-12 --atol 1e-12 --integrator $m --json > "$D/graze_$m.json"
  "$B" simulate --kappa 1e-8 --mu 0.5 --theta0 1.2 --u0 -0.5 --t-end 1 --rtol 1e-12 --atol 1e-12 --max-events 100000 --integrator $m --json > "$D/dip_$m.json"
done
