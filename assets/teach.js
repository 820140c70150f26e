// Learn (learn.html #teach, its own page and wasm): a module script of learn.html that starts
// once the wasm is ready and fills each part of the page as it opens.
// Plain DOM: every number, frame and answer comes from the model through the Learn wasm's
// exports (src/bin/fabricscope-learn/teach.rs: teach_plan, teach_frame_at, teach_answer,
// teach_algos) on the design of the page's link; this file only plays frames, asks questions
// and keeps progress.

const W = () => window.wasmBindings;
const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? '' : v);
  }
  e.append(...kids);
  return e;
};
const media = (q) => matchMedia(q).matches;
const where = () => [location.search, location.hash];
const SIZES = [['64K', 65536], ['1M', 1 << 20], ['16M', 1 << 24], ['256M', 1 << 28], ['1G', 1 << 30]];
const PLAYS = [['ring', 'Ring'], ['tree', 'Tree'], ['nvls', 'NVLS'], ['nvlstree', 'NVLSTree'], ['alltoall', 'AllToAll']];
const mib = (b) => (b >= 1048576 ? `${(b / 1048576).toFixed(2)} MiB` : `${(b / 1024).toFixed(1)} KiB`);

// ---------------------------------------------------------------- animation player
const P = { plan: null, t: 0, playing: false, speed: 1, last: 0, step: -1, raf: 0, play: 'ring', bytes: 1 << 24 };

function buildPlayer(body) {
  const algo = el('select', { id: 't-algo', onchange: (e) => replan(e.target.value) }, ...PLAYS.map(([v, n]) => el('option', { value: v, text: n })));
  const size = el('select', { id: 't-size', onchange: (e) => { P.bytes = +e.target.value; replan(P.play); } },
    ...SIZES.map(([n, b]) => el('option', { value: b, text: n, selected: b === P.bytes })));
  const speed = el('select', { id: 't-speed', onchange: (e) => { P.speed = +e.target.value; } },
    ...[0.25, 0.5, 1, 2, 4].map((s) => el('option', { value: s, text: `${s}×`, selected: s === 1 })));
  const btn = (id, text, fn, label) => el('button', { type: 'button', id, text, onclick: fn, 'aria-label': label || text });
  body.append(
    el('p', { class: 'hint', text: 'A small copy of your design (up to 4 nodes of 8 GPUs) with its own links. Each step lasts as long as its slowest transfer: chunks on the fast links arrive and wait, faded, for the slow one. Keys: Space plays or pauses, arrows step, Home and End jump.' }),
    el('div', { class: 't-row' },
      el('label', {}, 'Algorithm ', algo), el('button', { type: 'button', class: 'term', id: 't-algo-g', 'data-g': 'ring', text: 'What is it?' }),
      el('label', {}, 'Buffer per GPU ', size), el('label', {}, 'Speed ', speed)),
    el('p', { id: 't-why', class: 'hint', role: 'status' }),
    el('p', { id: 't-channels', class: 't-channels', 'data-testid': 'teach-channels' }),
    el('p', { id: 't-reduced', class: 'hint', 'data-testid': 'teach-reduced' }),
    el('div', { class: 't-row', role: 'group', 'aria-label': 'Playback' },
      btn('t-back', '‹ Step', () => stepBy(-1), 'Previous step'),
      btn('t-play', 'Play', toggle),
      btn('t-fwd', 'Step ›', () => stepBy(1), 'Next step'),
      el('label', { class: 't-scrub' }, 'Time ', el('input', { id: 't-scrub', type: 'range', min: 0, max: 1000, value: 0, oninput: (e) => { pause(); seek((e.target.value / 1000) * (P.plan?.total || 0)); } }))),
    el('div', { id: 't-svg', class: 't-svg' }),
    el('p', {}, el('output', { id: 't-count', 'aria-live': 'off' })),
    el('p', { id: 't-now', 'aria-live': 'polite', class: 't-now' }),
    el('details', {}, el('summary', { text: 'Transcript of every step' }), el('ol', { id: 't-log' })),
  );
  body.addEventListener('keydown', (e) => {
    if (e.target.matches('select, input')) return;
    const k = { ' ': toggle, ArrowRight: () => stepBy(1), ArrowLeft: () => stepBy(-1), Home: () => { pause(); seek(0); }, End: () => { pause(); seek(P.plan?.total || 0); } }[e.key];
    if (k) { e.preventDefault(); k(); }
  });
  addEventListener('hashchange', () => replan(P.play));
  replan(P.play);
}

function replan(play) {
  pause();
  P.play = play;
  P.link = location.search + location.hash;
  const plan = JSON.parse(W().teach_plan(...where(), play, P.bytes));
  for (const o of $('#t-algo').options) {
    const p = plan.plays?.find((x) => x.id === o.value);
    o.disabled = !!p?.why;
    o.title = p?.why || '';
  }
  $('#t-algo').value = play;
  $('#t-algo-g').dataset.g = play;
  $('#t-why').textContent = plan.error || plan.plays.filter((p) => p.why).map((p) => `${PLAYS.find((x) => x[0] === p.id)[1]}: ${p.why}.`).join(' ');
  P.plan = plan.error ? null : plan;
  tellChannels();
  $('#t-log').replaceChildren(...(plan.steps || []).map((s) => el('li', { text: s.text })));
  P.step = -1;
  seek(0);
}

// The animation is one channel, steps not pipelined; NCCL runs N channels at once, pipelined.
// Both times are said, and why the played design is smaller than the user's (plan.reduced).
const us = (t) => `${(+t).toFixed(1)} µs`;
function tellChannels() {
  const p = P.plan;
  const c = $('#t-channels');
  $('#t-reduced').textContent = p?.reduced || '';
  if (!p) { c.textContent = ''; return; }
  const n = p.nccl;
  Object.assign(c.dataset, { played: p.total, channels: n?.channels ?? '', nccl: n?.time ?? '' });
  c.textContent = n
    ? `This plays one channel of NCCL's ${n.channels}, one step after another: here it takes ${us(p.total)} for ${mib(p.bytes)}. NCCL runs ${n.channels} channels at once, each with its share of the buffer, and pipelines the steps: ${n.algorithm} ${n.protocol} (forced) takes ${us(n.time)} on your ${n.ranks} GPUs, the time the Algorithms table gives.`
    : `This plays the exchange one step after another (${us(p.total)} for ${mib(p.bytes)}); NCCL pipelines it over several channels at once, so a real run is faster.`;
}

function seek(t) {
  if (!P.plan) { $('#t-svg').textContent = ''; return; }
  P.t = Math.min(Math.max(t, 0), P.plan.total);
  const out = W().teach_frame_at(P.t, media('(prefers-color-scheme: dark)'), Math.min($('#t-svg').clientWidth || 900, 1000));
  const [measured, step, svg] = out.split('|', 3);
  $('#t-svg').innerHTML = out.slice(measured.length + step.length + 2);
  const done = P.t >= P.plan.total;
  const c = $('#t-count');
  c.dataset.measured = measured;
  c.dataset.expected = P.plan.expected;
  c.dataset.done = done;
  Object.assign(c.dataset, { play: P.play, n: P.plan.ranks, d: P.plan.domains, s: P.plan.bytes });
  c.textContent = `${P.plan.what}: ${mib(+measured)} · formula ${P.plan.formula} = ${mib(P.plan.expected)} (n = ${P.plan.ranks} GPUs, d = ${P.plan.domains} nodes, S = ${mib(P.plan.bytes)})`;
  $('#t-scrub').value = Math.round((P.t / P.plan.total) * 1000);
  if (+step !== P.step || done) {
    P.step = +step;
    const n = P.plan.nccl;
    const nccl = n ? ` (one channel; NCCL with ${n.channels} channels at once: ${us(n.time)})` : ' (one channel)';
    $('#t-now').textContent = done ? `Done: ${P.plan.steps.length} steps in ${P.plan.total.toFixed(1)} µs${nccl}. ${c.textContent}.` : P.plan.steps[P.step].text;
  }
  return svg;
}

// Steps to the end of the current step (or back to the start of the previous one).
function stepBy(dir) {
  pause();
  fresh();
  if (!P.plan) return;
  const st = P.plan.steps;
  const eps = 1e-5 * P.plan.total;
  const i = dir > 0 ? st.findIndex((s) => s.start > P.t + eps) : [...st.keys()].reverse().find((k) => st[k].start < P.t - eps);
  seek(dir > 0 ? (i < 0 ? P.plan.total : st[i].start - 1e-6 * P.plan.total) : (st[i ?? 0]?.start ?? 0));
}

function pause() {
  P.playing = false;
  cancelAnimationFrame(P.raf);
  clearTimeout(P.raf);
  const b = $('#t-play');
  if (b) b.textContent = 'Play';
}

// The page writes the design into the link with replaceState (no hashchange): a play that
// starts after the design changed plans again first.
const fresh = () => P.link === location.search + location.hash || replan(P.play);

function toggle() {
  if (P.playing) return pause();
  fresh();
  if (!P.plan) return;
  if (P.t >= P.plan.total) seek(0);
  P.playing = true;
  $('#t-play').textContent = 'Pause';
  // One run lasts about 0.4 s per step at 1×, whatever the buffer, so a slow step stands out.
  const wall = Math.max(4, P.plan.steps.length * 0.4) * 1000;
  if (media('(prefers-reduced-motion: reduce)')) {
    const tick = () => { if (!P.playing) return; stepBy(1); P.playing = P.t < P.plan.total; if (P.playing) { $('#t-play').textContent = 'Pause'; P.raf = setTimeout(tick, 1000 / P.speed); } };
    P.raf = setTimeout(tick, 0);
    return;
  }
  P.last = performance.now();
  const frame = (now) => {
    if (!P.playing) return;
    const dt = Math.min(now - P.last, 100);
    P.last = now;
    seek(P.t + (dt * P.speed * P.plan.total) / wall);
    if (P.t >= P.plan.total) pause();
    else P.raf = requestAnimationFrame(frame);
  };
  P.raf = requestAnimationFrame(frame);
}

// ---------------------------------------------------------------- algorithms side by side
const sizeName = (b) => (b >= 1 << 30 ? `${b / (1 << 30)}G` : b >= 1 << 20 ? `${b / (1 << 20)}M` : b >= 1024 ? `${b / 1024}K` : `${b}`);
let algoRaf = 0;

function buildAlgos(body) {
  const out = el('output', { id: 't-asize-out' });
  const size = el('input', { type: 'range', id: 't-asize', min: 3, max: 34, value: 20, oninput: () => { cancelAnimationFrame(algoRaf); algoRaf = requestAnimationFrame(drawAlgos); } });
  const proto = el('select', { id: 't-aproto', onchange: drawAlgos }, ...['auto', 'll', 'll128', 'simple'].map((v) => el('option', { value: v, text: v === 'auto' ? 'each its best' : v.toUpperCase() })));
  body.append(
    el('p', { class: 'hint', text: 'The collective of the throughput chart on your whole cluster, with each algorithm forced as NCCL_ALGO would force it. Time = latency term + size ÷ bandwidth term; NCCL runs the one its own estimate says is fastest.' }),
    el('div', { class: 't-row' }, el('label', { class: 't-scrub' }, 'Message size ', size, ' ', out), el('label', {}, 'Protocol of the forced rows ', proto)),
    el('p', { id: 't-areason', 'aria-live': 'polite' }),
    el('div', { class: 't-table' }, el('table', { id: 't-atable' })),
    el('div', { id: 't-achart', class: 't-svg' }),
  );
  addEventListener('hashchange', () => $('#t-algos').open && drawAlgos());
  drawAlgos();
}

function drawAlgos() {
  const bytes = 2 ** +$('#t-asize').value;
  $('#t-asize-out').textContent = sizeName(bytes);
  const r = JSON.parse(W().teach_algos(...where(), bytes, $('#t-aproto').value, Math.min($('#t-achart').clientWidth || 900, 1000), media('(prefers-color-scheme: dark)')));
  if (r.error) { $('#t-areason').textContent = r.error; return; }
  $('#t-areason').textContent = `${r.op} of ${sizeName(bytes)}: ${r.reason}`;
  const f = (v, d) => (+v).toFixed(d);
  const term = (name) => { const id = name.toLowerCase().replace(/^collnet.*/, 'collnet'); return el('button', { type: 'button', class: 'term', 'data-g': id, text: name }); };
  const cells = (x) => [el('td', {}, term(x.algorithm)), el('td', { text: x.protocol }), el('td', { text: f(x.time, 1) }), el('td', { text: f(x.busbw, 1) }), el('td', { text: f(x.lat, 1) }), el('td', { text: f(x.bw, 0) })];
  $('#t-atable').replaceChildren(
    el('tr', {}, ...['', 'algorithm', 'protocol', 'time µs', 'busbw GB/s', 'latency term µs', 'bandwidth term GB/s'].map((h) => el('th', { scope: 'col', text: h }))),
    el('tr', { class: 't-auto' }, el('th', { scope: 'row', text: "NCCL's choice" }), ...cells(r.auto)),
    ...r.rows.map((x) => el('tr', { 'data-algo': x.algo }, el('th', { scope: 'row', text: `${x.algo} forced` }), ...(x.why ? [el('td', { colspan: 6, class: 'hint', text: x.why })] : cells(x)))),
  );
  $('#t-achart').innerHTML = r.svg;
}

// ---------------------------------------------------------------- lessons
const KEY = 'fabricscope-lessons';
// Stored progress is validated entry by entry: {step: whole number >= 0, done?: boolean}. A
// corrupt store or entry is reset (that lesson only, where the rest reads) with a note.
const okEntry = (v) => v && typeof v === 'object' && !Array.isArray(v) && Number.isInteger(v.step) && v.step >= 0 && v.step < 1000 && (v.done === undefined || typeof v.done === 'boolean');
const resetNotes = [];
const progress = () => {
  let all;
  try { all = JSON.parse(localStorage.getItem(KEY) ?? '{}'); } catch { all = null; }
  if (!all || typeof all !== 'object' || Array.isArray(all)) {
    resetNotes.push('Your saved lesson progress could not be read and was reset.');
    try { localStorage.removeItem(KEY); } catch { /* private mode */ }
    return {};
  }
  const bad = Object.keys(all).filter((id) => !okEntry(all[id]));
  if (bad.length) {
    for (const id of bad) delete all[id];
    resetNotes.push(`Saved progress for ${bad.map((id) => `“${id}”`).join(', ')} could not be read; ${bad.length > 1 ? 'those lessons start' : 'that lesson starts'} again from step 1.`);
    try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { /* private mode */ }
  }
  return all;
};
const save = (id, v) => { try { localStorage.setItem(KEY, JSON.stringify({ ...progress(), [id]: v })); } catch { /* private mode: progress is not kept */ } };
const noteResets = () => { if (resetNotes.length) $('#t-lesson-msg').textContent = resetNotes.splice(0).join(' '); };
// Bytes to a binary string in slices: spreading 200 KB into one call overflows the stack.
const binary = (bytes) => { let out = ''; for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192)); return out; };
const b64 = { enc: (s) => btoa(binary(new TextEncoder().encode(s))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
  dec: (s) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))) };

function checkLesson(l) {
  if (l?.format !== 'fabricscope-lesson') throw new Error('not a lesson file ("format" must be "fabricscope-lesson")');
  if (l.version !== 1) throw new Error(`lesson version ${l.version}; this page reads version 1`);
  if (!l.id || !l.title || !Array.isArray(l.steps) || !l.steps.length) throw new Error('a lesson needs an id, a title and at least one step');
  return l;
}

async function buildLessons(body) {
  const list = el('ul', { id: 't-lesson-list', class: 't-lessons' });
  const file = el('input', { type: 'file', accept: '.json,application/json', id: 't-import', onchange: async (e) => {
    const f = e.target.files[0];
    if (!f) return;
    try { if (f.size > 262144) throw new Error('a lesson file is at most 256 KiB'); playLesson(checkLesson(JSON.parse(await f.text())), true); } catch (err) { $('#t-lesson-msg').textContent = `Cannot use this file: ${err.message}`; }
  } });
  body.append(
    el('p', { class: 'hint', text: 'Each lesson asks you to predict a number or a choice first; then the model computes the answer on the cluster of the question and explains it. Progress stays in this browser.' }),
    el('p', { id: 't-lesson-sum', 'data-testid': 'lesson-summary' }),
    list,
    el('p', {}, el('label', {}, 'Import a lesson file ', file), ' ', el('a', { href: 'lessons/README.md', text: 'How to write one' })),
    el('p', { id: 't-lesson-msg', role: 'status' }),
    el('div', { id: 't-lesson', class: 't-lesson' }),
  );
  let index = [];
  try { index = await (await fetch('lessons/index.json')).json(); } catch { $('#t-lesson-msg').textContent = 'The lessons could not be loaded (offline before the first visit?).'; }
  LESSONS = index;
  markLessons();
  noteResets();
  const q = new URLSearchParams(location.search).get('lesson');
  if (q) {
    try { if (/^[a-z0-9-]+$/.test(q)) await openLesson(q); else playLesson(checkLesson(JSON.parse(b64.dec(q))), true); } catch (err) { $('#t-lesson-msg').textContent = `The lesson in this link cannot be used: ${err.message}`; }
  }
}

let LESSONS = [];
// Each listed lesson with its mark (✓ done, step k of n, not started) and a count of those done.
function markLessons() {
  const prog = progress();
  const list = $('#t-lesson-list');
  if (!list) return;
  list.replaceChildren(...LESSONS.map((x) => {
    const p = prog[x.id];
    const mark = p?.done ? '✓ done' : p ? `in progress, step ${p.step + 1}` : 'not started';
    return el('li', { 'data-state': p?.done ? 'done' : p ? 'started' : 'new' }, el('button', { type: 'button', class: 'link', 'data-lesson': x.id, text: x.title, onclick: () => openLesson(x.id) }),
      el('span', { class: 't-mark', 'data-testid': `lesson-mark-${x.id}`, text: ` · ${mark}` }));
  }));
  const done = LESSONS.filter((x) => prog[x.id]?.done).length;
  $('#t-lesson-sum').textContent = LESSONS.length ? `${done} of ${LESSONS.length} lessons done.` : '';
}

async function openLesson(id) {
  try { playLesson(checkLesson(await (await fetch(`lessons/${id}.json`)).json()), false); } catch (err) { $('#t-lesson-msg').textContent = `Cannot open the lesson: ${err.message}`; }
}

function playLesson(l, imported) {
  const box = $('#t-lesson');
  const share = new URL(location.href);
  share.searchParams.set('lesson', imported ? b64.enc(JSON.stringify(l)) : l.id);
  const had = progress()[l.id];
  noteResets();
  let i = Math.min(had?.done ? 0 : had?.step || 0, l.steps.length - 1);
  // What was guessed and answered at each step of this run (the completion summary).
  const record = [];
  const size = (k) => (k >= 30 ? `${2 ** (k - 30)} GiB` : k >= 20 ? `${2 ** (k - 20)} MiB` : k >= 10 ? `${2 ** (k - 10)} KiB` : `${2 ** k} bytes`);
  const show = () => {
    const s = l.steps[i];
    const g = s.guess || {};
    const unit = g.unit && !g.pow2 ? ` ${g.unit}` : '';
    // A power-of-two guess reads as a size: 21 -> "2 MiB = 2^21 bytes".
    const shown = (v) => (g.pow2 ? `${size(+v)} = 2^${v} bytes` : `${v}${unit}`);
    let guess;
    let control;
    if (g.kind === 'slider') {
      const out = el('output', { text: shown(g.min) });
      control = el('label', { class: 't-guess' }, 'Your guess ', el('input', { type: 'range', id: 't-guess', min: g.min, max: g.max, step: g.step || 1, value: g.min, oninput: (e) => { out.textContent = shown(e.target.value); } }), ' ', out);
      guess = () => +$('#t-guess').value;
    } else {
      control = el('fieldset', { class: 't-guess' }, el('legend', { text: 'Your guess' }),
        ...(s.choices || []).map((c, k) => el('label', { class: 't-choice' }, el('input', { type: 'radio', name: 't-choice', value: k, checked: k === 0 }), ` ${c.label}`)));
      guess = () => +($('input[name=t-choice]:checked')?.value ?? 0);
    }
    const result = el('div', { id: 't-result', tabindex: '-1', 'aria-live': 'polite' });
    const next = el('button', { type: 'button', id: 't-next', hidden: true, text: i + 1 < l.steps.length ? 'Next step' : 'Finish', onclick: () => {
      if (i + 1 < l.steps.length) { i += 1; save(l.id, { step: i }); markLessons(); show(); return; }
      save(l.id, { step: 0, done: true });
      markLessons();
      const rec = record.filter(Boolean);
      const right = rec.filter((r) => r.right).length;
      box.replaceChildren(
        el('h3', { tabindex: '-1', id: 't-lesson-h', 'data-done': 'true', text: 'Lesson complete' }),
        el('p', { 'data-testid': 'lesson-done', text: `✓ “${l.title}”: all ${l.steps.length} steps done${rec.length ? `; ${right} of ${rec.length} guesses close to the model's answer (a choice right, or a number within 20%)` : ''}.` }),
        el('ol', { class: 't-recap', 'data-testid': 'lesson-recap' }, ...rec.map((r) => el('li', { text: `${r.question} You: ${r.mine}. The model: ${r.model}.` }))),
        el('p', { text: 'Pick another lesson above, or import your own.' }));
      $('#t-lesson-h').focus();
    } });
    const reveal = el('button', { type: 'button', id: 't-reveal', text: 'Reveal the answer', onclick: () => {
      const a = JSON.parse(W().teach_answer(JSON.stringify(s), ...where()));
      if (a.error) { result.textContent = `The model cannot answer this step: ${a.error}`; return; }
      const mine = guess();
      const said = g.kind === 'slider' ? `You guessed ${shown(mine)}.` : `You chose “${s.choices[mine]?.label}”.`;
      const right = g.kind === 'slider' ? `The model says ${a.text}${unit}.` : `The model's answer: “${s.choices[a.choice]?.label ?? a.text}”${a.choice === mine ? ' (yours)' : ''}.`;
      record[i] = g.kind === 'slider'
        ? { question: s.question, mine: shown(mine), model: `${a.text}${unit}`, right: Math.abs(mine - a.value) <= 0.2 * Math.max(Math.abs(a.value), 1e-9) }
        : { question: s.question, mine: s.choices[mine]?.label ?? '', model: s.choices[a.choice]?.label ?? a.text, right: a.choice === mine };
      result.replaceChildren(el('p', { class: 't-answer', 'data-value': a.value ?? '', 'data-choice': a.choice ?? '', text: `${said} ${right}` }), el('p', { text: s.explain || '' }));
      reveal.disabled = true;
      next.hidden = false;
      result.focus();
    } });
    box.replaceChildren(
      el('h3', { tabindex: '-1', id: 't-lesson-h', text: `${l.title} · step ${i + 1} of ${l.steps.length}` }),
      el('p', { class: 'hint', text: s.scenario || 'On the design you have on the page.' }),
      el('p', { class: 't-question', text: s.question }),
      control, el('p', {}, reveal), result, el('p', {}, next),
      el('p', { class: 'hint' }, 'Share this lesson: ', el('a', { href: share.href, text: imported ? 'link with the lesson in it' : 'link' })),
    );
    $('#t-lesson-h').focus();
  };
  save(l.id, { step: i });
  markLessons();
  show();
}

// ---------------------------------------------------------------- glossary
let gloss;
async function buildGlossary(body) {
  gloss ||= fetch('glossary.json').then((r) => r.json()).then((g) => {
    body.replaceChildren(el('p', { class: 'hint', text: 'The words the page uses, in plain terms, with their units.' }),
      el('dl', { class: 't-gloss' }, ...g.terms.flatMap((t) => [el('dt', { id: `g-${t.id}`, tabindex: '-1', text: t.term }), el('dd', { text: `${t.text}${t.unit ? ` Unit: ${t.unit}.` : ''}` })])));
  }).catch(() => { body.textContent = 'The glossary could not be loaded (offline before the first visit?).'; });
  return gloss;
}

const built = new Set();
const BUILD = { 't-anim': buildPlayer, 't-algos': buildAlgos, 't-lessons': buildLessons, 't-gloss': buildGlossary };

const REFRESH = { 't-anim': () => fresh(), 't-algos': () => drawAlgos() };

/** Fills the part `id` of the page the first time it opens; later opens follow the design. */
async function open(id) {
  const d = document.getElementById(id);
  if (built.has(id)) return REFRESH[id]?.();
  if (!d || !BUILD[id]) return;
  built.add(id);
  await BUILD[id]($('.t-body', d));
}

/** Opens the glossary at term `id` and moves the focus there. */
async function term(id) {
  const d = document.getElementById('t-gloss');
  d.open = true;
  await open('t-gloss');
  await gloss;
  const t = document.getElementById(`g-${id}`) || $('dt', d);
  t?.scrollIntoView({ block: 'center' });
  t?.focus();
}

// ---------------------------------------------------------------- the page
// A module runs once the page is parsed; the wasm loader may have finished before or not.
// Each part fills as it opens (the player is open from the start); the link's g=<term> and
// ?lesson= open theirs.
new Promise((ok) => (W() ? ok() : addEventListener('TrunkApplicationStarted', ok, { once: true }))).then(() => {
  const parts = $('#teach-parts');
  const part = (d) => d.open && d.parentElement === parts && open(d.id);
  addEventListener('toggle', (e) => part(e.target), true);
  // A term clicked shows its definition in place (pages.js); the link's g= opens the glossary.
  const linked = () => { const g = /(?:^#|&)g=([\w-]+)/.exec(location.hash); if (g) term(g[1]); };
  addEventListener('hashchange', linked);
  if (/[?&]lesson=/.test(location.search)) $('#t-lessons').open = true;
  for (const d of parts.children) part(d);
  linked();
});
