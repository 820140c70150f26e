//! Browser tests (headless Chromium via wasm-pack): the app mounts, the chart follows the
//! node slider, errors show beside the control, and the model gives NCCL's numbers in wasm.
#![cfg(target_arch = "wasm32")]

use fabricscope_model::units::Bytes;
use fabricscope_model::{AlgoChoice, Cluster, Collective, Comm, ProtoChoice};
use fabricscope_web::eval::{evaluate, KEY_BYTES};
use fabricscope_web::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a fresh App into its own div and waits for the first render.
async fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    yew::Renderer::<App>::with_root(host.clone()).render();
    yew::scheduler::flush().await;
    host
}

fn find(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no {sel} in {}", root.inner_html()))
}

fn input(root: &Element, sel: &str) -> HtmlInputElement {
    find(root, sel).dyn_into().unwrap()
}

/// Sets an input's value and fires a bubbling `input` event, as typing or dragging does.
async fn type_into(el: &HtmlInputElement, value: &str) {
    el.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    let ev = Event::new_with_event_init_dict("input", &init).unwrap();
    el.dispatch_event(&ev).unwrap();
    yew::scheduler::flush().await;
}

fn chart_svg(root: &Element) -> String {
    find(root, "[data-testid=chart] svg").outer_html()
}

fn busbw(root: &Element) -> f64 {
    find(root, "[data-testid=busbw-value]")
        .get_attribute("data-value")
        .unwrap()
        .parse()
        .unwrap()
}

#[wasm_bindgen_test]
async fn chart_follows_the_node_slider() {
    let root = mount().await;
    let slider = input(&root, "#nodes-slider");
    assert_eq!(slider.value(), "2", "4 nodes is 2^2");
    assert_eq!(
        slider.get_attribute("aria-valuetext").as_deref(),
        Some("4 nodes, 32 GPUs")
    );
    let before = chart_svg(&root);
    assert!(
        before.contains("busbw, GB/s per direction"),
        "axis label states unit and direction"
    );
    assert!(before.contains("<polyline"));
    let bw_before = busbw(&root);

    type_into(&slider, "6").await;
    let slider = input(&root, "#nodes-slider");
    assert_eq!(
        slider.get_attribute("aria-valuetext").as_deref(),
        Some("64 nodes, 512 GPUs")
    );
    assert_eq!(input(&root, "#nodes-number").value(), "64");
    let after = chart_svg(&root);
    assert_ne!(before, after, "chart redrawn for 64 nodes");
    assert!(after.contains("512 GPUs"));
    let bw_after = busbw(&root);
    assert!(bw_after.is_finite() && bw_after > 0.0);
    assert_ne!(bw_before, bw_after);
    // The page shows exactly what the model computes.
    let want = evaluate(&Cluster {
        nodes: 64,
        ..Cluster::default()
    })
    .unwrap()
    .key
    .busbw
    .0;
    assert_eq!(bw_after, want);
}

#[wasm_bindgen_test]
async fn bad_node_count_shows_an_error_and_keeps_the_chart() {
    let root = mount().await;
    let before = chart_svg(&root);
    let number = input(&root, "#nodes-number");
    type_into(&number, "0").await;
    let err = find(&root, "#nodes-error").text_content().unwrap();
    assert!(
        err.contains("between 1 and"),
        "model's message shown: {err}"
    );
    assert_eq!(
        find(&root, "#nodes-number")
            .get_attribute("aria-invalid")
            .as_deref(),
        Some("true")
    );
    assert_eq!(chart_svg(&root), before, "last valid chart kept");
    assert_eq!(
        input(&root, "#nodes-slider").value(),
        "2",
        "slider stays on the cluster shown"
    );

    type_into(&input(&root, "#nodes-number"), "16").await;
    assert!(root.query_selector("#nodes-error").unwrap().is_none());
    assert_eq!(input(&root, "#nodes-slider").value(), "4");
    assert_ne!(chart_svg(&root), before);
}

#[wasm_bindgen_test]
fn model_runs_in_wasm_with_nccl_numbers() {
    let e = evaluate(&Cluster::default()).unwrap();
    assert_eq!(e.total_gpus, 32);
    assert!(e.key.busbw.0.is_finite() && e.key.busbw.0 > 0.0);
    // NCCL 2.27.5's tables for 2x8 H100, 8x400G (validation/nccl-golden.csv): Ring Simple
    // AllReduce latency 131.6 us (x1.4 on the ring plateau), algbw 204.8 GB/s.
    let c = Cluster {
        nodes: 2,
        ..Cluster::default()
    };
    let topo = c.topology().unwrap();
    let comm = Comm::new(&topo, topo.whole()).unwrap();
    let p = comm
        .predict(
            Collective::AllReduce,
            Bytes(KEY_BYTES),
            AlgoChoice::Ring,
            ProtoChoice::Simple,
        )
        .unwrap();
    let want = 131.6 * 1.4 + KEY_BYTES as f64 / (1000.0 * 204.8);
    assert!(
        (p.time.0 - want).abs() / want < 0.005,
        "{} vs {want}",
        p.time.0
    );
}
