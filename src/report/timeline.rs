//! The timeline: one row per job slot (a local build) or per Slurm/CI job
//! (a distributed one), one bar per package that ran: a thin strip from
//! when it was ready to when it started (waiting for a slot or a job), then
//! its build.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::model::Model;
use super::text::{duration, esc, fit, num};

const LABEL_W: f64 = 170.0;
const CHART_W: f64 = 1100.0;
const ROW_H: f64 = 24.0;
const AXIS_H: f64 = 22.0;

/// The timeline section.
pub fn section(m: &Model) -> String {
    let mut out = String::from("<section id=\"timeline\"><h2>Timeline</h2>\n");
    let Some(run) = &m.input.run else {
        out.push_str(
            "<p class=\"note\">No run record: an image carries no wall-clock data inside it. \
             The report of the build directory, or of the <code>meta/</code> beside the image, \
             has the timeline.</p></section>\n",
        );
        return out;
    };
    // (package index, lane, ready, start, seconds)
    let bars: Vec<(usize, String, f64, f64, f64)> = m
        .pkgs
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let r = p.run.as_ref()?;
            let (start, secs) = (r.start?, r.seconds?);
            let lane = r.lane.clone().unwrap_or_else(|| "—".into());
            Some((i, lane, r.ready.unwrap_or(start).min(start), start, secs))
        })
        .collect();
    if bars.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\">Nothing was built in this run ({}).</p></section>",
            run.outcome.as_str()
        );
        return out;
    }
    let end = bars
        .iter()
        .map(|b| b.3 + b.4)
        .fold(0.0f64, f64::max)
        .max(0.001);
    let scale = CHART_W / end;
    let lanes = lane_order(&bars);
    let height = AXIS_H + lanes.len() as f64 * ROW_H + 4.0;
    let width = LABEL_W + CHART_W + 20.0;
    let waited: f64 = bars.iter().map(|b| b.3 - b.2).sum();
    let built: f64 = bars.iter().map(|b| b.4).sum();
    let _ = writeln!(
        out,
        "<p class=\"note\">{} packages on {} {}, {} from the first start to the last end; \
         {} building and {} waiting in all (the strip before a bar: ready, waiting for a slot or job).</p>",
        bars.len(),
        lanes.len(),
        if lanes.len() == 1 { "lane" } else { "lanes" },
        duration(end),
        duration(built),
        duration(waited)
    );
    let _ = write!(
        out,
        "<div class=\"timeline-box\"><svg id=\"timeline-svg\" \
         width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">",
        num(width),
        num(height),
        num(width),
        num(height)
    );
    axis(end, scale, height, &mut out);
    for (row, lane) in lanes.iter().enumerate() {
        let y = AXIS_H + row as f64 * ROW_H;
        let _ = write!(
            out,
            "<text class=\"lane\" x=\"4\" y=\"{}\">{}</text><line class=\"row\" x1=\"{LABEL_W}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
            num(y + 16.0),
            esc(&fit(lane, 26)),
            num(LABEL_W + CHART_W),
            num(y + ROW_H),
            num(y + ROW_H)
        );
    }
    let row_of: BTreeMap<&str, usize> = lanes
        .iter()
        .enumerate()
        .map(|(k, l)| (l.as_str(), k))
        .collect();
    for (i, lane, ready, start, secs) in &bars {
        bar(
            m,
            *i,
            row_of[lane.as_str()],
            (*ready, *start, *secs),
            scale,
            &mut out,
        );
    }
    out.push_str("</svg></div></section>\n");
    out
}

/// Lanes in order: job slots by number, other lanes by their first start.
fn lane_order(bars: &[(usize, String, f64, f64, f64)]) -> Vec<String> {
    let mut first: BTreeMap<&str, f64> = BTreeMap::new();
    for b in bars {
        let e = first.entry(b.1.as_str()).or_insert(f64::INFINITY);
        *e = e.min(b.3);
    }
    let mut lanes: Vec<(&str, f64)> = first.into_iter().collect();
    let slot = |l: &str| l.strip_prefix("slot ").and_then(|n| n.parse::<u64>().ok());
    lanes.sort_by(|a, b| match (slot(a.0), slot(b.0)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.1.total_cmp(&b.1).then(a.0.cmp(b.0)),
    });
    lanes.into_iter().map(|(l, _)| l.to_string()).collect()
}

fn axis(end: f64, scale: f64, height: f64, out: &mut String) {
    let step = tick_step(end);
    let mut t = 0.0;
    while t <= end + 1e-9 {
        let x = LABEL_W + t * scale;
        let _ = write!(
            out,
            "<line class=\"tick\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/><text class=\"tick\" x=\"{0}\" y=\"14\">{3}</text>",
            num(x),
            num(AXIS_H - 4.0),
            num(height),
            esc(&tick_label(t, step))
        );
        t += step;
    }
}

/// `0`, `2.5 s`, `30 s`, `5 min`, `1 h 30 min`: as precise as the step.
fn tick_label(t: f64, step: f64) -> String {
    if step >= 60.0 {
        let m = (t / 60.0).round() as u64;
        match (m / 60, m % 60) {
            (0, m) => format!("{m} min"),
            (h, 0) => format!("{h} h"),
            (h, m) => format!("{h} h {m} min"),
        }
    } else {
        let decimals = if step >= 1.0 {
            0
        } else if step >= 0.1 {
            1
        } else {
            2
        };
        format!("{t:.decimals$} s")
    }
}

/// A round step giving about 8–12 ticks.
fn tick_step(end: f64) -> f64 {
    let rough = end / 10.0;
    let steps = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0,
        600.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0,
    ];
    steps
        .iter()
        .copied()
        .find(|s| *s >= rough)
        .unwrap_or(rough.ceil())
}

fn bar(
    m: &Model,
    i: usize,
    row: usize,
    (ready, start, secs): (f64, f64, f64),
    scale: f64,
    out: &mut String,
) {
    let pkg = &m.pkgs[i];
    let y = AXIS_H + row as f64 * ROW_H;
    let x0 = LABEL_W + start * scale;
    let w = (secs * scale).max(1.5);
    let mut tip = format!(
        "{} — {}\nwaited {}, built in {}",
        pkg.label(),
        pkg.status_text(),
        duration(start - ready),
        duration(secs)
    );
    if let Some(r) = &pkg.run {
        if let Some(l) = &r.lane {
            let _ = write!(tip, " ({l})");
        }
        let phases: Vec<String> = r
            .phases
            .iter()
            .filter(|p| p.seconds >= 0.005)
            .map(|p| format!("{} {}", p.phase, duration(p.seconds)))
            .collect();
        if !phases.is_empty() {
            let _ = write!(tip, "\n{}", phases.join(", "));
        }
    }
    let _ = write!(
        out,
        "<g class=\"bar {}{}\" data-i=\"{i}\">",
        pkg.class(),
        if m.on_critical(i) { " crit" } else { "" }
    );
    if start - ready > 0.0 {
        let _ = write!(
            out,
            "<rect class=\"wait\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\"/>",
            num(LABEL_W + ready * scale),
            num(y + 2.0),
            num(((start - ready) * scale).max(0.5))
        );
    }
    let _ = write!(
        out,
        "<rect class=\"run\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"15\" rx=\"2\"/>",
        num(x0),
        num(y + 6.0),
        num(w)
    );
    let chars = (w / 6.5) as usize;
    if chars >= 4 {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            num(x0 + 3.0),
            num(y + 17.5),
            esc(&fit(&pkg.name, chars))
        );
    }
    let _ = write!(out, "<title>{}</title></g>", esc(&tip));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_label(90.0, 30.0), "90 s");
        assert_eq!(tick_label(5400.0, 1800.0), "1 h 30 min");
        assert_eq!(tick_label(0.5, 0.1), "0.5 s");
        assert_eq!(tick_step(10.0), 1.0);
        assert_eq!(tick_step(95.0), 10.0);
        assert_eq!(tick_step(3.3 * 3600.0), 1800.0);
    }

    #[test]
    fn slots_come_in_order_and_jobs_by_their_start() {
        let b = |lane: &str, start: f64| (0, lane.to_string(), 0.0, start, 1.0);
        let lanes = lane_order(&[b("slot 10", 0.0), b("slot 2", 5.0), b("slot 1", 3.0)]);
        assert_eq!(lanes, ["slot 1", "slot 2", "slot 10"]);
        let lanes = lane_order(&[b("slurm 9 (b)", 4.0), b("slurm 7 (a)", 1.0)]);
        assert_eq!(lanes, ["slurm 7 (a)", "slurm 9 (b)"]);
    }
}
