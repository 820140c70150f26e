//! `fabricscope teach`: a collective played step by step on a small copy of the cluster (the
//! explorer's animation): the transcript of its steps, the bytes counter against the formula,
//! and (`--svg`) one frame drawn by the same renderer as the page.

use crate::cluster_args::{play_parser, size_parser, ClusterArgs};
use crate::error::CliError;
use crate::render::ThemeArg;
use clap::Args;
use fabricscope_charts::teach::{link_names, size_text, teach_frame, LinkNames};
use fabricscope_charts::Theme;
use fabricscope_teach::{schedule, Instance, Play};
use fabricscope_model::units::{Bytes, Micros};
use std::path::PathBuf;

#[derive(Args, Clone, Debug)]
pub struct TeachArgs {
    /// What to play: ring, tree, nvls, nvlstree, alltoall
    #[arg(long, value_name = "ALGO", value_parser = play_parser(), default_value = "ring")]
    pub play: Play,
    /// Buffer per GPU; K, M, G are powers of two
    #[arg(long, value_name = "SIZE", value_parser = size_parser(), default_value = "16M")]
    pub bytes: Bytes,
    /// Write one frame of the animation (see --at) as SVG to FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// With --svg: the moment of the frame, as a fraction of the whole run
    #[arg(long, default_value_t = 0.5)]
    pub at: f64,
    /// Palette of the frame
    #[arg(long, value_enum, default_value = "light")]
    pub theme: ThemeArg,
    /// Width of the frame in pixels (narrow frames stack the nodes)
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u32).range(300..=1200))]
    pub width: u32,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

pub fn run(a: &TeachArgs) -> Result<String, CliError> {
    let topo = a.cluster.topology()?;
    let s = schedule(a.play, Instance::of(&topo), a.bytes).map_err(|e| CliError::new("--play", e.message))?;
    let mut out = String::new();
    for i in 0..s.steps.len() {
        out.push_str(&s.describe(i));
        out.push('\n');
    }
    let end = s.frame(s.total());
    let (what, formula) = a.play.formula();
    out.push_str(&format!("{what}: {} ({formula} = {})\n", size_text(s.measured(&end)), size_text(s.expected())));
    if let Some(path) = &a.svg {
        if !(0.0..=1.0).contains(&a.at) {
            return Err(CliError::new("--at", "a fraction of the run from 0 to 1"));
        }
        let (up, nic) = link_names(&topo);
        let f = s.frame(Micros(s.total().0 * a.at));
        let svg = teach_frame(&s, &f, &LinkNames { scale_up: &up, nic: &nic }, &Theme::for_dark(a.theme == ThemeArg::Dark), a.width);
        std::fs::write(path, svg).map_err(|e| CliError::new("--svg", format!("cannot write {}: {e}", path.display())))?;
        out.push_str(&format!("{}\tframe at {:.0}% of the run\n", path.display(), a.at * 100.0));
    }
    Ok(out)
}
