//! Plain-text exports of model results, shared by the explorer's download buttons and the CLI:
//! CSV (RFC 4180) of collective sweeps and of any list of serialisable rows (search results).

use crate::report::{Report, Scope};
use crate::units::format_size;
use serde::Serialize;
use serde_json::{Map, Value};

/// One row per (curve, message size) of a Report: what the busbw chart draws, with units in
/// the column names. Bandwidths are GB/s (10^9 B/s) per direction.
pub fn curves_csv(r: &Report) -> String {
    let mut out = String::from(
        "op,scope,ranks,bytes,size,time_us,model_time_us,algbw_GBps_per_direction,busbw_GBps_per_direction,algorithm,protocol,bottleneck\r\n",
    );
    for c in &r.curves {
        let scope = match c.scope {
            Scope::Domain => "domain",
            Scope::Cluster => "cluster",
        };
        for p in &c.points {
            let fields = [
                c.op.id().to_string(),
                scope.to_string(),
                p.ranks.to_string(),
                p.bytes.0.to_string(),
                format_size(p.bytes),
                p.time.0.to_string(),
                p.model_time.0.to_string(),
                p.algbw.0.to_string(),
                p.busbw.0.to_string(),
                p.algorithm.to_string(),
                p.protocol.to_string(),
                p.bottleneck.id().to_string(),
            ];
            push_row(&mut out, fields.iter().map(String::as_str));
        }
    }
    out
}

/// CSV of any rows that serialise to JSON objects (e.g. search results): columns are the
/// union of the rows' fields (alphabetical within each row, as serde_json orders them; rows
/// adding fields add columns at the end), nested objects flattened to `a.b`, arrays
/// written as `x;y;z`, absent fields and nulls empty. Rows that are not objects become one
/// `value` column.
pub fn rows_csv<T: Serialize>(rows: &[T]) -> String {
    let flat: Vec<Vec<(String, String)>> = rows
        .iter()
        .map(|r| {
            let mut cells = Vec::new();
            match serde_json::to_value(r) {
                Ok(Value::Object(m)) => flatten("", &m, &mut cells),
                Ok(v) => cells.push(("value".into(), cell(&v))),
                Err(e) => cells.push(("value".into(), format!("(not serialisable: {e})"))),
            }
            cells
        })
        .collect();
    let mut header: Vec<String> = Vec::new();
    for row in &flat {
        for (k, _) in row {
            if !header.contains(k) {
                header.push(k.clone());
            }
        }
    }
    let mut out = String::new();
    if header.is_empty() {
        return out;
    }
    push_row(&mut out, header.iter().map(String::as_str));
    for row in &flat {
        let cells: Vec<&str> = header
            .iter()
            .map(|h| {
                row.iter()
                    .find(|(k, _)| k == h)
                    .map_or("", |(_, v)| v.as_str())
            })
            .collect();
        push_row(&mut out, cells.into_iter());
    }
    out
}

fn flatten(prefix: &str, m: &Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (k, v) in m {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) => flatten(&key, inner, out),
            v => out.push((key, cell(v))),
        }
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(cell).collect::<Vec<_>>().join(";"),
        v => v.to_string(),
    }
}

/// Appends one CSV record: fields with a comma, quote or line break are quoted, quotes doubled.
fn push_row<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{evaluate, Scenario};

    #[test]
    fn curves_csv_has_a_row_per_point() {
        let r = evaluate(&Scenario::default()).expect("default evaluates");
        let csv = curves_csv(&r);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        let points: usize = r.curves.iter().map(|c| c.points.len()).sum();
        assert_eq!(lines.len(), points + 1);
        let cols = lines[0].split(',').count();
        assert!(
            lines.iter().all(|l| l.split(',').count() == cols),
            "rectangular"
        );
        assert!(lines[1].starts_with("all_reduce,"), "{}", lines[1]);
    }

    #[derive(Serialize)]
    struct Row {
        name: &'static str,
        layout: Layout,
        tags: Vec<u32>,
        note: Option<&'static str>,
    }
    #[derive(Serialize)]
    struct Layout {
        tp: u32,
        dp: u32,
    }

    #[test]
    fn rows_csv_flattens_and_quotes() {
        let rows = [
            Row {
                name: "a,b",
                layout: Layout { tp: 8, dp: 4 },
                tags: vec![1, 2],
                note: None,
            },
            Row {
                name: "say \"hi\"",
                layout: Layout { tp: 1, dp: 32 },
                tags: vec![],
                note: Some("x\ny"),
            },
        ];
        assert_eq!(
            rows_csv(&rows),
            "layout.dp,layout.tp,name,note,tags\r\n4,8,\"a,b\",,1;2\r\n32,1,\"say \"\"hi\"\"\",\"x\ny\",\r\n"
        );
        assert_eq!(rows_csv::<Row>(&[]), "");
    }
}
