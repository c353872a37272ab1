# Independent check of the scaled stop / stick-end times of Dance's compliant particle
# (c_d = 1, mu = 1, start from rest): w' = (1, sqrt(k) s) - F_n(s) w/|w|, F_n = x + c_d x'.
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
import sys
cd = 1.0
zeta = cd/2; om = np.sqrt(1-zeta**2)
def x(s):  return 1 - np.exp(-zeta*s)*(np.cos(om*s) + zeta/om*np.sin(om*s))
def xp(s): return np.exp(-zeta*s)*np.sin(om*s)/om
def Fn(s): return x(s) + cd*xp(s)
print("leading order: stop pi/omega =", np.pi/om, " stick end 4pi/(3 omega) =", 4*np.pi/(3*om))
for k in [1e-4, 1e-6, 1e-8]:
    rk = np.sqrt(k)
    def f(s, w):
        r = np.hypot(w[0], w[1])
        return [1 - Fn(s)*w[0]/r, rk*s - Fn(s)*w[1]/r]
    s0 = 1e-4
    w0 = [s0 - cd*s0**2/2, rk*s0**2/2]
    ev = lambda s, w: w[0] - 1e-13
    ev.terminal = True; ev.direction = -1
    sol = solve_ivp(f, [s0, 10], w0, method='Radau', rtol=1e-12, atol=1e-16, events=ev, dense_output=True)
    s_stop = sol.t_events[0][0]
    # linear extrapolation of |w| to zero from the event (|w| ~ w0 there)
    # stick while F_n >= |(1, sqrt(k) s)|
    g = lambda s: Fn(s) - np.sqrt(1 + k*s*s)
    s_end = brentq(g, s_stop + 0.1, 6.0, xtol=1e-15)
    print(f"k={k:g}: stop s={s_stop:.9f} (diff {s_stop - np.pi/om:.3e}), w_perp/w_par at stop-ish: {sol.y_events[0][0]}, stick end s={s_end:.9f} (diff {s_end - 4*np.pi/(3*om):.3e})")

if len(sys.argv) > 1:
    k = float(sys.argv[1]); rk = np.sqrt(k)
    def f(s, w):
        r = np.hypot(w[0], w[1])
        return [1 - Fn(s)*w[0]/r, rk*s - Fn(s)*w[1]/r]
    s0 = 1e-4
    w0 = [s0 - cd*s0**2/2, rk*s0**2/2]
    ev = lambda s, w: np.hypot(w[0], w[1]) - 1e-12
    ev.terminal = True; ev.direction = -1
    sol = solve_ivp(f, [s0, 10], w0, method='Radau', rtol=1e-12, atol=1e-16, events=ev, dense_output=True)
    print(sol.status, sol.message, sol.t_events, sol.y_events)
    for s in np.linspace(3.5, sol.t[-1], 12):
        w = sol.sol(s); print(s, w, np.hypot(*w), Fn(s), np.sqrt(1+k*s*s))
