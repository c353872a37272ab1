"""rigid_limit: does the compliant (penalty) contact model of a mechanical system converge to the
rigid limit, how fast, and which integrator gets there cheapest?

The Python face of the rigid-limit harness (the same engine as the ``rigid-limit`` command line):

- :func:`simulate` — one run of the Painlevé rod or of any described system: the sampled
  trajectory and the event table as NumPy arrays, the measured quantities as attributes;
- :func:`run` — run or resume an experiment (a TOML file or a dict) and get its runs.csv as a
  DataFrame;
- :func:`extrapolate` — the κ → 0 limit of a quantity measured on a κ ladder, with its interval;
- :class:`System` — a described mechanical system, e.g. from SymPy expressions
  (:meth:`System.from_sympy`).

Errors raise :class:`RigidLimitError` with the command line's one-line message.
"""

from __future__ import annotations

import json
import numbers
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import ExtrapolationRefused, RigidLimitError, __version__
from .system import System

__all__ = [
    "simulate",
    "run",
    "extrapolate",
    "System",
    "Simulation",
    "Extrapolation",
    "RigidLimitError",
    "ExtrapolationRefused",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


def _flag_value(value: Any) -> str:
    """A number or a name as the command line's flag value (every bit of a float)."""
    if isinstance(value, bool):
        raise RigidLimitError(f"a flag value cannot be a bool: {value!r}")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


class Simulation:
    """One run, as ``rigid-limit simulate --json --trajectory`` reports it.

    Arrays of the sampled trajectory (step ends and events, in time order): ``t`` (n,), ``q`` and
    ``q_dot`` (n, N), ``normal_force`` and ``tangential_force`` (n,), ``mode`` (n,) of str. A
    system of K contacts has ``normal_force`` and ``tangential_force`` (n, K), a spatial contact
    ``normal_force`` (n, 1) and ``tangential_force`` (n, 2); their ``events`` have a ``contact``.
    ``events`` and ``phases`` are dicts of arrays (one entry per event or phase: ``t``,
    ``event``, ``from``, ``to``; ``mode``, ``t_start``, ``t_end``, ``duration``). Every other key
    of the command line's JSON (``impulse_normal``, ``energy``, ``final_state``, ``stats``,
    ``rigid_limit``, ``contacts``, …) is an attribute; ``raw`` is the whole object.
    """

    def __init__(self, raw: Dict[str, Any]):
        self.raw = raw
        samples = raw.get("trajectory") or []
        self.t = np.array([s["t"] for s in samples], dtype=float)
        self.q = np.array([s["q"] for s in samples], dtype=float)
        self.q_dot = np.array([s["qdot"] for s in samples], dtype=float)
        self.normal_force = np.array([s["normal_force"] for s in samples], dtype=float)
        self.tangential_force = np.array([s["tangential_force"] for s in samples], dtype=float)
        self.mode = np.array([s["mode"] for s in samples], dtype=str)
        events = raw.get("events", [])
        # Each event's contact, where the system has several or a spatial one.
        contact = ("contact",) if events and "contact" in events[0] else ()
        self.events = _columns(events, ("t", "event", "from", "to") + contact)
        self.phases = _columns(
            raw.get("modes", []), ("mode", "t_start", "t_end", "duration")
        )
        for key, value in raw.items():
            if key not in ("trajectory", "events", "modes"):
                setattr(self, key, value)

    def __repr__(self) -> str:
        kinds = " → ".join(self.phases["mode"])
        return f"Simulation({len(self.t)} samples, {len(self.events['t'])} events: {kinds})"


_TIMES = {"t", "t_start", "t_end", "duration"}


def _columns(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> Dict[str, np.ndarray]:
    out = {}
    for k in keys:
        values = [r[k] for r in rows]
        out[k] = np.array(values, dtype=float if k in _TIMES else str)
    return out


def simulate(
    system: Union[str, PathLike, System] = "rod",
    *,
    kappa: float = 1e-8,
    integrator: Optional[str] = None,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    t_end: Optional[float] = None,
    t_max: Optional[float] = None,
    max_steps: Optional[int] = None,
    max_events: Optional[int] = None,
    mu: Optional[float] = None,
    mu_s: Optional[float] = None,
    theta0: Optional[float] = None,
    omega0: Optional[float] = None,
    u0: Optional[float] = None,
    damping: Optional[float] = None,
    scenario: Optional[str] = None,
    height: Optional[float] = None,
    params: Optional[Mapping[str, Any]] = None,
    method: Optional[str] = None,
    point: Optional[int] = None,
) -> Simulation:
    """Run one simulation, as ``rigid-limit simulate`` does, and return it with its trajectory.

    ``system``: ``"rod"`` (the Painlevé rod of Zhao–Liu; its physics from ``mu`` … ``height``
    or ``params``, defaults those of the command line: Zhao–Liu's impact), a description file
    (``"systems/NAME.toml"`` or an experiment file with ``model = "system"``) or a
    :class:`System`, with ``params`` setting its parameters and ``method="rigid"`` running the
    rigid reference of several contacts (an empty trajectory: its events, phases and end state
    are the result), or the name of another system (``"spring_particle"``, ``"klarbring"``:
    ``rigid-limit simulate SYSTEM``), run from its documented example with ``params`` set
    (``{"mu": 0.3}``) and ``method`` ``"compliant"`` or ``"rigid"``; its measured columns are
    the attribute ``record`` (no trajectory). ``"planar"``, ``"two_contact"``,
    ``"schmid_mielke"`` and ``"rod_scenario"`` run one point of their study's example file
    (``point``: its point_id, default 0; ``params`` keys with a dot set other tables of the file,
    ``{"sweep.law": ["harness"]}``): the attribute ``row`` is that point's row of runs.csv, as
    ``rigid-limit simulate SYSTEM --point ID``. ``None`` keeps the command line's default
    (integrator dop853, rtol 1e-10, atol 1e-12; until the contact opens unless ``t_end``). The
    GIL is released while it runs.
    """
    named_system = (
        isinstance(system, str)
        and system != "rod"
        and "/" not in system
        and not system.endswith(".toml")
    )
    flags = ["--json", f"--kappa={_flag_value(kappa)}"]
    if named_system or str(system) == "rod":
        # The command line's SYSTEM (`simulate rod --set mu=3` is `simulate --mu 3`).
        flags.insert(0, str(system))
    if not named_system:
        flags.append("--trajectory")
    # The command line decides what each system takes (a description no --point, the rod no
    # --method rigid) and says so in its message.
    for key, value in (params or {}).items():
        flags.append(f"--set={key}={_toml_value(value)}")
    if method is not None:
        flags.append(f"--method={method}")
    if point is not None:
        flags.append(f"--point={point}")
    named = {
        "integrator": integrator,
        "rtol": rtol,
        "atol": atol,
        "t_end": t_end,
        "t_max": t_max,
        "max_steps": max_steps,
        "max_events": max_events,
        "mu": mu,
        "mu_s": mu_s,
        "theta0": theta0,
        "omega0": omega0,
        "u0": u0,
        "damping": damping,
        "scenario": scenario,
        "height": height,
    }
    for name, value in named.items():
        if value is not None:
            flags.append(f"--{name.replace('_', '-')}={_flag_value(value)}")
    if isinstance(system, System):
        text = _native.simulate(flags, system.to_toml(), f"system {system.name}")
    elif str(system) == "rod" or named_system:
        text = _native.simulate(flags)
    else:
        text = _native.simulate(flags + [f"--system={os.fspath(system)}"])
    return Simulation(json.loads(text))


def _toml_value(value: Any) -> str:
    """A parameter value as TOML text, written as ``run`` writes a dict's values."""
    return _native.toml_text(json.dumps({"v": _plain(value)})).split("=", 1)[1].strip()


def _plain(value: Any) -> Any:
    """A dict of TOML values: Systems become their tables, paths strings, NumPy numbers floats."""
    if isinstance(value, System):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def run(
    experiment: Union[PathLike, Mapping[str, Any]],
    out: Optional[PathLike] = None,
    fresh: bool = False,
    progress: bool = True,
    frame: str = "pandas",
):
    """Run (or resume) an experiment and return its runs.csv as a DataFrame.

    ``experiment``: a TOML file (``"experiments/zhao_liu.toml"``) or a dict of the same tables
    (its ``"system"`` may be a :class:`System`). ``out``: the output directory (default
    ``results/NAME``, as the command line); rows already there from the same settings are
    reused unless ``fresh``; the report (summary.md, analysis.json, figures) is written beside.
    The sweep runs in parallel on the Rust thread pool (RAYON_NUM_THREADS sets its size) with the
    GIL released; Ctrl-C stops it with the finished rows kept, so that the same call resumes.
    ``progress`` shows a progress bar on a terminal. ``frame``: ``"pandas"`` or ``"polars"``.
    The run's counts (points, resumed, ran, failed, wall time, out_dir) are in
    ``DataFrame.attrs["run"]`` (pandas).
    """
    if frame not in ("pandas", "polars"):
        raise RigidLimitError(f"invalid frame = {frame!r}: use 'pandas' or 'polars'")
    out_text = None if out is None else os.fspath(out)
    if isinstance(experiment, Mapping):
        toml = _native.toml_text(json.dumps(_plain(experiment)))
        summary = json.loads(_native.run(toml=toml, out=out_text, fresh=fresh, progress=progress))
    else:
        summary = json.loads(
            _native.run(path=os.fspath(experiment), out=out_text, fresh=fresh, progress=progress)
        )
    not_reused = summary.get("not_reused")
    if not_reused and not_reused["reason"] != "--fresh":
        warnings.warn(
            f"{not_reused['rows']} stored rows not reused: {not_reused['reason']}; "
            "their points were run again",
            stacklevel=2,
        )
    runs = Path(summary["out_dir"]) / "runs.csv"
    if frame == "polars":
        import polars

        return polars.read_csv(runs, infer_schema_length=None)
    import pandas

    table = pandas.read_csv(runs, keep_default_na=False, na_values=[""])
    table.attrs["run"] = summary
    return table


@dataclass(frozen=True)
class Extrapolation:
    """The κ → 0 limit of a quantity (docs/extrapolation.md): ``limit`` ± ``half_width``
    (≈ 95 %), the chosen error ``model`` and its ``formula``, the fitted ``exponent`` (power
    laws), the fit window (``kappa_min``, ``kappa_max``, ``points``), the uncertainty
    ``budget`` and the fitted ``terms``; ``raw`` holds every field of the library's result."""

    limit: float
    half_width: float
    model: str
    formula: str
    exponent: Optional[float]
    kappa_min: float
    kappa_max: float
    points: int
    budget: Dict[str, float]
    terms: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False)

    def covers(self, value: float) -> bool:
        """Whether ``value`` lies inside the interval."""
        return abs(value - self.limit) <= self.half_width


def extrapolate(
    kappa: Sequence[float],
    values: Sequence[float],
    *,
    value_accuracy: Optional[float] = None,
    extra_powers: Sequence[float] = (),
    min_dof: Optional[int] = None,
    validation_points: Optional[int] = None,
) -> Extrapolation:
    """The κ → 0 limit of ``values`` measured at ``kappa`` (any order), with its interval.

    The error model (power law, or √κ (b ln(1/κ) + c) and its higher orders) and the fit window
    are chosen by leave-one-out prediction (docs/extrapolation.md). ``value_accuracy``: the
    values' own absolute accuracy (e.g. the spread of integrators), added to the interval;
    ``extra_powers``: known correction exponents q added to the √κ models. Raises
    :class:`ExtrapolationRefused` (a :class:`RigidLimitError`) when the ladder does not
    determine the limit: too short, or not asymptotic.
    """
    raw = json.loads(
        _native.extrapolate(
            [float(k) for k in kappa],
            [float(v) for v in values],
            [float(q) for q in extra_powers],
            min_dof,
            validation_points,
            value_accuracy,
        )
    )
    return Extrapolation(
        limit=raw["limit"],
        half_width=raw["half_width"],
        model=raw["model"],
        formula=raw["formula"],
        exponent=raw["exponent"],
        kappa_min=raw["kappa_min"],
        kappa_max=raw["kappa_max"],
        points=raw["points"],
        budget=raw["budget"],
        terms=raw["terms"],
        raw=raw,
    )
