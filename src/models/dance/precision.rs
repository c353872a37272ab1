//! The number types the formal series is computed in (docs/dance.md, "Arithmetic"): exact
//! rationals, binary floating point with a fixed number of mantissa bits, and f64, behind one
//! small trait so that the recurrence is written once.
//!
//! Why not f64 alone: the coefficients of Dance's μ = 1 series grow like n!/3ⁿ (about 10⁸⁹⁶ at
//! degree 1000, past f64's 10³⁰⁸), and the recurrence's Cauchy sums of alternating terms cancel.
//! Both types rest on `num_bigint::BigInt` (pure Rust, default features off).

use num_bigint::{BigInt, Sign};
use std::fmt;

/// The field operations the series recurrence needs.
pub trait SeriesScalar: Clone + fmt::Debug {
    /// The exact value of `x` (every finite f64 is a dyadic rational).
    fn from_f64(x: f64) -> Self;
    fn add(&self, other: &Self) -> Self;
    fn sub(&self, other: &Self) -> Self;
    fn mul(&self, other: &Self) -> Self;
    /// `self / other`; `other` is never zero in the recurrence (docs/dance.md, (D6)).
    fn div(&self, other: &Self) -> Self;
    fn is_zero(&self) -> bool;
    /// The nearest f64 (±∞ or 0 outside f64's range).
    fn to_f64(&self) -> f64;
    /// ln |x| (−∞ for 0), valid far outside f64's range.
    fn ln_abs(&self) -> f64;
    /// Whether x < 0.
    fn is_negative(&self) -> bool;

    fn from_int(n: i64) -> Self {
        Self::from_f64(n as f64)
    }
}

impl SeriesScalar for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn div(&self, other: &Self) -> Self {
        self / other
    }
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn ln_abs(&self) -> f64 {
        self.abs().ln()
    }
    fn is_negative(&self) -> bool {
        *self < 0.0
    }
}

/// (mantissa, exponent) with x = mantissa · 2^exponent exactly, for finite x.
fn f64_parts(x: f64) -> (BigInt, i64) {
    assert!(
        x.is_finite(),
        "a series coefficient must be finite, got {x}"
    );
    if x == 0.0 {
        return (BigInt::ZERO, 0);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    };
    let m = BigInt::from(mantissa);
    (if x < 0.0 { -m } else { m }, exp)
}

/// m · 2^e as f64 for |m| of any size (the top 62 bits, which fit an i64, then the exponent).
fn scaled_to_f64(m: &BigInt, e: i64) -> f64 {
    let bits = m.bits() as i64;
    let shift = (bits - 62).max(0);
    let top = i64::try_from(&(m >> shift as u64)).unwrap_or(0) as f64;
    top * 2f64.powi((e + shift).clamp(-1100, 1100) as i32)
}

/// ln |m · 2^e| for m ≠ 0.
fn scaled_ln_abs(m: &BigInt, e: i64) -> f64 {
    if m.sign() == Sign::NoSign {
        return f64::NEG_INFINITY;
    }
    let bits = m.bits() as i64;
    let shift = (bits - 62).max(0);
    let top = i64::try_from(&(m >> shift as u64)).unwrap_or(1) as f64;
    top.abs().ln() + (e + shift) as f64 * std::f64::consts::LN_2
}

/// An exact rational num/den, den > 0, in lowest terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rational {
    pub num: BigInt,
    pub den: BigInt,
}

fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    let (mut a, mut b) = (a.clone(), b.clone());
    while b.sign() != Sign::NoSign {
        let r = &a % &b;
        a = b;
        b = r;
    }
    if a.sign() == Sign::Minus {
        -a
    } else {
        a
    }
}

impl Rational {
    /// num/den in lowest terms (den ≠ 0).
    pub fn new(num: BigInt, den: BigInt) -> Self {
        let g = gcd(&num, &den);
        let (mut num, mut den) = (num / &g, den / &g);
        if den.sign() == Sign::Minus {
            num = -num;
            den = -den;
        }
        Rational { num, den }
    }

    pub fn ratio(num: i64, den: i64) -> Self {
        Rational::new(BigInt::from(num), BigInt::from(den))
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == BigInt::from(1) {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

impl SeriesScalar for Rational {
    fn from_f64(x: f64) -> Self {
        let (m, e) = f64_parts(x);
        if e >= 0 {
            Rational::new(m << e as u64, BigInt::from(1))
        } else {
            Rational::new(m, BigInt::from(1) << (-e) as u64)
        }
    }
    fn add(&self, o: &Self) -> Self {
        Rational::new(&self.num * &o.den + &o.num * &self.den, &self.den * &o.den)
    }
    fn sub(&self, o: &Self) -> Self {
        Rational::new(&self.num * &o.den - &o.num * &self.den, &self.den * &o.den)
    }
    fn mul(&self, o: &Self) -> Self {
        Rational::new(&self.num * &o.num, &self.den * &o.den)
    }
    fn div(&self, o: &Self) -> Self {
        Rational::new(&self.num * &o.den, &self.den * &o.num)
    }
    fn is_zero(&self) -> bool {
        self.num.sign() == Sign::NoSign
    }
    fn to_f64(&self) -> f64 {
        (self.ln_abs().exp()).copysign(if self.is_negative() { -1.0 } else { 1.0 })
    }
    fn ln_abs(&self) -> f64 {
        scaled_ln_abs(&self.num, 0) - scaled_ln_abs(&self.den, 0)
    }
    fn is_negative(&self) -> bool {
        self.num.sign() == Sign::Minus
    }
}

/// A binary floating-point number with `BITS` mantissa bits: x = mantissa · 2^exponent,
/// |mantissa| < 2^BITS, results truncated (rounded toward −∞) to `BITS` bits, so each
/// operation's relative error is below 2^(1−BITS). The exponent is an i64: no overflow at any
/// size a series coefficient reaches. 200 bits are 60 decimal digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BigFloat<const BITS: u64> {
    mantissa: BigInt,
    exponent: i64,
}

impl<const BITS: u64> BigFloat<BITS> {
    /// Decimal digits carried: BITS·log₁₀ 2.
    pub const DIGITS: f64 = BITS as f64 * std::f64::consts::LOG10_2;

    fn normalized(mantissa: BigInt, exponent: i64) -> Self {
        let bits = mantissa.bits();
        if bits > BITS {
            let excess = bits - BITS;
            BigFloat {
                mantissa: mantissa >> excess,
                exponent: exponent + excess as i64,
            }
        } else {
            BigFloat { mantissa, exponent }
        }
    }

    /// The relative difference |x − y|/|y| (0 when both are 0), as f64.
    pub fn relative_difference(&self, other: &Self) -> f64 {
        if other.is_zero() {
            return if self.is_zero() { 0.0 } else { f64::INFINITY };
        }
        (self.sub(other).ln_abs() - other.ln_abs()).exp()
    }

    /// The same value carried with `B` bits.
    pub fn with_bits<const B: u64>(&self) -> BigFloat<B> {
        BigFloat::<B>::normalized(self.mantissa.clone(), self.exponent)
    }
}

impl<const BITS: u64> SeriesScalar for BigFloat<BITS> {
    fn from_f64(x: f64) -> Self {
        let (m, e) = f64_parts(x);
        Self::normalized(m, e)
    }
    fn add(&self, o: &Self) -> Self {
        if self.is_zero() {
            return o.clone();
        }
        if o.is_zero() {
            return self.clone();
        }
        // Align on the smaller exponent; an addend more than BITS + 2 bits below the other's
        // lowest kept bit cannot change the truncated sum except by its sign's borrow, which is
        // below the precision carried.
        let (hi, lo) = if self.exponent >= o.exponent {
            (self, o)
        } else {
            (o, self)
        };
        let gap = (hi.exponent - lo.exponent) as u64;
        let lo_top = lo.exponent + lo.mantissa.bits() as i64;
        if lo_top + (BITS as i64) + 2 < hi.exponent {
            return hi.clone();
        }
        Self::normalized((&hi.mantissa << gap) + &lo.mantissa, lo.exponent)
    }
    fn sub(&self, o: &Self) -> Self {
        self.add(&BigFloat {
            mantissa: -o.mantissa.clone(),
            exponent: o.exponent,
        })
    }
    fn mul(&self, o: &Self) -> Self {
        Self::normalized(&self.mantissa * &o.mantissa, self.exponent + o.exponent)
    }
    fn div(&self, o: &Self) -> Self {
        assert!(!o.is_zero(), "division by zero in the series recurrence");
        let shift = BITS + o.mantissa.bits() + 1;
        Self::normalized(
            (&self.mantissa << shift) / &o.mantissa,
            self.exponent - o.exponent - shift as i64,
        )
    }
    fn is_zero(&self) -> bool {
        self.mantissa.sign() == Sign::NoSign
    }
    fn to_f64(&self) -> f64 {
        scaled_to_f64(&self.mantissa, self.exponent)
    }
    fn ln_abs(&self) -> f64 {
        scaled_ln_abs(&self.mantissa, self.exponent)
    }
    fn is_negative(&self) -> bool {
        self.mantissa.sign() == Sign::Minus
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rationals_are_exact() {
        let third = Rational::ratio(1, 3);
        let x = third
            .add(&Rational::from_f64(0.5))
            .mul(&Rational::from_int(6));
        assert_eq!(x, Rational::from_int(5));
        assert_eq!(Rational::ratio(-4, -6).to_string(), "2/3");
        assert_eq!(Rational::from_f64(-0.375).to_string(), "-3/8");
        assert!((Rational::ratio(-1, 7).to_f64() + 1.0 / 7.0).abs() < 1e-16);
    }

    #[test]
    fn big_floats_carry_their_precision() {
        type F = BigFloat<256>;
        // 1/3·3 − 1 is 0 to the precision carried, and 10^400/10^399 = 10 far outside f64.
        let third = F::from_int(1).div(&F::from_int(3));
        let err = third.mul(&F::from_int(3)).sub(&F::from_int(1));
        assert!(
            err.ln_abs() < -250.0 * std::f64::consts::LN_2,
            "{}",
            err.ln_abs()
        );
        let ten = F::from_int(10);
        let mut big = F::from_int(1);
        for _ in 0..400 {
            big = big.mul(&ten);
        }
        assert!((big.ln_abs() - 400.0 * 10f64.ln()).abs() < 1e-9);
        assert!(big.to_f64().is_infinite());
        let mut smaller = F::from_int(1);
        for _ in 0..399 {
            smaller = smaller.mul(&ten);
        }
        assert!((big.div(&smaller).to_f64() - 10.0).abs() < 1e-14);
        // Adding a negligible term leaves the sum; cancellation keeps the small difference.
        // 1 + 1e-60 fits in 256 bits (2^-199 ≈ 1e-60), 1 + 1e-120 does not.
        let tiny = F::from_f64(1e-60);
        assert_eq!(F::from_int(1).add(&tiny.mul(&tiny)), F::from_int(1));
        let d = F::from_int(1).add(&tiny).sub(&F::from_int(1));
        assert!(d.relative_difference(&tiny) < 1e-15, "{:?}", d);
        assert_eq!(F::from_f64(-2.5).to_f64(), -2.5);
        assert!(F::from_f64(-2.5).is_negative());
    }
}
