//! The codebase's shape, checked on every test run: no Rust file over 1,000 lines, no import
//! cycle between the files of a crate (outside tests), the web app's pages reaching into no
//! other page, the seven entry pages' heads equal, and the model crate depending on no other
//! Fabricscope crate. Reads the sources; nothing is compiled.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest Rust file allowed, lines (issue #26).
const MAX_LINES: usize = 1000;

/// The workspace, or another tree to check (FABRICSCOPE_ARCH_ROOT: an older checkout).
fn workspace() -> PathBuf {
    std::env::var_os("FABRICSCOPE_ARCH_ROOT").map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."), PathBuf::from)
}

/// Every crate's source root: `crates/*/src` and the web app's `src`.
fn source_roots() -> Vec<PathBuf> {
    let mut roots = vec![workspace().join("src")];
    let crates = std::fs::read_dir(workspace().join("crates")).expect("crates/ is readable");
    for e in crates.flatten() {
        let src = e.path().join("src");
        if src.is_dir() {
            roots.push(src);
        }
    }
    roots.sort();
    roots
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("source dir is readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path inside its crate: `training/step.rs` -> ["training", "step"];
/// `mod.rs`, `lib.rs` and `main.rs` stand for their folder.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).expect("file under its root").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file without its test module and comments.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Paths named after `crate::` or `super::` in `code` (braced lists expanded one level), as
/// absolute module paths.
fn paths_named(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for kw in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(kw) {
            let at = from + i;
            from = at + kw.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let base: Vec<String> = if kw == "crate::" {
                Vec::new()
            } else if kw == "self::" {
                here.to_vec()
            } else {
                // `super::` of `a/b.rs` (module a::b) and of `a/mod.rs` (module a) alike is the
                // module path less its last name.
                let mut p = here.to_vec();
                p.pop();
                p
            };
            let rest = &code[from..];
            let heads: Vec<String> = if let Some(list) = rest.strip_prefix('{') {
                list.split('}').next().unwrap_or("").split(',').map(|s| s.trim().to_string()).collect()
            } else {
                vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect()]
            };
            for h in heads {
                let mut p = base.clone();
                p.extend(h.split("::").filter(|s| !s.is_empty() && *s != "self").map(str::to_string));
                out.push(p);
            }
        }
    }
    // `use child::…` (and `pub use`, `pub(crate) use`): a child module named without `self::`.
    for line in code.lines() {
        let l = line.trim_start();
        let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
        if let Some(rest) = l.strip_prefix("use ") {
            let head: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !head.is_empty() && rest[head.len()..].starts_with("::") && !matches!(head.as_str(), "crate" | "super" | "self" | "std" | "core" | "alloc") {
                let mut p = here.to_vec();
                p.push(head);
                out.push(p);
            }
        }
    }
    out
}

/// Strongly connected groups of more than one file, by Tarjan's algorithm.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        e: &'a BTreeMap<String, BTreeSet<String>>,
        idx: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.idx.len();
        t.idx.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.e.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.idx.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(lw));
            } else if t.on.contains(w) {
                let iw = t.idx[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(iw));
            }
        }
        if t.low[v] == t.idx[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let mut t = T { e: edges, idx: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in edges.keys() {
        if !t.idx.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// Import edges between the files of one crate (code outside tests only): a file that names a
/// module (`crate::`, `super::`, `self::`, or a `use` of a child module, re-exports included)
/// depends on that module's file (the longest prefix of the path that is a file); naming its
/// own module or an ancestor of it does not count, nor does declaring a child (`mod x;`).
fn import_graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(root, f), f.clone())).collect();
    let name = |m: &[String]| if m.is_empty() { "(root)".to_string() } else { m.join("/") };
    let mut edges = BTreeMap::new();
    for (m, f) in &modules {
        let text = std::fs::read_to_string(f).expect("source is readable");
        let mut to = BTreeSet::new();
        for p in paths_named(&code_of(&text), m) {
            // The longest prefix of the path that is a file of this crate.
            if let Some(target) = (0..=p.len()).rev().map(|k| &p[..k]).find(|k| modules.contains_key(*k)) {
                // Naming one's own module or an ancestor of it (`crate::widgets::Same` from
                // `widgets/eval.rs`) is not a dependency on another file.
                if !m.starts_with(target) {
                    to.insert(name(target));
                }
            }
        }
        edges.insert(name(m), to);
    }
    edges
}

#[test]
fn no_rust_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for root in source_roots() {
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        for f in files {
            let n = std::fs::read_to_string(&f).expect("source is readable").lines().count();
            if n > MAX_LINES {
                long.push(format!("{} ({n} lines)", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

#[test]
fn no_crate_has_an_import_cycle_between_its_files() {
    let mut found = Vec::new();
    for root in source_roots() {
        for c in cycles(&import_graph(&root)) {
            found.push(format!("{}: {c:?}", root.display()));
        }
    }
    assert!(found.is_empty(), "import cycles (outside tests): {found:?}");
}

/// The detector finds a cycle where there is one (a guard against a test that cannot fail).
#[test]
fn the_cycle_detector_sees_a_two_file_cycle() {
    let mut e = BTreeMap::new();
    e.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    e.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    e.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&e).len(), 1);
    let here = vec!["training".to_string(), "step".to_string()];
    let named = paths_named("use super::memory::{memory, StageShape};\nuse crate::units::{Micros};", &here);
    assert!(named.contains(&vec!["training".to_string(), "memory".to_string()]), "{named:?}");
    assert!(named.contains(&vec!["units".to_string()]), "{named:?}");
    let here = vec!["widgets".to_string()];
    let named = paths_named("pub use bom::{bom_of};\nuse self::memo::Panel;\nuse std::rc::Rc;", &here);
    assert!(named.contains(&vec!["widgets".to_string(), "bom".to_string()]), "{named:?}");
    assert!(named.contains(&vec!["widgets".to_string(), "memo".to_string(), "Panel".to_string()]), "{named:?}");
    assert!(!named.iter().any(|p| p.contains(&"std".to_string())), "{named:?}");
}

/// Issue 36: the web app is one folder per page (`src/pages/<page>/`), shared widgets
/// (`src/widgets/`) and browser plumbing (`src/plumbing/`). A page's files name no other
/// page's files; widgets and plumbing name no page.
#[test]
fn web_pages_name_no_other_page_and_widgets_and_plumbing_name_none() {
    let root = workspace().join("src");
    for page in ["explorer", "compare", "serving", "congestion", "check", "learn", "embed"] {
        assert!(root.join("pages").join(page).join("mod.rs").is_file(), "src/pages/{page}/mod.rs");
    }
    let mut bad = Vec::new();
    for (from, to) in import_graph(&root) {
        let f: Vec<&str> = from.split('/').collect();
        for t in to {
            let g: Vec<&str> = t.split('/').collect();
            if g[0] != "pages" {
                continue;
            }
            let wrong = match f[0] {
                "widgets" | "plumbing" => true,
                "pages" => f.len() > 1 && (g.len() < 2 || g[1] != f[1]),
                _ => false,
            };
            if wrong {
                bad.push(format!("{from} -> {t}"));
            }
        }
    }
    assert!(bad.is_empty(), "files that reach into a page not their own: {bad:?}");
}

#[test]
fn the_model_depends_on_no_other_fabricscope_crate() {
    let toml = std::fs::read_to_string(workspace().join("crates/model/Cargo.toml")).expect("model Cargo.toml");
    let deps = toml.split("[dependencies]").nth(1).unwrap_or("");
    let deps = deps.split("\n[").next().unwrap_or("");
    assert!(!deps.contains("fabricscope-"), "crates/model must stay below the applications: {deps}");
}

/// Issue 26: one way to write UI. No string literal in the web app's sources starts with an
/// HTML tag (markup is Yew's `html!`, which escapes), and the only JavaScript files in
/// `assets/` are the service worker and the small page loader.
#[test]
fn the_web_app_builds_no_html_from_strings_and_assets_hold_no_javascript_page() {
    let mut files = Vec::new();
    rust_files(&workspace().join("src"), &mut files);
    let mut found = Vec::new();
    for f in files {
        // Test modules may hold SVG text as inputs; the code before them may not.
        let text = code_of(&std::fs::read_to_string(&f).expect("source is readable"));
        for (n, code) in text.lines().enumerate() {
            for (i, _) in code.match_indices('"') {
                let rest = &code[i + 1..];
                let tag = rest.strip_prefix('<').map(|r| r.strip_prefix('/').unwrap_or(r));
                if tag.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic())) {
                    found.push(format!("{}:{}", f.display(), n + 1));
                    break;
                }
            }
        }
    }
    assert!(found.is_empty(), "string literals that start with a tag: {found:?}");
    let mut js: Vec<String> = std::fs::read_dir(workspace().join("assets"))
        .expect("assets/ is readable")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".js") || n.ends_with(".mjs"))
        .collect();
    js.sort();
    assert_eq!(js, ["pages.js", "sw.js"], "assets/ keeps only the service worker and the page loader as JavaScript");
}

/// The eight Trunk entry pages (the repository root), the explorer first.
const ENTRY_PAGES: [&str; 8] = ["index.html", "measured.html", "compare.html", "serving.html", "congestion.html", "check.html", "learn.html", "embed.html"];

/// What an entry page's `<head>` shares with every other: the head without comments, the title,
/// the description, the page's own stylesheet (any `rel="css"` but `assets/style.css`), its
/// copied files (`rel="copy-file"`, `rel="copy-dir"`) and the name of its wasm (`data-bin`),
/// one trimmed line per element.
fn shared_head(html: &str) -> Vec<String> {
    let start = html.find("<head>").map_or(0, |i| i + "<head>".len());
    let end = html.find("</head>").unwrap_or(html.len());
    let mut head = html[start..end.max(start)].to_string();
    while let Some(i) = head.find("<!--") {
        let j = head[i..].find("-->").map_or(head.len(), |j| i + j + 3);
        head.replace_range(i..j, "");
    }
    head.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("<title>") && !l.starts_with("<meta name=\"description\""))
        .filter(|l| !l.contains("rel=\"copy-file\"") && !l.contains("rel=\"copy-dir\""))
        .filter(|l| !(l.contains("rel=\"css\"") && !l.contains("href=\"assets/style.css\"")))
        // A page's own cargo features (index.html leaves out the default `calibrate`) belong to its wasm.
        .map(|l| l.replace(" data-cargo-no-default-features", ""))
        .map(|l| match l.find(" data-cargo-features=\"") {
            Some(i) => {
                let rest = &l[i + " data-cargo-features=\"".len()..];
                let close = rest.find('"').map_or(rest.len(), |c| c + 1);
                format!("{}{}", &l[..i], &rest[close..])
            }
            None => l.to_string(),
        })
        .map(|l| match l.find("data-bin=\"") {
            Some(i) => {
                let rest = &l[i + "data-bin=\"".len()..];
                let close = rest.find('"').unwrap_or(rest.len());
                format!("{}data-bin=\"*{}", &l[..i], &rest[close..])
            }
            None => l.to_string(),
        })
        .collect()
}

/// Issue 36: the CSP, the viewport, the links and the loader are written once. Every entry page's
/// head equals the explorer's but for its title, description, own stylesheet, wasm (and its cargo
/// features), copied files and comments.
#[test]
fn entry_pages_share_one_head() {
    let read = |p: &str| std::fs::read_to_string(workspace().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let base = shared_head(&read(ENTRY_PAGES[0]));
    assert!(base.iter().any(|l| l.contains("Content-Security-Policy")), "index.html's head has its CSP: {base:?}");
    for page in &ENTRY_PAGES[1..] {
        let head = shared_head(&read(page));
        assert_eq!(head, base, "{page}'s <head> differs from index.html's beyond its title, description, stylesheet, wasm and copied files");
    }
    // The comparison sees a difference where there is one.
    let html = read(ENTRY_PAGES[1]);
    let changed = html.replacen("connect-src 'self'", "connect-src *", 1);
    assert_ne!(shared_head(&changed), base, "a changed CSP is a different head");
}
