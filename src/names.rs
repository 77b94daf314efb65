//! Names from untrusted input (a dump's table names, an archive's TOC tags) made safe to print
//! on a terminal: a control character in a name could otherwise move the cursor or recolour
//! text, e.g. repaint another line of a report.

use std::borrow::Cow;

/// `s` with every control character (C0, DEL, C1) written as `\xNN` (`\u{NNNN}` above
/// 0xFF never occurs: those are not control characters); other characters unchanged, so an
/// ordinary name prints as it is.
pub fn escape_for_terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_for_terminal("public.orders"), "public.orders");
        assert_eq!(
            escape_for_terminal("a\x1b[2K\rok\n\u{7f}\u{9b}é"),
            "a\\x1b[2K\\x0dok\\x0a\\x7f\\x9bé"
        );
    }
}
