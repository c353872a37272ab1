"""The Python package against the command line and against independent facts: the same run
through both faces, the committed results, a rod derived with SymPy against the hand-coded one,
the committed extrapolations, and the errors. Run from the repository root: pytest python/tests
(after `cargo build --release`, which makes the CLI these tests compare against)."""

import csv
import importlib.util
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import rigid_limit as rl

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("RIGID_LIMIT_CLI", ROOT / "target" / "release" / "rigid-limit"))
# runs.csv columns that time the run rather than measure the physics.
TIMING = {"wall_time_s", "wall_time_min_s", "repeats"}


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def cli_json(*flags, trajectory=True):
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: run `cargo build --release` first (or set RIGID_LIMIT_CLI)")
    extra = ["--trajectory"] if trajectory else []
    out = subprocess.run([str(CLI), "simulate", "--json", *extra, *flags], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def without_wall_time(d):
    d = dict(d)
    d["stats"] = {k: v for k, v in d["stats"].items() if k != "wall_time_s"}
    return d


def test_zhao_liu_impact_equals_the_cli_json():
    sim = rl.simulate(kappa=1e-8)
    assert without_wall_time(sim.raw) == without_wall_time(cli_json("--kappa", "1e-8"))
    # The arrays are the trajectory's samples; the event table its events.
    assert sim.q.shape == (len(sim.t), 3)
    assert list(sim.events["event"]) == ["slip_stops", "stick_breaks_right", "contact_opens"]
    assert sim.t[-1] == sim.events["t"][-1]
    # Impulse–momentum across the impact, independent of the event bookkeeping: the normal
    # impulse equals the change of the centre of mass's vertical momentum (ẏ_c = ẏ_A + cos θ θ̇).
    theta, vy, omega = sim.q[-1, 2], sim.q_dot[-1, 1], sim.q_dot[-1, 2]
    theta0 = sim.q[0, 2]
    vy_c_end = vy + math.cos(theta) * omega
    vy_c_start = sim.q_dot[0, 1] + math.cos(theta0) * sim.q_dot[0, 2]
    gravity = -1.0 * sim.t[-1]
    assert vy_c_end - vy_c_start - gravity == pytest.approx(sim.impulse_normal, rel=1e-9)


def test_numpy_numbers_are_numbers():
    import numpy as np

    a = rl.simulate(kappa=np.float64(1e-6), max_steps=np.int64(100000))
    b = rl.simulate(kappa=1e-6, max_steps=100000)
    assert without_wall_time(a.raw) == without_wall_time(b.raw)


def test_a_described_system_file_equals_the_cli_json():
    sim = rl.simulate("systems/painleve_rod.toml", kappa=1e-8, integrator="radau5")
    assert without_wall_time(sim.raw) == without_wall_time(
        cli_json("--system", "systems/painleve_rod.toml", "--kappa", "1e-8", "--integrator", "radau5")
    )


def test_a_named_system_with_params_equals_the_cli_json():
    sim = rl.simulate(
        "klarbring", kappa=1e-6, integrator="tsit45", params={"mu": 0.6, "V0": [0.0, 0.5]}
    )
    assert without_wall_time(sim.raw) == without_wall_time(
        cli_json(
            "klarbring", "--kappa", "1e-6", "--integrator", "tsit45",
            "--set", "mu=0.6", "--set", "V0=[0.0, 0.5]",
            trajectory=False,
        )
    )
    assert sim.params["mu"] == 0.6 and sim.params["V0"] == [0.0, 0.5]
    # The spring particle's slip onset in the rigid limit: asin(μkd/a)/ω = asin(μ) here.
    sp = rl.simulate("spring_particle", kappa=1e-6, params={"mu": 0.25})
    assert sp.record["t_slip_onset_rigid"] == pytest.approx(math.asin(0.25), rel=1e-12)
    rigid = rl.simulate("klarbring", method="rigid")
    assert rigid.method == "rigid" and "kappa" not in rigid.raw


def test_a_point_of_a_study_is_its_committed_row():
    # C–V's two slipping contacts: point 77 of experiments/two_contact_iwc.toml.
    sim = rl.simulate("two_contact", point=77)
    assert sim.point_id == 77 and sim.experiment == "experiments/two_contact_iwc.toml"
    with open(ROOT / "results" / "two_contact_iwc" / "runs.csv", newline="") as f:
        committed = list(csv.DictReader(f))[77]
    assert sim.points == 296 and sim.row["outcome"] == committed["outcome"]
    assert sim.row["first_open_s"] == pytest.approx(float(committed["first_open_s"]), rel=1e-12)
    changed = rl.simulate("two_contact", point=0, params={"sweep.law": ["harness"]})
    assert changed.row["law"] == "harness"
    cli = cli_json("two_contact", "--point", "0", "--set", 'sweep.law=["harness"]', trajectory=False)
    untimed = lambda raw: {**raw, "row": {k: v for k, v in raw["row"].items() if k not in TIMING}}
    assert untimed(changed.raw) == untimed(cli)


def test_a_system_of_several_contacts_equals_the_cli_json():
    # The rod dropped nearly flat lands on end A, then on end B.
    sim = rl.simulate("systems/two_ended_rod.toml", kappa=1e-6, t_end=1.0)
    assert without_wall_time(sim.raw) == without_wall_time(
        cli_json("--system", "systems/two_ended_rod.toml", "--kappa", "1e-6", "--t-end", "1")
    )
    assert sim.normal_force.shape == (len(sim.t), 2)
    assert [c["name"] for c in sim.contacts] == ["A", "B"]
    closing = [c for c, e in zip(sim.events["contact"], sim.events["event"]) if e == "contact_closes"]
    assert closing[:2] == ["A", "B"]
    # Impulse–momentum of the centre of mass (y_c = y_A + sin θ, unit mass, g = 1): both
    # normals are vertical, so ẏ_c changes by the two normal impulses less the weight's.
    theta, vy, omega = sim.q[-1, 2], sim.q_dot[-1, 1], sim.q_dot[-1, 2]
    vy_c_end = vy + math.cos(theta) * omega
    vy_c_start = sim.q_dot[0, 1] + math.cos(sim.q[0, 2]) * sim.q_dot[0, 2]
    impulses = sum(c["impulse_normal"] for c in sim.contacts)
    assert vy_c_end - vy_c_start + sim.t[-1] == pytest.approx(impulses, rel=1e-9)


def test_a_description_takes_params_and_its_rigid_reference_as_the_cli():
    # The box on both corners with μ = 0.8 set, compliant and on its rigid reference.
    for method in ["compliant", "rigid"]:
        sim = rl.simulate("systems/box.toml", kappa=1e-6, t_end=1.0, params={"mu": 0.8}, method=method)
        assert without_wall_time(sim.raw) == without_wall_time(
            cli_json(
                "--system", "systems/box.toml", "--kappa", "1e-6", "--t-end", "1",
                "--set", "mu=0.8", "--method", method,
            )
        )
        assert sim.parameters["mu"] == 0.8 and sim.method == method
    # Rigid: sliding at v0 = 1 against μ g = 0.8 the box stops at t = 1.25, so at t = 1 it is at
    # x = v0 t − μ g t²/2 = 0.6 with ẋ = 0.2.
    assert sim.final_state["q"][0] == pytest.approx(0.6, abs=1e-9)
    assert sim.final_state["q_dot"][0] == pytest.approx(0.2, abs=1e-9)
    # The rod's parameters by params, as its flags.
    by_params = rl.simulate(kappa=1e-6, params={"mu": 3.0, "theta0": 1.2})
    by_flags = rl.simulate(kappa=1e-6, mu=3.0, theta0=1.2)
    assert without_wall_time(by_params.raw) == without_wall_time(by_flags.raw)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_run_of_zhao_liu_equals_the_committed_runs(tmp_path):
    table = rl.run("experiments/zhao_liu.toml", out=tmp_path / "zl", progress=False)
    assert len(table) == 180 and set(table["status"]) == {"ok"}
    assert table.attrs["run"]["ran"] == 180
    ours = read_rows(tmp_path / "zl" / "runs.csv")
    committed = read_rows(ROOT / "results" / "zhao_liu" / "runs.csv")
    assert [list(r) for r in ours[:1]] == [list(r) for r in committed[:1]]
    for a, b in zip(ours, committed):
        assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
    # The report is written as the command line writes it.
    assert (tmp_path / "zl" / "summary.md").read_text() == (ROOT / "results" / "zhao_liu" / "summary.md").read_text()
    # The same call again resumes every row.
    again = rl.run("experiments/zhao_liu.toml", out=tmp_path / "zl", progress=False)
    assert again.attrs["run"]["resumed"] == 180 and again.attrs["run"]["ran"] == 0


def sympy_rod():
    """The rod derived with sympy.physics.mechanics by the example (examples/python_scaling.py)."""
    spec = importlib.util.spec_from_file_location("python_scaling", ROOT / "examples" / "python_scaling.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example.sympy_rod()


def test_a_sympy_derived_rod_equals_the_described_and_the_hand_coded_rod():
    system = sympy_rod()
    text = system.to_toml()
    assert "theta_dot^2" in text and "**" not in text
    derived = rl.simulate(system, kappa=1e-8)
    described = rl.simulate("systems/painleve_rod.toml", kappa=1e-8)
    hand_coded = rl.simulate(kappa=1e-8)
    for other in (described, hand_coded):
        assert list(derived.events["event"]) == list(other.events["event"])
        assert derived.events["t"] == pytest.approx(other.events["t"], rel=1e-10)
        assert derived.final_state["q"] == pytest.approx(other.final_state["q"], rel=1e-10, abs=1e-14)
        assert derived.final_state["q_dot"] == pytest.approx(other.final_state["qdot" if other is hand_coded else "q_dot"], rel=1e-10, abs=1e-14)
    # Energy balance with the potential SymPy derived.
    assert abs(derived.energy_balance_error) < 1e-8


def test_a_kappa_sweep_of_a_sympy_system_from_a_dict(tmp_path):
    experiment = {
        "name": "sympy_rod",
        "model": "system",
        "system": sympy_rod(),
        "sweep": {"kappa": {"min": 1e-8, "max": 1e-6, "per_decade": 1}},
        "solver": {"integrators": ["dop853"], "rtol": 1e-10, "atol": 1e-12},
    }
    table = rl.run(experiment, out=tmp_path / "sweep", progress=False)
    assert list(table["kappa"]) == pytest.approx([1e-6, 1e-7, 1e-8])
    assert set(table["status"]) == {"ok"}
    # The sweep's row at κ = 1e-8 is the single run's final state.
    single = rl.simulate(sympy_rod(), kappa=1e-8)
    q_end = [float(x) for x in table.loc[table["kappa"] == 1e-8, "q_end"].iloc[0].split()]
    assert q_end == pytest.approx(single.final_state["q"], rel=1e-12, abs=1e-15)
    assert (tmp_path / "sweep" / "summary.md").exists()


def test_an_atlas_from_a_dict_gives_the_v_groove_limit_per_mu(tmp_path):
    # study = "atlas" through the same entry point: per μ, the compliant exit speed's limit
    # κ → 0 is √((1 − μ)/(1 + μ)) (docs/multi_contact.md, "Impacts"), Newton's law gives 1.
    import pandas

    experiment = {
        "name": "v_groove_atlas",
        "model": "system",
        "study": "atlas",
        "system": "systems/v_groove.toml",
        "sweep": {"kappa": {"min": 1e-9, "max": 1e-4, "per_decade": 2}, "mu": [0.0, 0.5]},
        "solver": {"integrators": ["dop853"], "rtol": 1e-10, "atol": 1e-12, "t_end": 0.5},
    }
    table = rl.run(experiment, out=tmp_path / "atlas", progress=False)
    assert set(table["status"]) == {"ok"}
    points = pandas.read_csv(tmp_path / "atlas" / "points.csv")
    assert list(points["mu"]) == [0.0, 0.5]
    for mu, limit, verdict in zip(points["mu"], points["q_dot_end_1_limit"], points["q_dot_end_1_verdict"]):
        assert limit == pytest.approx(((1 - mu) / (1 + mu)) ** 0.5, abs=1e-9)
        assert verdict == ("agrees" if mu == 0.0 else "another limit")
    assert list(points["q_dot_end_1_rigid"]) == [1.0, 1.0]


def test_extrapolate_on_the_committed_ladder_gives_the_documented_limit():
    # docs/results.md: Tsit45's ladder extrapolates v_out to 0.09986175332 ± 1.8e-9, the interval
    # including the four integrators' spread (the largest over the others of the median
    # |difference| at the common κ).
    rows = [r for r in read_rows(ROOT / "results" / "zhao_liu" / "runs.csv") if r["status"] == "ok"]
    by_integrator = {}
    for r in rows:
        by_integrator.setdefault(r["integrator"], {})[float(r["kappa"])] = float(r["v_out"])
    own = by_integrator.pop("tsit45")
    spread = 0.0
    for other in by_integrator.values():
        d = sorted(abs(v - other[k]) for k, v in own.items() if k in other)
        spread = max(spread, d[len(d) // 2])
    kappa = sorted(own)
    e = rl.extrapolate(kappa, [own[k] for k in kappa], value_accuracy=spread)
    assert f"{e.limit:.11f}" == "0.09986175332"
    assert f"{e.half_width:.1e}" == "1.8e-09"
    assert e.formula == "y₀ + √κ (b L + c) + κ (d L² + e L + f)"
    # The closed form (docs/model.md) lies inside the interval.
    assert e.covers(hand_coded_v_out())


def hand_coded_v_out():
    return rl.simulate(kappa=1e-8).rigid_limit["v_out"]


def test_a_short_ladder_is_refused():
    with pytest.raises(rl.ExtrapolationRefused, match="points"):
        rl.extrapolate([1e-3, 1e-4], [1.0, 1.1])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rl.simulate(kappa=-1), "invalid --kappa = -1: must be finite and > 0"),
        (lambda: rl.simulate(integrator="euler"), "--integrator"),
        (lambda: rl.simulate("systems/none.toml"), "cannot read systems/none.toml"),
        (lambda: rl.simulate("spring_particle", params={"bogus": 1}), "bogus"),
        (lambda: rl.simulate(mu=1.0, params={"mu": 2.0}), "--mu 1 and --set mu=… both set mu: give it once"),
        (lambda: rl.simulate("systems/box.toml", point=2), "--point 2: a described system runs its one configuration"),
        (lambda: rl.run("experiments/none.toml"), "experiments/none.toml"),
        (lambda: rl.run({"name": "x", "model": "rod", "params": {"mu": None}}), "no None"),
        (lambda: rl.run({"name": "x", "model": "pendulum"}), "model"),
        (
            lambda: rl.System(
                {
                    "coordinates": ["y"],
                    "mass_matrix": [["1"]],
                    "force": ["-g"],
                    "contacts": [{"name": "A", "gap": "y", "tangents": ["0"], "mu": 0.5}],
                    "initial": {"q": ["1"], "q_dot": ["0"]},
                },
                name="falling",
            ),
            "system falling: invalid system.force[0] = \"-g\": at character 2: unknown name 'g'",
        ),
    ],
)
def test_bad_input_raises_with_the_cli_message(call, message):
    with pytest.raises(rl.RigidLimitError, match=re.escape(message)):
        call()


def test_a_sympy_function_without_a_description_name_is_refused():
    import sympy as sp

    x = sp.Symbol("x")
    with pytest.raises(rl.RigidLimitError, match=r"force\[0\]: function sinh"):
        rl.System.from_sympy([x], [[1]], [sp.sinh(x)], [{"name": "A", "gap": x, "tangents": [x], "mu": 0.5}])


def test_ctrl_c_stops_a_run_that_then_resumes(tmp_path):
    experiment = {
        "name": "interrupted",
        "model": "rod",
        "params": {"mu": 2.0, "mu_s": 2.0, "theta0": 1.3, "omega0": 0.0, "u0": -1.0, "damping": 0.0},
        "sweep": {"kappa": {"min": 1e-12, "max": 1e-1, "per_decade": 100}},
        "solver": {"integrators": ["bdf"], "rtol": 1e-10, "atol": 1e-14},
    }
    out = tmp_path / "run"
    # Python raises KeyboardInterrupt on SIGINT only with its default handler, which it does not
    # install when started with SIGINT ignored (a background job of a non-interactive shell).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # The sweep's 1101 points take about a second on two cores (`rigid-limit run` of the same
    # table): the signal comes well before their end.
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            rl.run(experiment, out=out, progress=False)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    # Stopped as a kill stops it: no runs.csv, the finished rows in the journal.
    assert not (out / "runs.csv").exists()
    journalled = len(read_rows(out / "runs.journal.csv"))
    assert 0 < journalled < 1101
    table = rl.run(experiment, out=out, progress=False)
    assert table.attrs["run"]["resumed"] == journalled and len(table) == 1101
    assert set(table["status"]) == {"ok"}


def test_the_example_runs(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python_scaling.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "zhao_liu_scaling.png").stat().st_size > 10_000
    assert (tmp_path / "sympy_rod_sweep.png").stat().st_size > 10_000
    # Its extrapolated θ̇ covers the closed form.
    line = next(l for l in out.stdout.splitlines() if l.startswith("θ̇ after the impact"))
    limit, half_width = float(line.split(": ")[1].split(" ± ")[0]), float(line.split(" ± ")[1].split(" ")[0])
    closed_form = float(line.rsplit(" ", 1)[1])
    assert abs(limit - closed_form) <= half_width
