"""A described mechanical system (docs/described_systems.md) as a Python object: the table of
expressions the harness compiles, built from a dict or from SymPy expressions."""

from __future__ import annotations

import copy
import json
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from . import _native
from ._native import RigidLimitError

# SymPy's function names → the description's (docs/described_systems.md, "Expressions").
_FUNCTIONS = {
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "exp": "exp",
    "log": "ln",
    "sqrt": "sqrt",
    "Abs": "abs",
}


class System:
    """A mechanical system described by expressions: coordinates q, mass matrix M(q), force
    f(q, q̇, t), contacts (gap g(q) > 0 apart, tangential position s(q), μ, damping), parameters
    and the initial state. ``description`` is the ``[system]`` table of an experiment file, as a
    dict (its keys: docs/described_systems.md); ``name`` names it in messages.

    A System goes wherever a description goes: ``simulate(system)``, or as ``"system"`` in the
    dict of :func:`rigid_limit.run`.
    """

    def __init__(self, description: Mapping[str, Any], name: str = "system"):
        self.description = copy.deepcopy(dict(description))
        self.name = name
        # Checked now as a run checks it (names, syntax, shapes, the mass matrix at the start),
        # so that a mistake raises here.
        self._toml = _native.system_toml(json.dumps(self.description), f"system {name}")

    def to_dict(self) -> Dict[str, Any]:
        """The ``[system]`` table."""
        return copy.deepcopy(self.description)

    def to_toml(self) -> str:
        """The description as a system file (``systems/NAME.toml``)."""
        return self._toml

    def save(self, path) -> None:
        """Write the system file (it runs with ``rigid-limit simulate --system PATH``)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_toml())

    def __repr__(self) -> str:
        coordinates = ", ".join(self.description.get("coordinates", []))
        return f"System({self.name!r}: q = ({coordinates}), {len(self.description.get('contacts', []))} contact(s))"

    @classmethod
    def from_sympy(
        cls,
        coordinates: Sequence[Any],
        mass_matrix: Any,
        force: Sequence[Any],
        contacts: Sequence[Mapping[str, Any]],
        parameters: Optional[Mapping[Any, float]] = None,
        initial: Optional[Mapping[str, Sequence[Any]]] = None,
        potential: Any = None,
        validity: Optional[Sequence[Mapping[str, Any]]] = None,
        name: str = "system",
    ) -> "System":
        """A System from SymPy expressions, e.g. from ``sympy.physics.mechanics``.

        ``coordinates``: symbols or dynamic symbols q(t) (their derivatives q'(t) become
        ``<name>_dot``, the time ``t``); ``mass_matrix`` (N × N) and ``force`` (N) such that
        M(q) q̈ = f(q, q̇, t) — LagrangesMethod's ``mass_matrix`` and ``forcing``;
        ``contacts``: dicts with ``name``, ``gap``, ``tangents`` (a list of one expression),
        ``mu`` (a number or a parameter's symbol), optional ``mu_s``, ``damping``;
        ``parameters``: {symbol: value}; ``initial``: {"q": […], "q_dot": […]} (numbers or
        expressions in the parameters, ``kappa`` and ``pi``); ``potential``: V(q) of the
        conservative part of ``force`` (adds the energy balance to the outputs); ``validity``:
        dicts with ``margin`` (an expression that must stay > 0) and ``meaning``.
        Only the functions sin, cos, tan, exp, log (ln), sqrt and Abs are allowed.
        """
        import sympy

        names = [_name(c) for c in coordinates]
        substitutions = _state_symbols(coordinates, names)

        def text(expression: Any, where: str) -> str:
            return _expression_text(expression, substitutions, where)

        rows = sympy.Matrix(mass_matrix)
        if rows.shape != (len(names), len(names)):
            raise RigidLimitError(
                f"mass_matrix: {rows.shape[0]}×{rows.shape[1]} for {len(names)} coordinates; give N × N"
            )
        description: Dict[str, Any] = {
            "coordinates": names,
            "mass_matrix": [
                [text(rows[i, j], f"mass_matrix[{i}][{j}]") for j in range(len(names))]
                for i in range(len(names))
            ],
            "force": [text(f, f"force[{i}]") for i, f in enumerate(sympy.Matrix(force))],
            "contacts": [_contact(c, k, text) for k, c in enumerate(contacts)],
        }
        if parameters:
            description["parameters"] = {_name(k): float(v) for k, v in parameters.items()}
        if potential is not None:
            description["potential"] = text(potential, "potential")
        if validity:
            description["validity"] = [
                {"margin": text(v["margin"], f"validity[{i}].margin"), "meaning": str(v["meaning"])}
                for i, v in enumerate(validity)
            ]
        if initial is not None:
            description["initial"] = {
                key: [text(v, f"initial.{key}[{i}]") for i, v in enumerate(initial[key])]
                for key in ("q", "q_dot")
                if key in initial
            }
        return cls(description, name=name)


def _name(symbol: Any) -> str:
    """The name of a symbol, a dynamic symbol q(t), or a string."""
    if isinstance(symbol, str):
        return symbol
    from sympy.core.function import AppliedUndef

    if isinstance(symbol, AppliedUndef):
        return type(symbol).__name__
    return str(symbol)


def _state_symbols(coordinates: Sequence[Any], names: Sequence[str]) -> Dict[Any, Any]:
    """Substitutions that turn dynamic symbols q(t), q'(t) and the time into plain symbols."""
    import sympy

    subs: Dict[Any, Any] = {}
    times = set()
    for c, n in zip(coordinates, names):
        if isinstance(c, sympy.Symbol) or isinstance(c, str):
            continue
        if len(c.args) != 1:
            raise RigidLimitError(f"coordinates: {c} is not a symbol or a function of time q(t)")
        t = c.args[0]
        times.add(t)
        subs[sympy.Derivative(c, t)] = sympy.Symbol(f"{n}_dot")
    for c, n in zip(coordinates, names):
        if not (isinstance(c, sympy.Symbol) or isinstance(c, str)):
            subs[c] = sympy.Symbol(n)
    for t in times:
        subs[t] = sympy.Symbol("t")
    return subs


def _contact(contact: Mapping[str, Any], k: int, text) -> Dict[str, Any]:
    unknown = set(contact) - {"name", "gap", "tangents", "mu", "mu_s", "damping"}
    if unknown:
        raise RigidLimitError(
            f"contacts[{k}]: unknown key {sorted(unknown)[0]!r}: use name, gap, tangents, mu, mu_s, damping"
        )
    out: Dict[str, Any] = {
        "name": str(contact.get("name", f"C{k}")),
        "gap": text(contact["gap"], f"contacts[{k}].gap"),
        "tangents": [
            text(s, f"contacts[{k}].tangents[{j}]") for j, s in enumerate(contact["tangents"])
        ],
    }
    for key in ("mu", "mu_s", "damping"):
        if key in contact:
            value = contact[key]
            out[key] = value if isinstance(value, (int, float)) else _name(value)
    return out


def _expression_text(expression: Any, substitutions: Mapping[Any, Any], where: str) -> str:
    """A SymPy expression as the description's expression text (``^`` for powers, ``ln``)."""
    import sympy
    from sympy.core.function import AppliedUndef
    from sympy.printing.str import StrPrinter

    class Printer(StrPrinter):
        def _print_Float(self, expr):
            # Every bit of the float (SymPy prints 15 digits).
            return repr(float(expr))

        def _print_Function(self, expr):
            name = type(expr).__name__
            if name not in _FUNCTIONS:
                raise RigidLimitError(
                    f"{where}: function {name} is not one of sin, cos, tan, exp, log, sqrt, Abs"
                )
            return f"{_FUNCTIONS[name]}({', '.join(self._print(a) for a in expr.args)})"

        def _print_Exp1(self, expr):
            return "exp(1)"

        def _print_Pi(self, expr):
            return "pi"

        def _print_Derivative(self, expr):
            raise RigidLimitError(
                f"{where}: {expr} is a derivative of something that is not a coordinate"
            )

    e = sympy.sympify(expression)
    if substitutions:
        e = e.subs(substitutions)
    left = e.atoms(AppliedUndef)
    if left:
        raise RigidLimitError(
            f"{where}: {sorted(map(str, left))[0]} is a function of time but not a coordinate; list it in coordinates"
        )
    if e.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise RigidLimitError(f"{where}: {e} is not finite")
    # Python's power operator is the description's ^ (the same precedence: -x^2 is -(x^2)).
    return Printer().doprint(e).replace("**", "^")
