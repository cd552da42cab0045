//! The JSON-RPC 2.0 messages of MCP that the server answers: `initialize`, `ping`,
//! `tools/list` and `tools/call`; notifications are taken silently. A message that is not
//! JSON, not a request or names an unknown method gets the JSON-RPC error for it; a tool
//! that fails gets a result with `isError` (as the MCP specification and the reference
//! answer), so the agent reads why.

use serde_json::{json, Map, Value as Json};

use super::{schema, tools, Files};

/// The protocol versions the server speaks, oldest first; a client asking for another
/// gets the newest.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// JSON-RPC error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
}

/// The reply to one message (`None` for a notification or a client's response), as one
/// line of JSON without its newline.
pub fn handle(message: &[u8], files: &impl Files) -> Option<String> {
    if message.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let Ok(message) = serde_json::from_slice::<Json>(message) else {
        return Some(error(Json::Null, code::PARSE_ERROR, "Parse error"));
    };
    let Json::Object(message) = message else {
        // MCP has no batches since 2025-06-18.
        return Some(error(Json::Null, code::INVALID_REQUEST, "Invalid Request"));
    };
    let id = message.get("id").cloned();
    let valid_id = matches!(id, Some(Json::String(_) | Json::Number(_)));
    let method = message.get("method").and_then(Json::as_str);
    let (Some(method), true) = (method, message.get("jsonrpc") == Some(&json!("2.0"))) else {
        // A response to a request of ours (we send none), or no message at all.
        if message.contains_key("result") || message.contains_key("error") {
            return None;
        }
        let id = if valid_id {
            id.unwrap_or_default()
        } else {
            Json::Null
        };
        return Some(error(id, code::INVALID_REQUEST, "Invalid Request"));
    };
    let Some(id) = id else {
        return None; // a notification: initialized, cancelled, ...
    };
    if !valid_id {
        return Some(error(Json::Null, code::INVALID_REQUEST, "Invalid Request"));
    }
    let params = match message.get("params") {
        None | Some(Json::Null) => Map::new(),
        Some(Json::Object(params)) => params.clone(),
        Some(_) => return Some(error(id, code::INVALID_PARAMS, "params must be an object")),
    };
    Some(match method {
        "initialize" => result(id, initialize(&params)),
        "ping" => result(id, json!({})),
        "tools/list" => result(id, json!({ "tools": schema::tools() })),
        "tools/call" => call(id, &params, files),
        _ => error(
            id,
            code::METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
        ),
    })
}

/// The reply to a line longer than [`super::MAX_MESSAGE`].
pub fn too_long() -> String {
    error(
        Json::Null,
        code::PARSE_ERROR,
        "Parse error: message too long",
    )
}

fn initialize(params: &Map<String, Json>) -> Json {
    let asked = params.get("protocolVersion").and_then(Json::as_str);
    let version = PROTOCOL_VERSIONS
        .iter()
        .find(|v| Some(**v) == asked)
        .or(PROTOCOL_VERSIONS.last())
        .copied()
        .unwrap_or_default();
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "sp", "version": env!("CARGO_PKG_VERSION") },
        "instructions": schema::INSTRUCTIONS,
    })
}

fn call(id: Json, params: &Map<String, Json>, files: &impl Files) -> String {
    let Some(name) = params.get("name").and_then(Json::as_str) else {
        return error(id, code::INVALID_PARAMS, "tools/call needs the tool's name");
    };
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Json::Null) => &empty,
        Some(Json::Object(arguments)) => arguments,
        Some(_) => return error(id, code::INVALID_PARAMS, "arguments must be an object"),
    };
    let outcome = match name {
        "inspect_profile" => tools::inspect_profile(files, arguments),
        "compare_profiles" => tools::compare_profiles(files, arguments),
        "plot_profile" => tools::plot_profile(files, arguments),
        _ => return error(id, code::INVALID_PARAMS, &format!("Unknown tool: {name}")),
    };
    result(
        id,
        match outcome {
            // The reference's text, and the same object as structured content.
            Ok(value) => json!({
                "content": [{
                    "type": "text",
                    "text": serde_json::to_string_pretty(&value).unwrap_or_default(),
                }],
                "structuredContent": value,
                "isError": false,
            }),
            Err(e) => json!({
                "content": [{ "type": "text", "text": format!("Error executing tool {name}: {e}") }],
                "isError": true,
            }),
        },
    )
}

fn result(id: Json, result: Json) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

fn error(id: Json, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoFiles;

    impl Files for NoFiles {
        type Source = Vec<u8>;
        fn open(&self, _: &str) -> std::io::Result<Vec<u8>> {
            Err(std::io::ErrorKind::NotFound.into())
        }
        fn write(&self, _: Option<&str>, _: &str, _: &[u8]) -> std::io::Result<String> {
            Err(std::io::ErrorKind::Unsupported.into())
        }
    }

    fn reply(message: &str) -> Json {
        serde_json::from_str(&handle(message.as_bytes(), &NoFiles).unwrap()).unwrap()
    }

    #[test]
    fn bad_messages_get_json_rpc_errors() {
        assert_eq!(reply("{oops")["error"]["code"], code::PARSE_ERROR);
        assert_eq!(reply("[]")["error"]["code"], code::INVALID_REQUEST);
        assert_eq!(
            reply(r#"{"id": 1}"#)["error"]["code"],
            code::INVALID_REQUEST
        );
        let r = reply(r#"{"jsonrpc": "2.0", "id": "a", "method": "nope"}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!("a"), json!(code::METHOD_NOT_FOUND))
        );
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x"}}"#,
        );
        assert_eq!(r["error"]["code"], code::INVALID_PARAMS);
        assert_eq!(
            handle(
                br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
                &NoFiles
            ),
            None
        );
        assert_eq!(handle(b"  ", &NoFiles), None);
    }

    #[test]
    fn a_failing_tool_is_an_error_result() {
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "inspect_profile", "arguments": {"file_path": "gone.h5"}}}"#,
        );
        assert_eq!(r["result"]["isError"], true);
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("gone.h5"), "{text}");
    }

    #[test]
    fn initialize_agrees_on_a_version() {
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}"#,
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "1999"}}"#,
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    }
}
