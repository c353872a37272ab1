"""Resolution limits: Zhao-Liu's impact (and extra flags) at kappa = 1e-20
... 1e-40 with three integrators; each quantity's relative deviation from its rigid limit
(simulate --json's rigid_limit; the slide against its asymptote (sqrt(k)/lambda)(ln(1/sqrt(k)) + offset)).
Usage: resolution.py BINARY [extra simulate flags...]; needs a binary without the kappa floor."""
import json, subprocess, sys, math
B = sys.argv[1]; extra = sys.argv[2:]
print("flags:", " ".join(extra) or "(Zhao-Liu defaults)")
print(f"{'kappa':>6} {'integ':>7} {'slide':>9} {'stick':>9} {'rev':>9} {'v_out':>9} {'w_out':>9} {'P_n':>9}")
for e in range(20, 41):
    for integ in ["bdf", "tsit45", "radau5"]:
        k = 10.0 ** -e
        p = subprocess.run([B, "simulate", "--kappa", f"1e-{e}", "--integrator", integ, "--json", *extra], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            print(f"1e-{e:<3} {integ:>7} error: {p.stderr.strip()[7:90]}"); continue
        d = json.loads(p.stdout); L = d["rigid_limit"]; du = d["durations"]; pi = d["post_impact"]
        sk = math.sqrt(k)
        slide_pred = sk / L["slide_rate"] * (math.log(1 / sk) + L["slide_log_offset"])
        r = lambda x, y: (x - y) / abs(y)
        print(f"1e-{e:<3} {integ:>7} {r(du['slide'], slide_pred):9.1e} {r(du['stick']/sk, L['stick_duration_scaled']):9.1e} "
              f"{r(du['reverse_slip']/k, L['reverse_slip_duration_scaled']):9.1e} {r(pi['v'], L['v_out']):9.1e} "
              f"{r(pi['omega'], L['omega_out']):9.1e} {r(d['impulse_normal'], L['impulse_total']):9.1e}")
