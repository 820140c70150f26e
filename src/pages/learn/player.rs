//! Learn's first part: a collective played step by step on a small copy of the link's design.
//! The clock is a requestAnimationFrame loop (`super::animation`); with reduced motion, Play
//! moves one whole step a second instead. Keys: Space plays or pauses, arrows step, Home and
//! End jump. The numbers (transcript, counter, NCCL's own time) are the model's (`super::model`).

use super::animation::use_animation_frame;
use super::model::{frame, mib, page_url, plan, play_name, Planned, Platform, PLAYS};
use crate::plumbing::hooks::DARK;
use crate::widgets::ChartSvg;
use crate::plumbing::hooks::use_media_query;
use fabricscope_teach::Play;
use std::rc::Rc;
use yew::prelude::*;

/// The buffer sizes offered, bytes per GPU.
const SIZES: [(&str, u64); 5] = [("64K", 1 << 16), ("1M", 1 << 20), ("16M", 1 << 24), ("256M", 1 << 28), ("1G", 1 << 30)];
/// Playback speeds.
const SPEEDS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];
/// Wall time of one step at 1x, seconds (at least 4 s a run): a slow step stands out.
const STEP_WALL_S: f64 = 0.4;
const REDUCED: &str = "(prefers-reduced-motion: reduce)";

/// The player: what is played, where in it, and whether it runs.
#[derive(Clone, PartialEq)]
pub struct Player {
    pub play: Play,
    /// The cluster played: the link's design or one node of a platform.
    pub platform: Platform,
    pub bytes: u64,
    pub speed: f64,
    pub planned: Rc<Planned>,
    /// The link the plan was made for (the page rewrites its link without a hashchange).
    link: (String, String),
    /// µs into the play.
    pub t: f64,
    pub playing: bool,
}

pub enum PlayerAction {
    /// Plans again (another algorithm, or the same on the link's design as it is now).
    Replan(Option<Play>),
    /// Plans again if the link changed since the plan was made.
    Fresh,
    Bytes(u64),
    Platform(Platform),
    Speed(f64),
    /// Jumps to `t` µs (pauses).
    Seek(f64),
    /// Jumps to `t` as a share of the play, 0-1 (pauses).
    SeekShare(f64),
    /// To the end of this step (+1) or the start of the one before (-1); pauses.
    StepBy(i32),
    Toggle,
    /// One animation frame: ms since the last.
    Tick(f64),
    /// One whole step of a play with reduced motion.
    StepTick,
}

impl Player {
    pub fn new() -> Self {
        let bytes = 1 << 24;
        let platform = Platform::Link;
        Player { play: Play::Ring, platform, bytes, speed: 1.0, planned: Rc::new(plan(&platform.cluster(), Play::Ring, bytes)), link: page_url(), t: 0.0, playing: false }
    }
    fn total(&self) -> f64 {
        self.planned.plan.as_ref().map_or(0.0, |p| p.total())
    }
    fn replan(&mut self) {
        self.planned = Rc::new(plan(&self.platform.cluster(), self.play, self.bytes));
        self.link = page_url();
        self.t = 0.0;
        self.playing = false;
    }
    /// Plans again when the link changed since the plan was made.
    fn fresh(&mut self) {
        if self.link != page_url() {
            self.replan();
        }
    }
    fn step(&mut self, dir: i32) {
        let Ok(p) = &self.planned.plan else { return };
        let total = p.total();
        let eps = 1e-5 * total;
        self.t = if dir > 0 {
            p.steps.iter().find(|s| s.0 > self.t + eps).map_or(total, |s| s.0 - 1e-6 * total)
        } else {
            p.steps.iter().rev().find(|s| s.0 < self.t - eps).map_or(0.0, |s| s.0)
        };
    }
}

impl Default for Player {
    fn default() -> Self {
        Player::new()
    }
}

impl Reducible for Player {
    type Action = PlayerAction;

    fn reduce(self: Rc<Self>, action: PlayerAction) -> Rc<Self> {
        let mut s = (*self).clone();
        let total = s.total();
        match action {
            PlayerAction::Replan(p) => {
                s.play = p.unwrap_or(s.play);
                s.replan();
            }
            PlayerAction::Fresh => {
                if s.link == page_url() {
                    return self;
                }
                s.replan();
            }
            PlayerAction::Bytes(b) => {
                s.bytes = b;
                s.replan();
            }
            PlayerAction::Platform(p) => {
                s.platform = p;
                // An algorithm the new platform cannot play falls back to the ring.
                let inst_ok = |pl: Play| plan(&p.cluster(), pl, s.bytes).plan.is_ok();
                if !inst_ok(s.play) {
                    s.play = Play::Ring;
                }
                s.replan();
            }
            PlayerAction::Speed(x) => s.speed = x,
            PlayerAction::Seek(t) => {
                s.playing = false;
                s.t = t.clamp(0.0, total);
            }
            PlayerAction::SeekShare(x) => {
                s.playing = false;
                s.t = (x * total).clamp(0.0, total);
            }
            PlayerAction::StepBy(dir) => {
                s.playing = false;
                s.fresh();
                s.step(dir);
            }
            PlayerAction::Toggle if s.playing => s.playing = false,
            PlayerAction::Toggle => {
                s.fresh();
                let total = s.total();
                if s.planned.plan.is_ok() {
                    if s.t >= total {
                        s.t = 0.0;
                    }
                    s.playing = true;
                }
            }
            PlayerAction::Tick(dt) => {
                let Ok(p) = &s.planned.plan else { return self };
                if !s.playing {
                    return self;
                }
                let wall = (p.steps.len() as f64 * STEP_WALL_S).max(4.0) * 1000.0;
                s.t = (s.t + dt * s.speed * total / wall).min(total);
                s.playing = s.t < total;
            }
            PlayerAction::StepTick => {
                if !s.playing {
                    return self;
                }
                s.step(1);
                s.playing = s.t < total;
            }
        }
        Rc::new(s)
    }
}

/// "712.1 µs".
fn us(t: f64) -> String {
    format!("{t:.1} µs")
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The player's state (the page owns it, so the part keeps it while closed).
    pub player: UseReducerHandle<Player>,
}

#[function_component(PlayerPart)]
pub fn player_part(p: &Props) -> Html {
    let s = p.player.clone();
    let dark = use_media_query(DARK);
    let reduced = use_media_query(REDUCED);
    let svg_box = use_node_ref();
    // The page's design can change in the hash (another tab of the same page, a link).
    {
        let s = s.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| gloo_events::EventListener::new(&w, "hashchange", move |_| s.dispatch(PlayerAction::Replan(None))));
            move || drop(listener)
        });
    }
    let moving = s.playing && !reduced;
    use_animation_frame(moving, {
        let s = s.clone();
        Callback::from(move |dt: f64| s.dispatch(PlayerAction::Tick(dt)))
    });
    // Reduced motion: a whole step at once, at once and then every second (at 1x).
    {
        let s = s.clone();
        use_effect_with((s.playing && reduced, s.speed.to_bits()), move |&(on, speed)| {
            let timers = on.then(|| {
                let first = {
                    let s = s.clone();
                    gloo_timers::callback::Timeout::new(0, move || s.dispatch(PlayerAction::StepTick))
                };
                let ms = (1000.0 / f64::from_bits(speed)) as u32;
                let every = gloo_timers::callback::Interval::new(ms, move || s.dispatch(PlayerAction::StepTick));
                (first, every)
            });
            move || drop(timers)
        });
    }
    let onkeydown = {
        let s = s.clone();
        Callback::from(move |e: KeyboardEvent| {
            let on_control = e.target_dyn_into::<web_sys::Element>().is_some_and(|t| matches!(t.tag_name().as_str(), "SELECT" | "INPUT"));
            if on_control {
                return;
            }
            let total = s.planned.plan.as_ref().map_or(0.0, |p| p.total());
            let action = match e.key().as_str() {
                " " => PlayerAction::Toggle,
                "ArrowRight" => PlayerAction::StepBy(1),
                "ArrowLeft" => PlayerAction::StepBy(-1),
                "Home" => PlayerAction::Seek(0.0),
                "End" => PlayerAction::Seek(total),
                _ => return,
            };
            e.prevent_default();
            s.dispatch(action);
        })
    };
    let select_value = |e: Event| e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
    let send = {
        let s = s.clone();
        Callback::from(move |a: PlayerAction| s.dispatch(a))
    };
    let on_algo = send.reform(move |e: Event| PlayerAction::Replan(Play::from_id(&select_value(e))));
    let on_size = send.reform(move |e: Event| PlayerAction::Bytes(select_value(e).parse().unwrap_or(1 << 24)));
    let on_platform = send.reform(move |e: Event| PlayerAction::Platform(Platform::from_id(&select_value(e))));
    let on_speed = send.reform(move |e: Event| PlayerAction::Speed(select_value(e).parse().unwrap_or(1.0)));
    let on_scrub = send.reform(|e: InputEvent| PlayerAction::SeekShare(e.target_unchecked_into::<web_sys::HtmlInputElement>().value_as_number() / 1000.0));
    let step_back = send.reform(|_: MouseEvent| PlayerAction::StepBy(-1));
    let step_on = send.reform(|_: MouseEvent| PlayerAction::StepBy(1));
    let toggle = send.reform(|_: MouseEvent| PlayerAction::Toggle);

    let planned = &s.planned;
    let why = match &planned.plan {
        Err(e) => e.clone(),
        Ok(_) => planned.plays.iter().filter_map(|(p, why)| why.map(|w| format!("{}: {w}.", play_name(*p)))).collect::<Vec<_>>().join(" "),
    };
    let width = svg_box.cast::<web_sys::Element>().map_or(0, |e| e.client_width()).max(0) as u32;
    let width = if width == 0 { 900 } else { width.min(1000) };
    let view = planned.plan.as_ref().ok().map(|p| {
        let d = frame(p, s.t, dark, width);
        let done = s.t >= p.total();
        let sch = &p.schedule;
        let (n, dm, bytes) = (sch.instance.ranks(), sch.instance.domains, sch.bytes.0);
        let count = format!(
            "{}: {} · formula {} = {} (n = {n} GPUs, d = {dm} nodes, S = {})",
            p.what,
            mib(d.measured),
            p.formula,
            mib(sch.expected()),
            mib(bytes as f64)
        );
        let now = if done {
            let nccl = p.nccl.as_ref().map_or(" (one channel)".to_string(), |x| format!(" (one channel; NCCL with {} channels at once: {})", x.channels, us(x.time)));
            format!("Done: {} steps in {:.1} µs{nccl}. {count}.", p.steps.len(), p.total())
        } else {
            p.steps.get(d.step).map_or(String::new(), |x| x.1.clone())
        };
        let channels = match &p.nccl {
            Some(x) => format!(
                "This plays one channel of {lib}'s {c}, one step after another: here it takes {} for {}. {lib} runs {c} channels at once, each with its share of the buffer, and pipelines the steps: {} {} (forced) takes {} on your {} GPUs, the time the Algorithms table gives.{}",
                us(p.total()),
                mib(bytes as f64),
                x.algorithm,
                x.protocol,
                us(x.time),
                x.ranks,
                if x.time >= p.total() { " At this size that is longer: the animation draws no per-step latency and no pipeline fill, which a real run pays before its channels gain." } else { "" },
                c = x.channels,
                lib = if sch.instance.mesh_links().is_some() { "RCCL" } else { "NCCL" }
            ),
            None => format!("This plays the exchange one step after another ({} for {}); NCCL pipelines it over several channels at once, so a real run is faster.", us(p.total()), mib(bytes as f64)),
        };
        let scrub = if p.total() > 0.0 { (s.t / p.total() * 1000.0).round() } else { 0.0 };
        (p, d, done, count, now, channels, scrub, (n, dm, bytes))
    });
    let plan = planned.plan.as_ref().ok();
    html! {
        <div class="t-body" {onkeydown}>
            <p class="hint">{ "A small copy of your design (up to 4 nodes of 8 GPUs) with its own links. Each step lasts as long as its slowest transfer: chunks on the fast links arrive and wait, faded, for the slow one. Keys: Space plays or pauses, arrows step, Home and End jump." }</p>
            <div class="t-row">
                <label>{ "Platform " }
                    <select id="t-platform" onchange={on_platform}>
                        { for Platform::ALL.iter().map(|(p, id, name)| html! { <option value={*id} selected={*p == s.platform}>{ *name }</option> }) }
                    </select>
                </label>
                <label>{ "Algorithm " }
                    <select id="t-algo" onchange={on_algo}>
                        { for PLAYS.iter().map(|(id, name)| {
                            let why = planned.plays.iter().find(|(x, _)| x == id).and_then(|(_, w)| *w);
                            html! { <option value={id.id()} selected={*id == s.play} disabled={why.is_some()} title={why.unwrap_or("")}>{ *name }</option> }
                        }) }
                    </select>
                </label>
                <button type="button" class="term" id="t-algo-g" data-g={s.play.id()}>{ "What is it?" }</button>
                <label>{ "Buffer per GPU " }
                    <select id="t-size" onchange={on_size}>
                        { for SIZES.iter().map(|(name, b)| html! { <option value={b.to_string()} selected={*b == s.bytes}>{ *name }</option> }) }
                    </select>
                </label>
                <label>{ "Speed " }
                    <select id="t-speed" onchange={on_speed}>
                        { for SPEEDS.iter().map(|x| html! { <option value={x.to_string()} selected={*x == s.speed}>{ format!("{x}×") }</option> }) }
                    </select>
                </label>
            </div>
            <p id="t-why" class="hint" role="status">{ why }</p>
            if let Some((p, .., (_, _, bytes))) = &view {
                <p id="t-channels" class="t-channels" data-testid="teach-channels" data-played={p.total().to_string()}
                    data-channels={p.nccl.as_ref().map_or(String::new(), |x| x.channels.to_string())} data-nccl={p.nccl.as_ref().map_or(String::new(), |x| x.time.to_string())}
                    data-bytes={bytes.to_string()}>{ view.as_ref().map(|v| v.5.clone()) }</p>
            } else {
                <p id="t-channels" class="t-channels" data-testid="teach-channels"></p>
            }
            <p id="t-reduced" class="hint" data-testid="teach-reduced">{ plan.and_then(|p| p.reduced.clone()) }</p>
            if let Some(note) = plan.and_then(|p| p.mesh_note.clone()) {
                <p id="t-mesh" class="t-channels" data-testid="teach-mesh">{ note }</p>
            }
            <div class="t-row" role="group" aria-label="Playback">
                <button type="button" id="t-back" onclick={step_back} aria-label="Previous step">{ "‹ Step" }</button>
                <button type="button" id="t-play" onclick={toggle} aria-label={if s.playing { "Pause" } else { "Play" }}>{ if s.playing { "Pause" } else { "Play" } }</button>
                <button type="button" id="t-fwd" onclick={step_on} aria-label="Next step">{ "Step ›" }</button>
                <label class="t-scrub">{ "Time " }
                    <input id="t-scrub" type="range" min="0" max="1000" value={view.as_ref().map_or(0.0, |v| v.6).to_string()} oninput={on_scrub} />
                </label>
            </div>
            <div id="t-svg" class="t-svg" ref={svg_box}>
                if let Some((_, d, ..)) = &view { <ChartSvg svg={d.svg.clone()} /> }
            </div>
            <p>
                if let Some((_, d, done, count, _, _, _, (n, dm, bytes))) = &view {
                    <output id="t-count" aria-live="off" data-measured={d.measured.to_string()} data-expected={plan.map_or(0.0, |p| p.schedule.expected()).to_string()}
                        data-done={done.to_string()} data-play={s.play.id()} data-n={n.to_string()} data-d={dm.to_string()} data-s={bytes.to_string()}>{ count.clone() }</output>
                } else {
                    <output id="t-count" aria-live="off"></output>
                }
            </p>
            <p id="t-now" aria-live="polite" class="t-now">{ view.as_ref().map(|v| v.4.clone()) }</p>
            <details>
                <summary>{ "Transcript of every step" }</summary>
                <ol id="t-log">{ for plan.into_iter().flat_map(|p| p.steps.iter()).map(|(_, line)| html! { <li>{ line }</li> }) }</ol>
            </details>
        </div>
    }
}
