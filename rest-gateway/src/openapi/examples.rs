//! Examples for the document: a value synthesised from a schema (its own examples, enums,
//! formats and patterns), so every request body and success answer shows one.

use serde_json::{Map, Value, json};

use crate::schema;

/// An example value for `schema`, from its own `example`s, enums, formats and patterns.
pub(super) fn synth(schema: &Value, components: &Value, depth: usize) -> Value {
    if depth > 12 {
        return Value::Null;
    }
    if let Some(example) = schema.get("example") {
        return example.clone();
    }
    if let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return synth(&components["schemas"][name], components, depth + 1);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in all {
            if let Value::Object(map) = synth(part, components, depth + 1) {
                merged.extend(map);
            }
        }
        return Value::Object(merged);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| {
            a.iter()
                .find(|s| s.get("type") != Some(&json!("null")))
                .or(a.first())
        }) {
            return synth(first, components, depth + 1);
        }
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    out.insert(name.clone(), synth(prop, components, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => match schema.get("items") {
            Some(items) => json!([synth(items, components, depth + 1)]),
            None => json!([]),
        },
        "string" => json!(match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => "0b9e6c1e-2f4a-4d8e-9a57-3c1d2e4f5a6b",
            Some("date-time") => "2026-11-23T10:00:00.000Z",
            Some("uri") => "https://example.com",
            _ if schema.get("pattern").and_then(Value::as_str) == Some(schema::E164_PATTERN) => {
                "+14155550123"
            }
            _ => "text",
        }),
        "integer" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "number" => json!(1.0),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}
