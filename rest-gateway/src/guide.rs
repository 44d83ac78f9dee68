//! The API guide at `/docs/guide`: this crate's `README.md`, compiled into the binary and
//! rendered to HTML once, so it is served offline like `/docs`. Headings get the anchors GitHub
//! gives them, so the guide's own `#links` work in both places. Links to other files of the
//! repository (the other manuals, screenshots) have no page here: they are shown as their text.

use std::sync::LazyLock;

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::state::AppState;

/// The manual the guide is made of.
const SOURCE: &str = include_str!("../README.md");

const STYLE: &str = include_str!("guide.css");

/// No script at all; styles from this origin; no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; \
     img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

static PAGE: LazyLock<String> = LazyLock::new(|| page(SOURCE));

/// The routes `/docs/guide` and its stylesheet.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/docs/guide",
            get(|| async { served("text/html; charset=utf-8", PAGE.as_str()) }),
        )
        .route(
            "/docs/guide/style.css",
            get(|| async { served("text/css; charset=utf-8", STYLE) }),
        )
}

fn served(content_type: &'static str, body: &'static str) -> Response {
    let response = (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response();
    crate::console::with_policy(response, CONTENT_SECURITY_POLICY)
}

/// The whole HTML page of `markdown`.
fn page(markdown: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>API guide · Business Messaging</title>\n\
         <link rel=\"stylesheet\" href=\"/docs/guide/style.css\">\n</head>\n<body>\n\
         <nav><a href=\"/docs\">API reference</a> <a href=\"/openapi.json\">OpenAPI document</a> \
         <a href=\"/console/\">Console</a></nav>\n<main>\n{}</main>\n</body>\n</html>\n",
        html(markdown)
    )
}

/// `markdown` as HTML: GitHub's heading anchors, links to other files shown as text.
pub fn html(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let mut events: Vec<Event<'_>> = Parser::new_ext(markdown, options).collect();
    name_headings(&mut events);
    let events = drop_file_links(events);
    let mut out = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    out
}

/// Gives every heading the id GitHub gives it (see [`Anchors`]).
fn name_headings(events: &mut [Event<'_>]) {
    let mut anchors = Anchors::default();
    for i in 0..events.len() {
        if !matches!(events[i], Event::Start(Tag::Heading { .. })) {
            continue;
        }
        let mut text = String::new();
        for event in &events[i + 1..] {
            match event {
                Event::End(TagEnd::Heading(_)) => break,
                Event::Text(t) | Event::Code(t) => text.push_str(t),
                _ => {}
            }
        }
        let id = anchors.next(&text);
        if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
            *slot = Some(CowStr::from(id));
        }
    }
}

/// The anchors of a document's headings, in order: each one's [`anchor`], a repeated one
/// numbered from its second time as GitHub does (`-1`, `-2`, ...).
#[derive(Debug, Default)]
pub struct Anchors(std::collections::HashMap<String, usize>);

impl Anchors {
    /// The anchor of the document's next heading, whose text is `heading`.
    pub fn next(&mut self, heading: &str) -> String {
        let base = anchor(heading);
        let count = self.0.entry(base.clone()).or_insert(0);
        let id = match *count {
            0 => base,
            n => format!("{base}-{n}"),
        };
        *count += 1;
        id
    }
}

/// GitHub's anchor for a heading's text: lower case, spaces as hyphens, and every character
/// that is not a letter, a digit, `-` or `_` left out.
pub fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A link into this page or to the web is kept; one to another file of the repository (and
/// an image from one) becomes its text.
fn drop_file_links(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let elsewhere = |url: &str| {
        !(url.starts_with('#') || url.starts_with("https://") || url.starts_with("http://"))
    };
    let mut kept = Vec::with_capacity(events.len());
    let mut dropped = Vec::new();
    for event in events {
        match &event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                let drop = elsewhere(dest_url);
                dropped.push(drop);
                if !drop {
                    kept.push(event);
                }
            }
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                if !dropped.pop().unwrap_or(false) {
                    kept.push(event);
                }
            }
            _ => kept.push(event),
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("API guide"), "api-guide");
        assert_eq!(anchor("A send, step by step"), "a-send-step-by-step");
        assert_eq!(
            anchor("Quickstart: from a clone to a verified webhook"),
            "quickstart-from-a-clone-to-a-verified-webhook"
        );
        assert_eq!(anchor("`CORE_URL` and friends"), "core_url-and-friends");
    }

    #[test]
    fn headings_get_anchors_and_links_to_files_become_text() {
        let out = html(
            "## Webhooks\n\n## Webhooks\n\nSee [retries](#webhooks), [the core](../core-service/README.md), \
             [spec](https://example.com/) and ![a picture](shot.png).\n",
        );
        assert!(out.contains(r#"<h2 id="webhooks">"#), "{out}");
        assert!(out.contains(r#"<h2 id="webhooks-1">"#), "{out}");
        assert!(
            out.contains(r##"<a href="#webhooks">retries</a>"##),
            "{out}"
        );
        assert!(
            out.contains(r#"<a href="https://example.com/">spec</a>"#),
            "{out}"
        );
        assert!(out.contains("the core,"), "{out}");
        assert!(!out.contains("README.md"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("a picture"), "{out}");
    }

    #[test]
    fn the_guide_is_this_crates_readme_and_every_anchor_it_links_exists() {
        let out = html(SOURCE);
        assert!(
            out.contains(r#"<h2 id="api-guide">"#),
            "no API guide section"
        );
        for link in out.split(r##"href="#"##).skip(1) {
            let target = link.split('"').next().unwrap();
            assert!(
                out.contains(&format!(r#"id="{target}""#)),
                "the guide links #{target}, which no heading is"
            );
        }
    }
}
