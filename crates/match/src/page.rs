//! What the self-contained pages (the report, the class's grades) share:
//! data from logs and students embedded in a page's own `<script>`, where
//! no text may end the script or become markup.

/// JSON that can sit inside a `<script>` element: no `<` (so no
/// `</script>` or `<!--`) and no line separators left as they are; it
/// parses back to the same value.
pub fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_from_a_log_cannot_end_the_script_and_reads_back_the_same() {
        let data = serde_json::json!({ "name": "</script><script>alert(1)</script>\u{2028}" });
        let safe = script_safe(&data.to_string());
        assert!(!safe.contains("</script") && !safe.contains('\u{2028}'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, data);
    }
}
