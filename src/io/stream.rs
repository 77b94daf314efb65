//! What the reading and the writing side of a dumpshard stream agree on: the marker a tool
//! that fails mid-stream puts at the end of its standard output, and the name `-` for the
//! standard streams. Owned here, below `input`, `output` and `progress`, so that none of them
//! imports another for it.

use std::path::Path;

/// What a tool writes at the end of its standard output when it fails after starting to write
/// it: the stream then ends inside a quoted field (a `"` is put first when needed), which every
/// CSV reader refuses, and the text says why to whoever looks at the stream.
pub const INCOMPLETE: &[u8] =
    b"\n<<dumpshard: this stream is incomplete: the tool writing it failed>>\n";

/// True if `p` names standard input (or, for an output option, standard output).
pub fn is_stdin(p: &Path) -> bool {
    p.as_os_str() == "-"
}
