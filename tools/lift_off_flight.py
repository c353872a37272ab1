"""The grazing lift-off of docs/integrators.md ("BDF on a grazing lift-off"): the rod put down
sliding (kappa 1e-6, mu 1, theta0 1, u0 -0.5, undamped) lifts off at t = 8.758e-3 with a normal
velocity of 2.5e-5 and flies for 4.9e-5. For each integrator: the relative errors of the
lift-off time and of the flight's duration against tsit45 at rtol 1e-13, the error of the
penetration delta at t = 8.7e-3 (inside the slide, before any event), and the steps to there.
Usage: python3 tools/lift_off_flight.py [target/release/rigid-limit]"""
import json, subprocess, sys

B = sys.argv[1] if len(sys.argv) > 1 else "target/release/rigid-limit"
ROD = ["simulate", "--kappa", "1e-6", "--mu", "1", "--theta0", "1", "--u0", "-0.5", "--json"]


def run(kind, rtol, atol, t_end):
    cmd = [B, *ROD, "--integrator", kind, "--rtol", rtol, "--atol", atol, "--t-end", t_end]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def measures(kind, rtol, atol):
    d = run(kind, rtol, atol, "0.0095")
    opens, closes = d["events"][0]["t"], d["events"][1]["t"]
    before = run(kind, rtol, atol, "0.0087")
    return opens, closes - opens, -before["final_state"]["q"][1], before["stats"]["steps"]


ref_open, ref_flight, ref_delta, _ = measures("tsit45", "1e-13", "1e-12")
print(f"reference tsit45 rtol 1e-13: lift-off {ref_open:.12e}, flight {ref_flight:.12e}, "
      f"delta(8.7e-3) {ref_delta:.12e}")
print("| integrator | rtol | atol | lift-off time | flight duration | δ at t = 8.7e-3 (abs.) | steps to 8.7e-3 |")
print("|---|---|---|---|---|---|---|")
cases = [(k, "1e-12", "1e-12") for k in
         ["bdf", "esdirk34", "tsit45", "radau5", "rodas4", "tsit5", "dop853"]]
cases.insert(1, ("tr-bdf2", "1e-10", "1e-12"))
cases += [("bdf", r, a) for r, a in [("1e-10", "1e-12"), ("1e-11", "1e-12"), ("1e-13", "1e-14")]]
for kind, rtol, atol in cases:
    o, f, delta, steps = measures(kind, rtol, atol)
    print(f"| {kind} | {rtol} | {atol} | {abs(o / ref_open - 1):.1e} | {abs(f / ref_flight - 1):.1e} "
          f"| {abs(delta - ref_delta):.1e} | {steps} |")
