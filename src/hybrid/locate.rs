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
    /// Whether each watched function is on its crossing's start side at the start of the
    /// current segment (a crossing needs it to be).
    start_side: Vec<bool>,
    /// Whether each watched function starts the phase on its surface, moving toward its start
    /// side ([`ScanBuffers::at_phase_start`]); only in the phase's first segment.
    on_surface: Vec<bool>,
    /// The domain margins, likewise.
    m_start: Vec<f64>,
    m_scan: Vec<f64>,
}

impl ScanBuffers {
    /// The buffers of a phase of `mode` that starts at `y0`; `resolution` is the integrator's
    /// error weight of each component there (`atol_i + rtol·|y_i|`).
    ///
    /// A phase starts at the located root of the event that ended the previous one, so the
    /// watched functions of the same surface start at zero up to a residue of either sign
    /// (δ = +3.4e-23 after a grazing opening, against an absolute tolerance of 1e-18 on the
    /// gap). A function on or past zero by less than the integrator resolves of it,
    /// `|g| ≤ Σ |∂g/∂y_i|·resolution_i`, and moving toward its start side, is *on its surface*:
    /// if the phase's first scan point finds it past zero, [`scan_step`] looks between the two
    /// for an excursion to the start side that the scan point stepped over (a free flight of
    /// 5e-5 after a grazing opening) and, if there is one, locates its end as a crossing.
    /// Otherwise the contact would never close again (docs/tolerances.md, "A phase that starts
    /// on an event surface").
    pub fn at_phase_start<H: HybridSystem>(
        sys: &H,
        mode: H::Mode,
        y0: &[f64],
        resolution: &[f64],
    ) -> Self {
        let n = y0.len();
        let watched = sys.watched(mode);
        let margins = sys.domain().len();
        let mut flow: Option<Vec<f64>> = None;
        let g_start: Vec<f64> = watched
            .iter()
            .map(|&(e, _)| sys.event_value(mode, e, y0))
            .collect();
        let start_side: Vec<bool> = watched
            .iter()
            .zip(&g_start)
            .map(|(&(_, crossing), &g)| crossing.is_start_side(g))
            .collect();
        let mut on_surface = vec![false; watched.len()];
        for (j, &(event, crossing)) in watched.iter().enumerate() {
            if start_side[j] {
                continue;
            }
            let flow = flow.get_or_insert_with(|| {
                let mut f = vec![0.0; n];
                sys.field(mode, y0, &mut f);
                f
            });
            let rate = sys.event_rate(mode, event, y0, flow);
            on_surface[j] = crossing.is_start_side(rate)
                && g_start[j].abs() <= event_resolution(sys, mode, event, y0, resolution);
        }
        ScanBuffers {
            y: vec![0.0; n],
            g_scan: vec![0.0; watched.len()],
            g_start,
            start_side,
            on_surface,
            m_start: (0..margins).map(|i| sys.domain_margin(i, y0)).collect(),
            m_scan: vec![0.0; margins],
        }
    }
}

/// What the integrator resolves of `event`'s function at `y`: the components' error weights
/// propagated to first order, `Σ |∂g/∂y_i|·resolution_i` (exact partial derivatives, dual
/// numbers).
fn event_resolution<H: HybridSystem>(
    sys: &H,
    mode: H::Mode,
    event: H::Event,
    y: &[f64],
    resolution: &[f64],
) -> f64 {
    let mut unit = vec![0.0; y.len()];
    let mut sum = 0.0;
    for (i, &w) in resolution.iter().enumerate() {
        unit[i] = 1.0;
        sum += sys.event_rate(mode, event, y, &unit).abs() * w;
        unit[i] = 0.0;
    }
    sum
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
        start_side,
        on_surface,
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
            if !crossing.reached(g_scan[j]) {
                continue;
            }
            let g_of = |t: f64| Ok(sys.event_value(mode, event, &interpolated(t)?));
            let from = if start_side[j] {
                (seg_start, g_start[j])
            } else if on_surface[j] {
                match excursion(g_of, crossing, seg_start, seg_end)? {
                    Some(from) => from,
                    None => continue,
                }
            } else {
                continue;
            };
            let t_root = locate_root(g_of, from.0, seg_end, from.1, g_scan[j])?;
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
        for (side, (&(_, crossing), &g)) in start_side.iter_mut().zip(watched.iter().zip(&*g_start))
        {
            *side = crossing.is_start_side(g);
        }
        on_surface.fill(false);
    }
    let exit = exit.filter(|&(_, te)| switch.is_none_or(|(_, ts)| te <= ts));
    Ok(Scan {
        switch,
        extrema,
        exit,
    })
}

/// Halvings of the first segment searched for an excursion ([`excursion`]): down to 2⁻⁶⁴ of it.
const EXCURSION_PROBES: usize = 64;

/// A function that starts on its surface, moving toward its start side, is past zero at the end
/// of the segment `[a, b]`: find a time in between where it is strictly on the start side
/// (an excursion the scan stepped over), probing `a + (b − a)/2^k` from the end toward `a`.
/// The excursion starts within the residue's distance of `a` and lasts about `2|ġ/g̈|`, so
/// the geometric probes meet it unless it is shorter than twice its own start time. `None`:
/// the function never left the surface (a residue on the far side that the flow is still
/// overcoming, such as a slip velocity of −1.5e-17 at the start of a reverse slip that grows
/// from zero acceleration).
fn excursion(
    g: impl Fn(f64) -> Result<f64, SimError>,
    crossing: super::Crossing,
    a: f64,
    b: f64,
) -> Result<Option<(f64, f64)>, SimError> {
    let mut t = b;
    for _ in 0..EXCURSION_PROBES {
        t = a + 0.5 * (t - a);
        if t <= a {
            break;
        }
        let gt = g(t)?;
        if crossing.is_start_side(gt) {
            return Ok(Some((t, gt)));
        }
    }
    Ok(None)
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
