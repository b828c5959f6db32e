//! S6: start-up, from process start (native) or navigation (browser) until
//! a team is built. The runners measure, because only they know how they
//! started; this file turns their readings into figures.

use super::Figure;

/// One runner's start-up readings (medians when it could repeat them).
pub struct Startup {
    /// How the start is defined, e.g. "first line of main → built team".
    pub span: &'static str,
    pub ms: f64,
    /// Other spans worth a row: (what, ms).
    pub more: Vec<(&'static str, f64)>,
    /// Memory at the built team: (what, bytes). The first is compared with
    /// MetaGPT's process memory when `memory_comparable` (a process's peak
    /// resident memory is; a tab's linear memory is not).
    pub memory: Vec<(&'static str, f64)>,
    pub memory_comparable: bool,
}

pub fn startup_figures(s: Startup) -> Vec<Figure> {
    let mut figures = vec![Figure::ms("S6", s.span, s.ms).vs("6.6 s (import metagpt.team)", Some(6600.0))];
    for (what, ms) in s.more {
        figures.push(Figure::ms("S6", what, ms));
    }
    for (i, (what, bytes)) in s.memory.into_iter().enumerate() {
        let figure = Figure::bytes("S6", what, bytes);
        figures.push(match (i, s.memory_comparable) {
            (0, true) => figure.vs("333 MB", Some(333e6)),
            (0, false) => figure.vs("333 MB (a process)", None),
            _ => figure,
        });
    }
    figures
}
