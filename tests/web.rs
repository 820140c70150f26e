//! Browser tests (headless Chromium via wasm-pack): the app mounts, every panel follows the
//! controls the way the model says, errors show beside the control at fault while the rest
//! of the page keeps the last valid result, and the model gives NCCL's numbers in wasm.
#![cfg(target_arch = "wasm32")]

use fabricscope_model::units::Bytes;
use fabricscope_model::{cluster_preset, AlgoChoice, Cluster, Collective, Comm, ProtoChoice};
use fabricscope_web::widgets::eval::{evaluate, KEY_BYTES};
use fabricscope_web::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a fresh App into its own div and waits for the first render.
async fn mount() -> Element {
    let win = web_sys::window().unwrap();
    // A link left in the URL by an earlier test would change the starting cluster.
    let _ = win.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#"));
    let doc = win.document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    yew::Renderer::<App>::with_root(host.clone()).render();
    yew::scheduler::flush().await;
    // The charts and panels join one group per frame after the first render (app.rs:
    // LATE_PANELS groups, FRAME_MS apart): wait for the last (the tiers table), up to 5 s.
    for _ in 0..250 {
        if host.query_selector("[data-testid=tiers]").ok().flatten().is_some() {
            break;
        }
        sleep(20).await;
        yew::scheduler::flush().await;
    }
    host
}

fn find(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no {sel} in {}", &root.inner_html()[..2000.min(root.inner_html().len())]))
}

fn input(root: &Element, sel: &str) -> HtmlInputElement {
    find(root, sel).dyn_into().unwrap()
}

async fn fire(el: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let ev = Event::new_with_event_init_dict(kind, &init).unwrap();
    el.dispatch_event(&ev).unwrap();
    yew::scheduler::flush().await;
}

/// Sets an input's value and fires a bubbling `input` event, as typing or dragging does, then
/// `change`, as leaving a number box does (boxes apply on commit; sliders on input).
async fn type_into(el: &HtmlInputElement, value: &str) {
    el.set_value(value);
    fire(el, "input").await;
    fire(el, "change").await;
}

async fn pick(root: &Element, sel: &str, value: &str) {
    let s: HtmlSelectElement = find(root, sel).dyn_into().unwrap();
    s.set_value(value);
    fire(&s, "change").await;
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |ok, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&ok, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
    yew::scheduler::flush().await;
}

fn svg(root: &Element, testid: &str) -> String {
    find(root, &format!("[data-testid={testid}] svg")).outer_html()
}

fn num(root: &Element, sel: &str) -> f64 {
    find(root, sel).get_attribute("data-value").unwrap().parse().unwrap()
}

fn text(root: &Element, sel: &str) -> String {
    find(root, sel).text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn charts_follow_the_node_slider() {
    let root = mount().await;
    let slider = input(&root, "#nodes-slider");
    assert_eq!(slider.value(), "2", "4 nodes is 2^2");
    assert_eq!(slider.get_attribute("aria-valuetext").as_deref(), Some("4 nodes, 32 GPUs"));
    let before = svg(&root, "chart");
    assert!(before.contains("busbw, GB/s per direction"), "axis label states unit and direction");
    assert!(before.contains("<polyline"));
    let bw_before = num(&root, "[data-testid=busbw-value]");

    type_into(&slider, "6").await;
    let slider = input(&root, "#nodes-slider");
    assert_eq!(slider.get_attribute("aria-valuetext").as_deref(), Some("64 nodes, 512 GPUs"));
    assert_eq!(input(&root, "#nodes-number").value(), "64");
    let after = svg(&root, "chart");
    assert_ne!(before, after, "chart redrawn for 64 nodes");
    assert!(after.contains("512 GPUs"));
    // The page shows exactly what the model computes.
    let want = evaluate(&Cluster { nodes: 64, ..Cluster::default() }).unwrap().key.unwrap().busbw.0;
    let bw_after = num(&root, "[data-testid=busbw-value]");
    assert_eq!(bw_after, want);
    assert_ne!(bw_before, bw_after);
    // 64 nodes of 8 NICs need a second level: the hierarchy gains a spine bar.
    assert!(svg(&root, "hierarchy").contains("spine switch"));
}

#[wasm_bindgen_test]
async fn bad_node_count_shows_an_error_beside_it_and_keeps_the_charts() {
    let root = mount().await;
    let before = svg(&root, "chart");
    let hier = svg(&root, "hierarchy");
    type_into(&input(&root, "#nodes-number"), "0").await;
    let err = text(&root, "#nodes-error");
    assert!(err.contains("between 1 and"), "model's message shown: {err}");
    assert_eq!(find(&root, "#nodes-number").get_attribute("aria-invalid").as_deref(), Some("true"));
    assert!(find(&root, "[data-field=nodes]").class_name().contains("invalid"));
    assert_eq!(svg(&root, "chart"), before, "last valid chart kept");
    assert_eq!(svg(&root, "hierarchy"), hier);
    assert!(text(&root, "[data-testid=stale-note]").contains("last valid cluster"));

    type_into(&input(&root, "#nodes-number"), "16").await;
    assert!(root.query_selector("#nodes-error").unwrap().is_none());
    assert_eq!(input(&root, "#nodes-slider").value(), "4");
    assert_ne!(svg(&root, "chart"), before);
}

#[wasm_bindgen_test]
async fn impossible_hardware_is_blamed_on_the_right_picker() {
    let root = mount().await;
    let before = svg(&root, "chart");
    // Choosing the A100 takes its own fabric; the ones it cannot use are disabled.
    pick(&root, "#gpu-select", "a100").await;
    assert_eq!(select_value(&root, "#scale-up-select"), "nvlink3");
    assert!(root.query_selector("#scale-up-error").unwrap().is_none());
    assert_ne!(svg(&root, "chart"), before);
    let nv4 = find(&root, "#scale-up-select option[value=nvlink4]");
    assert!(nv4.has_attribute("disabled") && text(&root, "#scale-up-select option[value=nvlink4]").contains("NVLink3, not NVLink4"));
    // Leaf switches too few for the NICs: the message sits under the leaf control.
    type_into(&input(&root, "#nodes-number"), "128").await;
    type_into(&input(&root, "#leaves-number"), "2").await;
    assert!(text(&root, "#leaves-error").contains("leaf switch"), "{}", text(&root, "#leaves-error"));
    type_into(&input(&root, "#leaves-number"), "auto").await;
    assert!(root.query_selector("#leaves-error").unwrap().is_none());
}

fn select_value(root: &Element, sel: &str) -> String {
    find(root, sel).dyn_into::<HtmlSelectElement>().unwrap().value()
}

/// Issue 9: NIC HDR, GPU A100, NIC RoCE 800G, then the DGX A100 SuperPOD preset left the NIC
/// picker on RoCE 800G (a select the user touched ignores later `selected` attributes)
/// while the model used HDR. Every picker must show the preset's hardware.
#[wasm_bindgen_test]
async fn pickers_show_the_preset_after_the_user_touched_them() {
    let root = mount().await;
    pick(&root, "#nic-select", "ib-hdr").await;
    pick(&root, "#gpu-select", "a100").await;
    pick(&root, "#nic-select", "roce-800").await;
    assert_eq!(select_value(&root, "#nic-select"), "roce-800");
    let b: HtmlElement = find(&root, "[data-preset=dgx-a100-superpod]").dyn_into().unwrap();
    b.click();
    yew::scheduler::flush().await;
    let c = cluster_preset("dgx-a100-superpod").unwrap().cluster();
    assert_eq!(select_value(&root, "#nic-select"), c.nic.id());
    assert_eq!(select_value(&root, "#gpu-select"), c.gpu.id());
    assert_eq!(select_value(&root, "#scale-up-select"), c.scale_up.id());
    assert_eq!(input(&root, "#nodes-number").value(), c.nodes.to_string());
}

/// Issue 9: a number box applies on commit; typing alone changes nothing, a bad entry is
/// refused with its reason and the design stays.
#[wasm_bindgen_test]
async fn number_boxes_apply_on_commit() {
    let root = mount().await;
    let before = svg(&root, "chart");
    let b = input(&root, "#nodes-number");
    b.set_value("1");
    fire(&b, "input").await;
    assert_eq!(svg(&root, "chart"), before, "a keystroke does not reach the model");
    assert_eq!(input(&root, "#nodes-number").value(), "1", "the box keeps what is typed");
    b.set_value("1e9");
    fire(&b, "input").await;
    fire(&b, "change").await;
    assert!(text(&root, "#nodes-error").contains("whole number"), "{}", text(&root, "#nodes-error"));
    assert_eq!(svg(&root, "chart"), before, "the design stays at 4 nodes");
    type_into(&input(&root, "#nodes-number"), "99999").await;
    assert!(text(&root, "#nodes-error").contains("between 1 and 65536"), "{}", text(&root, "#nodes-error"));
    assert_eq!(svg(&root, "chart"), before);
    type_into(&input(&root, "#nodes-number"), "16").await;
    assert!(root.query_selector("#nodes-error").unwrap().is_none());
    assert_ne!(svg(&root, "chart"), before);
}

#[wasm_bindgen_test]
async fn presets_set_everything_and_press_their_button() {
    let root = mount().await;
    let b: HtmlElement = find(&root, "[data-preset=gb200-nvl72]").dyn_into().unwrap();
    b.click();
    yew::scheduler::flush().await;
    assert_eq!(b.get_attribute("aria-pressed").as_deref(), Some("true"));
    let c = cluster_preset("gb200-nvl72").unwrap().cluster();
    // NVL72 racks are sized in GPUs: 72 trays of 4.
    assert_eq!(input(&root, "#nodes-number").value(), (c.nodes * 4).to_string());
    assert_eq!(input(&root, "#gpn-number").value(), "4");
    assert_eq!(num(&root, "[data-testid=gpus] .stat-value"), 288.0);
    let want = evaluate(&c).unwrap().key.unwrap().busbw.0;
    assert_eq!(num(&root, "[data-testid=busbw-value]"), want);
    // The drawing follows the cluster once it is on screen (it waits while off screen).
    find(&root, "[data-testid=mapping]").scroll_into_view();
    sleep(100).await;
    assert!(svg(&root, "mapping").contains("domain 0"), "NVL72 racks drawn as domains");
}

#[wasm_bindgen_test]
async fn collective_panel_toggles_op_and_algbw_without_rerunning_the_model() {
    let root = mount().await;
    let busbw = svg(&root, "chart");
    let toggle = input(&root, "#algbw-toggle");
    toggle.set_checked(true);
    fire(&toggle, "change").await;
    let algbw = svg(&root, "chart");
    assert!(algbw.contains("algbw, GB/s per direction"));
    assert_ne!(busbw, algbw);
    let a2a = input(&root, "input[name=op][value=all_to_all]");
    a2a.set_checked(true);
    fire(&a2a, "change").await;
    assert!(text(&root, "[data-testid=chart] .chart-title").contains("AllToAll"));
    // NCCL's choice is marked along the AllReduce curve.
    let ar = input(&root, "input[name=op][value=all_reduce]");
    ar.set_checked(true);
    fire(&ar, "change").await;
    let s = svg(&root, "chart");
    assert!(s.contains("Ring") || s.contains("Tree") || s.contains("NVLS"), "algorithm labels on the curve");
}

#[wasm_bindgen_test]
async fn hierarchy_table_formula_and_claims_show_the_model() {
    let root = mount().await;
    let h = svg(&root, "hierarchy");
    assert!(h.contains("÷9 per GPU") || h.contains("÷7.1 per GPU"), "tier ratios written on the chart");
    assert!(h.contains("450 GB/s"));
    let t = text(&root, "[data-testid=tiers] table");
    assert!(t.contains("NVLink4") && t.contains("900") && t.contains("InfiniBand NDR"));
    let f = text(&root, "[data-testid=formula-time]");
    let k = evaluate(&Cluster::default()).unwrap();
    let fm = k.formula.unwrap();
    assert!(f.contains(&format!("{}", fm.bytes.0)) && f.contains("1000 ×"), "{f}");
    assert!(text(&root, "[data-testid=claims]").contains("NVLink is 18x faster"));
}

#[wasm_bindgen_test]
async fn training_panel_appears_after_the_search_and_follows_tp() {
    let root = mount().await;
    for _ in 0..40 {
        if root.query_selector("[data-testid=step-chart] svg").unwrap().is_some() {
            break;
        }
        sleep(100).await;
    }
    assert!(root.query_selector("[data-testid=heatmap] svg").unwrap().is_some(), "heatmap drawn");
    assert!(root.query_selector("[data-testid=memory] svg").unwrap().is_some(), "memory drawn");
    let mfu = num(&root, "[data-testid=mfu]");
    assert!(mfu > 0.0 && mfu < 1.0, "{mfu}");
    pick(&root, "#tp-select", "2").await;
    for _ in 0..40 {
        if find(&root, "[data-testid=layout]").get_attribute("data-tp").as_deref() == Some("2")
            && text(&root, "[data-testid=step-time]").len() > 1
            && text(&root, "[data-testid=training-numbers]").contains("TP2")
        {
            break;
        }
        sleep(100).await;
    }
    assert!(text(&root, "[data-testid=training-numbers]").contains("TP2"), "{}", text(&root, "[data-testid=training-numbers]"));
    pick(&root, "#tp-select", "best").await;
    assert_eq!(find(&root, "#pp-select").tag_name(), "SELECT");
}

#[wasm_bindgen_test]
async fn training_numbers_follow_the_node_slider_before_the_search_answers() {
    let root = mount().await;
    let settled = |root: &Element| find(root, "[data-testid=training]").get_attribute("aria-busy").as_deref() == Some("false");
    for _ in 0..60 {
        if settled(&root) && root.query_selector("[data-testid=step-time]").unwrap().is_some() {
            break;
        }
        sleep(100).await;
    }
    // On screen: off screen the panel skips drawing these interim numbers.
    find(&root, "[data-testid=training]").scroll_into_view();
    sleep(200).await;
    let before = num(&root, "[data-testid=step-time]");
    let layout = text(&root, "[data-testid=step-time] + .stat-sub");
    // One input event doubles the nodes; in the same render, before the debounced search,
    // the step time is the last search's layout on the new cluster (DP doubled: each GPU
    // gets half the batch, so the step is shorter).
    type_into(&input(&root, "#nodes-number"), "8").await;
    let after = num(&root, "[data-testid=step-time]");
    assert!(after < before, "step {after} s on 64 GPUs vs {before} s on 32");
    assert!(text(&root, "[data-testid=training-status]").contains("last search"), "{}", text(&root, "[data-testid=training-status]"));
    let (tp, pp) = (layout.split(' ').next().unwrap_or(""), layout.split(' ').nth(1).unwrap_or(""));
    assert!(text(&root, "[data-testid=step-time] + .stat-sub").starts_with(&format!("{tp} {pp} ")), "same TP and PP kept: {layout}");
    // Then the search answers for 64 GPUs.
    for _ in 0..60 {
        if settled(&root) {
            break;
        }
        sleep(100).await;
    }
    assert!(text(&root, "[data-testid=training-status]").contains("layouts searched"));
    assert!(num(&root, "[data-testid=step-time]") <= after * (1.0 + 1e-9), "the search's best is no slower than the carried layout");
}

#[wasm_bindgen_test]
fn model_runs_in_wasm_with_nccl_numbers() {
    let e = evaluate(&Cluster::default()).unwrap();
    assert_eq!(e.total_gpus, 32);
    assert!(e.key.unwrap().busbw.0 > 0.0);
    // NCCL 2.27.5's tables for 2x8 H100, 8x400G (validation/nccl-golden.csv): Ring Simple
    // AllReduce latency 131.6 us (x1.4 on the ring plateau), algbw 204.8 GB/s.
    let c = Cluster { nodes: 2, ..Cluster::default() };
    let topo = c.topology().unwrap();
    let comm = Comm::new(&topo, topo.whole()).unwrap();
    let p = comm.predict(Collective::AllReduce, Bytes(KEY_BYTES), AlgoChoice::Ring, ProtoChoice::Simple).unwrap();
    let want = 131.6 * 1.4 + KEY_BYTES as f64 / (1000.0 * 204.8);
    let nccl = p.nccl_time.expect("NCCL models AllReduce").0;
    assert!((nccl - want).abs() / want < 0.005, "{nccl} vs {want}");
    assert!(p.time.0 > nccl, "expected (measured-like) time {} vs NCCL's {nccl}", p.time.0);
}
