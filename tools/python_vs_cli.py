"""The same experiment run from the command line and from the Python package, alternately, each
from scratch (--fresh / fresh=True) into its own directory; prints the median wall times and
their ratio. Run from the repository root after `cargo build --release` and `pip install
./python`: python tools/python_vs_cli.py [EXPERIMENT] [REPEATS] (default experiments/zhao_liu.toml, 7)."""
import statistics
import subprocess
import sys
import tempfile
import time

import rigid_limit as rl

experiment = sys.argv[1] if len(sys.argv) > 1 else "experiments/zhao_liu.toml"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
cli, python = [], []
with tempfile.TemporaryDirectory() as tmp:
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(["target/release/rigid-limit", "run", experiment, "--out", f"{tmp}/cli", "--fresh"],
                       check=True, capture_output=True)
        cli.append(time.perf_counter() - start)
        start = time.perf_counter()
        rl.run(experiment, out=f"{tmp}/python", fresh=True, progress=False)
        python.append(time.perf_counter() - start)
c, p = statistics.median(cli), statistics.median(python)
print(f"{experiment}: CLI {c:.3f} s, Python {p:.3f} s (medians of {repeats}, whole call: run, report,"
      f" and for Python reading runs.csv into a DataFrame); Python/CLI = {p / c:.3f}")
