//! One error type for every tool, and the one place that maps errors to exit codes.
//!
//! Exit codes are part of the contract: 0 = ok, 1 = the data has problems (a check found
//! them), 2 = usage error, I/O error, input so malformed that the tool had to stop, or an internal
//! fault ([`Error::Internal`]),
//! 3 = csvcheck stopped early because its standard output was closed ([`Error::StoppedEarly`]).

use std::fmt;
use std::io;
use std::path::Path;

/// Where in an input something happened. Every data error carries one, so a user can jump to
/// the spot with `sed -n 'LINEp'` or `dd skip=BYTE`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pos {
    /// The input's name as the user gave it (`-` or `<stdin>` for standard input).
    pub file: String,
    /// 1-based line number of the start of the record or statement.
    pub line: u64,
    /// 0-based byte offset of the start of the record or statement (in the decompressed stream).
    pub byte: u64,
    /// 1-based record number, where the input is a sequence of records.
    pub record: Option<u64>,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.file, self.line)?;
        match self.record {
            Some(r) => write!(f, "(record {}, byte {})", r, self.byte),
            None => write!(f, "(byte {})", self.byte),
        }
    }
}

/// The error type of the library and the binaries.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad command line or options that contradict each other.
    #[error("{0}")]
    Usage(String),
    /// An I/O error on a named file or stream.
    #[error("{path}: {source}")]
    Io {
        /// The file (or `<stdin>`, `<stdout>`).
        path: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// Input that cannot be processed: a malformed dump or CSV, a bad value in a key column.
    #[error("{pos} {msg}")]
    Input {
        /// Where.
        pos: Pos,
        /// What, in a few words.
        msg: String,
    },
    /// An input-level problem with no finer position (wrong file type, bad manifest).
    #[error("{file}: {msg}")]
    File {
        /// The file.
        file: String,
        /// What is wrong with it.
        msg: String,
    },
    /// A fault inside the tool rather than in its input or command line: a worker thread
    /// that panicked or could not be started, a pipeline channel closed early, an
    /// invariant broken. Maps to exit code 2, like I/O errors; the message starts with
    /// `internal error:` so that it is not mistaken for a usage error.
    #[error("internal error: {0}")]
    Internal(String),
    /// A check ran to the end and found problems; the details were already reported.
    /// Maps to exit code 1.
    #[error("{0}")]
    Found(String),
    /// A checking filter's standard output was closed (e.g. by `head`) before it had checked
    /// every record, where ending quietly with 0 would claim a clean result (csvcheck).
    /// Maps to exit code 3; nothing is printed.
    #[error("stopped early: standard output was closed before every record was checked")]
    StoppedEarly,
}

/// How standard output is named in messages (and recognised in [`Error::is_broken_pipe`]).
pub const STDOUT: &str = "<stdout>";

impl Error {
    /// An [`Error::Internal`] with this message.
    pub fn internal(msg: impl Into<String>) -> Error {
        Error::Internal(msg.into())
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<Path>, source: io::Error) -> Error {
        Error::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }

    /// A data error at `pos`.
    pub fn input(pos: Pos, msg: impl Into<String>) -> Error {
        Error::Input {
            pos,
            msg: msg.into(),
        }
    }

    /// A problem with a whole file.
    pub fn file(file: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::File {
            file: file.into(),
            msg: msg.into(),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Found(_) => 1,
            Error::StoppedEarly => 3,
            _ => 2,
        }
    }

    /// True when the error is standard output closed early, which a filter treats as a
    /// normal end (`pgdump2csv ... | head` must not complain). A named output whose reader
    /// went away (`--dups-out >(head)`) is not: that output is incomplete.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { path, source }
            if source.kind() == io::ErrorKind::BrokenPipe && path == STDOUT)
    }
}

/// Attaches a file name to an `io::Result`.
pub trait IoContext<T> {
    /// Turns an `io::Error` into [`Error::Io`] naming `path`.
    fn at(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_exit_2_and_say_so() {
        let e = Error::internal("the shard writer thread panicked");
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.to_string(),
            "internal error: the shard writer thread panicked"
        );
        assert!(!matches!(e, Error::Usage(_)));
    }
}
