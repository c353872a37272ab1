//! Symbolic differentiation, and the constructors that keep derivative trees small: constants
//! folded, zeros and ones dropped (∂(ρ θ̇²)/∂x is 0, not a product with a zero).

use super::{Expr, Func, Var};

impl Expr {
    /// ∂self/∂var.
    pub fn derivative(&self, var: Var) -> Expr {
        let d = |e: &Expr| e.derivative(var);
        match self {
            Expr::Num(_) => Expr::Num(0.0),
            Expr::Var(v) => Expr::Num(if *v == var { 1.0 } else { 0.0 }),
            Expr::Neg(a) => neg(d(a)),
            Expr::Add(a, b) => add(d(a), d(b)),
            Expr::Sub(a, b) => sub(d(a), d(b)),
            Expr::Mul(a, b) => add(mul(d(a), (**b).clone()), mul((**a).clone(), d(b))),
            // (a/b)' = a'/b − a b'/b².
            Expr::Div(a, b) => sub(
                div(d(a), (**b).clone()),
                div(
                    mul((**a).clone(), d(b)),
                    Expr::Powi(Box::new((**b).clone()), 2),
                ),
            ),
            Expr::Powi(a, n) => {
                let lower = match n - 1 {
                    0 => Expr::Num(1.0),
                    1 => (**a).clone(),
                    m => Expr::Powi(a.clone(), m),
                };
                mul(mul(Expr::Num(f64::from(*n)), lower), d(a))
            }
            // (a^b)' = a^b (b' ln a + b a'/a).
            Expr::Pow(a, b) => mul(
                self.clone(),
                add(
                    mul(d(b), call(Func::Ln, (**a).clone())),
                    div(mul((**b).clone(), d(a)), (**a).clone()),
                ),
            ),
            Expr::Call(f, a) => {
                let a0 = (**a).clone();
                let outer = match f {
                    Func::Sin => call(Func::Cos, a0),
                    Func::Cos => neg(call(Func::Sin, a0)),
                    Func::Tan => div(Expr::Num(1.0), Expr::Powi(Box::new(call(Func::Cos, a0)), 2)),
                    Func::Exp => self.clone(),
                    Func::Ln => div(Expr::Num(1.0), a0),
                    Func::Sqrt => div(Expr::Num(0.5), self.clone()),
                    Func::Abs => call(Func::Sign, a0),
                    Func::Sign => Expr::Num(0.0),
                };
                mul(outer, d(a))
            }
        }
    }
}

fn num(e: &Expr) -> Option<f64> {
    match e {
        Expr::Num(x) => Some(*x),
        _ => None,
    }
}

pub(super) fn call(f: Func, a: Expr) -> Expr {
    Expr::Call(f, Box::new(a))
}

pub(super) fn neg(a: Expr) -> Expr {
    match a {
        Expr::Num(x) => Expr::Num(-x),
        Expr::Neg(inner) => *inner,
        other => Expr::Neg(Box::new(other)),
    }
}

pub(super) fn add(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => Expr::Num(x + y),
        (Some(0.0), _) => b,
        (_, Some(0.0)) => a,
        _ => Expr::Add(Box::new(a), Box::new(b)),
    }
}

pub(super) fn sub(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => Expr::Num(x - y),
        (Some(0.0), _) => neg(b),
        (_, Some(0.0)) => a,
        _ => Expr::Sub(Box::new(a), Box::new(b)),
    }
}

pub(super) fn mul(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => Expr::Num(x * y),
        (Some(0.0), _) | (_, Some(0.0)) => Expr::Num(0.0),
        (Some(1.0), _) => b,
        (_, Some(1.0)) => a,
        (Some(-1.0), _) => neg(b),
        (_, Some(-1.0)) => neg(a),
        _ => Expr::Mul(Box::new(a), Box::new(b)),
    }
}

pub(super) fn div(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        // A constant quotient by zero stays a quotient: its evaluation gives the non-finite
        // value that the run reports, rather than a folded one at parse time.
        (Some(x), Some(y)) if y != 0.0 => Expr::Num(x / y),
        (Some(0.0), _) => Expr::Num(0.0),
        (_, Some(1.0)) => a,
        _ => Expr::Div(Box::new(a), Box::new(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, test_scope};
    use super::*;
    use crate::model::{Dual, Real};

    /// Each symbolic derivative against forward-mode dual numbers (an independent method: the
    /// tree evaluated on ε-carrying numbers) at a few points.
    #[test]
    fn symbolic_derivatives_agree_with_dual_numbers() {
        let texts = [
            "x^3 - 2*x*y + y^2/x",
            "sin(x)*cos(y) + tan(x/3)",
            "exp(-x*y) + ln(1 + x^2) + sqrt(2 + y)",
            "abs(x - 0.1) * x_dot^2 + t*x",
            "x^y + (x + y)^-2 + 3^x",
            "-(x - y)^2 / (1 + exp(x))",
        ];
        for text in texts {
            let e = parse(text, &test_scope).unwrap();
            for (x, y) in [(0.7, 1.3), (1.9, 0.4), (0.35, 2.2)] {
                for (var, seed) in [(Var::Q(0), [1.0, 0.0]), (Var::Q(1), [0.0, 1.0])] {
                    let q = [Dual::new(x, seed[0]), Dual::new(y, seed[1])];
                    let qdot = [Dual::cst(0.8), Dual::cst(0.0)];
                    let want = e.eval(&q, &qdot, Dual::cst(0.6)).eps;
                    let got = e.derivative(var).eval(&[x, y], &[0.8, 0.0], 0.6);
                    assert!(
                        (got - want).abs() <= 1e-13 * (1.0 + want.abs()),
                        "∂({text})/∂{var:?} at ({x}, {y}): {got} against {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn constants_fold_and_zeros_drop() {
        let e = parse("3*x + 2*y*y", &test_scope).unwrap();
        assert_eq!(e.derivative(Var::Q(0)), Expr::Num(3.0));
        assert_eq!(e.derivative(Var::Qdot(0)), Expr::Num(0.0));
        assert_eq!(parse("2*3 + 1", &test_scope).unwrap(), Expr::Num(7.0));
    }
}
