//! `fabricscope link scenario.json` prints the explorer's permalink for a scenario;
//! `fabricscope link --decode <link>` prints the scenario JSON a link stands for. Handy for
//! docs pipelines that keep scenarios as files and publish links or embeds.

use crate::error::CliError;
use crate::eval::read_scenario;
use crate::output;
use clap::Args;
use fabricscope_charts::report::CHART_IDS;
use fabricscope_model::link;

#[derive(Args, Clone, Debug)]
pub struct LinkArgs {
    /// Scenario file (JSON); `-` reads stdin
    #[arg(required_unless_present = "decode", conflicts_with = "decode")]
    pub scenario: Option<String>,
    /// Print the scenario JSON of this link instead (a damaged link is an error naming the field)
    #[arg(long, value_name = "LINK")]
    pub decode: Option<String>,
    /// Print a full URL: this explorer address followed by #s=<link>
    #[arg(long, value_name = "URL", conflicts_with = "decode")]
    pub base: Option<String>,
    /// With --base: the URL of one chart for an iframe (embed.html?embed=<chart>#s=<link>;
    /// compare-* charts on compare.html)
    #[arg(long, value_name = "CHART", requires = "base")]
    pub embed: Option<String>,
}

pub fn run(a: &LinkArgs) -> Result<String, CliError> {
    if let Some(l) = &a.decode {
        let mut d = link::decode(l);
        let runs = fabricscope_check::runs_of(link::measured_in_link(l), &mut d.warnings);
        if let Some(first) = d.warnings.first() {
            let more = d.warnings.len() - 1;
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            return Err(CliError::new("--decode", format!("{first}{tail}")));
        }
        return output::json(&fabricscope_check::file_value(&d.scenario, &runs));
    }
    let path = a.scenario.as_deref().unwrap_or("-");
    let s = read_scenario(path)?;
    let l = link::encode(&s);
    let Some(base) = &a.base else {
        return Ok(format!("{l}\n"));
    };
    let base = if base.ends_with('/') || base.ends_with(".html") {
        base.clone()
    } else {
        format!("{base}/")
    };
    match &a.embed {
        Some(chart) if !CHART_IDS.contains(&chart.as_str()) => Err(CliError::new(
            "--embed",
            format!("no chart \"{chart}\"; allowed: {}", CHART_IDS.join(", ")),
        )),
        Some(chart) => {
            let page = if chart.starts_with("compare-") { "compare" } else { "embed" };
            Ok(format!("{base}{page}.html?embed={chart}#s={l}\n"))
        }
        None => Ok(format!("{base}#s={l}\n")),
    }
}
