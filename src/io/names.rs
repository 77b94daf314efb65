//! Names (tables, columns, files) as shown to a person: the one escaping function every tool
//! uses when it prints a name, so that a control character in a hostile dump's table name
//! cannot move the cursor, repaint a line of a report or forge a line of its own.
//!
//! Control characters are shown as escapes, as GNU `ls` quoting and `printf %q` do: `\n`,
//! `\r`, `\t`, `\x1b` (ESC) and `\xNN` for the other C0 controls and DEL, `\u{85}` for C1
//! controls, and `\u{202e}` for the Unicode bidirectional overrides and isolates (which
//! reorder what follows them on a terminal). Everything else, backslash included, is shown as
//! it is, so an ordinary name reads exactly as written.

use std::fmt;

/// True for a character that [`Escaped`] writes as an escape.
pub fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn write_escape(f: &mut dyn fmt::Write, c: char) -> fmt::Result {
    match c {
        '\n' => f.write_str("\\n"),
        '\r' => f.write_str("\\r"),
        '\t' => f.write_str("\\t"),
        c if (c as u32) < 0x80 => write!(f, "\\x{:02x}", c as u32),
        c => write!(f, "\\u{{{:x}}}", c as u32),
    }
}

/// A name displayed with its control characters escaped: `format!("{}", Escaped(name))`.
#[derive(Debug, Clone, Copy)]
pub struct Escaped<T>(pub T);

impl<T: AsRef<str>> fmt::Display for Escaped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.as_ref();
        if !s.chars().any(needs_escape) {
            // Padding (`{:<40}`) applies to the name as shown.
            return f.pad(s);
        }
        let mut out = String::with_capacity(s.len() + 8);
        for c in s.chars() {
            if needs_escape(c) {
                write_escape(&mut out, c)?;
            } else {
                out.push(c);
            }
        }
        f.pad(&out)
    }
}

/// `name` with its control characters escaped (see [`Escaped`]).
pub fn display_name(name: &str) -> String {
    Escaped(name).to_string()
}

/// A path with its control characters escaped (bytes that are not UTF-8 shown as U+FFFD).
pub fn display_path(p: &std::path::Path) -> String {
    display_name(&p.to_string_lossy())
}

/// A whole message line for the terminal: every control character but the newline escaped
/// (a message may be several lines on purpose, e.g. a server's DETAIL and HINT), so that no
/// name inside it can send a terminal escape sequence or a carriage return.
pub fn terminal_safe(msg: &str) -> std::borrow::Cow<'_, str> {
    if !msg.chars().any(|c| c != '\n' && needs_escape(c)) {
        return std::borrow::Cow::Borrowed(msg);
    }
    let mut out = String::with_capacity(msg.len() + 8);
    for c in msg.chars() {
        if c != '\n' && needs_escape(c) {
            let _ = write_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(display_name("orders"), "orders");
        assert_eq!(display_name("orders\n"), "orders\\n");
        assert_eq!(display_name("a\x1b[1A\rok"), "a\\x1b[1A\\rok");
        assert_eq!(display_name("t\tb\x7f\u{0}"), "t\\tb\\x7f\\x00");
        assert_eq!(display_name("x\u{85}y\u{202e}z"), "x\\u{85}y\\u{202e}z");
        // Backslashes and non-ASCII letters stay as written.
        assert_eq!(display_name("caf\u{e9} \\N"), "caf\u{e9} \\N");
        // Padding applies to the shown form.
        assert_eq!(format!("[{:<6}]", Escaped("a\nb")), "[a\\nb  ]");
        assert_eq!(format!("[{:<4}]", Escaped("ab")), "[ab  ]");
        assert_eq!(terminal_safe("one\ntwo\x1b[2K"), "one\ntwo\\x1b[2K");
        assert!(matches!(
            terminal_safe("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
