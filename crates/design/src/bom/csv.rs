//! A bill of materials as CSV: one row per line, units in the column names.

use fabricscope_model::export::push_row;

/// Column names of [`bom_csv`], units in the names.
pub const BOM_COLUMNS: [&str; 10] = ["group", "item", "name", "count", "scope", "unit_power_w", "unit_price_usd", "power_w", "price_usd", "source"];

/// One row per line of a bill of materials; a power or price that is not known is empty.
pub fn bom_csv(b: &super::Bom) -> String {
    let mut out = String::new();
    push_row(&mut out, BOM_COLUMNS.into_iter());
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    for l in &b.lines {
        let n = l.count as f64;
        let fields = [
            l.group.id().to_string(),
            l.item.to_string(),
            l.name.to_string(),
            l.count.to_string(),
            l.scope.id().to_string(),
            opt(l.unit_power_w),
            opt(l.unit_price_usd),
            opt(l.unit_power_w.map(|w| w * n)),
            opt(l.unit_price_usd.map(|p| p * n)),
            l.source.to_string(),
        ];
        push_row(&mut out, fields.iter().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricscope_model::Scenario;

    #[test]
    fn bom_csv_has_a_row_per_line() {
        let b = super::super::scenario_bom(&Scenario::new(fabricscope_model::Cluster { nodes: 128, ..fabricscope_model::Cluster::default() })).unwrap();
        let csv = bom_csv(&b);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), b.lines.len() + 1);
        assert_eq!(lines[0], BOM_COLUMNS.join(","));
        // 128 DGX H100 at 10.2 kW: 1,305,600 W.
        assert!(lines[1].starts_with("compute,dgx-h100,"), "{}", lines[1]);
        assert!(lines[1].contains(",128,modelled,10200,,1305600,,"), "{}", lines[1]);
    }

}
