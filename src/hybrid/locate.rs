//! Event location: scan a step's dense output for crossings, bracket and solve for the root,
//! then refine the earliest switching event so that its error is set by the integration
//! tolerance, not by the step size.

use super::HybridSystem;
use crate::error::SimError;
use crate::integrate::Stepper;

/// Dense-output samples per step scanned for sign changes, so that two crossings inside one step
/// (docs/tolerances.md, trap 1) are seen.
pub const SCAN_POINTS: usize = 4;
/// Newton refinement accepts a Taylor correction of at most this fraction of the step.
const TAYLOR_FRACTION: f64 = 1e-3;

/// What the scan of one step found.
pub struct Scan<E> {
    /// The earliest switching event and its (phase-local) time on the dense output.
    pub switch: Option<(E, f64)>,
    /// Non-switching events located before the earliest switch found so far, with the
    /// interpolated state there.
    pub extrema: Vec<(E, f64, Vec<f64>)>,
    /// The first margin of the domain ([`HybridSystem::domain`]) to reach zero, if it does so
    /// before the switch, and its (phase-local) time.
    pub exit: Option<(usize, f64)>,
}

/// The scan's state within a phase, allocated once per phase and reused by every step.
pub struct ScanBuffers {
    y: Vec<f64>,
    /// The watched functions at the start of the current segment; after a scan without a
    /// switch, at the end of the step (the start of the next).
    g_start: Vec<f64>,
    g_scan: Vec<f64>,
    /// The domain margins, likewise.
    m_start: Vec<f64>,
    m_scan: Vec<f64>,
}

impl ScanBuffers {
    /// The buffers of a phase of `mode` that starts at `y0`.
    pub fn at_phase_start<H: HybridSystem>(sys: &H, mode: H::Mode, y0: &[f64]) -> Self {
        let watched = sys.watched(mode);
        let margins = sys.domain().len();
        ScanBuffers {
            y: vec![0.0; y0.len()],
            g_start: watched
                .iter()
                .map(|&(e, _)| sys.event_value(mode, e, y0))
                .collect(),
            g_scan: vec![0.0; watched.len()],
            m_start: (0..margins).map(|i| sys.domain_margin(i, y0)).collect(),
            m_scan: vec![0.0; margins],
        }
    }
}

/// Scan the step `[t_prev, t_step]` just taken by `st`: [`SCAN_POINTS`] interior points of the
/// dense output, then the step end; each watched function's sign change between two samples is
/// solved by [`locate_root`], and so is each domain margin's fall to zero. `buffers` holds the
/// values at `t_prev` and is left holding those at `t_step` when nothing switched.
#[allow(clippy::too_many_arguments)]
pub fn scan_step<H: HybridSystem, St: Stepper>(
    sys: &H,
    st: &St,
    mode: H::Mode,
    watched: &[(H::Event, super::Crossing)],
    t_prev: f64,
    t_step: f64,
    buffers: &mut ScanBuffers,
    failed: &impl Fn(f64, String) -> SimError,
) -> Result<Scan<H::Event>, SimError> {
    let n = sys.dim();
    let ScanBuffers {
        y: y_scan,
        g_start,
        g_scan,
        m_start,
        m_scan,
    } = buffers;
    let mut seg_start = t_prev;
    let mut switch: Option<(H::Event, f64)> = None;
    let mut exit: Option<(usize, f64)> = None;
    let mut extrema = Vec::new();
    let interpolated = |t: f64| -> Result<Vec<f64>, SimError> {
        let mut y = vec![0.0; n];
        st.interpolate(t, &mut y).map_err(|m| failed(t, m))?;
        Ok(y)
    };
    for k in 1..=SCAN_POINTS + 1 {
        let seg_end = if k == SCAN_POINTS + 1 {
            st.state(y_scan);
            t_step
        } else {
            let ts = t_prev + (t_step - t_prev) * k as f64 / (SCAN_POINTS + 1) as f64;
            st.interpolate(ts, y_scan).map_err(|m| failed(ts, m))?;
            ts
        };
        for (j, &(event, crossing)) in watched.iter().enumerate() {
            g_scan[j] = sys.event_value(mode, event, y_scan);
            if !crossing.crossed(g_start[j], g_scan[j]) {
                continue;
            }
            let g_of = |t: f64| Ok(sys.event_value(mode, event, &interpolated(t)?));
            let t_root = locate_root(g_of, seg_start, seg_end, g_start[j], g_scan[j])?;
            if switch.is_none_or(|(_, ts)| t_root < ts) {
                if sys.is_switching(event) {
                    switch = Some((event, t_root));
                } else {
                    extrema.push((event, t_root, interpolated(t_root)?));
                }
            }
        }
        for i in 0..m_start.len() {
            m_scan[i] = sys.domain_margin(i, y_scan);
            if !(m_start[i] > 0.0 && m_scan[i] <= 0.0) {
                continue;
            }
            let m_of = |t: f64| Ok(sys.domain_margin(i, &interpolated(t)?));
            let t_exit = locate_root(m_of, seg_start, seg_end, m_start[i], m_scan[i])?;
            if exit.is_none_or(|(_, te)| t_exit < te) {
                exit = Some((i, t_exit));
            }
        }
        if switch.is_some() || exit.is_some() {
            break;
        }
        seg_start = seg_end;
        std::mem::swap(g_start, g_scan);
        std::mem::swap(m_start, m_scan);
    }
    let exit = exit.filter(|&(_, te)| switch.is_none_or(|(_, ts)| te <= ts));
    Ok(Scan {
        switch,
        extrema,
        exit,
    })
}

/// Refine an event located on the dense output so that its error is set by the integration
/// tolerance: restore the integrator to the start of the step, step exactly to the located
/// time (a full-accuracy step, not an interpolation), then correct with Newton's method on the
/// event function along the flow, `Δt = −g/ġ`, and a second-order Taylor step
/// `y + Δt f + ½Δt² J f`. If the correction is not small against the step, step again to the
/// corrected time. Returns the phase-local event time and the state there.
#[allow(clippy::too_many_arguments)]
pub fn refine_event<H: HybridSystem, St: Stepper>(
    sys: &H,
    st: &mut St,
    saved: &St::Saved,
    mode: H::Mode,
    event: H::Event,
    t_prev: f64,
    y_prev: &[f64],
    t_step: f64,
    t_located: f64,
) -> Result<(f64, Vec<f64>), String> {
    let n = y_prev.len();
    let h = t_step - t_prev;
    st.restore(saved.clone());
    let mut at = t_prev;
    let mut y = y_prev.to_vec();
    let mut target = t_located;
    let mut flow = vec![0.0; n];
    let mut jf = vec![0.0; n];
    for iter in 0..6 {
        if target < at {
            st.restore(saved.clone());
            at = t_prev;
            y.copy_from_slice(y_prev);
        }
        // Closer than the integrator's stop-time round-off: stay and let Newton do it.
        if target - at > 200.0 * f64::EPSILON * (at.abs() + h.abs()) {
            st.advance_to(target)?;
            at = st.time();
            st.state(&mut y);
        }
        sys.field(mode, &y, &mut flow);
        let g = sys.event_value(mode, event, &y);
        let g_rate = sys.event_rate(mode, event, &y, &flow);
        let dt = if g_rate != 0.0 && g_rate.is_finite() {
            -g / g_rate
        } else {
            0.0
        };
        if dt.abs() <= TAYLOR_FRACTION * h.abs() || iter == 5 {
            sys.jvp(mode, &y, &flow, &mut jf);
            for i in 0..n {
                y[i] += dt * flow[i] + 0.5 * dt * dt * jf[i];
            }
            return Ok((at + dt, y));
        }
        target = (at + dt).clamp(t_prev, t_step);
    }
    unreachable!("the loop returns on its last iteration")
}

/// Illinois (modified regula falsi) on a bracketed sign change, to machine precision.
pub fn locate_root(
    mut g: impl FnMut(f64) -> Result<f64, SimError>,
    mut a: f64,
    mut b: f64,
    mut ga: f64,
    mut gb: f64,
) -> Result<f64, SimError> {
    if gb == 0.0 {
        return Ok(b);
    }
    let mut side = 0i8;
    for _ in 0..200 {
        if (b - a).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs()) {
            break;
        }
        let mut c = (a * gb - b * ga) / (gb - ga);
        if !(c > a && c < b) {
            c = 0.5 * (a + b);
        }
        let gc = g(c)?;
        if gc == 0.0 {
            return Ok(c);
        }
        if (gc > 0.0) == (gb > 0.0) {
            b = c;
            gb = gc;
            if side == -1 {
                ga *= 0.5;
            }
            side = -1;
        } else {
            a = c;
            ga = gc;
            if side == 1 {
                gb *= 0.5;
            }
            side = 1;
        }
    }
    Ok(0.5 * (a + b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illinois_finds_a_root_to_machine_precision() {
        let r = locate_root(|t| Ok(t.cos() - t), 0.0, 1.0, 1.0, 1f64.cos() - 1.0).unwrap();
        assert!((r.cos() - r).abs() < 1e-15);
    }
}
