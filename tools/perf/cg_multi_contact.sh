#!/bin/bash
# Instructions of one impact of the single-contact rod and of the two-ended rod (docs/performance.md,
# "Several contacts"): one round of examples/multi_contact_cost under callgrind, a profile dumped
# after each run_hybrid, so that OUT.1 .. OUT.4 are dop853 single, dop853 two ends, radau5 single,
# radau5 two ends. Prints the inclusive counts of the functions the section's table lists.
# Usage (after `cargo build --release --example multi_contact_cost`):
#   tools/perf/cg_multi_contact.sh [OUT]   (default /tmp/cg_multi_contact)
set -euo pipefail
out=${1:-/tmp/cg_multi_contact}
rm -f "$out" "$out".*
valgrind --tool=callgrind --dump-after='rigid_limit::hybrid::driver::run_hybrid' \
    --callgrind-out-file="$out" target/release/examples/multi_contact_cost 1 >/dev/null 2>&1
for i in 1 2 3 4; do
    echo "== $out.$i"
    callgrind_annotate --inclusive=yes --threshold=100 "$out.$i" 2>/dev/null |
        grep -E "driver::run_hybrid |HybridSystem>::field |scan_step |HybridSystem>::event_values |sincos::sincos |factors_for |lu_solve_complex |numerics::lu_solve " |
        sed 's/ *\[.*//'
done
