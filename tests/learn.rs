//! Browser tests of Learn (learn.html's Yew app, src/learn; headless Chromium via wasm-pack):
//! it mounts and plays a frame, steps and plays a ring whose bytes counter follows the textbook
//! formula, and a lesson step is answered by the model (NVLink4 against NDR: 9x per direction).
#![cfg(target_arch = "wasm32")]

use fabricscope_web::pages::learn::lesson::{check, LessonView, Props as LessonProps};
use fabricscope_web::pages::learn::Learn;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |ok, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&ok, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
    yew::scheduler::flush().await;
}

/// A fresh element on the page, with no link in the URL (the default 4 nodes of 8 H100).
fn host() -> Element {
    let win = web_sys::window().unwrap();
    let _ = win.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#"));
    let doc = win.document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    host
}

fn find(root: &Element, sel: &str) -> Element {
    root.query_selector(sel).unwrap().unwrap_or_else(|| panic!("no {sel} in {}", &root.inner_html()[..1500.min(root.inner_html().len())]))
}

fn data(root: &Element, sel: &str, key: &str) -> String {
    find(root, sel).get_attribute(&format!("data-{key}")).unwrap_or_default()
}

async fn click(root: &Element, sel: &str) {
    find(root, sel).dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
}

async fn fire(el: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    el.dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn learn_mounts_steps_and_plays_a_ring_by_the_formula() {
    let root = host();
    yew::Renderer::<Learn>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    assert!(root.query_selector("#t-svg svg").unwrap().is_some(), "a frame drawn on mount");
    let (n, s): (f64, f64) = (data(&root, "#t-count", "n").parse().unwrap(), data(&root, "#t-count", "s").parse().unwrap());
    assert_eq!((n, s), (32.0, 16_777_216.0), "the default design, 16 MiB per GPU");
    // Two steps of a ring: each GPU has sent two chunks of S/n.
    click(&root, "#t-fwd").await;
    assert!(find(&root, "#t-now").text_content().unwrap().starts_with("Step 1 of 62"));
    click(&root, "#t-fwd").await;
    let sent: f64 = data(&root, "#t-count", "measured").parse().unwrap();
    assert!((sent - 2.0 * s / n).abs() < 1e-6 * s, "after 2 steps: {sent}");
    // Played at 4x by the animation frame loop until done: the counter reaches 2(n-1)/n x S.
    let speed = find(&root, "#t-speed").dyn_into::<web_sys::HtmlSelectElement>().unwrap();
    speed.set_value("4");
    fire(&speed, "change").await;
    click(&root, "#t-play").await;
    assert_eq!(find(&root, "#t-play").text_content().unwrap(), "Pause");
    sleep(300).await;
    let moving: f64 = data(&root, "#t-count", "measured").parse().unwrap();
    assert!(moving > sent, "frames move the counter: {moving} after {sent}");
    for _ in 0..200 {
        if data(&root, "#t-count", "done") == "true" {
            break;
        }
        sleep(50).await;
    }
    assert_eq!(data(&root, "#t-count", "done"), "true", "played to the end in 10 s");
    let end: f64 = data(&root, "#t-count", "measured").parse().unwrap();
    let want = 2.0 * (n - 1.0) / n * s;
    assert!((end - want).abs() < 1e-6 * want, "counter {end} vs formula {want}");
    assert!(find(&root, "#t-now").text_content().unwrap().starts_with("Done: 62 steps"));
    assert_eq!(find(&root, "#t-play").text_content().unwrap(), "Play", "the loop stops at the end");
    // Unmounted, the loop is gone with it (nothing left to cancel: no panic, no frame).
    root.set_inner_html("");
}

#[wasm_bindgen_test]
async fn a_lesson_step_is_answered_by_the_model() {
    let file: serde_json::Value = serde_json::from_str(include_str!("../assets/lessons/nvlink-vs-ib.json")).unwrap();
    let lesson = Rc::new(check(file).unwrap());
    let root = host();
    let props = LessonProps { lesson, start: 0, share: "#".into(), imported: false, on_progress: yew::Callback::noop() };
    yew::Renderer::<LessonView>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    assert!(find(&root, "#t-lesson-h").text_content().unwrap().ends_with("step 1 of 2"));
    let guess: HtmlInputElement = find(&root, "#t-guess").dyn_into().unwrap();
    guess.set_value("9");
    fire(&guess, "input").await;
    assert_eq!(find(&root, ".t-guess output").text_content().unwrap(), "9 ×");
    click(&root, "#t-reveal").await;
    let answer = find(&root, ".t-answer");
    assert_eq!(answer.get_attribute("data-value").as_deref(), Some("9"), "450 GB/s over 50 GB/s per direction");
    assert!(answer.text_content().unwrap().starts_with("You guessed 9 ×. The model says 9"));
    // The second step is a choice: the third option (450 / 50) is the model's.
    click(&root, "#t-next").await;
    let third = root.query_selector_all("input[name=t-choice]").unwrap().item(2).unwrap().dyn_into::<HtmlElement>().unwrap();
    third.click();
    yew::scheduler::flush().await;
    click(&root, "#t-reveal").await;
    assert_eq!(data(&root, ".t-answer", "choice"), "2");
    assert!(find(&root, ".t-answer").text_content().unwrap().contains("(yours)"));
    click(&root, "#t-next").await;
    assert_eq!(find(&root, "#t-lesson-h").text_content().unwrap(), "Lesson complete");
    assert!(find(&root, "[data-testid=lesson-done]").text_content().unwrap().contains("2 of 2 guesses close"));
}

/// The serving lesson (issue 24): the scenario is filled by the model, the step's animation
/// (a ring all-reduce on the step's two nodes) is drawn and steps, and the answer is the
/// serving model's ratio of one cross-node all-reduce to one inside NVLink.
#[wasm_bindgen_test]
async fn the_serving_lesson_fills_its_text_animates_and_answers_by_the_model() {
    use fabricscope_teach::lesson::answer_json;
    let file: serde_json::Value = serde_json::from_str(include_str!("../assets/lessons/serving-tp-kv.json")).unwrap();
    let want = answer_json(&file["steps"][0].to_string(), &fabricscope_model::Cluster::default()).unwrap();
    let lesson = Rc::new(check(file).unwrap());
    let root = host();
    let props = LessonProps { lesson, start: 0, share: "#".into(), imported: false, on_progress: yew::Callback::noop() };
    yew::Renderer::<LessonView>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    let scenario = find(&root, ".hint").text_content().unwrap();
    assert!(scenario.contains("16384 bytes") && !scenario.contains('{'), "{scenario}");
    assert!(root.query_selector("[data-testid=lesson-anim] svg").unwrap().is_some(), "the animation is drawn");
    assert_eq!(data(&root, "[data-testid=lesson-anim]", "play"), "ring");
    click(&root, "#t-lesson-step").await;
    assert!(find(&root, "[data-testid=lesson-anim-now]").text_content().unwrap().starts_with("Step 2 of "));
    click(&root, "#t-reveal").await;
    let got: f64 = data(&root, ".t-answer", "value").parse().unwrap();
    assert_eq!(got, want.value);
    assert!(got > 1.0, "across the NIC costs more: {got}");
    let explain = find(&root, "[data-testid=lesson-explain]").text_content().unwrap();
    assert!(explain.contains("µs; across the NICs") && !explain.contains('{'), "{explain}");
}
