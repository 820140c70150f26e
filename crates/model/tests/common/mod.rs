//! Helpers shared by the accuracy tests.

/// Reads a CSV file's text into rows of fields, header first (quoted fields, embedded commas
/// and newlines handled by the `csv` crate).
pub fn read_csv(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("validation CSV is well-formed").iter().map(str::to_string).collect())
        .collect()
}
