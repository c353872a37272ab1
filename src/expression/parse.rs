//! The grammar of an expression (precedence from loose to tight; `^` is right-associative and
//! binds tighter than a leading minus, so `-x^2` is −(x²) and `2^-1` is 0.5):
//!
//! ```text
//! sum     = product { ("+" | "-") product }
//! product = unary { ("*" | "/") unary }
//! unary   = ("-" | "+") unary | power
//! power   = atom [ "^" unary ]
//! atom    = number | name | name "(" sum ")" | "(" sum ")"
//! ```
//!
//! Names are resolved by the caller's scope: a variable, or a number (a parameter, `kappa`,
//! `pi`); functions are those of [`Func::NAMES`].

use super::derivative::{add, div, mul, neg, sub};
use super::{Expr, Func, Var};

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Symbol {
    Var(Var),
    Value(f64),
}

/// Why a text is not an expression: what, and where (1-based character position).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("at character {position}: {message}")]
pub struct ParseError {
    pub position: usize,
    pub message: String,
}

/// Parse `text`, resolving each name with `scope` (`pi` is π unless the scope defines it).
pub fn parse(text: &str, scope: &dyn Fn(&str) -> Option<Symbol>) -> Result<Expr, ParseError> {
    let mut p = Parser {
        chars: text.chars().collect(),
        at: 0,
        scope,
        depth: 0,
    };
    p.skip_space();
    if p.at == p.chars.len() {
        return Err(p.error("the expression is empty"));
    }
    let e = p.sum()?;
    p.skip_space();
    match p.peek() {
        None => Ok(e),
        Some(c) => Err(p.error(&format!("unexpected '{c}' after a complete expression"))),
    }
}

/// Nesting deeper than this is refused (a bound on recursion, not a limit anyone meets).
const MAX_DEPTH: usize = 200;

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    scope: &'a dyn Fn(&str) -> Option<Symbol>,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        ParseError {
            position: self.at + 1,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// The next non-space character, consumed if it is `c`.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let mut e = self.product()?;
        loop {
            if self.eat('+') {
                e = add(e, self.product()?);
            } else if self.eat('-') {
                e = sub(e, self.product()?);
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        loop {
            if self.eat('*') {
                e = mul(e, self.unary()?);
            } else if self.eat('/') {
                e = div(e, self.unary()?);
            } else {
                break;
            }
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let e = if self.eat('-') {
            neg(self.unary()?)
        } else if self.eat('+') {
            self.unary()?
        } else {
            self.power()?
        };
        self.depth -= 1;
        Ok(e)
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.atom()?;
        if !self.eat('^') {
            return Ok(base);
        }
        let exponent = self.unary()?;
        Ok(power(base, exponent))
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        self.skip_space();
        let start = self.at;
        match self.peek() {
            None => {
                Err(self.error("the expression ends where a number, a name or '(' is expected"))
            }
            Some('(') => {
                self.at += 1;
                let e = self.sum()?;
                if !self.eat(')') {
                    return Err(self.error("expected ')'"));
                }
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                self.skip_space();
                if self.peek() == Some('(') {
                    let Some(&(_, f)) = Func::NAMES.iter().find(|(n, _)| *n == name) else {
                        self.at = start;
                        let known: Vec<&str> = Func::NAMES.iter().map(|(n, _)| *n).collect();
                        return Err(self.error(&format!(
                            "unknown function '{name}' (functions: {})",
                            known.join(", ")
                        )));
                    };
                    self.at += 1;
                    let arg = self.sum()?;
                    if !self.eat(')') {
                        return Err(self.error(&format!("expected ')' closing {name}(")));
                    }
                    return Ok(call(f, arg));
                }
                match (self.scope)(&name) {
                    Some(Symbol::Var(v)) => Ok(Expr::Var(v)),
                    Some(Symbol::Value(x)) => Ok(Expr::Num(x)),
                    None if name == "pi" => Ok(Expr::Num(std::f64::consts::PI)),
                    None => {
                        self.at = start;
                        Err(self.error(&format!("unknown name '{name}'")))
                    }
                }
            }
            Some(c) => Err(self.error(&format!("unexpected '{c}'"))),
        }
    }

    fn number(&mut self) -> Result<Expr, ParseError> {
        let start = self.at;
        let digits = |p: &mut Parser| {
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.at += 1;
            }
        };
        digits(self);
        if self.peek() == Some('.') {
            self.at += 1;
            digits(self);
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.at += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                digits(self);
            } else {
                self.at = mark;
            }
        }
        let text: String = self.chars[start..self.at].iter().collect();
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Expr::Num(x)),
            _ => {
                self.at = start;
                Err(self.error(&format!("'{text}' is not a finite number")))
            }
        }
    }
}

/// `base ^ exponent`: by multiplication when the exponent is a constant integer.
fn power(base: Expr, exponent: Expr) -> Expr {
    match exponent.constant() {
        Some(n) if n.fract() == 0.0 && n.abs() <= 64.0 => {
            let n = n as i32;
            match (n, base.constant()) {
                (0, _) => Expr::Num(1.0),
                (1, _) => base,
                (_, Some(b)) => Expr::Num(super::powi(b, n)),
                _ => Expr::Powi(Box::new(base), n),
            }
        }
        _ => match (base.constant(), exponent.constant()) {
            (Some(b), Some(e)) => Expr::Num(b.powf(e)),
            _ => Expr::Pow(Box::new(base), Box::new(exponent)),
        },
    }
}

fn call(f: Func, arg: Expr) -> Expr {
    match arg.constant() {
        Some(x) => Expr::Num(f.apply(x)),
        None => Expr::Call(f, Box::new(arg)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scope;
    use super::*;

    fn value(text: &str, q: [f64; 2], qdot: [f64; 2], t: f64) -> f64 {
        parse(text, &test_scope).unwrap().eval(&q, &qdot, t)
    }

    #[test]
    fn precedence_and_associativity() {
        let q = [2.0, 3.0];
        assert_eq!(value("1 + 2 * 3", q, q, 0.0), 7.0);
        assert_eq!(value("-x^2", q, q, 0.0), -4.0);
        assert_eq!(value("2^3^2", q, q, 0.0), 512.0);
        assert_eq!(value("2^-1", q, q, 0.0), 0.5);
        assert_eq!(value("(1 + 2) * 3 - 4 / 2", q, q, 0.0), 7.0);
        assert_eq!(value("x - y - 1", q, q, 0.0), -2.0);
        assert_eq!(value("8 / 2 / 2", q, q, 0.0), 2.0);
        assert_eq!(value("g * t + x_dot", q, q, 2.0), 9.81 * 2.0 + 2.0);
        assert_eq!(value("1.5e-3 * 2E2", q, q, 0.0), 0.3);
        assert!(
            (value(
                "sin(pi/2) + cos(0) + exp(ln(2)) + sqrt(4) + abs(-1) + tan(0)",
                q,
                q,
                0.0
            ) - 7.0)
                .abs()
                < 1e-15
        );
        // A base below zero to an integer power is defined.
        assert_eq!(value("(-x)^3", q, q, 0.0), -8.0);
        assert!((value("x^0.5", q, q, 0.0) - 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn errors_name_the_position_and_the_problem() {
        let e = |text: &str| parse(text, &test_scope).unwrap_err().to_string();
        assert_eq!(e("x + z"), "at character 5: unknown name 'z'");
        assert_eq!(
            e("x + "),
            "at character 5: the expression ends where a number, a name or '(' is expected"
        );
        assert_eq!(e("(x + y"), "at character 7: expected ')'");
        assert_eq!(
            e("x y"),
            "at character 3: unexpected 'y' after a complete expression"
        );
        assert!(e("foo(x)").starts_with("at character 1: unknown function 'foo'"));
        assert_eq!(e(""), "at character 1: the expression is empty");
        assert_eq!(e("1e999"), "at character 1: '1e999' is not a finite number");
        assert_eq!(
            e("x # 2"),
            "at character 3: unexpected '#' after a complete expression"
        );
        assert!(e(&"(".repeat(500)).contains("nested too deeply"));
    }

    /// Random and truncated texts: an expression or an error, never a panic.
    #[test]
    fn fuzzed_texts_parse_or_fail_cleanly() {
        let pieces = [
            "x", "y", "t", "g", "x_dot", "1", "2.5", "1e-3", "+", "-", "*", "/", "^", "(", ")",
            "sin(", "ln(", "abs(", " ", "pi", ".", "e", "z", "1e", "^-",
        ];
        let mut state: u64 = 0x9e3779b97f4a7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut parsed = 0;
        for _ in 0..20_000 {
            let n = 1 + (next() % 12) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            for end in [text.len(), text.len() / 2] {
                if let Ok(e) = parse(&text[..end], &test_scope) {
                    parsed += 1;
                    let _ = e.eval(&[1.0, 2.0], &[0.5, 0.1], 0.3);
                    let _ = e.derivative(Var::Q(0));
                }
            }
        }
        assert!(parsed > 1000, "{parsed}");
    }
}
