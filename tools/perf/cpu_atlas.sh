#!/bin/bash
# CPU seconds of the undamped half of painleve_atlas (tools/perf/atlas_undamped.toml, 50,400
# impacts, dop853 at rtol 1e-8, atol 1e-12) on one thread, against the hand-written loops of
# tools/perf/handloop/ over the same points (docs/performance.md, "The atlas against the hand
# loops"). Each round: the harness's run and report (--fresh), its report alone (a second run
# of the finished directory), the hand Tsit5 loop, the hand DOP853 loop; user + system CPU of
# each process. Build the hand loop first: (cd tools/perf/handloop && cargo build --release).
# usage: tools/perf/cpu_atlas.sh [ROUNDS] [BINARY]
ROUNDS=${1:-3}
BIN=${2:-target/release/rigid-limit}
H=$(dirname "$0")/handloop/target/release/handloop
OUT=$(mktemp -d)
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
for r in $(seq "$ROUNDS"); do
  full=$(RAYON_NUM_THREADS=1 cpu "$BIN" run "$(dirname "$0")/atlas_undamped.toml" --out "$OUT" --fresh)
  report=$(RAYON_NUM_THREADS=1 cpu "$BIN" run "$(dirname "$0")/atlas_undamped.toml" --out "$OUT")
  tsit5=$(cpu "$H" atlas "$OUT/runs.csv" 1e-8 tsit5)
  dop853=$(cpu "$H" atlas "$OUT/runs.csv" 1e-8 dop853)
  echo "round $r: harness run+report $full s, report alone $report s, hand tsit5 $tsit5 s, hand dop853 $dop853 s" \
    | awk -v f="$full" -v p="$report" -v t="$tsit5" -v d="$dop853" \
      '{printf "%s; run stage %.2f s, / hand tsit5 %.3f, / hand dop853 %.3f\n", $0, f - p, (f - p) / t, (f - p) / d}'
done
rm -rf "$OUT"
