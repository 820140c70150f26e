//! Chart renderers: model data in, SVG text out. The same code draws for the web app (the
//! string goes into the DOM) and the CLI (the string goes to a file), so a chart a user sees
//! and one they export are identical.
//!
//! | module | what it holds |
//! |---|---|
//! | [`theme`] | light and dark palettes, shared with the page's CSS |
//! | [`scale`] | log-axis ticks and labels (bytes in powers of two, GB/s in 1-2-5 steps) |
//! | [`collective`] | busbw vs message size, one line per series |
//! | [`compare`] | several designs: busbw and scaling overlaid, hierarchy, step and memory side by side |
//! | [`hierarchy`] | bandwidth per tier of the hierarchy, as bars on a log scale |
//! | [`training`] | stacked step-time bars, MFU heatmap over TP x PP, memory vs HBM |
//! | [`topology`] | the cluster drawn in aggregate, GPUs and links coloured by parallelism |
//! | [`pareto`] | the right-sizer's fabric options: cost or power against step time |
//! | [`serving`] | tokens/s per GPU against per user as batch grows; the NVLink boundary; bands |
//! | [`plan`] | the serving planner: deployments meeting latency targets, per GPU against per user, the front |
//! | [`check`] | measured nccl-tests points over the expected curve and band |
//! | [`teach`] | one frame of a collective played step by step on a small cluster |
//! | [`fabric_loads`] | the fat tree with each link's load (flow model), failed links dashed |
//! | [`band`] | throughput fraction over seeds as p10-p90 bands with the median |
//! | [`report`] | every chart of a Report, named and captioned (CLI `render`, `?embed=`) |
//!
//! Renderers never panic: a drawing failure yields a small SVG that says what went wrong.
//!
//! Why not plotters: measured with yew 0.23 (../shared/reference/web-notes.md §4.3), one
//! plotters line chart adds 21-23 KiB brotli to the wasm, and on wasm its text layout
//! (`style/font/web.rs`) inserts and measures a DOM `<span>` per label, forcing a layout each
//! time. The page has to fit 250 KB gzipped and repaint within 16 ms of an input; these
//! charts are boxes, lines and labels with fixed metrics, which plain SVG text does directly.

pub mod band;
pub mod check;
pub mod collective;
pub mod compare;
pub mod fabric_loads;
pub mod hierarchy;
pub mod pareto;
pub mod plan;
pub mod report;
pub mod scale;
pub mod serving;
pub mod topology;
pub mod training;
pub mod teach;
pub mod text;
mod svg;
pub mod theme;

pub use svg::{escape, polylines_in, svg_size, texts};

pub use collective::{collective_chart, collective_chart_with_points, ChartOptions, Mark, Points, Series};
pub use band::{busbw_spread_chart, fraction_bands_chart, step_bands_chart, BandRow};
pub use fabric_loads::{fabric_loads_chart, LoadsOptions};
pub use hierarchy::{bandwidth_hierarchy_chart, bandwidth_hierarchy_chart_with, HierarchyOptions};
pub use topology::{megatron_traffic, topology_chart, Layout, Par, TopoOptions, TopoSpec, Traffic};
pub use plan::{plan_chart, PlanSeries};
pub use serving::{serving_chart, ServingChart, ServingPoint, ServingSeries};
pub use theme::{Rgb, Theme};
