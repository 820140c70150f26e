//! One lesson being played: a question, a guess (a slider or a choice), the model's answer on
//! the step's own cluster or the page's, the explanation; at the end, a summary of the run.

use super::model::page_cluster;
use super::progress::{self, Progress};
use super::lesson_anim::LessonAnimation;
use fabricscope_teach::lesson::{answer, fill, step_cluster, StepSpec};
use fabricscope_teach::Play;
use serde_json::Value;
use std::rc::Rc;
use yew::prelude::*;

/// A lesson file that passed [`check`]: its id, title and steps (each read by the model when
/// answered).
#[derive(Clone, Debug, PartialEq)]
pub struct LessonFile {
    pub id: String,
    pub title: String,
    pub steps: Vec<Value>,
    /// The whole file, for a share link that carries it.
    pub json: Value,
}

/// Reads a lesson file, or says why it is not one.
pub fn check(v: Value) -> Result<LessonFile, String> {
    if v.get("format").and_then(Value::as_str) != Some("fabricscope-lesson") {
        return Err("not a lesson file (\"format\" must be \"fabricscope-lesson\")".into());
    }
    let version = v.get("version").cloned().unwrap_or(Value::Null);
    if version.as_f64() != Some(1.0) {
        return Err(format!("lesson version {}; this page reads version 1", if version.is_null() { "undefined".to_string() } else { version.to_string() }));
    }
    let text = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let steps = v.get("steps").and_then(Value::as_array).filter(|s| !s.is_empty()).cloned();
    match (text("id"), text("title"), steps) {
        (Some(id), Some(title), Some(steps)) => Ok(LessonFile { id, title, steps, json: v }),
        _ => Err("a lesson needs an id, a title and at least one step".into()),
    }
}

/// A power of two as a size: 21 -> "2 MiB".
fn size(k: i64) -> String {
    let p = |e: i64| 2f64.powi(e as i32);
    match k {
        k if k >= 30 => format!("{} GiB", p(k - 30)),
        k if k >= 20 => format!("{} MiB", p(k - 20)),
        k if k >= 10 => format!("{} KiB", p(k - 10)),
        k => format!("{} bytes", p(k)),
    }
}

/// How a step's guess is asked and written.
struct Guess {
    slider: bool,
    min: f64,
    max: f64,
    step: f64,
    unit: String,
    pow2: bool,
}

impl Guess {
    fn of(step: &Value) -> Guess {
        let g = step.get("guess");
        let num = |k: &str, d: f64| g.and_then(|g| g.get(k)).and_then(Value::as_f64).unwrap_or(d);
        let pow2 = g.and_then(|g| g.get("pow2")).and_then(Value::as_bool).unwrap_or(false);
        let unit = g.and_then(|g| g.get("unit")).and_then(Value::as_str).filter(|_| !pow2).map_or(String::new(), |u| format!(" {u}"));
        Guess { slider: g.and_then(|g| g.get("kind")).and_then(Value::as_str) == Some("slider"), min: num("min", 0.0), max: num("max", 100.0), step: num("step", 1.0), unit, pow2 }
    }
    /// A guess as the page writes it: "9 ×", or for a power of two "2 MiB = 2^21 bytes".
    fn shown(&self, v: f64) -> String {
        if self.pow2 {
            format!("{} = 2^{v} bytes", size(v as i64))
        } else {
            format!("{v}{}", self.unit)
        }
    }
}

/// The labels of a step's choices.
fn choices(step: &Value) -> Vec<String> {
    step.get("choices").and_then(Value::as_array).map_or(Vec::new(), |c| c.iter().map(|c| c.get("label").and_then(Value::as_str).unwrap_or("").to_string()).collect())
}

fn text<'a>(step: &'a Value, k: &str) -> Option<&'a str> {
    step.get(k).and_then(Value::as_str)
}

/// The inputs of a filled text (the step, which text, the page's cluster) and the text.
type Filled = ((Value, String, fabricscope_model::Cluster), String);

thread_local! {
    /// The texts filled last (a step shows two: its scenario and its explanation): a render
    /// whose inputs are unchanged (every input of the guess slider) fills nothing again.
    static FILLED: std::cell::RefCell<Vec<Filled>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Texts kept filled (a step's scenario and explanation, and the previous step's).
const FILLED_KEPT: usize = 4;

/// A step's text with its `{name}` placeholders filled by the model (crates/teach `fill`);
/// if the model cannot, the text as written and why. Filled once per change of its inputs.
fn filled(step: &Value, k: &str) -> Option<String> {
    let t = text(step, k)?;
    if !t.contains('{') {
        return Some(t.to_string());
    }
    let cluster = page_cluster();
    let hit = FILLED.with(|c| c.borrow().iter().find(|((s, key, cl), _)| key == k && *cl == cluster && s == step).map(|(_, v)| v.clone()));
    if let Some(v) = hit {
        return Some(v);
    }
    let v = fill(t, step, &cluster).unwrap_or_else(|e| format!("{} (the model cannot fill this text: {})", fabricscope_model::error::printable(t, 200), e.message));
    FILLED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= FILLED_KEPT {
            c.remove(0);
        }
        c.push(((step.clone(), k.to_string(), cluster), v.clone()));
    });
    Some(v)
}

/// A step's animation: `{"play": "kvhandoff", "size": "16M"}` on the step's cluster (or the
/// page's design).
fn animation(step: &Value, at: usize) -> Html {
    let Some(a) = step.get("animation") else { return Html::default() };
    let play = a.get("play").and_then(Value::as_str).and_then(Play::from_id);
    let bytes = a.get("size").and_then(Value::as_str).and_then(|s| fabricscope_model::units::parse_size(s).ok());
    let cluster = step_cluster(step).ok().flatten().unwrap_or_else(page_cluster);
    match (play, bytes) {
        (Some(play), Some(b)) => html! { <LessonAnimation key={at} {cluster} {play} bytes={b.0} /> },
        _ => html! { <p class="hint">{ "This step's animation names no algorithm or size the player knows." }</p> },
    }
}

/// What one step's reveal said.
#[derive(Clone, PartialEq)]
struct Revealed {
    said: String,
    /// Each choice's figure as the model computes it ("All 8 in one node: 312 µs (90%: ...)").
    figures: Vec<String>,
    value: String,
    choice: String,
    /// For the summary: the question, the guess, the model's answer, and whether it was close.
    record: (String, String, String, bool),
}

#[derive(Clone, PartialEq)]
struct Run {
    step: usize,
    guess: f64,
    answered: Option<Result<Revealed, String>>,
    records: Vec<Option<(String, String, String, bool)>>,
    done: bool,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub lesson: Rc<LessonFile>,
    /// The step to start at.
    pub start: usize,
    /// The share link of this lesson.
    pub share: String,
    pub imported: bool,
    /// Progress was saved (the list's marks change).
    pub on_progress: Callback<()>,
}

fn first_guess(step: &Value) -> f64 {
    let g = Guess::of(step);
    if g.slider {
        g.min
    } else {
        0.0
    }
}

#[function_component(LessonView)]
pub fn lesson_view(p: &Props) -> Html {
    let l = p.lesson.clone();
    let run = use_state(|| Run { step: p.start, guess: first_guess(&l.steps[p.start]), answered: None, records: vec![None; l.steps.len()], done: false });
    let heading = use_node_ref();
    let result = use_node_ref();
    // The heading takes the focus on each step and at the end; the answer when it comes.
    {
        let (heading, result) = (heading.clone(), result.clone());
        use_effect_with((run.step, run.done, run.answered.is_some()), move |&(_, _, answered)| {
            let node = if answered { result } else { heading };
            if let Some(el) = node.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let n = l.steps.len();
    if run.done {
        let rec: Vec<_> = run.records.iter().flatten().collect();
        let right = rec.iter().filter(|r| r.3).count();
        let close = if rec.is_empty() { String::new() } else { format!("; {right} of {} guesses close to the model's answer (a choice right, or a number within 20%)", rec.len()) };
        return html! {
            <>
                <h3 tabindex="-1" id="t-lesson-h" data-done="true" ref={heading}>{ "Lesson complete" }</h3>
                <p data-testid="lesson-done">{ format!("✓ “{}”: all {n} steps done{close}.", l.title) }</p>
                <ol class="t-recap" data-testid="lesson-recap">
                    { for rec.iter().map(|r| html! { <li>{ format!("{} You: {}. The model: {}.", r.0, r.1, r.2) }</li> }) }
                </ol>
                <p>{ "Pick another lesson above, or import your own." }</p>
            </>
        };
    }
    let s = &l.steps[run.step];
    let g = Guess::of(s);
    let labels = choices(s);
    let control = if g.slider {
        let oninput = {
            let run = run.clone();
            Callback::from(move |e: InputEvent| {
                let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value_as_number();
                run.set(Run { guess: v, ..(*run).clone() });
            })
        };
        html! {
            <label class="t-guess">{ "Your guess " }
                <input type="range" id="t-guess" min={g.min.to_string()} max={g.max.to_string()} step={g.step.to_string()} value={run.guess.to_string()} {oninput} />{ " " }
                <output>{ g.shown(run.guess) }</output>
            </label>
        }
    } else {
        html! {
            <fieldset class="t-guess">
                <legend>{ "Your guess" }</legend>
                { for labels.iter().enumerate().map(|(k, label)| {
                    let onchange = {
                        let run = run.clone();
                        Callback::from(move |_: Event| run.set(Run { guess: k as f64, ..(*run).clone() }))
                    };
                    html! { <label class="t-choice"><input type="radio" name="t-choice" value={k.to_string()} checked={run.guess as usize == k} {onchange} />{ format!(" {label}") }</label> }
                }) }
            </fieldset>
        }
    };
    let reveal = {
        let (run, step) = (run.clone(), s.clone());
        Callback::from(move |_: MouseEvent| {
            let g = Guess::of(&step);
            let labels = choices(&step);
            let question = text(&step, "question").unwrap_or("").to_string();
            let got = StepSpec::parse(&step).and_then(|spec| answer(&spec, &page_cluster())).map_err(|e| e.message);
            let mine = run.guess;
            let revealed = got.map(|a| {
                let finite = a.value.is_finite();
                if g.slider {
                    let model = format!("{}{}", a.text, g.unit);
                    let close = (mine - a.value).abs() <= 0.2 * a.value.abs().max(1e-9);
                    Revealed {
                        said: format!("You guessed {}. The model says {model}.", g.shown(mine)),
                        figures: Vec::new(),
                        value: if finite { a.value.to_string() } else { String::new() },
                        choice: a.choice.map_or(String::new(), |c| c.to_string()),
                        record: (question, g.shown(mine), model, close),
                    }
                } else {
                    let k = mine as usize;
                    let yours = labels.get(k).cloned().unwrap_or_default();
                    let model = a.choice.and_then(|c| labels.get(c).cloned()).unwrap_or(a.text.clone());
                    let same = a.choice == Some(k);
                    let figures = labels.iter().zip(&a.shown).filter(|(_, f)| !f.is_empty()).map(|(l, f)| format!("{l}: {f}")).collect();
                    Revealed {
                        said: format!("You chose “{yours}”. The model's answer: “{model}”{}.", if same { " (yours)" } else { "" }),
                        figures,
                        value: if finite { a.value.to_string() } else { String::new() },
                        choice: a.choice.map_or(String::new(), |c| c.to_string()),
                        record: (question, yours, model, same),
                    }
                }
            });
            let mut next = (*run).clone();
            if let Ok(r) = &revealed {
                next.records[next.step] = Some(r.record.clone());
            }
            next.answered = Some(revealed);
            run.set(next);
        })
    };
    let next = {
        let (run, l, done) = (run.clone(), l.clone(), p.on_progress.clone());
        Callback::from(move |_: MouseEvent| {
            let mut r = (*run).clone();
            if r.step + 1 < l.steps.len() {
                r.step += 1;
                r.guess = first_guess(&l.steps[r.step]);
                r.answered = None;
                progress::save(&l.id, Progress { step: r.step, done: false });
            } else {
                r.done = true;
                progress::save(&l.id, Progress { step: 0, done: true });
            }
            run.set(r);
            done.emit(());
        })
    };
    let answered = run.answered.is_some();
    html! {
        <>
            <h3 tabindex="-1" id="t-lesson-h" ref={heading}>{ format!("{} · step {} of {n}", l.title, run.step + 1) }</h3>
            <p class="hint">{ filled(s, "scenario").unwrap_or_else(|| "On the design you have on the page.".into()) }</p>
            <p class="t-question">{ text(s, "question").unwrap_or("") }</p>
            { control }
            { animation(s, run.step) }
            <p><button type="button" id="t-reveal" onclick={reveal} disabled={answered}>{ "Reveal the answer" }</button></p>
            <div id="t-result" tabindex="-1" aria-live="polite" ref={result}>
                { match &run.answered {
                    Some(Ok(r)) => html! { <>
                        <p class="t-answer" data-value={r.value.clone()} data-choice={r.choice.clone()}>{ &r.said }</p>
                        if !r.figures.is_empty() {
                            <ul class="notes" data-testid="lesson-figures">{ for r.figures.iter().map(|f| html! { <li>{ f }</li> }) }</ul>
                        }
                        <p data-testid="lesson-explain">{ filled(s, "explain").unwrap_or_default() }</p>
                    </> },
                    Some(Err(e)) => html! { format!("The model cannot answer this step: {e}") },
                    None => Html::default(),
                } }
            </div>
            <p><button type="button" id="t-next" hidden={!answered} onclick={next}>{ if run.step + 1 < n { "Next step" } else { "Finish" } }</button></p>
            <p class="hint">{ "Share this lesson: " }<a href={p.share.clone()}>{ if p.imported { "link with the lesson in it" } else { "link" } }</a></p>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesson_files_are_checked_and_guesses_written_as_sizes() {
        assert!(check(serde_json::json!({"format": "x"})).unwrap_err().contains("not a lesson file"));
        assert_eq!(check(serde_json::json!({"format": "fabricscope-lesson", "version": 2})).unwrap_err(), "lesson version 2; this page reads version 1");
        assert!(check(serde_json::json!({"format": "fabricscope-lesson", "version": 1, "id": "a", "title": "A", "steps": []})).unwrap_err().contains("at least one step"));
        let ok = check(serde_json::json!({"format": "fabricscope-lesson", "version": 1, "id": "a", "title": "A", "steps": [{}]})).expect("a lesson");
        assert_eq!((ok.id.as_str(), ok.steps.len()), ("a", 1));
        let g = Guess::of(&serde_json::json!({"guess": {"kind": "slider", "min": 10, "max": 30, "pow2": true, "unit": "bytes"}}));
        assert_eq!(g.shown(21.0), "2 MiB = 2^21 bytes");
        assert_eq!(g.shown(10.0), "1 KiB = 2^10 bytes");
        let g = Guess::of(&serde_json::json!({"guess": {"kind": "slider", "min": 1, "max": 40, "unit": "×"}}));
        assert_eq!(g.shown(9.0), "9 ×");
    }
}
