//! Learn (learn.html, its own wasm: src/bin/fabricscope-learn): NCCL's collectives played step
//! by step on the design of the page's link, the algorithms side by side, predict-then-check
//! lessons and the glossary. Four parts, each filled the first time it opens.
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | the door into the model: plans, frames, the algorithms table (plain data) |
//! | [`player`] | the played collective: its state (a reducer) and controls |
//! | [`animation`] | the requestAnimationFrame loop as a hook |
//! | [`algos`] | every algorithm NCCL could run, forced, beside its choice |
//! | [`lessons`], [`lesson`] | the lesson list, import and share link; one lesson played |
//! | [`lesson_anim`] | a lesson step's animation on the step's own cluster |
//! | [`progress`] | lesson progress kept in this browser |
//! | [`glossary`] | the terms and their definitions |

pub mod algos;
pub mod animation;
pub mod glossary;
pub mod lesson;
pub mod lesson_anim;
pub mod lessons;
pub mod model;
pub mod player;
pub mod progress;

use algos::AlgosPart;
use glossary::GlossaryPart;
use lessons::LessonsPart;
use player::{Player, PlayerAction, PlayerPart};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// A file of the site as text (`path` relative to the page), or why not.
pub async fn fetch_text(path: &str) -> Result<String, String> {
    let win = web_sys::window().ok_or("no window")?;
    let resp: web_sys::Response = JsFuture::from(win.fetch_with_str(path)).await.map_err(|_| format!("{path} could not be fetched"))?.unchecked_into();
    if !resp.ok() {
        return Err(format!("{path}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(|_| "no body")?).await.map_err(|_| format!("{path} could not be read"))?;
    Ok(text.as_string().unwrap_or_default())
}

/// The term the link's fragment asks for (`g=<id>`).
fn linked_term() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let h = hash.trim_start_matches('#');
    h.split('&').find_map(|kv| kv.strip_prefix("g=")).filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')).map(str::to_string)
}

/// The parts of the page, in order.
const PARTS: [(&str, &str); 4] = [
    ("t-anim", "Collectives step by step, on your design"),
    ("t-algos", "Algorithms: NCCL's choice against the rest"),
    ("t-lessons", "Lessons: predict, then check with the model"),
    ("t-gloss", "Glossary"),
];

/// Which parts have been opened (each is filled the first time), and the glossary term asked for.
#[derive(Clone, PartialEq)]
struct Opened {
    parts: [bool; 4],
    /// Bumped on every opening and hashchange: the algorithms follow the link.
    version: u32,
    term: Option<(String, u32)>,
}

enum OpenAction {
    /// Part `i` opened.
    Part(usize),
    /// The link changed; it may ask for a glossary term.
    Hash(Option<String>),
}

impl Reducible for Opened {
    type Action = OpenAction;

    fn reduce(self: std::rc::Rc<Self>, action: OpenAction) -> std::rc::Rc<Self> {
        let mut o = (*self).clone();
        o.version += 1;
        match action {
            OpenAction::Part(i) => o.parts[i] = true,
            OpenAction::Hash(Some(t)) => {
                o.parts[3] = true;
                o.term = Some((t, o.version));
            }
            OpenAction::Hash(None) => {}
        }
        std::rc::Rc::new(o)
    }
}

#[function_component(Learn)]
pub fn learn() -> Html {
    // Open at the start: the player; the lessons with ?lesson=; the glossary with g=.
    let first = use_state(|| {
        let lesson = web_sys::window().and_then(|w| w.location().search().ok()).is_some_and(|s| s.contains("lesson="));
        [true, false, lesson, linked_term().is_some()]
    });
    let opened = use_reducer(|| Opened { parts: *first, version: 0, term: linked_term().map(|t| (t, 0)) });
    let player = use_reducer(Player::new);
    let gloss = use_node_ref();
    // The link's g= (now and on each hashchange) opens the glossary at its term.
    {
        let (opened, gloss) = (opened.clone(), gloss.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo_events::EventListener::new(&w, "hashchange", move |_| {
                    let term = linked_term();
                    if term.is_some() {
                        if let Some(d) = gloss.cast::<web_sys::Element>() {
                            let _ = d.set_attribute("open", "");
                        }
                    }
                    opened.dispatch(OpenAction::Hash(term));
                })
            });
            move || drop(listener)
        });
    }
    use_effect(crate::plumbing::hooks::sync_selects);
    let ontoggle = |i: usize| {
        let (opened, player) = (opened.clone(), player.clone());
        Callback::from(move |e: Event| {
            // Toggles of details inside a part (the transcript) reach here too.
            let open = e.target_dyn_into::<web_sys::Element>().is_some_and(|d| d.id() == PARTS[i].0 && d.has_attribute("open"));
            if !open {
                return;
            }
            opened.dispatch(OpenAction::Part(i));
            // The page may have rewritten its link since the plan was made.
            if i == 0 {
                player.dispatch(PlayerAction::Fresh);
            }
        })
    };
    let body = |i: usize| -> Html {
        if !opened.parts[i] {
            return html! { <div class="t-body"></div> };
        }
        match i {
            0 => html! { <PlayerPart player={player.clone()} /> },
            1 => html! { <AlgosPart version={opened.version} /> },
            2 => html! { <LessonsPart /> },
            _ => html! { <GlossaryPart focus={opened.term.clone()} /> },
        }
    };
    html! {
        <div id="teach-parts">
            { for PARTS.iter().enumerate().map(|(i, (id, title))| html! {
                <details id={*id} open={first[i]} ontoggle={ontoggle(i)} ref={if i == 3 { gloss.clone() } else { NodeRef::default() }}>
                    <summary><h2 class="t-part">{ *title }</h2></summary>
                    { body(i) }
                </details>
            }) }
        </div>
    }
}

/// Mounts Learn into `#teach-parts`'s place (learn.html), one timer tick after the wasm is
/// instantiated (two short tasks rather than one long one).
pub fn mount() {
    gloo_timers::callback::Timeout::new(0, || {
        let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("teach-root")) else { return };
        yew::Renderer::<Learn>::with_root(root).render();
    })
    .forget();
}
