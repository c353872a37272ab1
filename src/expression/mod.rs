//! Expressions of a described system (`model = "system"`): the mass matrix, the forces, the gaps
//! and tangential positions written as text. [`parse`] reads one into an [`Expr`] tree whose
//! variables are the coordinates, their velocities and time (parameters are folded in as
//! numbers); [`Expr::derivative`] differentiates it symbolically, so the contact frames
//! (d = ∂g/∂q, c = ∂s/∂q) and their drifts are exact derivatives, not differences; [`Expr::eval`]
//! evaluates it over any [`Real`] — `f64` for the vector field, dual numbers for the implicit
//! integrators' Jacobian–vector products — by walking the tree, with no allocation.
//!
//! Why not a crate: exmex, evalexpr, fasteval and meval evaluate over `f64` only (exmex also
//! differentiates, to first order), while the engine evaluates model functions over its own
//! dual and jet numbers and needs second derivatives for the drifts; the grammar below is 200
//! lines with its own tests and fuzzing.

mod derivative;
mod parse;
mod tape;

/// The names of the expressions in this folder's tests: x and y (alias th) the coordinates,
/// x_dot and w the velocities of x and y, t time, g the number 9.81.
#[cfg(test)]
fn test_scope(name: &str) -> Option<Symbol> {
    match name {
        "x" => Some(Symbol::Var(Var::Q(0))),
        "y" | "th" => Some(Symbol::Var(Var::Q(1))),
        "x_dot" => Some(Symbol::Var(Var::Qdot(0))),
        "w" => Some(Symbol::Var(Var::Qdot(1))),
        "t" => Some(Symbol::Var(Var::T)),
        "g" => Some(Symbol::Value(9.81)),
        _ => None,
    }
}

pub use parse::{parse, ParseError, Symbol};
pub use tape::{Tape, MAX_TAPE};

use crate::model::Real;

/// A variable of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    /// The coordinate q_i.
    Q(usize),
    /// The velocity q̇_i.
    Qdot(usize),
    /// Time.
    T,
}

/// A function of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Exp,
    Ln,
    Sqrt,
    Abs,
    /// The sign of the argument's value (−1 or +1), a constant to differentiation: the
    /// derivative of `abs`.
    Sign,
}

impl Func {
    /// The names `parse` accepts.
    pub(crate) const NAMES: [(&'static str, Func); 7] = [
        ("sin", Func::Sin),
        ("cos", Func::Cos),
        ("tan", Func::Tan),
        ("exp", Func::Exp),
        ("ln", Func::Ln),
        ("sqrt", Func::Sqrt),
        ("abs", Func::Abs),
    ];

    fn apply<S: Real>(self, x: S) -> S {
        match self {
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Exp => x.exp(),
            Func::Ln => x.ln(),
            Func::Sqrt => x.sqrt(),
            Func::Abs => x.abs(),
            Func::Sign => S::cst(if x.value() < 0.0 { -1.0 } else { 1.0 }),
        }
    }
}

/// An expression tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Num(f64),
    Var(Var),
    Neg(Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Div(Box<Expr>, Box<Expr>),
    /// A power with a constant integer exponent (evaluated by multiplication, any sign of base).
    Powi(Box<Expr>, i32),
    /// A general power a^b = exp(b ln a) (a > 0).
    Pow(Box<Expr>, Box<Expr>),
    Call(Func, Box<Expr>),
}

impl Expr {
    /// The value at (q, q̇, t).
    pub fn eval<S: Real>(&self, q: &[S], qdot: &[S], t: S) -> S {
        match self {
            Expr::Num(x) => S::cst(*x),
            Expr::Var(Var::Q(i)) => q[*i],
            Expr::Var(Var::Qdot(i)) => qdot[*i],
            Expr::Var(Var::T) => t,
            Expr::Neg(a) => -a.eval(q, qdot, t),
            Expr::Add(a, b) => a.eval(q, qdot, t) + b.eval(q, qdot, t),
            Expr::Sub(a, b) => a.eval(q, qdot, t) - b.eval(q, qdot, t),
            Expr::Mul(a, b) => a.eval(q, qdot, t) * b.eval(q, qdot, t),
            Expr::Div(a, b) => a.eval(q, qdot, t) / b.eval(q, qdot, t),
            Expr::Powi(a, n) => powi(a.eval(q, qdot, t), *n),
            Expr::Pow(a, b) => (b.eval(q, qdot, t) * a.eval(q, qdot, t).ln()).exp(),
            Expr::Call(f, a) => f.apply(a.eval(q, qdot, t)),
        }
    }

    /// The value when the expression has no variable, else `None`.
    pub fn constant(&self) -> Option<f64> {
        (!self.depends_on(|_| true)).then(|| self.eval::<f64>(&[], &[], 0.0))
    }

    /// Whether a variable for which `var` holds occurs in the expression.
    pub(crate) fn depends_on(&self, var: impl Fn(Var) -> bool + Copy) -> bool {
        match self {
            Expr::Num(_) => false,
            Expr::Var(v) => var(*v),
            Expr::Neg(a) | Expr::Powi(a, _) | Expr::Call(_, a) => a.depends_on(var),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Pow(a, b) => a.depends_on(var) || b.depends_on(var),
        }
    }

    /// The terms of a sum: `a + b − c` is `[a, b, −c]`.
    pub fn terms(&self) -> Vec<Expr> {
        match self {
            Expr::Add(a, b) => [a.terms(), b.terms()].concat(),
            Expr::Sub(a, b) => {
                let mut t = a.terms();
                t.extend(b.terms().into_iter().map(derivative::neg));
                t
            }
            other => vec![other.clone()],
        }
    }

    /// `self · other`, with zeros and ones folded.
    pub fn times(self, other: Expr) -> Expr {
        derivative::mul(self, other)
    }

    /// The sum of `terms` (0 when empty).
    pub fn sum(terms: impl IntoIterator<Item = Expr>) -> Expr {
        terms.into_iter().fold(Expr::Num(0.0), derivative::add)
    }
}

/// x^n by repeated squaring; a negative n as 1/x^|n|.
fn powi<S: Real>(x: S, n: i32) -> S {
    let mut base = x;
    let mut e = n.unsigned_abs();
    let mut acc = S::cst(1.0);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base;
        }
        e >>= 1;
        if e > 0 {
            base = base * base;
        }
    }
    if n < 0 {
        S::cst(1.0) / acc
    } else {
        acc
    }
}
