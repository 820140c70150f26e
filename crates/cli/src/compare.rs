//! `fabricscope compare A.json B.json [...]`: the delta table of two to four scenario files
//! (busbw, step time, MFU, tokens/s, power, cost, efficiency), the better design marked per row
//! with its ratio over the worse.

use crate::error::CliError;
use crate::eval::{model_error, read_scenario};
use crate::output;
use clap::Args;
use fabricscope_model::design::{delta_table, design_numbers, DesignNumbers};
use serde::Serialize;

#[derive(Args, Clone, Debug)]
pub struct CompareArgs {
    /// Scenario files (JSON, the schema the explorer exports), two to four
    #[arg(required = true, num_args = 2..=4, value_name = "SCENARIO")]
    pub scenarios: Vec<String>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct CompareJson<'a> {
    designs: &'a [DesignNumbers],
}

/// A design's name: its file name without directory and `.json`.
fn name_of(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    base.strip_suffix(".json").unwrap_or(base).to_string()
}

pub fn run(a: &CompareArgs) -> Result<String, CliError> {
    let mut designs = Vec::new();
    for path in &a.scenarios {
        let s = read_scenario(path)?;
        designs.push(design_numbers(&name_of(path), &s).map_err(|e| model_error(path, &e))?);
    }
    if a.json {
        return output::json(&CompareJson { designs: &designs });
    }
    Ok(text(&designs))
}

fn text(designs: &[DesignNumbers]) -> String {
    let rows = delta_table(designs);
    let mut head = vec!["".to_string()];
    head.extend(designs.iter().map(|d| d.name.clone()));
    head.push("better".to_string());
    let mut table = vec![head];
    for r in &rows {
        let mut line = vec![if r.unit.is_empty() { r.label.to_string() } else { format!("{} ({})", r.label, r.unit) }];
        for (i, v) in r.values.iter().enumerate() {
            let mark = if r.best == Some(i) { " *" } else { "" };
            line.push(v.map_or("-".to_string(), |x| format!("{}{mark}", figure(x))));
        }
        line.push(match (r.best, r.ratio, r.within_error_pct) {
            (Some(i), Some(x), _) => format!("{} ({x:.2}x)", designs[i].name),
            (None, Some(x), Some(e)) => format!("~ ({x:.2}x, top two within +-{e:.0}%)"),
            _ => "-".to_string(),
        });
        table.push(line);
    }
    let cols = table[0].len();
    let width: Vec<usize> = (0..cols).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for r in &table {
        let cells: Vec<String> = r.iter().enumerate().map(|(c, x)| if c == 0 { format!("{x:<w$}", w = width[c]) } else { format!("{x:>w$}", w = width[c]) }).collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    s.push_str("* the better design of the row; the ratio is its value over the worst design's (or the reverse where lower is better)\n");
    if rows.iter().any(|r| r.within_error_pct.is_some()) {
        s.push_str("~ the two best designs are within the model's error of each other (the median error of their class against published measurements): none is marked better\n");
    }
    if designs.iter().any(|d| !d.power_complete) {
        s.push_str("power: a lower bound where an item has no published figure (switches); no design is marked better on it\n");
    }
    if designs.iter().any(|d| d.cost_usd.is_none()) {
        s.push_str("cost: shown only for designs whose every item has a price (scenario field `prices`)\n");
    }
    s
}

/// Three significant figures, without exponent notation for the sizes seen here.
fn figure(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}
