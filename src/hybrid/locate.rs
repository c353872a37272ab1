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

/// The scan's state within a phase, refilled at every phase start ([`ScanBuffers::start_phase`])
/// to the phase's lengths and reused by every step; a thread keeps one for its runs, so that its
/// vectors are allocated by its first phase only.
#[derive(Default)]
pub struct ScanBuffers {
    y: Vec<f64>,
    /// A state interpolated while a root is solved for (Illinois, dips, excursions, margins).
    y_probe: Vec<f64>,
    /// The vector field at the step's end, when a turning point asks for it.
    flow: Vec<f64>,
    /// The watched functions at the start of the current segment; after a scan without a
    /// switch, at the end of the step (the start of the next). A crossing needs the function
    /// strictly on its start side there.
    g_start: Vec<f64>,
    g_scan: Vec<f64>,
    /// Whether each watched function starts the phase on its surface, moving toward its start
    /// side ([`ScanBuffers::start_phase`]); only in the phase's first segment.
    on_surface: Vec<bool>,
    /// Each watched function's resolution at the phase start (`Σ |∂g/∂y_i|·resolution_i`):
    /// computed for the functions that may start on their surface, and on first use for the
    /// others (NaN until then).
    surface_width: Vec<f64>,
    /// The components' resolutions at the phase start ([`ScanBuffers::start_phase`]).
    resolution: Vec<f64>,
    /// The phase's start state, its vector field and the watched functions' rates there (NaN
    /// until asked), for a dip inside the phase's first segment.
    y_start: Vec<f64>,
    start_flow: Vec<f64>,
    start_rates: Vec<f64>,
    /// The sample before the current segment's start (NaN in the phase's first segment), for
    /// [`dip_vertex`].
    t_before: f64,
    g_before: Vec<f64>,
    /// The domain margins, likewise.
    m_start: Vec<f64>,
    m_scan: Vec<f64>,
    /// The margins at `t_before`, for their dips between samples.
    m_before: Vec<f64>,
    /// The margins' nonzero slopes ([`HybridSystem::domain_margin_slopes`]).
    margin_slopes: SparseSlopes,
    /// The watched functions' nonzero slopes ([`HybridSystem::event_slopes`]).
    event_slopes: SparseSlopes,
    /// Scratch for one function's slopes, a dense vector of the state's length.
    slope_scratch: Vec<f64>,
}

/// One nonzero slope of a domain margin or a watched function (`function`, its index):
/// |∂g/∂y_component| ≤ `slope`.
#[derive(Clone, Copy)]
struct Slope {
    function: usize,
    component: usize,
    slope: f64,
}

/// The functions whose slopes [`SparseSlopes`] knows one by one: the first 64.
const KNOWN_ONE_BY_ONE: usize = u64::BITS as usize;

/// The nonzero slopes of a set of functions, function after function and in the state's
/// order within one, for the functions the system gives them for.
#[derive(Default)]
struct SparseSlopes {
    slopes: Vec<Slope>,
    /// Bit f: the system gives function f's slopes (the first [`KNOWN_ONE_BY_ONE`]).
    known: u64,
    /// Whether it gives every function's.
    all_known: bool,
}

impl SparseSlopes {
    /// Whether the system gives function `function`'s slopes (for one past the mask: whether
    /// it gives every function's).
    fn knows(&self, function: usize) -> bool {
        if function < KNOWN_ONE_BY_ONE {
            self.known >> function & 1 == 1
        } else {
            self.all_known
        }
    }

    /// Function `function`'s slopes.
    fn of(&self, function: usize) -> impl Iterator<Item = &Slope> {
        self.slopes.iter().filter(move |w| w.function == function)
    }

    /// Refill with the slopes of `count` functions, `slopes_of(f, out)` writing function f's
    /// into `dense` (a vector of the state's length, zeroed before each function) and saying
    /// whether it has them.
    fn refill(
        &mut self,
        count: usize,
        dense: &mut [f64],
        mut slopes_of: impl FnMut(usize, &mut [f64]) -> bool,
    ) {
        self.slopes.clear();
        self.known = 0;
        self.all_known = true;
        for function in 0..count {
            dense.fill(0.0);
            if !slopes_of(function, dense) {
                self.all_known = false;
                continue;
            }
            if function < KNOWN_ONE_BY_ONE {
                self.known |= 1 << function;
            }
            self.slopes
                .extend(dense.iter().enumerate().filter(|(_, &w)| w != 0.0).map(
                    |(component, &slope)| Slope {
                        function,
                        component,
                        slope,
                    },
                ));
        }
    }
}

/// `v` as `len` copies of `value`, in its own allocation when that is large enough.
pub(super) fn refill<T: Copy>(v: &mut Vec<T>, len: usize, value: T) {
    v.clear();
    v.resize(len, value);
}

/// `v` as a copy of `from`, likewise.
fn refill_from(v: &mut Vec<f64>, from: &[f64]) {
    v.clear();
    v.extend_from_slice(from);
}

impl ScanBuffers {
    /// Refill the buffers for a phase of `mode` that starts at `y0`, where its vector field is
    /// `flow0`;
    /// `resolution` is the integrator's error weight of each component there
    /// (`atol_i + rtol·|y_i|`).
    ///
    /// A phase starts at the located root of the event that ended the previous one, so the
    /// watched functions of the same surface start at zero up to a residue of either sign
    /// (δ = +3.4e-23 after a grazing opening, against an absolute tolerance of 1e-18 on the
    /// gap). A function on or past zero by less than the integrator resolves of it,
    /// `|g| ≤ Σ |∂g/∂y_i|·resolution_i`, is *on its surface*, whichever way it moves (its rate
    /// there is as uncertain as its value: u̇ = −3.5e-18 at a stick break), and so is, in a
    /// phase an event started (`after_event`), a switching function past zero by more (below);
    /// where it crosses, if the phase's first scan point finds it past zero, is the phase-start
    /// rule of `crossing_from_surface`. At the run's start a function past zero by more than
    /// its resolution is where the start put it, off its surface.
    pub fn start_phase<H: HybridSystem>(
        &mut self,
        sys: &H,
        mode: H::Mode,
        y0: &[f64],
        flow0: &[f64],
        resolution: &[f64],
        after_event: bool,
    ) {
        let n = y0.len();
        let watched = sys.watched(mode);
        let count = watched.len();
        let margins = sys.domain().len();
        refill(&mut self.g_start, count, 0.0);
        sys.event_values(mode, &watched, y0, &mut self.g_start);
        // Only functions that may start on their surface need their resolution now (`dim`
        // dual evaluations each, the probe buffer as the unit vectors).
        refill(&mut self.slope_scratch, n, 0.0);
        self.margin_slopes
            .refill(margins, &mut self.slope_scratch, |i, out| {
                sys.domain_margin_slopes(i, out)
            });
        self.event_slopes
            .refill(count, &mut self.slope_scratch, |j, out| {
                sys.event_slopes(mode, watched[j].0, out)
            });
        refill(&mut self.y_probe, n, 0.0);
        self.surface_width.clear();
        for (j, &(event, crossing)) in watched.iter().enumerate() {
            let g = self.g_start[j];
            // A function past zero by more than twice what its slopes let the resolutions
            // reach, Σ w_i·resolution_i ≥ Σ |∂g/∂y_i|·resolution_i (twice: room for the
            // rounding of both sums), is off its surface unless the event put it there (below),
            // whatever its resolution: that waits for first use as a start-side function's.
            let far_past = !(after_event && sys.is_switching(event))
                && self.event_slopes.knows(j)
                && g.abs() > 2.0 * slopes_reach(self.event_slopes.of(j), resolution);
            self.surface_width
                .push(if crossing.is_start_side(g) || far_past {
                    f64::NAN
                } else {
                    event_resolution(sys, mode, event, y0, resolution, &mut self.y_probe)
                });
        }
        self.on_surface.clear();
        for (j, &(event, crossing)) in watched.iter().enumerate() {
            let g = self.g_start[j];
            // After an event, a switching function past zero by more than its resolution is on
            // its surface too: the event that started the phase was located to a time whose
            // rounding moves a fast function further than the state's tolerances resolve (a
            // compliant contact's F_n = δ/κ at 5e6 per second moves 7e-11 in one unit of the
            // last place of t = 0.1, against a resolution of 1.4e-12). Two contacts that open
            // together by symmetry then start the phase of the one located first with the
            // other's force already below zero, and the phase-start rule, not its next
            // crossing, opens it.
            self.on_surface.push(
                !crossing.is_start_side(g)
                    && (g.abs() <= self.surface_width[j]
                        || (after_event && sys.is_switching(event))),
            );
        }
        refill(&mut self.y, n, 0.0);
        refill(&mut self.flow, n, 0.0);
        refill(&mut self.g_scan, count, 0.0);
        refill(&mut self.start_rates, count, f64::NAN);
        refill_from(&mut self.resolution, resolution);
        refill_from(&mut self.y_start, y0);
        refill_from(&mut self.start_flow, flow0);
        self.t_before = f64::NAN;
        refill(&mut self.g_before, count, f64::NAN);
        self.m_start.clear();
        self.m_start
            .extend((0..margins).map(|i| sys.domain_margin(i, y0)));
        refill(&mut self.m_scan, margins, 0.0);
        refill(&mut self.m_before, margins, f64::NAN);
    }

    /// Take watched function `index` off its surface for this phase: it crosses only after it
    /// has been strictly on its start side at a sample. For a phase restarted after its event
    /// at the phase start changed neither the mode nor the state (hybrid::driver): the
    /// phase-start rule found the function past zero there by no more than the integrator's
    /// noise, and the formulation's transition says nothing happens.
    pub fn leave_surface(&mut self, index: usize) {
        self.on_surface[index] = false;
    }
}

/// `Σ w_i·d_i` over `slopes` (w, [`SparseSlopes::of`]) of the components' `d`.
fn slopes_reach<'a>(slopes: impl Iterator<Item = &'a Slope>, d: &[f64]) -> f64 {
    slopes.map(|w| w.slope * d[w.component]).sum()
}

/// What the integrator resolves of `event`'s function at `y`: the components' error weights
/// propagated to first order, `Σ |∂g/∂y_i|·resolution_i` (exact partial derivatives, dual
/// numbers). `unit` is a zeroed scratch vector of the state's length, left zeroed.
fn event_resolution<H: HybridSystem>(
    sys: &H,
    mode: H::Mode,
    event: H::Event,
    y: &[f64],
    resolution: &[f64],
    unit: &mut [f64],
) -> f64 {
    let mut sum = 0.0;
    for (i, &w) in resolution.iter().enumerate() {
        unit[i] = 1.0;
        sum += sys.event_rate(mode, event, y, unit).abs() * w;
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
        y_probe,
        flow: end_flow,
        g_start,
        g_scan,
        on_surface,
        surface_width,
        resolution,
        y_start,
        start_flow,
        start_rates,
        t_before,
        g_before,
        m_start,
        m_scan,
        m_before,
        margin_slopes,
        event_slopes,
        slope_scratch: _,
    } = buffers;
    let read = sys.event_state_len();
    let mut seg_start = t_prev;
    let mut switch: Option<(H::Event, f64)> = None;
    // A function that starts the phase on its surface and is found past zero with no
    // excursion to its start side: it left its surface the other way at the phase start,
    // unless it was still within its resolution of zero when another function crossed
    // (decided once this sample's functions are done: [`crossing_from_surface`]).
    let mut left_surface: Option<(usize, H::Event)> = None;
    let mut exit: Option<(usize, f64)> = None;
    let mut extrema = Vec::new();
    let mut end_flow_ready = false;
    let departure = |i| st.dense_departure(i);
    // A margin that no point of the step's dense output can bring to zero cannot leave the
    // domain in this step, whatever the samples show: its samples are taken only where the
    // next step needs them (the last interior one and the end), and nothing is searched.
    let margins_clear = margin_slopes.all_known && {
        st.state(y_scan);
        stays_positive(
            m_start.len(),
            |i| m_start[i],
            margin_slopes,
            departure,
            y_scan,
        )
    };
    // Likewise a watched function that no point of the dense output can bring to zero (its
    // distance from zero on its start side at the step's start stays positive) cannot cross,
    // dip or turn to zero in the step. When every function and every margin is clear, the
    // samples cannot find anything: only the last interior one (the next step's sample before
    // its first segment) and the end are taken, and nothing is tested.
    let clear = margins_clear && event_slopes.all_known && {
        let distance = |j: usize| watched[j].1.start_side_distance(g_start[j]);
        stays_positive(watched.len(), distance, event_slopes, departure, y_scan)
    };
    for k in 1..=SCAN_POINTS + 1 {
        if clear && k < SCAN_POINTS {
            continue;
        }
        let last = k == SCAN_POINTS + 1;
        let seg_end = if last {
            st.state(y_scan);
            t_step
        } else {
            let ts = t_prev + (t_step - t_prev) * k as f64 / (SCAN_POINTS + 1) as f64;
            st.interpolate_leading(ts, read, y_scan)
                .map_err(|m| failed(ts, m))?;
            ts
        };
        sys.event_values(mode, watched, y_scan, g_scan);
        let seg = Segment {
            t_prev,
            before: *t_before,
            start: seg_start,
            end: seg_end,
        };
        // Most functions at most samples ask for nothing: the tests that say so run here, in a
        // tight loop over slices of the watched length (no bounds checks); the searches they
        // may start are functions of their own.
        if !clear {
            let nw = watched.len();
            let (g_before, g_start, g_scan) = (&g_before[..nw], &g_start[..nw], &g_scan[..nw]);
            let on_surface = &on_surface[..nw];
            for (j, &(event, crossing)) in watched.iter().enumerate() {
                let g = [g_before[j], g_start[j], g_scan[j]];
                let start_side = crossing.is_start_side(g[1]);
                let t_root = if crossing.reached(g[2]) {
                    if !(start_side || on_surface[j]) {
                        continue;
                    }
                    let g_of = probe(st, read, y_probe, failed, |y| {
                        sys.event_value(mode, event, y)
                    });
                    let switching = sys.is_switching(event);
                    match root_past_zero(g_of, crossing, start_side, switching, seg, g)? {
                        Some(Root::At(t)) => Some(t),
                        Some(Root::LeftSurface) => {
                            if left_surface.is_none() {
                                left_surface = Some((j, event));
                            }
                            continue;
                        }
                        None => None,
                    }
                } else {
                    // Trap 1: a dip past zero and back between two samples.
                    if !(start_side && sys.is_switching(event)) {
                        continue;
                    }
                    let dip_in_middle = closest_in_middle(g);
                    // At the step's end the next sample is not there yet: a closest approach in
                    // the last segment shows as the function moving away from zero again.
                    let approaching_at_end = last && g[2].abs() < g[1].abs();
                    // In the phase's first segment there is no sample before it: a closest
                    // approach there shows as the function heading toward zero at the phase
                    // start (a grazing opening 1.9e-10 after a stick break, inside a first
                    // step of 1e-6; docs/tolerances.md, "A start on the stick/slip surface"). Only for
                    // a function whose distance from zero there is resolved: within its
                    // resolution its rate is as uncertain as its value (u̇ ≈ 0 at a stick break
                    // with μ = μ_s), as on its surface.
                    let start_rate = if t_before.is_nan() && !on_surface[j] {
                        let rate = start_rates[j];
                        let rate = if rate.is_nan() {
                            let rate = sys.event_rate(mode, event, y_start, start_flow);
                            start_rates[j] = rate;
                            rate
                        } else {
                            rate
                        };
                        let heading = !crossing.is_start_side(rate) && rate != 0.0;
                        if heading && surface_width[j].is_nan() {
                            // The probe buffer as event_resolution's zeroed unit vectors.
                            y_probe.fill(0.0);
                            surface_width[j] =
                                event_resolution(sys, mode, event, y_start, resolution, y_probe);
                        }
                        (heading && g[1].abs() > surface_width[j]).then_some(rate)
                    } else {
                        None
                    };
                    if !(dip_in_middle || approaching_at_end || start_rate.is_some()) {
                        continue;
                    }
                    let mut end_rate = || {
                        if !end_flow_ready {
                            // An explicit pair has it (its next first stage); others evaluate it.
                            if !st.derivative(end_flow) {
                                sys.field(mode, y_scan, end_flow);
                            }
                            end_flow_ready = true;
                        }
                        sys.event_rate(mode, event, y_scan, end_flow)
                    };
                    let g_of = probe(st, read, y_probe, failed, |y| {
                        sys.event_value(mode, event, y)
                    });
                    let approach = Approach {
                        dip_in_middle,
                        at_end: approaching_at_end,
                        start_rate,
                    };
                    root_of_dip(g_of, &mut end_rate, crossing, approach, seg, g)?
                };
                let Some(t_root) = t_root else {
                    continue;
                };
                if switch.is_none_or(|(_, ts)| t_root < ts) {
                    if sys.is_switching(event) {
                        switch = Some((event, t_root));
                    } else {
                        // The observer keeps this state: an allocation per extremum, not per step.
                        let mut y = vec![0.0; n];
                        st.interpolate(t_root, &mut y)
                            .map_err(|m| failed(t_root, m))?;
                        extrema.push((event, t_root, y));
                    }
                }
            }
        }
        if let Some((j, event)) = left_surface.take() {
            // The phase-start rule's crossing at the segment's start stands unless another
            // function crossed later in the segment while this one was still within its
            // resolution of zero (or back on its start side): it had not left its surface
            // before that crossing.
            let holds = match switch {
                None => true,
                Some((_, t_r)) => {
                    st.interpolate(t_r, y_probe).map_err(|m| failed(t_r, m))?;
                    let g = sys.event_value(mode, event, y_probe);
                    !(watched[j].1.is_start_side(g) || g.abs() <= surface_width[j])
                }
            };
            if holds {
                switch = Some((event, seg_start));
                extrema.retain(|e| e.1 < seg_start);
            }
        }
        if !m_scan.is_empty() && (!margins_clear || k >= SCAN_POINTS) {
            sys.domain_margins(y_scan, m_scan);
        }
        {
            let nm = if margins_clear { 0 } else { m_start.len() };
            let (m_before, m_start, m_scan) = (&m_before[..nm], &m_start[..nm], &m_scan[..nm]);
            for i in 0..nm {
                let m = [m_before[i], m_start[i], m_scan[i]];
                // Only a margin inside the domain can leave it (the phase start checks the rest).
                if m[1].is_nan() || m[1] <= 0.0 {
                    continue;
                }
                let outside = m[2] <= 0.0;
                // Trap 1 for the domain too: a margin that dips below zero and back between two
                // samples has left the domain (docs/tolerances.md).
                let dip_in_middle = !outside && closest_in_middle(m);
                // At the step's end the next sample is not there yet (the next step's dense
                // output starts at its end).
                let falling_at_end = !outside && last && m[2] < m[1];
                if !(outside || dip_in_middle || falling_at_end) {
                    continue;
                }
                let m_of = probe(st, read, y_probe, failed, |y| sys.domain_margin(i, y));
                let fall = if outside {
                    None
                } else {
                    Some(Approach {
                        dip_in_middle,
                        at_end: falling_at_end,
                        start_rate: None,
                    })
                };
                let Some(t_exit) = margin_exit(m_of, fall, seg, m)? else {
                    continue;
                };
                if exit.is_none_or(|(_, te)| t_exit < te) {
                    exit = Some((i, t_exit));
                }
            }
        }
        if switch.is_some() || exit.is_some() {
            break;
        }
        // The phase's first segment is over: no function starts it on its surface any more.
        if t_before.is_nan() {
            on_surface.fill(false);
        }
        *t_before = seg_start;
        seg_start = seg_end;
        // Rotate the samples: this segment's start becomes the sample before, its end the
        // next start (the third buffer is overwritten by the next sample).
        std::mem::swap(g_before, g_start);
        std::mem::swap(g_start, g_scan);
        std::mem::swap(m_before, m_start);
        std::mem::swap(m_start, m_scan);
    }
    let exit = exit.filter(|&(_, te)| switch.is_none_or(|(_, ts)| te <= ts));
    Ok(Scan {
        switch,
        extrema,
        exit,
    })
}

/// Whether each of `count` functions stays positive over the step: its value at the step's
/// start (`value(f)`) less what its slopes (`slopes`, [`ScanBuffers`]) let the dense output's
/// departure from there (`departure` of a component, [`Stepper::dense_departure`]) take away,
/// with room for rounding (1e-9 of the magnitudes involved, `y_end` the step's end). False for
/// a function that is NaN or not positive, or when a departure is not known.
fn stays_positive(
    count: usize,
    value: impl Fn(usize) -> f64,
    slopes: &SparseSlopes,
    departure: impl Fn(usize) -> Option<f64>,
    y_end: &[f64],
) -> bool {
    (0..count).all(|function| {
        let m = value(function);
        let (mut reach, mut scale) = (0.0, 0.0);
        for w in slopes.of(function) {
            let Some(d) = departure(w.component) else {
                return false;
            };
            reach += w.slope * d;
            scale += w.slope * y_end[w.component].abs();
        }
        m - reach > 1e-9 * (1.0 + m.abs() + reach + scale)
    })
}

/// A function of the state (a watched event's, a domain margin) along the dense output of the
/// step just taken by `st`, interpolated into the one probe buffer: its first `read`
/// components, those the function reads ([`HybridSystem::event_state_len`]).
#[inline]
fn probe<'a, St: Stepper>(
    st: &'a St,
    read: usize,
    y_probe: &'a mut [f64],
    failed: &'a impl Fn(f64, String) -> SimError,
    value: impl Fn(&[f64]) -> f64 + 'a,
) -> impl FnMut(f64) -> Result<f64, SimError> + 'a {
    move |t| {
        st.interpolate_leading(t, read, y_probe)
            .map_err(|m| failed(t, m))?;
        Ok(value(y_probe))
    }
}

/// Three consecutive sample times of a step's scan: the sample before the current segment
/// (NaN in a phase's first segment), the segment's start and end; `t_prev` is the step's start,
/// where its dense output begins.
#[derive(Clone, Copy)]
struct Segment {
    t_prev: f64,
    before: f64,
    start: f64,
    end: f64,
}

/// Why a function still on its start side (or a margin still inside the domain) may have
/// crossed between samples: its middle sample is the closest to zero, it approaches zero at
/// the step's end, or (in a phase's first segment) it heads toward zero at the phase start,
/// at `start_rate`.
#[derive(Clone, Copy)]
struct Approach {
    dip_in_middle: bool,
    at_end: bool,
    start_rate: Option<f64>,
}

/// Where a watched function found past zero at a segment's end crossed.
enum Root {
    /// At this (phase-local) time, bracketed and solved for.
    At(f64),
    /// At the phase start, by the phase-start rule's last case ([`crossing_from_surface`]):
    /// it started on its surface and moved away from it the other way.
    LeftSurface,
}

/// The crossing of a watched function found past zero at the segment's end (`g`: its samples
/// before, at the start and at the end of the segment): solved for from the segment's start
/// when it was on its start side there, else by the phase-start rule
/// ([`crossing_from_surface`]); `None` when that rule finds no crossing.
#[inline(never)]
fn root_past_zero(
    mut g_of: impl FnMut(f64) -> Result<f64, SimError>,
    crossing: super::Crossing,
    on_start_side: bool,
    switching: bool,
    seg: Segment,
    [_, g_seg, g_end]: [f64; 3],
) -> Result<Option<Root>, SimError> {
    if on_start_side {
        return locate_root(&mut g_of, seg.start, seg.end, g_seg, g_end).map(|t| Some(Root::At(t)));
    }
    let ends = ((seg.start, g_seg), (seg.end, g_end));
    crossing_from_surface(&mut g_of, crossing, ends, switching)
}

/// Trap 1 (docs/tolerances.md): the crossing of a switching function that may have dipped
/// past zero and back between samples (`g` as in [`root_past_zero`]): a dip around the middle
/// sample ([`find_dip`]), else, at the step's end, a turning point inside the last segment
/// ([`turning_point`], from the function's rate there, `end_rate`). `None` when there is none.
#[inline(never)]
fn root_of_dip(
    mut g_of: impl FnMut(f64) -> Result<f64, SimError>,
    end_rate: &mut impl FnMut() -> f64,
    crossing: super::Crossing,
    approach: Approach,
    seg: Segment,
    [g_before, g_seg, g_end]: [f64; 3],
) -> Result<Option<f64>, SimError> {
    let (before, start, end) = ((seg.before, g_before), (seg.start, g_seg), (seg.end, g_end));
    let mut dip = if approach.dip_in_middle {
        find_dip(&mut g_of, crossing, [before, start, end], seg.t_prev)?
    } else {
        None
    };
    if dip.is_none() {
        if let Some(rate) = approach.start_rate {
            if let Some(t_v) = turning_point(crossing, start, rate, end) {
                let g_v = g_of(t_v)?;
                dip = if crossing.reached(g_v) {
                    Some((start, (t_v, g_v)))
                } else {
                    find_dip(&mut g_of, crossing, [start, (t_v, g_v), end], seg.t_prev)?
                };
            }
        }
    }
    if dip.is_none() && approach.at_end {
        if let Some(t_v) = turning_point(crossing, end, end_rate(), start) {
            let g_v = g_of(t_v)?;
            dip = if crossing.reached(g_v) {
                Some((start, (t_v, g_v)))
            } else {
                find_dip(&mut g_of, crossing, [start, (t_v, g_v), end], seg.t_prev)?
            };
        }
    }
    let Some((from, (t_dip, g_dip))) = dip else {
        return Ok(None);
    };
    locate_root(&mut g_of, from.0, t_dip, from.1, g_dip).map(Some)
}

/// Where a domain margin inside the domain at the segment's start (`m` as `g` in
/// [`root_past_zero`]) leaves it: found outside at the segment's end (`fall` is `None`), or
/// dipping below zero and back (trap 1 for the domain) around the middle sample or, at the
/// step's end, inside the last segment, whose middle is probed. `None` when it does not.
#[inline(never)]
fn margin_exit(
    mut m_of: impl FnMut(f64) -> Result<f64, SimError>,
    fall: Option<Approach>,
    seg: Segment,
    [m_before, m_seg, m_end]: [f64; 3],
) -> Result<Option<f64>, SimError> {
    let (start, end) = ((seg.start, m_seg), (seg.end, m_end));
    let bracket = match fall {
        None => Some((start, end)),
        Some(fall) => {
            let falling = super::Crossing::Falling;
            let before = (seg.before, m_before);
            let dip = if fall.dip_in_middle {
                find_dip(&mut m_of, falling, [before, start, end], seg.t_prev)?
            } else {
                None
            };
            if dip.is_none() && fall.at_end {
                // Probe the last segment's middle.
                let t_mid = 0.5 * (seg.start + seg.end);
                let mid = (t_mid, m_of(t_mid)?);
                if mid.1 <= 0.0 {
                    Some((start, mid))
                } else {
                    find_dip(&mut m_of, falling, [start, mid, end], seg.t_prev)?
                }
            } else {
                dip
            }
        }
    };
    let Some((from, to)) = bracket else {
        return Ok(None);
    };
    locate_root(m_of, from.0, to.0, from.1, to.1).map(Some)
}

/// Refinements of a suspected dip ([`find_dip`]).
const DIP_REFINEMENTS: usize = 8;

/// Trap 1 (docs/tolerances.md): a switching function that dips past zero and back between two
/// samples, such as the undamped contact's δ returning to zero tangentially (a 3.8e-6 flight
/// inside one 5e-6 segment of Radau5's steps). `samples` are three consecutive samples `(t, g)`
/// on the crossing's start side. If the middle one is the closest to zero and the parabola
/// through them comes much closer to zero (or past it), successive parabolic interpolation on
/// the dense output looks for the dip's bottom, at most [`DIP_REFINEMENTS`] evaluations, never
/// before `t_min` (the step's start, where the dense output ends). Returns the last sample on
/// the start side before a point past zero, and that point: a bracket of the crossing.
#[allow(clippy::type_complexity)]
fn find_dip(
    mut g: impl FnMut(f64) -> Result<f64, SimError>,
    crossing: super::Crossing,
    samples: [(f64, f64); 3],
    t_min: f64,
) -> Result<Option<((f64, f64), (f64, f64))>, SimError> {
    let mut s = samples;
    let Some((mut t_v, g_v)) = parabola_vertex(crossing, s) else {
        return Ok(None);
    };
    if !(crossing.reached(g_v) || g_v.abs() < 0.5 * s[1].1.abs()) {
        return Ok(None);
    }
    for _ in 0..DIP_REFINEMENTS {
        if t_v < t_min {
            return Ok(None);
        }
        let g_t = g(t_v)?;
        if crossing.reached(g_t) {
            let from = if t_v > s[1].0 { s[1] } else { s[0] };
            return Ok((from.0 >= t_min).then_some((from, (t_v, g_t))));
        }
        // Keep the three points around the one closest to zero.
        s = match (t_v < s[1].0, g_t.abs() < s[1].1.abs()) {
            (true, true) => [s[0], (t_v, g_t), s[1]],
            (true, false) => [(t_v, g_t), s[1], s[2]],
            (false, true) => [s[1], (t_v, g_t), s[2]],
            (false, false) => [s[0], s[1], (t_v, g_t)],
        };
        match parabola_vertex(crossing, s) {
            Some((t, _)) => t_v = t,
            None => return Ok(None),
        }
    }
    Ok(None)
}

/// Where a function on its start side at both ends of a segment came closest to zero, from
/// its slope `rate` at one end, `anchor`, and its value at the other, `other`: the vertex of
/// the parabola through both samples with that slope at `anchor`, strictly inside the segment.
/// The anchor is the segment's end (the function moves away from zero again there) or its
/// start (it heads toward zero there); `None` when the slope does not say it turned.
fn turning_point(
    crossing: super::Crossing,
    anchor: (f64, f64),
    rate: f64,
    other: (f64, f64),
) -> Option<f64> {
    let ((t1, g1), (t0, g0)) = (anchor, other);
    // The slope toward the inside of the segment, seen from the anchor, must head to zero.
    let inward = if t0 < t1 { -rate } else { rate };
    if crossing.is_start_side(inward) || inward == 0.0 || !crossing.is_start_side(g1) {
        return None;
    }
    // p(t) = g1 + rate (t − t1) + c (t − t1)², with p(t0) = g0.
    let c = (g0 - g1 - rate * (t0 - t1)) / ((t0 - t1) * (t0 - t1));
    if c == 0.0 || !c.is_finite() {
        return None;
    }
    let t_v = t1 - rate / (2.0 * c);
    (t_v > t0.min(t1) && t_v < t0.max(t1)).then_some(t_v)
}

/// Whether the middle of three samples is the closest to zero (false if any is NaN): the
/// first condition of a dip between them ([`parabola_vertex`]), tested by the scan before it
/// calls [`find_dip`].
#[inline]
fn closest_in_middle([g0, g1, g2]: [f64; 3]) -> bool {
    g1.abs() <= g0.abs() && g1.abs() <= g2.abs()
}

/// The vertex `(t, g)` of the parabola through three samples on the crossing's start side
/// whose middle one is the closest to zero; `None` when they show no extremum toward zero.
fn parabola_vertex(crossing: super::Crossing, samples: [(f64, f64); 3]) -> Option<(f64, f64)> {
    let [(t0, g0), (t1, g1), (t2, g2)] = samples;
    let start_side = samples.iter().all(|&(_, g)| crossing.is_start_side(g));
    if !(start_side && closest_in_middle([g0, g1, g2]) && t0 < t1 && t1 < t2) {
        return None;
    }
    // Newton form p(t) = g0 + d01 (t − t0) + c (t − t0)(t − t1).
    let d01 = (g1 - g0) / (t1 - t0);
    let d12 = (g2 - g1) / (t2 - t1);
    let c = (d12 - d01) / (t2 - t0);
    if c == 0.0 || !c.is_finite() {
        return None;
    }
    let t_v = 0.5 * (t0 + t1) - d01 / (2.0 * c);
    let g_v = g0 + d01 * (t_v - t0) + c * (t_v - t0) * (t_v - t1);
    (t_v > t0 && t_v < t2).then_some((t_v, g_v))
}

/// Halvings of the first segment searched for an excursion ([`crossing_from_surface`]): down
/// to 2⁻⁶⁴ of it.
const EXCURSION_PROBES: usize = 64;

/// The phase-start rule (docs/tolerances.md, "A phase that starts on an event surface"): a
/// function that starts the phase on its surface ([`ScanBuffers::start_phase`]) at
/// `(a, g_a)` is past zero at the end `(b, g_b)` of the phase's first segment. Where it crossed:
/// - at the end of an excursion to the start side that the scan point stepped over, if a probe
///   at `a + (b − a)/2^k`, from the scan point toward `a`, finds the function strictly on its
///   start side (a free flight of 5e-5 after a grazing opening): Illinois between that probe
///   and `b`. The excursion starts within the residue's distance of `a` and lasts about
///   `2|ġ/g̈|`, so the probes meet it unless it is shorter than twice its own start time;
/// - otherwise, if it moved away from zero (`|g_b| > |g_a|`), at the phase start `a`: it left
///   its surface the other way, or its excursion was below what the dense output resolves (a
///   slip of u ≈ 1e-21 for 1.7e-6 inside DOP853's first step of a slide), and the phase's mode
///   holds from its start no more ([`Root::LeftSurface`]). Only for a switching function
///   (`switching`): an observer's extremum at the phase start is the state the previous phase
///   ended with. The scan keeps this crossing only if no other function crosses later in the
///   segment while this one is still within its resolution of zero: a slip velocity that grows
///   from zero acceleration after a stick break at μ = μ_s (u ≈ +1e-20) is on its surface when
///   the contact opens 1.9e-10 later, and the −1.6e-12 that the slide's field makes of it by the
///   first scan point (the contact re-closed in that field) is no evidence against the opening;
/// - otherwise nowhere: the function never left its surface and is still coming back to its
///   start side (a slip velocity of −1.5e-17 at the start of a reverse slip that grows from
///   zero acceleration).
///
/// Returns the phase-local time of the crossing.
fn crossing_from_surface(
    mut g: impl FnMut(f64) -> Result<f64, SimError>,
    crossing: super::Crossing,
    ((a, g_a), (b, g_b)): ((f64, f64), (f64, f64)),
    switching: bool,
) -> Result<Option<Root>, SimError> {
    let mut t = b;
    for _ in 0..EXCURSION_PROBES {
        t = a + 0.5 * (t - a);
        if t <= a {
            break;
        }
        let g_t = g(t)?;
        if crossing.is_start_side(g_t) {
            return locate_root(g, t, b, g_t, g_b).map(|t| Some(Root::At(t)));
        }
    }
    Ok((switching && g_b.abs() > g_a.abs()).then_some(Root::LeftSurface))
}

/// Refine an event located on the dense output so that its error is set by the integration
/// tolerance: restore the integrator to the start of the step, step exactly to the located
/// time (a full-accuracy step, not an interpolation), then correct with Newton's method on the
/// event function along the flow, `Δt = −g/ġ`, and a second-order Taylor step
/// `y + Δt f + ½Δt² J f`. If the correction is not small against the step, step again to the
/// corrected time. Returns the phase-local event time and the state there. `buffers` are the
/// phase's, whose scan of the step is over (scratch).
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
    buffers: &mut ScanBuffers,
) -> Result<(f64, Vec<f64>), String> {
    let n = y_prev.len();
    let h = t_step - t_prev;
    st.restore(saved.clone());
    let mut at = t_prev;
    let mut y = y_prev.to_vec();
    let mut target = t_located;
    // The scan is over: its end flow and probe vectors are free.
    let (flow, jf) = (&mut buffers.flow[..n], &mut buffers.y_probe[..n]);
    flow.fill(0.0);
    jf.fill(0.0);
    let mut advancing = true;
    for iter in 0..6 {
        if target < at {
            st.restore(saved.clone());
            at = t_prev;
            y.copy_from_slice(y_prev);
        }
        // Closer than the integrator's stop-time round-off: stay and let Newton do it.
        if advancing && target - at > 200.0 * f64::EPSILON * (at.abs() + h.abs()) {
            match st.advance_to(target) {
                Ok(()) => {
                    at = st.time();
                    st.state(&mut y);
                }
                // Shorter than the integrator's shortest step (a contact closing with a slip
                // of 1e-13 stops it 3e-16 later; diffsol's steps are at least 1e-13): the
                // Taylor step from the step's start does it.
                Err(_) if target - at < st.min_step() => {
                    advancing = false;
                    st.restore(saved.clone());
                    at = t_prev;
                    y.copy_from_slice(y_prev);
                }
                Err(message) => return Err(message),
            }
        }
        sys.field(mode, &y, flow);
        let g = sys.event_value(mode, event, &y);
        let g_rate = sys.event_rate(mode, event, &y, flow);
        let dt = if g_rate != 0.0 && g_rate.is_finite() {
            -g / g_rate
        } else {
            0.0
        };
        if dt.abs() <= TAYLOR_FRACTION * h.abs() || iter == 5 {
            sys.jvp(mode, &y, flow, jf);
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

    /// A function peaking past zero between three start-side samples is a dip, found on the
    /// function itself even where the parabola through the samples misses it (a quartic peak);
    /// one peaking short of zero, or samples whose middle is not the closest, are not.
    #[test]
    fn find_dip_finds_a_peak_past_zero_between_samples() {
        use crate::hybrid::Crossing;
        let dip = |peak: f64, ts: [f64; 3], g: fn(f64, f64) -> f64| {
            let samples = ts.map(|t| (t, g(t, peak)));
            find_dip(|t| Ok(g(t, peak)), Crossing::Rising, samples, 0.0).unwrap()
        };
        let quadratic = |t: f64, peak: f64| peak - (t - 1.0) * (t - 1.0);
        let quartic = |t: f64, peak: f64| peak - 20.0 * (t - 1.0).powi(4);
        let ts = [0.85, 1.12, 1.5];
        let ((t_from, g_from), (t_past, g_past)) = dip(0.01, ts, quadratic).unwrap();
        assert!(
            g_from < 0.0 && g_past >= 0.0 && t_from < t_past,
            "{t_from} {t_past}"
        );
        assert!((t_past - 1.0).abs() < 0.1, "{t_past}");
        assert!(dip(1e-4, ts, quartic).is_some());
        assert!(dip(-0.001, ts, quadratic).is_none());
        assert!(dip(0.01, [0.5, 0.85, 1.12], quadratic).is_none());
    }

    /// The closest approach of g = 1e-3 − 0.1 t + t²/2 (falling toward zero, vertex at
    /// t = 0.1) from its slope at either end of [0, 1]: heading toward zero at the start,
    /// moving away at the end; a slope that says no turn (away at the start, toward at the
    /// end) gives none.
    #[test]
    fn turning_point_from_either_end() {
        use crate::hybrid::Crossing::Falling;
        let g = |t: f64| 1e-3 - 0.1 * t + 0.5 * t * t;
        let rate = |t: f64| -0.1 + t;
        let (start, end) = ((0.0, g(0.0)), (1.0, g(1.0)));
        let from_start = turning_point(Falling, start, rate(0.0), end).unwrap();
        let from_end = turning_point(Falling, end, rate(1.0), start).unwrap();
        assert!((from_start - 0.1).abs() < 1e-12, "{from_start}");
        assert!((from_end - 0.1).abs() < 1e-12, "{from_end}");
        assert!(turning_point(Falling, start, 0.1, end).is_none());
        assert!(turning_point(Falling, end, -0.1, start).is_none());
    }

    #[test]
    fn illinois_finds_a_root_to_machine_precision() {
        let r = locate_root(|t| Ok(t.cos() - t), 0.0, 1.0, 1.0, 1f64.cos() - 1.0).unwrap();
        assert!((r.cos() - r).abs() < 1e-15);
    }
}
