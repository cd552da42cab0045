//! What the page's native tests share: golden files read into memory, and one request
//! answered by a session.

use serde_json::Value as Json;
use sp_web::Session;

/// The bytes of `path`, relative to the repository root.
pub fn golden(path: &str) -> Vec<u8> {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The answer to `req`: its `ok` value, or its error sentence.
pub fn ask(session: &mut Session, req: Json) -> Result<Json, String> {
    let mut bin = Vec::new();
    let answer: Json = serde_json::from_str(&session.call(&req.to_string(), &mut bin)).unwrap();
    match answer.get("ok") {
        Some(ok) => Ok(ok.clone()),
        None => Err(answer["error"].as_str().unwrap_or_default().to_string()),
    }
}
