//! The rules that keep the core's structure (core-service/README.md, "Inside the core"), checked on its source:
//! the `crate::` and `super::` paths each file names, resolved to the files that define them.
//!
//! - no two files import each other, directly or through others (no circle);
//! - only `caller.rs` reads credentials;
//! - only `app.rs` and `main.rs` import `admin`;
//! - stores never import rules, `Core`, or the caller;
//! - a file whose type `Core` holds never imports `state`;
//! - the imports that run up a floor are exactly the ones core-service/README.md lists;
//! - no status, category, source, reason, role or event type is spelled as a string outside
//!   the vocabulary (`proto::vocabulary`) and SQL text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src`, by its module path (`crate::webhooks::flow`).
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .filter(|f| !f.ends_with("main.rs"))
        .map(|file| {
            let rel = file.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            let module = std::iter::once("crate".to_string())
                .chain(parts)
                .collect::<Vec<_>>()
                .join("::");
            (module, std::fs::read_to_string(&file).unwrap())
        })
        .collect()
}

/// The source without comments and string literals (so a doc comment naming a module is not
/// an import).
fn code(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into whole paths.
fn expand(tree: &str) -> Vec<String> {
    // `a::b as c`: the path is `a::b`.
    let tree = tree
        .split(',')
        .map(|part| part.split(" as ").next().unwrap_or(part))
        .collect::<Vec<_>>()
        .join(",");
    let tree: String = tree.split_whitespace().collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(p).into_iter().map(move |e| format!("{prefix}{e}")))
        .collect()
}

/// The module of `path` (a `crate::`/`super::`/`self::` path named in `module`), if it is a
/// file of the crate: the longest prefix that is one.
fn resolve(module: &str, is_mod_rs: bool, path: &str, files: &BTreeSet<&str>) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = module.split("::").collect();
    match segments.first() {
        Some(&"crate") => {
            base = vec!["crate"];
            segments.remove(0);
        }
        Some(&"super") => {
            // In `a/b.rs`, `super` is `a`; in `a/b/mod.rs` it is `a` too (the parent module).
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop();
            }
        }
        Some(&"self") => {
            segments.remove(0);
        }
        _ => return None,
    }
    let _ = is_mod_rs;
    let mut best = None;
    let mut current = base.join("::");
    for segment in segments {
        current = format!("{current}::{segment}");
        if files.contains(current.as_str()) {
            best = Some(current.clone());
        }
    }
    best
}

/// Each file's imports: the crate files it names.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut edges = BTreeMap::new();
    for (module, source) in &modules {
        let code = code(source);
        let mut paths = Vec::new();
        // `use` statements, with their groups.
        let mut rest = code.as_str();
        while let Some(at) = rest.find("use ") {
            let before = rest[..at].chars().last();
            rest = &rest[at + 4..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let end = rest.find(';').unwrap_or(rest.len());
            let tree = &rest[..end];
            if tree.starts_with("crate::")
                || tree.starts_with("super::")
                || tree.starts_with("self::")
            {
                paths.extend(expand(tree));
            }
            rest = &rest[end..];
        }
        // Paths written inline: `crate::webhooks::store::list(...)`.
        for prefix in ["crate::", "super::"] {
            for (at, _) in code.match_indices(prefix) {
                if code[..at]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                {
                    continue;
                }
                let path: String = code[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                paths.push(path.trim_end_matches(':').to_string());
            }
        }
        let targets: BTreeSet<String> = paths
            .iter()
            .filter_map(|p| resolve(module, false, p, &names))
            // A file's own module, and its parent `mod.rs` (declaring its children), are not
            // imports.
            .filter(|t| t != module && !module.starts_with(&format!("{t}::")))
            .collect();
        edges.insert(module.clone(), targets);
    }
    edges
}

fn reaches(edges: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(at) = stack.pop() {
        for next in edges.get(&at).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_file_imports_in_a_circle() {
    let edges = edges();
    assert!(
        edges.len() > 40,
        "the source was read: {} files",
        edges.len()
    );
    assert!(
        edges["crate::state"].contains("crate::messaging::writer"),
        "imports are read: {:?}",
        edges["crate::state"]
    );
    let circles: Vec<String> = edges
        .iter()
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|to| reaches(&edges, to, from))
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(circles.is_empty(), "imports in a circle: {circles:#?}");
}

#[test]
fn only_caller_reads_credentials() {
    let readers = [
        "fn authorization",
        "fn bearer",
        "fn client_info",
        "fn authenticate_user",
        "fn ensure_active",
        "fn who_am_i",
        "fn console",
        "fn app_token",
        "fn invalid_app_token",
        "fn authorize_internal",
        "fn internal_guard",
    ];
    for (module, source) in modules() {
        let code = code(&source);
        for reader in readers {
            // A gRPC method of that name (it takes `&self`) serves the call; it reads nothing.
            let defines = code.match_indices(reader).any(|(at, _)| {
                let after = &code[at + reader.len()..];
                let params: String = after
                    .split(')')
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect();
                !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    && !params.starts_with("(&self")
            });
            assert!(
                !defines || module == "crate::caller",
                "{module} defines `{reader}`: credentials are read in caller.rs only"
            );
        }
        if module != "crate::caller" {
            assert!(
                !code.contains(".metadata()"),
                "{module} reads gRPC metadata: credentials are read in caller.rs only"
            );
        }
    }
}

#[test]
fn only_the_app_imports_the_operator_service() {
    for (module, targets) in edges() {
        if module.starts_with("crate::admin") || module == "crate::app" || module == "crate" {
            continue;
        }
        let admin: Vec<_> = targets
            .iter()
            .filter(|t| t.starts_with("crate::admin"))
            .collect();
        assert!(admin.is_empty(), "{module} imports {admin:?}");
    }
}

/// Whether `module` is a store: a `store.rs` (or a file of a `store/` folder), a backend's
/// `pg.rs`, the connection (`db`), or one of the stores named otherwise: the outbox (the
/// dispatcher's queries) and the usage counters (written in the transaction of every change
/// they count).
fn is_store(module: &str) -> bool {
    let segments: Vec<&str> = module.split("::").collect();
    segments.contains(&"store")
        || segments.last() == Some(&"pg")
        || segments.get(1) == Some(&"db")
        || module.starts_with("crate::messaging::outbox")
        || module.starts_with("crate::usage")
}

#[test]
fn stores_never_import_rules() {
    let edges = edges();
    // `events` plans an event batch's rows (what its store writes). `limits` is the rate-limit
    // table's conditional update (the group commit spends an exact limit in its own
    // transaction).
    let allowed = [
        "crate::limits",
        "crate::entities",
        "crate::error",
        "crate::clock",
        "crate::events",
    ];
    let mut checked = 0;
    for store in edges.keys().filter(|m| is_store(m)) {
        checked += 1;
        for target in &edges[store] {
            assert!(
                allowed.contains(&target.as_str()) || is_store(target),
                "{store} imports {target}: a store imports entities, errors and other stores only"
            );
        }
    }
    assert!(checked >= 20, "{checked} stores checked");
}

/// The statements that name a backend (`DbBackend::Postgres`, `DbBackend::Sqlite`): only stores,
/// `pg.rs` files and `db` decide which database they talk to; runtimes and rules read `Tuning`.
#[test]
fn only_stores_name_the_backend() {
    let mut named = 0;
    for (module, source) in modules() {
        if !code(&source).contains("DbBackend::") {
            continue;
        }
        named += 1;
        assert!(
            is_store(&module),
            "{module} names a backend: move the statement into the store it reads (a `pg.rs` \
             beside it for PostgreSQL's), or read a field of `db::Tuning`"
        );
    }
    assert!(named >= 5, "the backend is named in {named} files");
}

#[test]
fn what_core_holds_never_imports_state() {
    let edges = edges();
    let held = &edges["crate::state"];
    for file in held {
        assert!(
            !reaches(&edges, file, "crate::state"),
            "{file} is held by Core and imports state"
        );
    }
}

/// Floors as core-service/README.md draws them: a domain folder and the files that stand apart.
fn floor(module: &str) -> u32 {
    let room = module
        .splitn(3, "::")
        .take(2)
        .collect::<Vec<_>>()
        .join("::");
    match room.as_str() {
        "crate::app" | "crate" => 6,
        "crate::admin" => 5,
        "crate::messaging"
        | "crate::broadcasts"
        | "crate::webhooks"
        | "crate::consent"
        | "crate::conversations"
        | "crate::templates"
        | "crate::qr"
        | "crate::grants"
        | "crate::apps"
        | "crate::business"
        | "crate::identity"
        | "crate::privacy" => 4,
        "crate::caller" | "crate::retention" | "crate::metrics" | "crate::layers" => 3,
        "crate::state" => 2,
        _ => 1,
    }
}

/// The numbered list of core-service/README.md that names the imports running up a floor:
/// "1. `state.rs` → `messaging/reader.rs`, `messaging/writer.rs`: why", as module edges.
fn upward_edges_in_readme() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("core-service/README.md");
    let list = readme
        .split("edges that run up a floor")
        .nth(1)
        .expect("core-service/README.md: the list of the edges that run up a floor");
    let module = |file: &str| format!("crate::{}", file.trim_end_matches(".rs").replace('/', "::"));
    let mut edges = BTreeSet::new();
    for line in list.lines().skip_while(|l| !l.starts_with("1. ")) {
        if line.starts_with(' ') {
            continue; // an item's second line
        }
        let Some((number, rest)) = line.split_once(". ") else {
            break;
        };
        if number.parse::<u32>().is_err() {
            break;
        }
        let head = rest.split(": ").next().unwrap_or_default();
        let files: Vec<&str> = head.split('`').skip(1).step_by(2).collect();
        let (from, to) = files
            .split_first()
            .expect("a numbered edge names its files");
        for to in to {
            edges.insert(format!("{} -> {}", module(from), module(to)));
        }
    }
    edges
}

#[test]
fn the_imports_that_run_up_a_floor_are_the_ones_readme_lists() {
    let mut upward = BTreeSet::new();
    for (from, targets) in edges() {
        for to in targets {
            if floor(&to) > floor(&from) {
                upward.insert(format!("{from} -> {to}"));
            }
        }
    }
    let listed = upward_edges_in_readme();
    assert!(
        !listed.is_empty(),
        "core-service/README.md lists no import running up a floor"
    );
    assert_eq!(
        upward, listed,
        "update core-service/README.md, Inside the core: the imports that run up a floor"
    );
    // Each points into a leaf of its folder: a file that reaches nothing but stores and the
    // ground floor (entities, errors, config, clock), so nothing it reaches can reach back.
    let edges = edges();
    for edge in &listed {
        let to = edge.split(" -> ").nth(1).unwrap();
        let mut stack = vec![to.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(at) = stack.pop() {
            for next in &edges[&at] {
                assert!(
                    floor(next) == 1 || next.ends_with("::store") || next == "crate::events",
                    "{to} (imported up a floor) reaches {next}"
                );
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
    }
}

/// Callers are values decided at the edge: each gRPC method resolves its caller once
/// (`caller.rs`: `Member`, `Manager`, `Owner`, `User`, `AppToken`, ...) and services take the
/// type, so holding one is the proof of access. No function outside `caller.rs` takes the raw
/// `authorization` value.
#[test]
fn services_take_callers_never_headers() {
    let mut resolved = 0;
    for (module, source) in modules() {
        let code = code(&source);
        if module == "crate::caller" {
            continue;
        }
        let compact: String = code.split_whitespace().collect();
        assert!(
            !compact.contains("authorization:Option<&str>"),
            "{module} takes a raw authorization value: take a caller type of caller.rs instead"
        );
        if module.ends_with("::grpc") {
            resolved += compact.matches("::of(&self.core,&request)").count()
                + compact.matches("AppToken::of(&request)").count();
        }
    }
    assert!(
        resolved >= 45,
        "{resolved} gRPC methods resolve their caller"
    );
}

/// The dispatcher records outcomes through the outbox store and leaves their fan-out to
/// `webhooks::fanout`: it imports nothing else of `webhooks` or `events`.
#[test]
fn the_dispatcher_reaches_webhooks_through_the_fanout_only() {
    let edges = edges();
    let dispatcher = &edges["crate::messaging::dispatcher"];
    assert!(
        dispatcher.contains("crate::webhooks::fanout"),
        "imports are read: {dispatcher:?}"
    );
    let others: Vec<&String> = dispatcher
        .iter()
        .filter(|t| {
            (t.starts_with("crate::webhooks") || t.starts_with("crate::events"))
                && t.as_str() != "crate::webhooks::fanout"
        })
        .collect();
    assert!(others.is_empty(), "the dispatcher imports {others:?}");
}

/// Every string literal of `source` outside comments and `#[cfg(test)]` modules, with its
/// line, but JSON keys.
fn literals(source: &str) -> Vec<(usize, String)> {
    let source = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = source.chars().peekable();
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            // A char literal such as '"' is not the start of a string.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
            }
            '"' if previous != 'r' => {
                let (mut text, mut escaped) = (String::new(), false);
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                    }
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                    text.push(c);
                }
                // A JSON object's key (`"accepted": n`) names a field, not a value.
                if chars.peek() != Some(&':') {
                    out.push((line, text));
                }
            }
            _ => {}
        }
        previous = c;
    }
    out
}

#[test]
fn no_status_or_category_literal_outside_the_vocabulary() {
    use proto::vocabulary::*;
    let sets: [&[&str]; 18] = [
        UserStatus::WIRE,
        BusinessStatus::WIRE,
        BusinessMode::WIRE,
        Role::WIRE,
        Category::WIRE,
        MessageStatus::WIRE,
        MessageSource::WIRE,
        FailureReason::WIRE,
        FollowStatus::WIRE,
        ChangeSource::WIRE,
        BroadcastStatus::WIRE,
        EventType::WIRE,
        DeliveryStatus::WIRE,
        QrState::WIRE,
        ConversationStatus::WIRE,
        Direction::WIRE,
        WindowState::WIRE,
        ErasureStatus::WIRE,
    ];
    let values: BTreeSet<&str> = sets.into_iter().flatten().copied().collect();
    // Literals that spell a value of a set but are not one: SQL identifiers and labels that
    // name something else.
    let allowed: &[(&str, &str)] = &[
        // `usage_counters`' column names, one per category and status (SQL text).
        ("crate::usage", "COLUMNS"),
        // `admin erase-user --user <uuid>`: a flag's name.
        ("crate::admin::cli", "USER_FLAG"),
    ];
    let mut found = Vec::new();
    for (module, source) in modules() {
        let exempt: Vec<&str> = allowed
            .iter()
            .filter(|(m, _)| *m == module)
            .map(|(_, item)| *item)
            .collect();
        let lines: Vec<&str> = source.lines().collect();
        for (line, text) in literals(&source) {
            if !values.contains(text.as_str()) {
                continue;
            }
            // An exempt item: the literal sits inside the item's declaration.
            let inside = exempt.iter().any(|item| {
                lines[..line]
                    .iter()
                    .rev()
                    .take_while(|l| !l.trim().is_empty())
                    .any(|l| l.contains(&format!("const {item}")))
            });
            if !inside {
                found.push(format!("{module}:{line}: \"{text}\""));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a status, category, source, reason, role or event type spelled as a string; use the \
         vocabulary's value (proto::vocabulary) instead:\n{}",
        found.join("\n")
    );
}
