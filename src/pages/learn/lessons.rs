//! Learn's third part: the lessons (lessons/index.json and one file each), their progress in
//! this browser, a lesson file imported or carried in the link (`?lesson=<id>` or the whole
//! file, base64url), and the lesson being played ([`super::lesson::LessonView`]).

use super::fetch_text;
use super::lesson::{check, LessonFile, LessonView};
use super::progress::{self, Progress};
use fabricscope_model::link::{base64url_decode, base64url_encode};
use std::rc::Rc;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::prelude::*;

/// Largest lesson file imported, bytes.
const MAX_LESSON_BYTES: f64 = 262_144.0;

/// The lesson being played, numbered so a new play starts afresh.
#[derive(Clone, PartialEq)]
struct Playing {
    lesson: Rc<LessonFile>,
    imported: bool,
    start: usize,
    share: String,
    run: u32,
}

/// This page's address with `?lesson=<value>` (the hash kept).
fn share_link(value: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    match web_sys::Url::new(&href) {
        Ok(u) => {
            u.search_params().set("lesson", value);
            u.href()
        }
        Err(_) => format!("?lesson={value}"),
    }
}

/// The link's `?lesson=`, if any.
fn lesson_in_link() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get("lesson")
}

/// A lesson carried whole in a link: base64url of its JSON, its length checked before it is
/// decoded (base64url takes 4 characters for 3 bytes of the file).
fn from_link(value: &str) -> Result<LessonFile, String> {
    let max = (MAX_LESSON_BYTES as usize).div_ceil(3) * 4;
    if value.len() > max {
        return Err(format!("it is {} characters, over the {max} a lesson link may carry (a {} KiB lesson file)", value.len(), MAX_LESSON_BYTES as usize / 1024));
    }
    let bytes = base64url_decode(value).ok_or("not base64url")?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    check(v)
}

#[derive(Properties, PartialEq)]
pub struct Props {}

#[function_component(LessonsPart)]
pub fn lessons_part(_: &Props) -> Html {
    // The listed lessons (id, title); None until read.
    let index = use_state(|| None::<Vec<(String, String)>>);
    let msg = use_state(String::new);
    let playing = use_state(|| None::<Playing>);
    // Bumped when progress is saved: the marks are read again.
    let marks = use_state(|| 0u32);
    // Plays so far: each new play a fresh lesson view.
    let runs = use_mut_ref(|| 0u32);
    let play = {
        let (playing, msg, marks, runs) = (playing.clone(), msg.clone(), marks.clone(), runs.clone());
        Rc::new(move |l: LessonFile, imported: bool| {
            let read = progress::load();
            if !read.notes.is_empty() {
                msg.set(read.notes.join(" "));
            }
            let had = progress::of(&read.entries, &l.id);
            let start = had.filter(|p| !p.done).map_or(0, |p| p.step).min(l.steps.len() - 1);
            progress::save(&l.id, Progress { step: start, done: false });
            let share = share_link(&if imported { base64url_encode(l.json.to_string().as_bytes()) } else { l.id.clone() });
            let run = {
                let mut r = runs.borrow_mut();
                *r += 1;
                *r
            };
            playing.set(Some(Playing { lesson: Rc::new(l), imported, start, share, run }));
            marks.set(*marks + 1);
        })
    };
    let open = {
        let (play, msg) = (play.clone(), msg.clone());
        Rc::new(move |id: String| {
            let (play, msg) = (play.clone(), msg.clone());
            spawn_local(async move {
                let got = fetch_text(&format!("lessons/{id}.json")).await.and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())).and_then(check);
                match got {
                    Ok(l) => play(l, false),
                    Err(e) => msg.set(format!("Cannot open the lesson: {e}")),
                }
            });
        })
    };
    // The list, then the link's lesson.
    {
        let (index, msg, play, open) = (index.clone(), msg.clone(), play.clone(), open.clone());
        use_effect_with((), move |_| {
            spawn_local(async move {
                let list = fetch_text("lessons/index.json").await.ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok()).and_then(|v| {
                    v.as_array().map(|a| {
                        a.iter()
                            .filter_map(|x| Some((x.get("id")?.as_str()?.to_string(), x.get("title")?.as_str()?.to_string())))
                            .collect::<Vec<_>>()
                    })
                });
                if let Some(l) = &list {
                    progress::set_known(l.iter().map(|(id, _)| id.clone()).collect());
                }
                let read = progress::load();
                match list {
                    Some(l) => {
                        index.set(Some(l));
                        if !read.notes.is_empty() {
                            msg.set(read.notes.join(" "));
                        }
                    }
                    None => {
                        index.set(Some(Vec::new()));
                        msg.set("The lessons could not be loaded (offline before the first visit?).".into());
                    }
                }
                if let Some(q) = lesson_in_link() {
                    if !q.is_empty() && q.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
                        open(q);
                    } else {
                        match from_link(&q) {
                            Ok(l) => play(l, true),
                            Err(e) => msg.set(format!("The lesson in this link cannot be used: {e}")),
                        }
                    }
                }
            });
        });
    }
    let on_import = {
        let (play, msg) = (play.clone(), msg.clone());
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            let (play, msg) = (play.clone(), msg.clone());
            spawn_local(async move {
                let read = async {
                    if file.size() > MAX_LESSON_BYTES {
                        return Err("a lesson file is at most 256 KiB".to_string());
                    }
                    let text = JsFuture::from(file.text()).await.map_err(|_| "the file could not be read".to_string())?;
                    let v: serde_json::Value = serde_json::from_str(&text.as_string().unwrap_or_default()).map_err(|e| e.to_string())?;
                    check(v)
                };
                match read.await {
                    Ok(l) => play(l, true),
                    Err(e) => msg.set(format!("Cannot use this file: {e}")),
                }
            });
        })
    };
    // Read without cleaning: the first read that cleans says what it reset (see above).
    let entries = progress::peek();
    let list = index.as_deref().unwrap_or(&[]);
    let done = list.iter().filter(|(id, _)| progress::of(&entries, id).is_some_and(|p| p.done)).count();
    let on_progress = {
        let marks = marks.clone();
        Callback::from(move |_| marks.set(*marks + 1))
    };
    html! {
        <div class="t-body">
            <p class="hint">{ "Each lesson asks you to predict a number or a choice first; then the model computes the answer on the cluster of the question and explains it. Progress stays in this browser." }</p>
            <p id="t-lesson-sum" data-testid="lesson-summary">{ if list.is_empty() { String::new() } else { format!("{done} of {} lessons done.", list.len()) } }</p>
            <ul id="t-lesson-list" class="t-lessons">
                { for list.iter().map(|(id, title)| {
                    let p = progress::of(&entries, id);
                    let (state, mark) = match p {
                        Some(Progress { done: true, .. }) => ("done", "✓ done".to_string()),
                        Some(p) => ("started", format!("in progress, step {}", p.step + 1)),
                        None => ("new", "not started".to_string()),
                    };
                    let onclick = {
                        let (open, id) = (open.clone(), id.clone());
                        Callback::from(move |_: MouseEvent| open(id.clone()))
                    };
                    html! {
                        <li data-state={state}>
                            <button type="button" class="link" data-lesson={id.clone()} {onclick}>{ title }</button>
                            <span class="t-mark" data-testid={format!("lesson-mark-{id}")}>{ format!(" · {mark}") }</span>
                        </li>
                    }
                }) }
            </ul>
            <p>
                <label>{ "Import a lesson file " }<input type="file" accept=".json,application/json" id="t-import" onchange={on_import} /></label>{ " " }
                <a href="lessons/README.md">{ "How to write one" }</a>
            </p>
            <p id="t-lesson-msg" role="status">{ (*msg).clone() }</p>
            <div id="t-lesson" class="t-lesson">
                if let Some(p) = &*playing {
                    <LessonView key={p.run} lesson={p.lesson.clone()} start={p.start} share={p.share.clone()} imported={p.imported} {on_progress} />
                }
            </div>
        </div>
    }
}
