//! Panel 3: the price book editor. One row per item of the bill of materials of the design in
//! the controls: unit price in US dollars and, where the user has one, a power figure that
//! replaces the catalog's (or its absence), with the source and date of each. A typed entry the
//! model refuses stays in its box with the model's message beside it, and the book stays as it
//! was. Import a price-book file (a list, or a scenario file's `prices`), download the book,
//! clear it. The page saves the book, puts it in the link and prices everything from it.
//!
//! The table is redrawn only when the items change or the book changes from elsewhere (import,
//! clear), and its boxes get only a default value: an edit leaves the boxes, and the focus,
//! as they are.

use crate::widgets::cached;
use crate::widgets::export::{chosen, download_text, read_text};
use fabricscope_design::bom::{Bom, PriceBook};
use fabricscope_model::link::{indent_json, json_text};
use fabricscope_model::figures::thousands;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub struct Props {
    /// The bill of the design in the controls (its items and counts).
    pub bill: Rc<Bom>,
    pub book: PriceBook,
    /// A new book the model accepted.
    pub on_book: Callback<PriceBook>,
    /// Notes of reading the book (a refused link or saved copy).
    pub notes: Vec<String>,
    /// The last import's or clear's message.
    pub note: UseStateHandle<Option<String>>,
    /// The book the boxes show and its number: an edit changes the book as the boxes already
    /// show it, so they are not redrawn (nor the focus lost); a book from elsewhere (import,
    /// clear) gets a new number and redraws them.
    pub shown: Rc<std::cell::RefCell<(PriceBook, u32)>>,
    /// A link's book offered beside the saved one, and Undo (the page's buttons).
    pub kept: Html,
}

/// The editable fields: file name, column heading, whether a number.
const COLUMNS: [(&str, &str, bool); 4] = [("usd", "USD each", true), ("power_w", "W each", true), ("source", "Source", false), ("date", "Date", false)];

/// One row: the item's id, name, count and catalog watts.
type Row = (&'static str, &'static str, u64, Option<f64>);

/// The bill's items that need a price of their own, each once.
fn items(b: &Bom) -> Vec<Row> {
    let mut v: Vec<Row> = Vec::new();
    for l in b.lines.iter().filter(|l| !l.included && l.counted()) {
        match v.iter_mut().find(|e| e.0 == l.item) {
            Some(e) => e.2 += l.count,
            None => v.push((l.item, l.name, l.count, l.unit_power_w)),
        }
    }
    v
}

/// What the book holds for `item`'s `field`, as text.
fn shown(book: &PriceBook, item: &str, field: &str) -> String {
    let Some(e) = book.entry(item) else { return String::new() };
    let num = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x}"));
    match field {
        "usd" => num(e.usd),
        "power_w" => num(e.power_w),
        "source" => e.source.clone(),
        _ => e.date.clone(),
    }
}

/// The table of `rows` showing `book`.
fn table(rows: &[Row], book: &PriceBook) -> Html {
    let num = |number: bool| number.then_some("num");
    let body = rows.iter().map(|&(item, name, count, watts)| {
        let cells = COLUMNS.iter().map(|&(field, head, number)| {
            let hint = match (field, watts) {
                ("power_w", Some(w)) => format!("{w}"),
                ("power_w", None) => "n/p".into(),
                ("date", _) => "YYYY-MM-DD".into(),
                _ => String::new(),
            };
            let id = format!("price-{item}-{field}");
            // A default value only (a property, not Yew's `value`): a re-render never resets
            // what is typed in a box.
            html! {
                <td data-label={head} class={num(number)}>
                    <input type="text" inputmode={if number { "decimal" } else { "text" }} id={id.clone()} data-item={item} data-f={field}
                        ~defaultValue={shown(book, item, field)} placeholder={hint} aria-label={format!("{head} of {name}")}
                        aria-describedby={format!("{id}-e")} data-testid={format!("price-{field}")} />
                    <span class="error" id={format!("{id}-e")} role="alert" data-testid="price-error"></span>
                </td>
            }
        });
        html! {
            <tr data-item={item}>
                <th scope="row">{ name }<br /><code>{ item }</code></th>
                <td class="num" data-label="Count">{ thousands(count as f64) }</td>
                { for cells }
            </tr>
        }
    });
    html! {
        <table>
            <thead><tr>
                <th scope="col">{ "Item" }</th><th scope="col" class="num">{ "Count" }</th>
                { for COLUMNS.iter().map(|&(_, head, number)| html! { <th scope="col" class={num(number)}>{ head }</th> }) }
            </tr></thead>
            <tbody>{ for body }</tbody>
        </table>
    }
}

/// Writes the items' counts into the drawn table's Count cells, in row order (where they
/// differ); whether the table had a row for each.
fn write_counts(counts: &[u64]) -> bool {
    let cells = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector_all("[data-testid=prices] td[data-label=Count]").ok());
    let Some(cells) = cells else { return true };
    if cells.length() as usize != counts.len() {
        return false;
    }
    for (i, n) in counts.iter().enumerate() {
        if let Some(cell) = cells.item(i as u32) {
            // The cell's own text node (Yew's), changed in place rather than replaced.
            let text = thousands(*n as f64);
            match cell.first_child() {
                Some(t) if t.node_value().as_deref() != Some(text.as_str()) => t.set_node_value(Some(&text)),
                Some(_) => {}
                None => cell.set_text_content(Some(&text)),
            }
        }
    }
    true
}

/// Shows `message` beside `input` (none: clears it).
fn mark(input: &web_sys::HtmlInputElement, message: Option<&str>) {
    let _ = input.set_attribute("aria-invalid", if message.is_some() { "true" } else { "false" });
    let span = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&format!("{}-e", input.id())));
    if let Some(s) = span {
        s.set_text_content(message);
    }
}

/// The table drawn last: its items (without their counts), the number of the book it shows,
/// and its markup.
type Drawn = Option<((Vec<(&'static str, Option<f64>)>, u32), Html)>;

thread_local! {
    static DRAWN: std::cell::RefCell<Drawn> = const { std::cell::RefCell::new(None) };
}

/// Imports the price-book file chosen in the input of `e`, or says why not.
fn import(e: &Event, on_book: &Callback<PriceBook>, note: &UseStateHandle<Option<String>>) {
    let Some(file) = chosen(e) else { return };
    // The size first: a file over the limit is refused before a byte of it is read or parsed.
    if let Err(e) = fabricscope_design::bom::prices::check_file_size(file.size() as u64) {
        note.set(Some(format!("Not imported; the price book is unchanged: {}", e.message)));
        return;
    }
    let (on_book, n) = (on_book.clone(), note.clone());
    read_text(&file, note.clone(), move |text| match PriceBook::from_file_text(&text) {
        Ok(b) => {
            n.set(Some(format!("Imported {} prices.", b.0.len())));
            on_book.emit(b);
        }
        Err(e) => n.set(Some(format!("Not imported; the price book is unchanged: {}: {}", e.field, e.message))),
    });
}

/// The status line, notes and buttons under the table.
fn rest(p: &Props, rows: &[Row]) -> Html {
    let priced = rows.iter().filter(|r| p.book.usd(r.0).is_some()).count();
    let others: Vec<&str> = p.book.0.iter().map(|e| e.item.as_str()).filter(|i| !rows.iter().any(|r| r.0 == *i)).collect();
    let also = (!others.is_empty()).then(|| format!(" Also in the book (other designs): {}.", others.join(", ")));
    let off = p.book.is_empty();
    html! { <>
        <p class="small" data-testid="price-status">{ format!("{priced} of {} items priced.", rows.len()) }{ also }</p>
        <div class="price-actions">
            <label class="export-import">{ "Import price book…" }<input type="file" accept=".json,application/json" data-testid="price-import" /></label>
            <button type="button" data-act="save" data-testid="price-save" disabled={off}>{ "Download price book (JSON)" }</button>
            <button type="button" data-act="clear" data-testid="price-clear" disabled={off}>{ "Clear all prices" }</button>
        </div>
        { for p.notes.iter().chain(p.note.as_ref()).map(|n| html! { <p class="export-note" role="status" data-testid="price-note">{ n }</p> }) }
        { p.kept.clone() }
    </> }
}

/// The panel (a plain function, not a component: one generic component less in the bundle;
/// its two bits of state live in the page). One listener each for the changes and clicks of
/// its markup.
pub fn price_editor(p: Props) -> Html {
    let gen = {
        let mut t = p.shown.borrow_mut();
        if t.0 != p.book {
            *t = (p.book.clone(), t.1 + 1);
        }
        t.1
    };
    let rows = items(&p.bill);
    // Keyed on the items, not their counts: a dragged node slider changes every count, and
    // rewriting two dozen text boxes on each input cost more than the rest of the page's
    // update. The counts are written into the drawn table after the render instead.
    let key: Vec<(&'static str, Option<f64>)> = rows.iter().map(|r| (r.0, r.3)).collect();
    let table = DRAWN.with(|c| cached(c, (key, gen), |_| table(&rows, &p.book)));
    // Written now where the table is on the page already (the markup is unchanged, so the
    // render leaves it be); after the render where it is about to be put there.
    let counts: Vec<u64> = rows.iter().map(|r| r.2).collect();
    if !write_counts(&counts) {
        gloo_timers::callback::Timeout::new(0, move || {
            write_counts(&counts);
        })
        .forget();
    }
    let rest = rest(&p, &rows);
    let on_change = {
        let (book, on_book, shown, note) = (p.book.clone(), p.on_book.clone(), p.shown.clone(), p.note.clone());
        Callback::from(move |e: Event| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            let (Some(item), Some(field)) = (input.get_attribute("data-item"), input.get_attribute("data-f")) else {
                return import(&e, &on_book, &note);
            };
            match book.edited(&item, &field, &input.value()) {
                Ok(b) => {
                    mark(&input, None);
                    shown.borrow_mut().0 = b.clone();
                    on_book.emit(b);
                }
                // The box names the item already; the message says what the field takes.
                Err(e) => mark(&input, Some(e.message.strip_prefix(&format!("{item}: ")).unwrap_or(&e.message))),
            }
        })
    };
    let on_click = {
        let (book, on_book, note) = (p.book.clone(), p.on_book.clone(), p.note.clone());
        Callback::from(move |e: MouseEvent| {
            let act = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|el| el.get_attribute("data-act"));
            match act.as_deref() {
                Some("save") => download_text("fabricscope-prices.json", "application/json", &(indent_json(&json_text(&book.to_value())) + "\n")),
                Some("clear") => {
                    note.set(Some("Price book cleared: nothing is priced.".into()));
                    on_book.emit(PriceBook::default());
                }
                _ => {}
            }
        })
    };
    html! {
        <section class="panel wide prices" data-testid="prices" aria-labelledby="prices-h" onchange={on_change} onclick={on_click}>
            <h3 id="prices-h">{ "3 · Price book" }</h3>
            <p class="muted small">{ "Your unit prices (US dollars) for the items of the design in the controls, with source and date; W each replaces the catalog's power figure (or an unpublished one, n/p). Kept in this browser, the link and the scenario file. Cost shows once every item is priced; none are built in." }</p>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="prices-h">{ table }</div>
            { rest }
        </section>
    }
}
