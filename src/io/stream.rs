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

/// The pipe buffer asked for on a standard stream that is a pipe: 1 MiB, the most an
/// unprivileged process may set on Linux by default (`/proc/sys/fs/pipe-max-size`).
const PIPE_SIZE: libc::c_int = 1 << 20;

/// Grows the pipe behind `fd` (standard input or output) to 1 MiB when it is a pipe with
/// less. At the kernel's 64 KiB, two tools of a pipeline (`pgdump2csv | pksort |
/// csvsplit`) sharing two cores hand each other 64 KiB at a time, each hand-over a wake-up
/// and a switch (a pipeline of three tools made 7x fewer voluntary switches, 35k -> 5k,
/// docs/benchmarks.md). A hint: when the kernel refuses (a lower pipe-max-size, a user past
/// pipe-user-pages-soft) the pipe stays as it was. That soft limit (64 MiB of pipes per
/// user by default) is met by some 30 such pipelines at once; past it the kernel gives the
/// user's new pipes one page, and they still work. Set by either end, the size is the pipe's.
pub fn grow_pipe(fd: std::os::fd::BorrowedFd<'_>) {
    use std::os::fd::AsRawFd;
    let raw = fd.as_raw_fd();
    // SAFETY: fstat and fcntl on a descriptor the caller holds open; `st` is read only after
    // fstat filled it.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(raw, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFIFO {
            return;
        }
        let now = libc::fcntl(raw, libc::F_GETPIPE_SZ);
        if (0..PIPE_SIZE).contains(&now) {
            libc::fcntl(raw, libc::F_SETPIPE_SZ, PIPE_SIZE);
        }
    }
}
