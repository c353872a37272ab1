"""Battery of undamped grazing runs: the rod put down sliding slowly
(u0 = -0.5) with consistent friction, run to t = 1 at rtol 1e-12 with every integrator.
A run 'falls through' when its contact point ends below the floor by more than 1e-2
(the penetration scale is kappa * F_n << 1e-2)."""
import json, subprocess, sys, itertools, time
B = sys.argv[1] if len(sys.argv) > 1 else "target/release/rigid-limit"
ints = ["bdf", "tr-bdf2", "esdirk34", "tsit45", "radau5", "rodas4"]
kappas = [1e-4, 1e-6, 1e-8]
mus = [0.5, 1.0]
thetas = [0.8, 1.0, 1.2]
rows = []
t0 = time.time()
for kappa, mu, th in itertools.product(kappas, mus, thetas):
    for i in ints:
        cmd = [B, "simulate", "--kappa", str(kappa), "--mu", str(mu), "--theta0", str(th),
               "--u0", "-0.5", "--t-end", "1", "--rtol", "1e-12", "--integrator", i, "--json", *sys.argv[2:]]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            rows.append((kappa, mu, th, i, "error", p.stderr.strip()[:90]))
            continue
        d = json.loads(p.stdout)
        ya = d["final_state"]["q"][1]
        st = "FELL" if ya < -1e-2 else "ok"
        rows.append((kappa, mu, th, i, st, f"events {len(d['events'])} y_A {ya:.3e} theta {d['final_state']['q'][2]:.6f}"))
for r in rows:
    print(*r)
from collections import Counter
print("summary:", Counter(r[4] for r in rows), "of", len(rows), f"({time.time()-t0:.0f} s)")
print("fell:", [(r[0], r[1], r[2], r[3]) for r in rows if r[4] == "FELL"])
