//! Placeholder: being written.
use super::{SolverStats, StepControl, Stepper, VectorField};

pub struct Rodas4<F> {
    _f: F,
}

impl<F: VectorField> Rodas4<F> {
    pub fn new(_f: F, _y0: &[f64], _control: StepControl) -> Result<Self, String> {
        Err("Rodas4 is not available yet".to_string())
    }
}

impl<F: VectorField> Stepper for Rodas4<F> {
    type Saved = ();
    fn time(&self) -> f64 {
        0.0
    }
    fn state(&self, _out: &mut [f64]) {}
    fn step(&mut self) -> Result<bool, String> {
        Err("unavailable".into())
    }
    fn set_stop_time(&mut self, _t: f64) -> Result<(), String> {
        Ok(())
    }
    fn interpolate(&self, _t: f64, _out: &mut [f64]) -> Result<(), String> {
        Ok(())
    }
    fn save(&self) -> Self::Saved {}
    fn restore(&mut self, _saved: Self::Saved) {}
    fn stats(&self) -> SolverStats {
        SolverStats::default()
    }
}
