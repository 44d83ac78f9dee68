//! The documents: the front door stays a front door, every relative link of every Markdown file
//! resolves (anchors included), the core manual's two walks name files and functions that exist,
//! and the blocks CI runs are where CI reads them.

use std::collections::BTreeSet;
use std::path::Path;

use crate::fixtures::docs::{anchors, link_targets, manual_section, markdown_files, root};

#[test]
fn the_front_door_is_at_most_250_lines_and_points_at_every_manual() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines; at most 250");
    let next = manual_section("README.md", "## Where to read next");
    for manual in [
        "rest-gateway/README.md",
        "core-service/README.md#operating",
        "core-service/README.md#inside-the-core",
        "webhook-worker/README.md",
        "rest-gateway/clients/README.md",
        "tests/README.md",
    ] {
        assert!(
            next.contains(&format!("]({manual})")),
            "README's \"Where to read next\" does not link {manual}"
        );
    }
}

#[test]
fn every_relative_link_in_the_markdown_files_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 8, "found only {files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        for target in link_targets(&text) {
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            // A path on the gateway's own site (`/docs/guide`) is not a file.
            if path.starts_with('/') {
                continue;
            }
            let linked = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !linked.exists() {
                broken.push(format!("{name}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let linked_text = std::fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&linked_text).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `path/to/file.rs` and `path/to/file.rs::name` in a walk's text.
fn named_code(section: &str) -> Vec<(String, Option<String>)> {
    section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|code| {
            let (file, item) = match code.split_once("::") {
                Some((file, item)) => (file, Some(item.to_string())),
                None => (code, None),
            };
            file.ends_with(".rs").then(|| (file.to_string(), item))
        })
        .collect()
}

fn defines(source: &str, item: &str) -> bool {
    let pattern = format!(
        r"\b(fn|struct|enum|trait|type|const|static|mod)\s+{}\b",
        regex::escape(item)
    );
    regex::Regex::new(&pattern).unwrap().is_match(source)
}

#[test]
fn the_walks_through_the_code_name_files_and_functions_that_exist() {
    for walk in [
        "### A send, step by step",
        "### A webhook delivery, step by step",
    ] {
        let section = manual_section("core-service/README.md", walk);
        let steps: Vec<&str> = section
            .lines()
            .filter(|l| {
                l.split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .collect();
        assert!(steps.len() >= 5, "{walk}: {} numbered steps", steps.len());
        let named = named_code(&section);
        let functions = named.iter().filter(|(_, item)| item.is_some()).count();
        assert!(functions >= 10, "{walk} names {functions} functions");
        let mut missing = BTreeSet::new();
        for (file, item) in named {
            let path = root().join(&file);
            let Ok(source) = std::fs::read_to_string(&path) else {
                missing.insert(format!("{file} (no such file)"));
                continue;
            };
            if let Some(item) = item
                && !defines(&source, &item)
            {
                missing.insert(format!("{file}::{item} (not defined there)"));
            }
        }
        assert!(
            missing.is_empty(),
            "core-service/README.md, {walk}, names what does not exist:\n{}",
            missing.into_iter().collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn the_blocks_ci_runs_are_where_ci_reads_them() {
    for (file, block, needs) in [
        ("README.md", "quickstart", "admin demo"),
        (
            "core-service/README.md",
            "production",
            "cargo build --release",
        ),
    ] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let begin = format!("<!-- {block}:begin -->");
        let end = format!("<!-- {block}:end -->");
        let inside = text
            .split(&begin)
            .nth(1)
            .and_then(|rest| rest.split(&end).next())
            .unwrap_or_else(|| panic!("{file} has no {begin} ... {end} block"));
        assert!(
            inside.contains("```sh") && inside.contains(needs),
            "{file}: {block}"
        );
        let script = Path::new(".ci").join(block);
        let runner = std::fs::read_to_string(root().join(&script)).unwrap();
        assert!(
            runner.contains(file),
            "{} does not read {file}",
            script.display()
        );
    }
}
