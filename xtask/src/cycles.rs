//! The module-cycle check of `cargo xtask tidy`: inside each crate target, the top-level modules
//! must not import each other in a circle.
//!
//! For every package of the workspace (crates/*, xtask, tests, benches) and every target root
//! it has (`src/lib.rs`, `src/main.rs`, `src/bin/*`, `tests/*`, `benches/*`, `examples/*` and the
//! `path` of each `[[bin]]`, `[[test]]`, `[[bench]]` and `[[example]]`), the module tree is
//! followed from the root through `mod name;` (and `#[path = ...]`). Every file and inline
//! module belongs to one top-level module (the root's child it lies under). An edge `a -> b`
//! is a path in `a` that names top-level module `b`: `crate::b::...` (also `$crate::` and
//! inside `use crate::{...}` groups), `super::b` from a top-level module's own file, or
//! `crate::Item` where the root re-exports `Item` from `b` (`pub use crate::b::Item`). Code under
//! `#[cfg(test)]` is left out: a module's tests may reach it through the crate's entry points,
//! which is no dependency of the code that ships. Comments and literals are skipped.
//!
//! The reader is a small lexer, not a Rust parser: it knows paths, `use` trees, braces and
//! attributes, which is all the check needs, and keeps xtask's dependencies few.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// Top-level module graphs with a cycle that is known and kept, each with its reason. Empty: a
/// new entry must say why the cycle cannot be broken by a small move.
const ALLOWED: &[(&str, &str)] = &[];

/// Every module cycle of every workspace package under `root`, one message per cycle.
pub(crate) fn check(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut packages = Vec::new();
    packages.extend(crate::crates::crate_dirs(root)?);
    for extra in ["xtask", "tests", "benches"] {
        if root.join(extra).join("Cargo.toml").is_file() {
            packages.push(root.join(extra));
        }
    }
    let mut errors = Vec::new();
    for dir in packages {
        let (manifest, name) = crate::crates::manifest(&dir)?;
        let targets = target_roots(&dir, &manifest);
        let several = targets.len() > 1;
        for target in targets {
            let graph = module_graph(&target)?;
            let label = if several && !target.ends_with("src/lib.rs") {
                let rel = target.strip_prefix(&dir).unwrap_or(&target);
                format!("{name} ({})", rel.display())
            } else {
                name.clone()
            };
            for cycle in find_cycles(&graph) {
                let shown = format!("{label}: {}", cycle.join(" -> "));
                if ALLOWED.iter().any(|(it, _)| *it == shown) {
                    continue;
                }
                errors.push(format!(
                    "module cycle in {shown}: move what the modules share into a module that \
                     imports neither"
                ));
            }
        }
    }
    Ok(errors)
}

/// The root files of a package's targets, sorted.
fn target_roots(dir: &Path, manifest: &toml::Table) -> Vec<PathBuf> {
    let mut roots = BTreeSet::new();
    for file in ["src/lib.rs", "src/main.rs"] {
        roots.insert(dir.join(file));
    }
    for folder in ["src/bin", "tests", "benches", "examples"] {
        let Ok(entries) = fs::read_dir(dir.join(folder)) else { continue };
        for entry in entries.filter_map(|it| it.ok()) {
            let path = entry.path();
            if path.extension().is_some_and(|it| it == "rs") {
                roots.insert(path);
            } else if path.join("main.rs").is_file() {
                roots.insert(path.join("main.rs"));
            }
        }
    }
    for section in ["bin", "test", "bench", "example"] {
        let Some(list) = manifest.get(section).and_then(|it| it.as_array()) else { continue };
        for target in list {
            if let Some(path) = target.get("path").and_then(|it| it.as_str()) {
                roots.insert(dir.join(path));
            }
        }
    }
    roots.into_iter().filter(|it| it.is_file()).collect()
}

/// The graph of top-level modules of the target rooted at `root`: module to the modules it names.
fn module_graph(root: &Path) -> anyhow::Result<BTreeMap<String, BTreeSet<String>>> {
    let text = fs::read_to_string(root).with_context(|| format!("reading {}", root.display()))?;
    let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
    let root_file = read_file(&text, 0);
    let mut files = Vec::new();
    let mut modules = BTreeSet::new();
    for decl in &root_file.mods {
        modules.insert(decl.name.clone());
        if let Some(path) = resolve_mod(&dir, &dir, decl) {
            files.push((decl.name.clone(), path, 1usize, dir.join(&decl.name)));
        }
    }
    for inline in &root_file.inline_mods {
        modules.insert(inline.clone());
    }
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for path in &root_file.root_uses {
        let segments: Vec<&str> = path
            .iter()
            .map(String::as_str)
            .skip_while(|it| matches!(*it, "crate" | "self"))
            .collect();
        if let [module, .., item] = segments.as_slice()
            && segments.len() >= 2
            && modules.contains(*module)
        {
            reexports.insert((*item).to_owned(), (*module).to_owned());
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> =
        modules.iter().map(|it| (it.clone(), BTreeSet::new())).collect();
    for (module, paths) in &root_file.inline_paths {
        add_edges(&mut graph, module, paths, &modules, &reexports);
    }
    while let Some((top, path, depth, child_dir)) = files.pop() {
        let Ok(text) = fs::read_to_string(&path) else { continue };
        let file = read_file(&text, depth);
        add_edges(&mut graph, &top, &file.paths, &modules, &reexports);
        let file_dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let own_dir = if path.file_name().is_some_and(|it| it == "mod.rs") {
            file_dir.clone()
        } else {
            child_dir
        };
        for decl in &file.mods {
            if let Some(found) = resolve_mod(&file_dir, &own_dir, decl) {
                files.push((top.clone(), found, depth + 1, own_dir.join(&decl.name)));
            }
        }
    }
    Ok(graph)
}

fn add_edges(
    graph: &mut BTreeMap<String, BTreeSet<String>>,
    from: &str,
    paths: &[Vec<String>],
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) {
    for path in paths {
        let Some(first) = path.first() else { continue };
        let to = if modules.contains(first) {
            first
        } else if let Some(module) = reexports.get(first) {
            module
        } else {
            continue;
        };
        if to != from {
            graph.entry(from.to_owned()).or_default().insert(to.clone());
        }
    }
}

/// The file a `mod name;` declaration names: its `#[path]` beside the declaring file, else
/// `name.rs` or `name/mod.rs` in the declaring module's directory.
fn resolve_mod(file_dir: &Path, own_dir: &Path, decl: &ModDecl) -> Option<PathBuf> {
    if let Some(path) = &decl.path {
        let found = file_dir.join(path);
        return found.is_file().then_some(found);
    }
    [own_dir.join(format!("{}.rs", decl.name)), own_dir.join(&decl.name).join("mod.rs")]
        .into_iter()
        .find(|it| it.is_file())
}

/// A `mod name;` declaration outside `#[cfg(test)]`.
#[derive(Debug)]
struct ModDecl {
    name: String,
    path: Option<String>,
}

/// What one file says that the graph needs.
#[derive(Debug, Default)]
struct FileFacts {
    /// Its `mod name;` declarations at file level (not inside inline modules).
    mods: Vec<ModDecl>,
    /// Paths it names, relative to the crate root (`crate::` and the resolved `super::`
    /// stripped): each is a list of segments.
    paths: Vec<Vec<String>>,
    /// In a root file: its inline top-level modules.
    inline_mods: Vec<String>,
    /// In a root file: paths named inside each inline top-level module.
    inline_paths: BTreeMap<String, Vec<Vec<String>>>,
    /// In a root file: the paths of its own `use` items, for re-exports.
    root_uses: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
    /// A plain string literal's body, escapes as written.
    Str(String),
    /// A raw or byte string, char, number or lifetime: nothing the check reads.
    Literal,
}

/// Splits Rust source into the tokens the check reads, without comments.
fn lex(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth = depth.saturating_sub(1);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            let end = skip_string(&chars, i + 1);
            let body: String = chars[i + 1..end.saturating_sub(1).max(i + 1)].iter().collect();
            out.push(Tok::Str(body));
            i = end;
        } else if (c == 'r' || c == 'b' || c == 'c')
            && let Some(end) = raw_or_byte_string(&chars, i)
        {
            i = end;
            out.push(Tok::Literal);
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            out.push(Tok::Literal);
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Literal);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Tok::Ident(word.trim_start_matches("r#").to_owned()));
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Tok::Path);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// The index after the closing quote of a string whose body starts at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The end of a raw, byte or C string starting at `i` (`r"..."`, `r#"..."#`, `b"..."`, `br"..."`,
/// `c"..."`), or `None` when `i` starts an identifier.
fn raw_or_byte_string(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(chars.get(j), Some('b' | 'c')) {
        j += 1;
    }
    let raw = chars.get(j) == Some(&'r');
    if raw {
        j += 1;
    }
    let mut hashes = 0;
    while raw && chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') || j == i {
        return None;
    }
    if !raw {
        return Some(skip_string(chars, j + 1));
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

/// Reads one file of module depth `depth` (0: the root, 1: a top-level module's own file).
fn read_file(text: &str, depth: usize) -> FileFacts {
    let toks = lex(text);
    let mut facts = FileFacts::default();
    // One frame per open brace: the module depth inside it, and the inline top-level module it
    // opens or lies in (root files only).
    let mut frames: Vec<(usize, Option<String>)> = Vec::new();
    let mut i = 0;
    let mut pending_path: Option<String> = None;
    while i < toks.len() {
        let here = frames.last().map_or(depth, |it| it.0);
        let inline_top = frames.iter().rev().find_map(|it| it.1.clone());
        match &toks[i] {
            Tok::Punct('#') => {
                let (end, attr) = attribute(&toks, i);
                if attr.is_cfg_test {
                    i = skip_item(&toks, end);
                    pending_path = None;
                    continue;
                }
                if attr.path.is_some() {
                    pending_path = attr.path;
                }
                i = end;
                continue;
            }
            Tok::Punct('{') => {
                frames.push((here, None));
            }
            Tok::Punct('}') => {
                frames.pop();
            }
            Tok::Ident(word) if word == "mod" => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    match toks.get(i + 2) {
                        Some(Tok::Punct(';')) if frames.is_empty() => {
                            facts
                                .mods
                                .push(ModDecl { name: name.clone(), path: pending_path.take() });
                            i += 3;
                            continue;
                        }
                        Some(Tok::Punct('{')) => {
                            let top = if here == 0 {
                                facts.inline_mods.push(name.clone());
                                Some(name.clone())
                            } else {
                                None
                            };
                            frames.push((here + 1, top));
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            Tok::Ident(word) if word == "use" && here == 0 => {
                let (end, paths) = use_tree(&toks, i + 1, Vec::new());
                facts.root_uses.extend(paths.iter().cloned());
                let named: Vec<Vec<String>> =
                    paths.into_iter().filter_map(|it| crate_relative(it, here)).collect();
                match &inline_top {
                    Some(top) => facts.inline_paths.entry(top.clone()).or_default().extend(named),
                    None => facts.paths.extend(named),
                }
                i = end;
                continue;
            }
            Tok::Ident(word)
                if (word == "crate" || word == "super") && toks.get(i + 1) == Some(&Tok::Path) =>
            {
                let preceded_by_path = i > 0 && toks[i - 1] == Tok::Path;
                let macro_crate = i > 0 && toks[i - 1] == Tok::Punct('$');
                if !preceded_by_path || macro_crate {
                    let (end, paths) = use_tree(&toks, i, Vec::new());
                    let named: Vec<Vec<String>> =
                        paths.into_iter().filter_map(|it| crate_relative(it, here)).collect();
                    match &inline_top {
                        Some(top) => {
                            facts.inline_paths.entry(top.clone()).or_default().extend(named);
                        }
                        None => facts.paths.extend(named),
                    }
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    facts
}

/// A path as seen from the crate root, or `None` when it stays in the module it is written in
/// or leaves the crate. `depth` is the module depth of the code naming it.
fn crate_relative(path: Vec<String>, depth: usize) -> Option<Vec<String>> {
    match path.first().map(String::as_str) {
        Some("crate") => Some(path[1..].to_vec()),
        Some("super") => {
            let ups = path.iter().take_while(|it| *it == "super").count();
            // `super` from depth d names a module of depth d - ups; only the root's children
            // are other top-level modules.
            (depth == ups).then(|| path[ups..].to_vec())
        }
        _ => None,
    }
}

/// Reads a path or `use` tree starting at `i`: every full path it names (`a::{b, c::d}` is
/// `a::b` and `a::c::d`; a glob ends at its prefix). Returns the index after it.
fn use_tree(toks: &[Tok], mut i: usize, prefix: Vec<String>) -> (usize, Vec<Vec<String>>) {
    let mut path = prefix;
    let mut out = Vec::new();
    loop {
        match toks.get(i) {
            Some(Tok::Path) if path.is_empty() => i += 1,
            Some(Tok::Ident(word)) => {
                path.push(word.clone());
                i += 1;
                if let (Some(Tok::Ident(kw)), Some(Tok::Ident(_))) = (toks.get(i), toks.get(i + 1))
                    && kw == "as"
                {
                    i += 2;
                }
                if toks.get(i) == Some(&Tok::Path) {
                    i += 1;
                    continue;
                }
                out.push(path);
                return (i, out);
            }
            Some(Tok::Punct('*')) => {
                out.push(path);
                return (i + 1, out);
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        None => return (i, out),
                        Some(Tok::Punct('}')) => return (i + 1, out),
                        Some(Tok::Punct(',')) => i += 1,
                        Some(_) => {
                            let (end, inner) = use_tree(toks, i, path.clone());
                            out.extend(inner);
                            i = if end == i { i + 1 } else { end };
                        }
                    }
                }
            }
            _ => {
                if !path.is_empty() {
                    out.push(path);
                }
                return (i, out);
            }
        }
    }
}

struct Attribute {
    is_cfg_test: bool,
    path: Option<String>,
}

/// Reads the attribute starting at `#` (index `i`): where it ends and whether it is
/// `#[cfg(test)]` or `#[path = "..."]` (and its value).
fn attribute(toks: &[Tok], i: usize) -> (usize, Attribute) {
    let mut j = i + 1;
    if toks.get(j) == Some(&Tok::Punct('!')) {
        j += 1;
    }
    if toks.get(j) != Some(&Tok::Punct('[')) {
        return (i + 1, Attribute { is_cfg_test: false, path: None });
    }
    let start = j;
    let mut depth = 0usize;
    while j < toks.len() {
        match toks[j] {
            Tok::Punct('[' | '(') => depth += 1,
            Tok::Punct(']' | ')') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let body = &toks[start..=j.min(toks.len().saturating_sub(1))];
    let ident = |k: usize, w: &str| matches!(body.get(k), Some(Tok::Ident(it)) if it == w);
    let is_cfg_test = body.len() == 6
        && ident(1, "cfg")
        && body.get(2) == Some(&Tok::Punct('('))
        && ident(3, "test")
        && body.get(4) == Some(&Tok::Punct(')'));
    let path = match (ident(1, "path"), body.get(2), body.get(3)) {
        (true, Some(Tok::Punct('=')), Some(Tok::Str(value))) => Some(value.clone()),
        _ => None,
    };
    (j + 1, Attribute { is_cfg_test, path })
}

/// The index after the item starting at `i` (after its attributes): its `;`, or its first
/// brace block.
fn skip_item(toks: &[Tok], mut i: usize) -> usize {
    while toks.get(i) == Some(&Tok::Punct('#')) {
        i = attribute(toks, i).0;
    }
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i] {
            Tok::Punct(';') if depth == 0 => return i + 1,
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// One cycle per strongly connected component of more than one module, each the shortest
/// cycle through the component's first module (alphabetically), closed by that module:
/// `["a", "b", "a"]`. Deterministic: everything is ordered.
pub(crate) fn find_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut cycles = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for start in graph.keys() {
        if done.contains(start.as_str()) {
            continue;
        }
        let component = component_of(graph, start);
        if component.len() < 2 {
            done.insert(start);
            continue;
        }
        let first = component.iter().next().copied().unwrap_or(start.as_str());
        done.extend(component.iter().copied());
        // Breadth-first from `first` back to `first`, within the component.
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([first]);
        let mut closing = None;
        'search: while let Some(node) = queue.pop_front() {
            for next in graph.get(node).into_iter().flatten() {
                if next == first {
                    closing = Some(node);
                    break 'search;
                }
                if component.contains(next.as_str()) && !previous.contains_key(next.as_str()) {
                    previous.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        let Some(mut node) = closing else { continue };
        let mut path = vec![first.to_owned()];
        while node != first {
            path.push(node.to_owned());
            node = previous.get(node).copied().unwrap_or(first);
        }
        path.push(first.to_owned());
        path.reverse();
        cycles.push(path);
    }
    cycles
}

/// The modules that reach `start` and are reached from it (its own included).
fn component_of<'g>(
    graph: &'g BTreeMap<String, BTreeSet<String>>,
    start: &'g str,
) -> BTreeSet<&'g str> {
    let reach = |forward: bool| {
        let mut seen: BTreeSet<&str> = BTreeSet::from([start]);
        let mut stack = vec![start];
        while let Some(node) = stack.pop() {
            let next: Vec<&str> = if forward {
                graph.get(node).into_iter().flatten().map(String::as_str).collect()
            } else {
                graph
                    .iter()
                    .filter(|(_, to)| to.contains(node))
                    .map(|(from, _)| from.as_str())
                    .collect()
            };
            for it in next {
                if seen.insert(it) {
                    stack.push(it);
                }
            }
        }
        seen
    };
    let forward = reach(true);
    reach(false).intersection(&forward).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for &(from, to) in edges {
            graph.entry(from.to_owned()).or_default().insert(to.to_owned());
            graph.entry(to.to_owned()).or_default();
        }
        graph
    }

    #[test]
    fn a_graph_without_a_cycle_has_none() {
        let g = graph(&[("extraction", "scan"), ("scan", "token"), ("extraction", "token")]);
        assert!(find_cycles(&g).is_empty());
        assert!(find_cycles(&BTreeMap::new()).is_empty());
    }

    #[test]
    fn a_cycle_is_found_and_printed_from_its_first_module() {
        let g = graph(&[("scan", "extraction"), ("extraction", "scan"), ("scan", "token")]);
        assert_eq!(find_cycles(&g), vec![vec!["extraction", "scan", "extraction"]]);
        // Two separate circles, a long one and a short one inside a larger component.
        let g = graph(&[
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("c", "b"),
            ("x", "y"),
            ("y", "x"),
            ("y", "z"),
        ]);
        assert_eq!(
            find_cycles(&g),
            vec![vec!["a", "b", "c", "a"], vec!["x", "y", "x"]],
            "one cycle per component, each the shortest through its first module"
        );
    }

    #[test]
    fn paths_use_trees_and_test_code_are_read() {
        let text = r#"//! Doc naming crate::ignored in a comment.
use crate::{alpha::{A, B as C}, beta::*};
use std::fmt;
/* crate::gamma in a block comment */
const S: &str = "crate::delta in a string";
fn f<'a>(x: &'a str) -> char { let _ = crate::epsilon::call(x); 'c' }
#[cfg(test)]
mod tests {
    use crate::zeta;
}
#[cfg(test)]
use crate::eta::Thing;
#[path = "elsewhere.rs"]
mod moved;
mod inner {
    use super::super::theta;
    use super::local;
}
"#;
        let facts = read_file(text, 1);
        let firsts: Vec<&str> =
            facts.paths.iter().filter_map(|p| p.first()).map(|s| s.as_str()).collect();
        assert_eq!(firsts, ["alpha", "alpha", "beta", "epsilon", "theta"]);
        assert_eq!(facts.mods.len(), 1);
        assert_eq!(facts.mods[0].name, "moved");
        assert_eq!(facts.mods[0].path.as_deref(), Some("elsewhere.rs"));
    }

    #[test]
    fn a_crate_on_disk_is_read_through_its_modules_and_reexports() {
        let root = tempfile::tempdir().unwrap();
        let src = root.path().join("src");
        fs::create_dir_all(src.join("scan")).unwrap();
        fs::write(
            src.join("lib.rs"),
            "//! Root.\nmod extraction;\nmod scan;\nmod token;\npub use crate::extraction::Span;\n",
        )
        .unwrap();
        fs::write(src.join("extraction.rs"), "//! E.\nuse crate::scan::Scan;\npub struct Span;\n")
            .unwrap();
        fs::write(src.join("scan.rs"), "//! S.\nmod hit;\nuse super::token::Tok;\n").unwrap();
        fs::write(src.join("scan").join("hit.rs"), "//! H.\nuse crate::Span;\n").unwrap();
        fs::write(src.join("token.rs"), "//! T.\n").unwrap();
        let graph = module_graph(&src.join("lib.rs")).unwrap();
        assert_eq!(find_cycles(&graph), vec![vec!["extraction", "scan", "extraction"]]);
        assert!(graph["scan"].contains("token"), "{graph:?}");
    }
}
