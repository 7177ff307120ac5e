//! Latency against concurrency as an SVG picture (plotters, SVG backend, no font files: the
//! text is SVG `<text>` the viewer renders).

use std::path::Path;

use plotters::prelude::*;

use super::Latency;

/// Picks one latency of a point, when it has it.
type Pick = Box<dyn Fn(&Point) -> Option<u64>>;

/// One run of a sweep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    pub(crate) concurrency: usize,
    pub(crate) answers: Latency,
    pub(crate) raw: Option<Latency>,
}

/// Draws p50 and p99 of the answers (and of the baseline, when measured) against concurrency,
/// on a log2 axis, into `path`.
pub(crate) fn latency_svg(path: &Path, title: &str, points: &[Point]) -> anyhow::Result<()> {
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let x = |c: usize| (c.max(1) as f64).log2();
        let ms = |micros: u64| micros as f64 / 1000.0;
        let max_x = points.iter().map(|p| x(p.concurrency)).fold(1.0, f64::max);
        let max_y = points
            .iter()
            .flat_map(|p| [Some(p.answers.p99), p.raw.map(|r| r.p99)])
            .flatten()
            .map(ms)
            .fold(1.0, f64::max);
        let root = SVGBackend::new(path, (860, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.1..max_x + 0.1, 0.0..max_y * 1.1)?;
        chart
            .configure_mesh()
            .x_desc("concurrency (workers, log scale)")
            .y_desc("latency (ms)")
            .x_labels(points.len().max(2))
            .x_label_formatter(&|v| format!("{:.0}", 2f64.powf(*v)))
            .draw()?;
        let series: [(&str, RGBColor, Pick); 4] = [
            ("answer p50", RGBColor(31, 119, 180), Box::new(|p: &Point| Some(p.answers.p50))),
            ("answer p99", RGBColor(214, 39, 40), Box::new(|p: &Point| Some(p.answers.p99))),
            ("raw SQL p50", RGBColor(44, 160, 44), Box::new(|p: &Point| p.raw.map(|r| r.p50))),
            ("raw SQL p99", RGBColor(148, 103, 189), Box::new(|p: &Point| p.raw.map(|r| r.p99))),
        ];
        for (label, color, value) in series {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|p| value(p).map(|micros| (x(p.concurrency), ms(micros))))
                .collect();
            if line.is_empty() {
                continue;
            }
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(line.into_iter().map(|point| Circle::new(point, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|err| anyhow::anyhow!("cannot draw {}: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_draws_an_svg_with_its_legend() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("latency.svg");
        let latency = |p50, p99| Latency { p50, p90: p50, p99, max: p99, mean: p50 as f64 };
        let points: Vec<Point> = [1, 2, 4]
            .into_iter()
            .map(|c| Point {
                concurrency: c,
                answers: latency(1000 * c as u64, 3000 * c as u64),
                raw: Some(latency(400, 900)),
            })
            .collect();
        latency_svg(&path, "test", &points).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..100.min(svg.len())]);
        assert!(svg.contains("answer p99") && svg.contains("raw SQL p50"));
    }
}
