"""How much the integrator study's wall times drift between two runs of the same build.

Usage: python3 tools/study_timing_drift.py RUN_A/runs.csv RUN_B/runs.csv
(two `rigid-limit run experiments/integrators.toml --fresh --out DIR` of one build).
Prints, per integrator, the median over its ladder runs of (minimum wall time over repeats) /
work, work = rhs_evals + jvp_evals + lu_factorisations, in both runs and their ratio; then the
standard deviation and the largest |log ratio| of single runs' times between the two runs."""
import csv, math, statistics, sys


def load(path):
    per_run, per_integrator = {}, {}
    for r in csv.DictReader(open(path)):
        if r["status"] != "ok" or r["role"] != "ladder":
            continue
        work = float(r["rhs_evals"]) + float(r["jvp_evals"]) + float(r["lu_factorisations"])
        t = float(r["wall_time_min_s"])
        per_integrator.setdefault(r["integrator"], []).append(t / work * 1e9)
        per_run[(r["scenario"], r["kappa"], r["damping"], r["integrator"], r["rtol"])] = t
    return per_run, {k: statistics.median(v) for k, v in per_integrator.items()}


(runs_a, ns_a), (runs_b, ns_b) = load(sys.argv[1]), load(sys.argv[2])
print("integrator  ns/work A  ns/work B  B/A")
for k in ns_a:
    print(f"{k:<10} {ns_a[k]:10.0f} {ns_b[k]:10.0f} {ns_b[k] / ns_a[k]:6.3f}")
logs = [math.log(runs_b[k] / runs_a[k]) for k in runs_a if k in runs_b]
print(f"single runs: sd of log(B/A) {statistics.pstdev(logs):.3f}, largest |log(B/A)| "
      f"{max(map(abs, logs)):.3f} over {len(logs)} runs")
