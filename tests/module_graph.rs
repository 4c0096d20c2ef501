//! Import circles between the crate's modules (issue 22, docs/architecture.md "Layers without
//! circles"): the strongly connected components of the module graph of `src/` must be exactly the
//! ones allowed below. A circle that comes back, or a new one, fails the test with the imports
//! that make it (file and line); breaking a circle that is still listed fails it too, so the list
//! only shrinks.
//!
//! The graph: one node per file module (`src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`); an edge
//! M → T for every path in M, outside items compiled for tests only (`#[cfg(test)]`,
//! `#[cfg(all(.., test, ..))]`), that names T or an item of T:
//! `use` trees (at any depth) and paths in code that start with `crate::`, `super::`, `self::` or
//! the name of one of M's child modules. A path through a re-export (`pub use`, or any import of
//! the module it passes through) is followed to the module that defines the item, so a facade
//! `mod.rs` is transparent; `use X::*` links to X and to the modules X glob-re-exports.
//!
//! Edges between a module and its own ancestors or descendants are left out: a parent declares
//! and re-exports its children and the children use the parent's shared items (`super::Problem`),
//! which is how a Rust folder is built, not a circle between layers. What counts are edges between
//! modules of which neither contains the other (siblings, cousins, other folders).
//!
//! Limits of this token scan (no `syn`, no type information): only paths are seen, so a method
//! or trait call through a value (`m.evaluate()`) links nothing by itself (its type was named
//! by a path somewhere); paths made by macros (`$crate`) and `#[path]` attributes are not seen
//! (the crate has none); an inline module (`mod imp { .. }`) is read as part of its file, so
//! `super::` inside it resolves one level too high; a name imported by a use inside a function
//! is not used to resolve other paths; an unknown first segment is taken for an extern crate;
//! `cfg` other than tests-only is ignored (both arms count).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The strongly connected components allowed today (issue 22: each one a circle still to break).
/// Shrink this list as circles are broken; never grow it.
const ALLOWED: &[&[&str]] = &[];

#[test]
fn module_graph_has_only_the_allowed_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::scan(&src);
    assert!(
        graph.modules.len() > 100,
        "found only {} modules under {}",
        graph.modules.len(),
        src.display()
    );
    let found: BTreeSet<BTreeSet<String>> = graph.circles().into_iter().collect();
    for c in &found {
        println!("circle {{{}}}:\n{}", join(c), graph.explain(c));
    }
    let allowed: BTreeSet<BTreeSet<String>> = ALLOWED
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let mut msg = String::new();
    for c in found.difference(&allowed) {
        msg += &format!("\nnew or grown circle {{{}}}; its imports:\n", join(c));
        msg += &graph.explain(c);
    }
    for c in allowed.difference(&found) {
        msg += &format!(
            "\ncircle {{{}}} is no longer there (broken? take it off ALLOWED)\n",
            join(c)
        );
    }
    assert!(
        msg.is_empty(),
        "module circles differ from tests/module_graph.rs ALLOWED:{msg}"
    );
}

fn join(c: &BTreeSet<String>) -> String {
    c.iter().cloned().collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------------
// The scan.

/// A module path, segments below the crate root (the root is the empty path).
type ModPath = Vec<String>;

#[derive(Default)]
struct Module {
    file: PathBuf,
    /// Items defined at the top level of the file (fn, struct, enum, ...).
    items: BTreeSet<String>,
    /// Top-level imports (any visibility): name → the absolute path it stands for.
    imports: BTreeMap<String, ModPath>,
    /// Top-level glob imports `use X::*` (absolute X).
    globs: Vec<ModPath>,
    /// Names of inline modules (`mod imp { .. }`), read as part of this file.
    inline: BTreeSet<String>,
    /// Every path the module uses: (absolute path, is a glob, line).
    uses: Vec<(ModPath, bool, usize)>,
}

struct Graph {
    modules: BTreeMap<ModPath, Module>,
    /// Edges with the line of their first witness: from → to → (file, line).
    edges: BTreeMap<ModPath, BTreeMap<ModPath, (PathBuf, usize)>>,
}

impl Graph {
    fn scan(src: &Path) -> Graph {
        let mut files = Vec::new();
        collect_rs(src, &mut files);
        let mut sources = BTreeMap::new();
        for f in files {
            let rel = f.strip_prefix(src).unwrap();
            if rel == Path::new("main.rs") || rel.starts_with("bin") {
                continue; // the binary is another crate: its `crate::` is not the library's
            }
            sources.insert(module_path(rel), (f.clone(), fs::read_to_string(&f).unwrap()));
        }
        Graph::from_sources(sources)
    }

    fn from_sources(sources: BTreeMap<ModPath, (PathBuf, String)>) -> Graph {
        let names: BTreeSet<ModPath> = sources.keys().cloned().collect();
        let mut modules = BTreeMap::new();
        for (m, (file, text)) in &sources {
            let mut module = parse_module(m, &names, text);
            module.file = file.clone();
            modules.insert(m.clone(), module);
        }
        let mut g = Graph {
            modules,
            edges: BTreeMap::new(),
        };
        let mut edges: BTreeMap<ModPath, BTreeMap<ModPath, (PathBuf, usize)>> = BTreeMap::new();
        for (m, module) in &g.modules {
            for (path, glob, line) in &module.uses {
                let mut targets = Vec::new();
                if *glob {
                    if let Some(t) = g.resolve(path, 0) {
                        g.glob_sources(&t, &mut targets, 0);
                    }
                } else if let Some(t) = g.resolve(path, 0) {
                    targets.push(t);
                }
                for t in targets {
                    if t.starts_with(m) || m.starts_with(&t) {
                        continue; // itself, an ancestor or a descendant
                    }
                    edges
                        .entry(m.clone())
                        .or_default()
                        .entry(t)
                        .or_insert((module.file.clone(), *line));
                }
            }
        }
        g.edges = edges;
        g
    }

    /// X (a module, or the module of an enum) and, recursively, the modules X re-exports with
    /// `pub use Y::*`.
    fn glob_sources(&self, x: &ModPath, out: &mut Vec<ModPath>, depth: usize) {
        if depth > 16 || out.contains(x) {
            return;
        }
        out.push(x.clone());
        for g in &self.modules[x].globs {
            if let Some(y) = self.resolve(g, depth + 1) {
                self.glob_sources(&y, out, depth + 1);
            }
        }
    }

    /// Whether module `m` has `name` as a child module, an item or an import.
    fn provides(&self, m: &ModPath, name: &str) -> bool {
        let mut child = m.clone();
        child.push(name.to_string());
        let module = &self.modules[m];
        self.modules.contains_key(&child) || module.items.contains(name) || module.imports.contains_key(name)
    }

    /// The module that defines what an absolute path names (None: outside the crate).
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let mut cur: ModPath = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let mut child = cur.clone();
            child.push(seg.clone());
            if self.modules.contains_key(&child) {
                cur = child;
                continue;
            }
            let module = &self.modules[&cur];
            if module.items.contains(seg) {
                return Some(cur);
            }
            // Through an import (a re-export, or a private import a descendant reaches).
            if let Some(target) = module.imports.get(seg) {
                let mut p = target.clone();
                p.extend(path[i + 1..].iter().cloned());
                return self.resolve(&p, depth + 1).or(Some(cur));
            }
            for g in &module.globs {
                if let Some(gm) = self.resolve(g, depth + 1) {
                    if gm != cur && self.provides(&gm, seg) {
                        let mut p = gm.clone();
                        p.extend(path[i..].iter().cloned());
                        return self.resolve(&p, depth + 1).or(Some(gm));
                    }
                }
            }
            // An item the scan does not see (a variant, an associated item, an inline
            // module's item): the module itself.
            return Some(cur);
        }
        Some(cur)
    }

    /// Strongly connected components with more than one module (Tarjan), each sorted.
    fn circles(&self) -> Vec<BTreeSet<String>> {
        let nodes: Vec<&ModPath> = self.modules.keys().collect();
        let index_of: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let succ: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| {
                self.edges
                    .get(*m)
                    .map(|e| e.keys().map(|t| index_of[t]).collect())
                    .unwrap_or_default()
            })
            .collect();
        let sccs = tarjan(&succ);
        sccs.into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| c.into_iter().map(|i| nodes[i].join("::")).collect())
            .collect()
    }

    /// The edges inside a component, with the file and line of one import each.
    fn explain(&self, c: &BTreeSet<String>) -> String {
        let mut s = String::new();
        for (from, to) in &self.edges {
            if !c.contains(&from.join("::")) {
                continue;
            }
            for (t, (file, line)) in to {
                if c.contains(&t.join("::")) {
                    s += &format!(
                        "  {} → {}  ({}:{line})\n",
                        from.join("::"),
                        t.join("::"),
                        file.display()
                    );
                }
            }
        }
        s
    }
}

/// Tarjan's strongly connected components (recursive; the graph has a few hundred nodes).
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        succ: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on_stack[v] = true;
        for &w in t.succ[v].iter() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on_stack[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut c = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on_stack[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            c.sort();
            t.out.push(c);
        }
    }
    let n = succ.len();
    let mut t = T {
        succ,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `a/b.rs` → [a, b]; `a/mod.rs` → [a]; `lib.rs` → [].
fn module_path(rel: &Path) -> ModPath {
    let mut segs: ModPath = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segs.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        segs.push(stem.to_string());
    }
    segs
}

// ---------------------------------------------------------------------------------------------
// Lexing: comments, strings and characters blanked, `#[cfg(test)]` items cut, then tokens.

/// The text with comments, string and character literals replaced by spaces (lines kept).
fn blank_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // Raw string r#"..."#.
            let start = i;
            i += if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            for &ch in &c[start..i.min(c.len())] {
                out.push(blank(ch));
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a): only the first is blanked.
            let end = if c.get(i + 1) == Some(&'\\') {
                let mut j = i + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                Some(j)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(j) => {
                    for _ in i..=j.min(c.len() - 1) {
                        out.push(' ');
                    }
                    i = j + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
struct Tok {
    text: String,
    line: usize,
}

/// Identifiers (with `$`-free names), `::` and single punctuation characters, with their lines.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok {
                text: c[s..i].iter().collect(),
                line,
            });
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Tok {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// Whether the attribute whose `#` is at `i` is `#[cfg(test)]` or `#[cfg(all(.., test, ..))]`
/// (code compiled for tests only), and the index after it.
fn test_only_cfg(toks: &[Tok], i: usize) -> Option<usize> {
    let is = |k: usize, s: &str| toks.get(k).is_some_and(|t| t.text == s);
    if !(is(i, "#") && is(i + 1, "[") && is(i + 2, "cfg") && is(i + 3, "(")) {
        return None;
    }
    let end = skip_group(toks, i + 1);
    let inner = &toks[i + 4..end - 2]; // the predicate, inside `cfg( .. )`
    let test_only = match inner.first().map(|t| t.text.as_str()) {
        Some("test") => inner.len() == 1,
        // `all(...)`: `test` among its top-level terms.
        Some("all") => {
            let mut depth = 0;
            inner.iter().any(|t| {
                match t.text.as_str() {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    _ => {}
                }
                depth == 1 && t.text == "test"
            })
        }
        _ => false,
    };
    test_only.then_some(end)
}

/// The tokens without the items compiled for tests only (`test_only_cfg`: the attribute, the
/// item's other attributes, and the item up to its `;` or its closing brace).
fn cut_test_items(toks: Vec<Tok>) -> Vec<Tok> {
    let is = |k: usize, s: &str| toks.get(k).is_some_and(|t| t.text == s);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some(after) = test_only_cfg(&toks, i) else {
            out.push(toks[i].clone());
            i += 1;
            continue;
        };
        i = after;
        // Further attributes of the same item.
        while is(i, "#") && is(i + 1, "[") {
            i = skip_group(&toks, i + 1);
        }
        // The item: up to `;` at depth 0, or through its first brace block.
        while i < toks.len() {
            match toks[i].text.as_str() {
                ";" => {
                    i += 1;
                    break;
                }
                "{" => {
                    i = skip_group(&toks, i);
                    if is(i, ";") {
                        i += 1;
                    }
                    break;
                }
                "(" | "[" => i = skip_group(&toks, i),
                _ => i += 1,
            }
        }
    }
    out
}

/// The index after the group that opens at `i` (`(`, `[` or `{`), brackets balanced.
fn skip_group(toks: &[Tok], i: usize) -> usize {
    let mut depth = 0i32;
    let mut j = i;
    while j < toks.len() {
        match toks[j].text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// One `use` tree expanded: (path, alias or last segment, is a glob).
fn expand_use(toks: &[Tok], prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>, bool, usize)>) {
    // toks: the tree, without `use` and `;`.
    let mut path: Vec<String> = prefix.to_vec();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i].text;
        match t.as_str() {
            "::" => i += 1,
            "{" => {
                let end = skip_group(toks, i) - 1;
                // Split the group's contents at top-level commas.
                let inner = &toks[i + 1..end];
                let mut start = 0;
                let mut depth = 0;
                for (k, tk) in inner.iter().enumerate() {
                    match tk.text.as_str() {
                        "{" => depth += 1,
                        "}" => depth -= 1,
                        "," if depth == 0 => {
                            if k > start {
                                expand_use(&inner[start..k], &path, out);
                            }
                            start = k + 1;
                        }
                        _ => {}
                    }
                }
                if start < inner.len() {
                    expand_use(&inner[start..], &path, out);
                }
                return;
            }
            "*" => {
                out.push((path, None, true, toks[i].line));
                return;
            }
            "as" => {
                let alias = toks.get(i + 1).map(|t| t.text.clone());
                let line = toks[i].line;
                if path.last().is_some_and(|l| l == "self") {
                    path.pop();
                }
                out.push((path, alias.filter(|a| a != "_"), false, line));
                return;
            }
            _ => {
                path.push(t.clone());
                i += 1;
            }
        }
    }
    if path.last().is_some_and(|l| l == "self") {
        path.pop();
    }
    let name = path.last().cloned();
    let line = toks.last().map(|t| t.line).unwrap_or(0);
    out.push((path, name, false, line));
}

/// A path as written in module `m` made absolute (None: an extern crate or a local name).
fn absolute(m: &[String], path: &[String], names: &BTreeSet<ModPath>) -> Option<ModPath> {
    let first = path.first()?;
    let mut base: ModPath = m.to_vec();
    let mut rest = path;
    match first.as_str() {
        "crate" => {
            base.clear();
            rest = &path[1..];
        }
        "self" => rest = &path[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            let mut child = m.to_vec();
            child.push(first.clone());
            if !names.contains(&child) {
                return None;
            }
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
];

fn parse_module(m: &[String], names: &BTreeSet<ModPath>, text: &str) -> Module {
    let toks = cut_test_items(tokens(&blank_literals(text)));
    let mut module = Module::default();
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].text.as_str();
        match t {
            "{" => depth += 1,
            "}" => depth -= 1,
            "use" => {
                let end = (i..toks.len()).find(|&k| toks[k].text == ";").unwrap_or(toks.len());
                let mut trees = Vec::new();
                expand_use(&toks[i + 1..end], &[], &mut trees);
                for (path, name, glob, line) in trees {
                    let Some(abs) = absolute(m, &path, names) else { continue };
                    if depth == 0 {
                        if glob {
                            module.globs.push(abs.clone());
                        } else if let Some(n) = name {
                            module.imports.insert(n, abs.clone());
                        }
                    }
                    module.uses.push((abs, glob, line));
                }
                i = end + 1;
                continue;
            }
            "mod" if depth == 0 && toks.get(i + 2).is_some_and(|t| t.text == "{") => {
                module.inline.insert(toks[i + 1].text.clone());
            }
            _ if depth == 0 && ITEM_KEYWORDS.contains(&t) => {
                if let Some(n) = toks.get(i + 1) {
                    if n.text.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                        module.items.insert(n.text.clone());
                    }
                }
            }
            _ => {}
        }
        // A path in code: `crate::`, `super::`, `self::` or a child module, then `::` segments.
        let starts_path = (i == 0 || (toks[i - 1].text != "::" && toks[i - 1].text != "$"))
            && toks.get(i + 1).is_some_and(|n| n.text == "::")
            && toks[i]
                .text
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_');
        if starts_path {
            let mut path = vec![toks[i].text.clone()];
            let mut k = i + 1;
            while k + 1 < toks.len()
                && toks[k].text == "::"
                && toks[k + 1]
                    .text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
            {
                path.push(toks[k + 1].text.clone());
                k += 2;
            }
            if let Some(abs) = absolute(m, &path, names) {
                module.uses.push((abs, false, toks[i].line));
            }
            i = k;
            continue;
        }
        i += 1;
    }
    module
}

// ---------------------------------------------------------------------------------------------
// The scanner's own checks: each piece on a snippet where the answer is known.

fn graph_of(files: &[(&str, &str)]) -> Graph {
    let sources = files
        .iter()
        .map(|(p, t)| (module_path(Path::new(p)), (PathBuf::from(p), t.to_string())))
        .collect();
    Graph::from_sources(sources)
}

fn edges_of(g: &Graph) -> BTreeSet<(String, String)> {
    g.edges
        .iter()
        .flat_map(|(f, ts)| ts.keys().map(move |t| (f.join("::"), t.join("::"))))
        .collect()
}

#[test]
fn scanner_blanks_comments_strings_and_chars() {
    let s =
        blank_literals("a // crate::x\nb /* crate::y /* nested */ */ c \"crate::z\" r#\"crate::w\"# 'x' '\\n' &'a d");
    assert!(!s.contains("crate"), "{s}");
    assert_eq!(s.lines().count(), 2);
    assert!(s.contains("&'a d"), "a lifetime is kept: {s}");
}

#[test]
fn scanner_expands_use_trees() {
    let toks = tokens("super::{a::{self, B as C}, d::*, e}");
    let mut out = Vec::new();
    expand_use(&toks, &[], &mut out);
    let got: Vec<(String, Option<String>, bool)> = out.into_iter().map(|(p, n, g, _)| (p.join("::"), n, g)).collect();
    assert_eq!(
        got,
        vec![
            ("super::a".into(), Some("a".into()), false),
            ("super::a::B".into(), Some("C".into()), false),
            ("super::d".into(), None, true),
            ("super::e".into(), Some("e".into()), false),
        ]
    );
}

#[test]
fn scanner_finds_a_circle_and_not_a_test_only_one() {
    let g = graph_of(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c; pub use a::Thing;"),
        ("a/mod.rs", "pub mod x; pub use x::*;"),
        ("a/x.rs", "pub struct Thing; fn f() { crate::b::g(); }"),
        ("b.rs", "pub fn g() {} fn h(t: crate::Thing) {}"),
        (
            "c.rs",
            "use crate::a::x; #[cfg(test)]\nmod tests { use crate::a::x::Thing; }",
        ),
    ]);
    let edges = edges_of(&g);
    // b reaches Thing through two re-exports (lib.rs, a/mod.rs' glob): the edge goes to a::x.
    assert!(edges.contains(&("b".into(), "a::x".into())), "{edges:?}");
    assert!(edges.contains(&("a::x".into(), "b".into())), "{edges:?}");
    assert!(edges.contains(&("c".into(), "a::x".into())), "{edges:?}");
    assert_eq!(edges.len(), 3, "{edges:?}");
    let circles = g.circles();
    assert_eq!(
        circles,
        vec![["a::x".to_string(), "b".to_string()]
            .into_iter()
            .collect::<BTreeSet<_>>()]
    );
}

#[test]
fn scanner_ignores_parent_child_edges_and_test_items() {
    let g = graph_of(&[
        ("lib.rs", "pub mod s;"),
        (
            "s/mod.rs",
            "pub mod p; pub mod q; pub mod r; pub struct Problem; fn f() { p::run(); }",
        ),
        ("s/p.rs", "use super::Problem; pub fn run() {}"),
        ("s/r.rs", "pub fn x() {}"),
        (
            "s/q.rs",
            "pub fn g() {}\n#[cfg(test)]\n#[allow(unused)]\nfn t() { super::r::x(); }\n\
             #[cfg(all(unix, test))] mod u { use crate::s::r; }\n\
             #[cfg(any(test, unix))] fn k() { super::p::run(); }",
        ),
    ]);
    let edges = edges_of(&g);
    assert_eq!(
        edges,
        [("s::q".to_string(), "s::p".to_string())].into_iter().collect(),
        "{edges:?}"
    );
    assert!(g.circles().is_empty());
}
