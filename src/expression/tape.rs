//! Several expressions compiled together into one straight-line program (a "tape"): every
//! distinct subexpression is computed once per evaluation (the mass matrix's four sin θ and the
//! force's cos θ of the rod are one `sin_cos`), in registers on the stack, with no allocation.
//! The tree walk of [`Expr::eval`] computes a shared subexpression once per occurrence; on the
//! rod's vector field the tape is what brings a described system near the hand-written one
//! (docs/performance.md, "Described systems").

use super::{Expr, Func, Var};
use crate::model::Real;
use std::collections::HashMap;

/// One instruction; operands are earlier registers. Equal instructions share a register
/// (the builder's index), so a number is held by its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Op {
    /// A number, `f64::to_bits` of it.
    Num(u64),
    Q(usize),
    Qdot(usize),
    T,
    Neg(usize),
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    Div(usize, usize),
    Powi(usize, i32),
    Pow(usize, usize),
    Call(Func, usize),
    /// sin of the operand here, its cos in the next register (a [`Op::Filled`]).
    SinCos(usize),
    /// Written by the instruction before.
    Filled,
}

/// The longest tape: its registers live on the stack (at most 512 numbers).
pub const MAX_TAPE: usize = 512;

/// Expressions compiled into one program.
#[derive(Clone, Debug, PartialEq)]
pub struct Tape {
    ops: Vec<Op>,
    outputs: Vec<usize>,
}

impl Tape {
    /// Compile `exprs`; `None` when they have more than [`MAX_TAPE`] distinct subexpressions.
    pub fn new(exprs: &[&Expr]) -> Option<Tape> {
        let mut b = Builder {
            ops: Vec::new(),
            index: HashMap::new(),
        };
        let outputs = exprs.iter().map(|e| b.node(e)).collect();
        (b.ops.len() <= MAX_TAPE).then_some(Tape {
            ops: b.ops,
            outputs,
        })
    }

    /// The number of values an evaluation gives.
    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The number of registers.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The values of the expressions at (q, q̇, t), in the order given to [`Tape::new`], into
    /// `out`.
    pub fn eval<S: Real>(&self, q: &[S], qdot: &[S], t: S, out: &mut [S]) {
        // Registers sized to the tape, from a few sizes: zeroing them is part of every call.
        match self.ops.len() {
            0..=32 => self.run::<S, 32>(q, qdot, t, out),
            33..=64 => self.run::<S, 64>(q, qdot, t, out),
            65..=128 => self.run::<S, 128>(q, qdot, t, out),
            129..=256 => self.run::<S, 256>(q, qdot, t, out),
            _ => self.run::<S, MAX_TAPE>(q, qdot, t, out),
        }
    }

    fn run<S: Real, const R: usize>(&self, q: &[S], qdot: &[S], t: S, out: &mut [S]) {
        let mut r = [S::zero(); R];
        for (i, op) in self.ops.iter().enumerate() {
            r[i] = match *op {
                Op::Num(bits) => S::cst(f64::from_bits(bits)),
                Op::Q(k) => q[k],
                Op::Qdot(k) => qdot[k],
                Op::T => t,
                Op::Neg(a) => -r[a],
                Op::Add(a, b) => r[a] + r[b],
                Op::Sub(a, b) => r[a] - r[b],
                Op::Mul(a, b) => r[a] * r[b],
                Op::Div(a, b) => r[a] / r[b],
                Op::Powi(a, n) => super::powi(r[a], n),
                Op::Pow(a, b) => (r[b] * r[a].ln()).exp(),
                Op::Call(f, a) => f.apply(r[a]),
                Op::SinCos(a) => {
                    let (s, c) = r[a].sin_cos();
                    r[i + 1] = c;
                    s
                }
                Op::Filled => r[i],
            };
        }
        for (o, &k) in out.iter_mut().zip(&self.outputs) {
            *o = r[k];
        }
    }
}

struct Builder {
    ops: Vec<Op>,
    index: HashMap<Op, usize>,
}

impl Builder {
    /// The register holding `op`'s value, emitting `op` if no register does yet.
    fn emit(&mut self, op: Op) -> usize {
        if let Some(&i) = self.index.get(&op) {
            return i;
        }
        let i = self.ops.len();
        self.ops.push(op);
        if let Op::SinCos(_) = op {
            self.ops.push(Op::Filled);
        }
        self.index.insert(op, i);
        i
    }

    fn node(&mut self, e: &Expr) -> usize {
        match e {
            Expr::Num(x) => self.emit(Op::Num(x.to_bits())),
            Expr::Var(Var::Q(k)) => self.emit(Op::Q(*k)),
            Expr::Var(Var::Qdot(k)) => self.emit(Op::Qdot(*k)),
            Expr::Var(Var::T) => self.emit(Op::T),
            Expr::Neg(a) => {
                let a = self.node(a);
                self.emit(Op::Neg(a))
            }
            Expr::Add(a, b) => {
                let (a, b) = (self.node(a), self.node(b));
                self.emit(Op::Add(a, b))
            }
            Expr::Sub(a, b) => {
                let (a, b) = (self.node(a), self.node(b));
                self.emit(Op::Sub(a, b))
            }
            Expr::Mul(a, b) => {
                let (a, b) = (self.node(a), self.node(b));
                self.emit(Op::Mul(a, b))
            }
            Expr::Div(a, b) => {
                let (a, b) = (self.node(a), self.node(b));
                self.emit(Op::Div(a, b))
            }
            Expr::Powi(a, n) => {
                let a = self.node(a);
                self.emit(Op::Powi(a, *n))
            }
            Expr::Pow(a, b) => {
                let (a, b) = (self.node(a), self.node(b));
                self.emit(Op::Pow(a, b))
            }
            Expr::Call(f @ (Func::Sin | Func::Cos), a) => {
                let a = self.node(a);
                let sin = self.emit(Op::SinCos(a));
                if *f == Func::Sin {
                    sin
                } else {
                    sin + 1
                }
            }
            Expr::Call(f, a) => {
                let a = self.node(a);
                self.emit(Op::Call(*f, a))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, test_scope};
    use super::*;
    use crate::model::Dual;

    /// The tape gives the tree walk's values bit for bit (the same operations in the same
    /// order), in f64 and in dual numbers, and shares what repeats.
    #[test]
    fn the_tape_evaluates_as_the_tree_and_shares_subexpressions() {
        let texts = [
            "-sin(th)",
            "cos(th)",
            "1 + 0.25",
            "cos(th)*w^2",
            "sin(th)*w^2 - 1",
            "-cos(th) + x^-2 + exp(x*t) + abs(x - th)",
            "x^th + tan(th) + sqrt(x) + ln(x)",
        ];
        let exprs: Vec<Expr> = texts
            .iter()
            .map(|t| parse(t, &test_scope).unwrap())
            .collect();
        let refs: Vec<&Expr> = exprs.iter().collect();
        let tape = Tape::new(&refs).unwrap();
        // th, sin/cos(th) (two registers), w, w², … : sin θ and cos θ are computed once.
        let sincos = tape
            .ops
            .iter()
            .filter(|o| matches!(o, Op::SinCos(_)))
            .count();
        assert_eq!(sincos, 1);
        let (q, qdot) = ([1.7, 0.4], [0.3, -2.0]);
        let mut out = vec![0.0; exprs.len()];
        tape.eval(&q, &qdot, 0.9, &mut out);
        for (e, o) in exprs.iter().zip(&out) {
            assert_eq!(e.eval(&q, &qdot, 0.9).to_bits(), o.to_bits(), "{e:?}");
        }
        let qd = [Dual::new(1.7, 1.0), Dual::new(0.4, -0.5)];
        let qdotd = [Dual::new(0.3, 0.2), Dual::new(-2.0, 1.0)];
        let mut outd = vec![Dual::cst(0.0); exprs.len()];
        tape.eval(&qd, &qdotd, Dual::cst(0.9), &mut outd);
        for (e, o) in exprs.iter().zip(&outd) {
            let want = e.eval(&qd, &qdotd, Dual::cst(0.9));
            assert_eq!(
                (want.re.to_bits(), want.eps.to_bits()),
                (o.re.to_bits(), o.eps.to_bits())
            );
        }
    }

    #[test]
    fn a_tape_longer_than_its_registers_is_refused() {
        let long: Vec<Expr> = (0..=MAX_TAPE).map(|i| Expr::Num(i as f64)).collect();
        let refs: Vec<&Expr> = long.iter().collect();
        assert!(Tape::new(&refs).is_none());
    }
}
