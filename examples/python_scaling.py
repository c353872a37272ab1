"""The Python package in two figures (README, "Python"):

1. Zhao–Liu's scaling of the impact's phases: `run` of experiments/zhao_liu.toml, the durations
   of slide, stick and reverse slip against κ beside their predicted orders √κ ln(1/√κ), √κ
   and κ (Zhao, Liu, Chen & Brogliato 2015; docs/model.md);
2. a κ sweep of a system derived with SymPy: the Painlevé rod from its Lagrangian in the contact
   point's coordinates, run from a dict, and its post-impact rotation rate extrapolated to κ → 0.

Run from the repository root: python examples/python_scaling.py [OUT] (default OUT:
python-example/; the figures are OUT/zhao_liu_scaling.png and OUT/sympy_rod_sweep.png).
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols  # noqa: E402

import rigid_limit as rl  # noqa: E402


def sympy_rod():
    """The Painlevé rod derived with sympy.physics.mechanics in the contact point's coordinates
    (x_A, y_A, θ): centre of mass (x_A + cos θ, y_A + sin θ), half-length 1, unit mass and
    gravity, ρ² = 1/3; Zhao–Liu's start (θ0 = 1.3, sliding left at u0 = −1)."""
    xa, ya, th = dynamicsymbols("xa ya theta")
    t = dynamicsymbols._t
    rho2, mu = sp.symbols("rho2 mu")
    xc, yc = xa + sp.cos(th), ya + sp.sin(th)
    kinetic = (xc.diff(t) ** 2 + yc.diff(t) ** 2 + rho2 * th.diff(t) ** 2) / 2
    lagrange = LagrangesMethod(kinetic - yc, [xa, ya, th])
    lagrange.form_lagranges_equations()
    return rl.System.from_sympy(
        coordinates=[xa, ya, th],
        mass_matrix=sp.simplify(lagrange.mass_matrix),
        force=sp.simplify(lagrange.forcing),
        contacts=[{"name": "A", "gap": ya, "tangents": [xa], "mu": mu}],
        parameters={rho2: 1 / 3, mu: 2.0},
        initial={"q": [0, 0, 1.3], "q_dot": [-1, 0, 0]},
        potential=yc,
        validity=[{"margin": th, "meaning": "the rod lies flat"}],
        name="sympy_rod",
    )


def save(fig, ax, title, path):
    ax.set_xlabel("compliance κ")
    ax.set_title(title)
    ax.legend(loc="upper left")
    ax.grid(True, which="major", lw=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    # 1. Zhao–Liu's scaling figure from the committed experiment.
    runs = rl.run("experiments/zhao_liu.toml", out=out / "zhao_liu")
    ok = runs[(runs["status"] == "ok") & (runs["integrator"] == "tsit45")].sort_values("kappa")
    kappa = ok["kappa"].to_numpy()
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for column, label, order, marker in [
        ("t_slide", "slide", np.sqrt(kappa) * np.log(1 / np.sqrt(kappa)), "o"),
        ("t_stick", "stick", np.sqrt(kappa), "s"),
        ("t_reverse_slip", "reverse slip", kappa, "^"),
    ]:
        measured = ok[column].to_numpy()
        line = ax.loglog(kappa, measured, marker, ms=4, label=f"{label} (tsit45)")[0]
        # The predicted order, scaled to the smallest κ's value.
        ax.loglog(kappa, measured[0] / order[0] * order, "-", color=line.get_color(), lw=0.8)
    ax.set_ylabel("phase duration (time √(l/g))")
    save(fig, ax, "Zhao–Liu impact: phases scale as √κ ln(1/√κ), √κ, κ (lines)", out / "zhao_liu_scaling.png")

    # 2. The SymPy-derived rod, swept over κ from a dict.
    sweep = rl.run(
        {
            "name": "sympy_rod",
            "model": "system",
            "system": sympy_rod(),
            "sweep": {"kappa": {"min": 1e-10, "max": 1e-4, "per_decade": 2}},
            "solver": {"integrators": ["dop853"], "rtol": 1e-10, "atol": 1e-12},
        },
        out=out / "sympy_rod",
    ).sort_values("kappa")
    kappa = sweep["kappa"].to_numpy()
    omega = np.array([float(v.split()[2]) for v in sweep["q_dot_end"]])
    limit = rl.extrapolate(kappa, omega)
    closed_form = rl.simulate(kappa=1e-8).rigid_limit["omega_out"]
    print(
        f"θ̇ after the impact as κ → 0: {limit.limit:.9f} ± {limit.half_width:.1e} ({limit.formula});"
        f" the rigid limit's closed form {closed_form:.9f}"
    )
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.loglog(kappa, np.abs(omega - limit.limit), "o", label="|θ̇(κ) − extrapolated limit|")
    ax.loglog(kappa, np.abs(omega - closed_form), "x", label="|θ̇(κ) − closed form|")
    ax.set_ylabel("error of the post-impact θ̇")
    save(fig, ax, "Rod derived with SymPy: θ̇ after the impact converges as κ → 0", out / "sympy_rod_sweep.png")
    print(f"figures in {out}/")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "python-example"))
