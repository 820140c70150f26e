//! A lesson step's animation: a schedule (crates/teach) played on the step's own cluster with
//! the player's drawing (crates/charts), e.g. a decode token's all-reduce crossing the node
//! boundary, or a prompt's KV cache moving from a prefill node to a decode node. Play, pause
//! and step; with reduced motion, Play moves one whole step a second.

use super::animation::use_animation_frame;
use super::model::{frame, plan, play_name};
use crate::plumbing::hooks::DARK;
use crate::widgets::ChartSvg;
use crate::plumbing::hooks::use_media_query;
use fabricscope_model::Cluster;
use fabricscope_teach::Play;
use yew::prelude::*;

/// Wall time of one played step at 1x, ms (as the player's).
const STEP_WALL_MS: f64 = 400.0;
const REDUCED: &str = "(prefers-reduced-motion: reduce)";

#[derive(Properties, PartialEq)]
pub struct Props {
    pub cluster: Cluster,
    pub play: Play,
    /// Bytes per GPU played.
    pub bytes: u64,
}

#[function_component(LessonAnimation)]
pub fn lesson_animation(p: &Props) -> Html {
    let dark = use_media_query(DARK);
    let reduced = use_media_query(REDUCED);
    let planned = use_memo((p.cluster.clone(), p.play, p.bytes), |(c, play, b)| plan(c, *play, *b));
    // µs into the play, and whether it runs.
    let clock = use_state(|| (0.0f64, false));
    let Ok(pl) = &planned.plan else {
        return html! { <p class="hint" data-testid="lesson-anim-error">{ planned.plan.as_ref().err().cloned().unwrap_or_default() }</p> };
    };
    let total = pl.total();
    let steps = pl.steps.len().max(1) as f64;
    let starts: Vec<f64> = pl.steps.iter().map(|s| s.0).collect();
    let next_start = move |t: f64| starts.iter().copied().find(|s| *s > t + 1e-6 * total).unwrap_or(total);
    use_animation_frame(clock.1 && !reduced, {
        let clock = clock.clone();
        Callback::from(move |dt: f64| {
            let t = (clock.0 + dt * total / (steps * STEP_WALL_MS)).min(total);
            clock.set((t, t < total));
        })
    });
    {
        let (clock, next_start) = (clock.clone(), next_start.clone());
        use_effect_with((clock.1 && reduced, clock.0.to_bits()), move |&(on, _)| {
            let timer = on.then(|| {
                gloo_timers::callback::Timeout::new(1000, move || {
                    let t = next_start(clock.0);
                    clock.set((t, t < total));
                })
            });
            move || drop(timer)
        });
    }
    let toggle = {
        let clock = clock.clone();
        Callback::from(move |_: MouseEvent| {
            let (t, on) = *clock;
            clock.set(if on { (t, false) } else { (if t >= total { 0.0 } else { t }, true) });
        })
    };
    let step_on = {
        let (clock, next_start) = (clock.clone(), next_start.clone());
        Callback::from(move |_: MouseEvent| clock.set((next_start(clock.0), false)))
    };
    let d = frame(pl, clock.0, dark, 900);
    let now = if d.done { format!("Done: {} steps in {:.1} µs (one channel, not pipelined).", pl.steps.len(), total) } else { pl.steps.get(d.step).map_or(String::new(), |x| x.1.clone()) };
    html! {
        <div class="t-lesson-anim" data-testid="lesson-anim" data-play={p.play.id()} data-done={d.done.to_string()}>
            <div class="t-row" role="group" aria-label={format!("Animation: {}", play_name(p.play))}>
                <button type="button" id="t-lesson-play" onclick={toggle}>{ if clock.1 { "Pause the animation".to_string() } else { format!("Play the {} animation", play_name(p.play)) } }</button>
                <button type="button" id="t-lesson-step" onclick={step_on}>{ "Next step of the animation" }</button>
            </div>
            <div class="t-svg"><ChartSvg svg={d.svg} /></div>
            <p class="t-now" aria-live="polite" data-testid="lesson-anim-now">{ now }</p>
        </div>
    }
}
