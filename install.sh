#!/bin/sh
# install.sh: installs dumpshard's tools, man pages and shell completions under a prefix.
#
#   sh install.sh [--prefix DIR]      (default /usr/local)
#
# Binaries come from target/release (or $CARGO_TARGET_DIR/release); when one is missing they
# are built first with `cargo build --release --locked`. The tools are the programs in
# src/bin, so a new tool needs no change here. Each file is copied under a temporary name
# and renamed into place, so a running binary is never overwritten half-way.
set -eu

usage() {
    echo "usage: sh install.sh [--prefix DIR]   (default /usr/local)"
}

prefix=/usr/local
while [ $# -gt 0 ]; do
    case $1 in
        --prefix)
            [ $# -ge 2 ] || { usage >&2; exit 2; }
            prefix=$2
            shift 2
            ;;
        --prefix=*)
            prefix=${1#--prefix=}
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "install.sh: unknown argument '$1'" >&2
            usage >&2
            exit 2
            ;;
    esac
done
[ -n "$prefix" ] || { echo "install.sh: empty --prefix" >&2; exit 2; }

cd "$(dirname "$0")"
bindir=${CARGO_TARGET_DIR:-target}/release

tools=
for src in src/bin/*.rs; do
    tools="$tools $(basename "$src" .rs)"
done

for tool in $tools; do
    if [ ! -x "$bindir/$tool" ]; then
        cargo build --release --locked
        break
    fi
done

tmp=
trap '[ -z "$tmp" ] || rm -f "$tmp"' EXIT

# put SOURCE DIRECTORY NAME MODE: copies SOURCE to DIRECTORY/NAME with MODE.
put() {
    mkdir -p "$2"
    tmp="$2/.$3.install-tmp.$$"
    cp "$1" "$tmp"
    chmod "$4" "$tmp"
    mv -f "$tmp" "$2/$3"
}

share=$prefix/share
for tool in $tools; do
    put "$bindir/$tool" "$prefix/bin" "$tool" 755
    put "man/$tool.1" "$share/man/man1" "$tool.1" 644
    put "completions/bash/$tool" "$share/bash-completion/completions" "$tool" 644
    put "completions/zsh/_$tool" "$share/zsh/site-functions" "_$tool" 644
    put "completions/fish/$tool.fish" "$share/fish/vendor_completions.d" "$tool.fish" 644
done
put man/dumpshard.7 "$share/man/man7" dumpshard.7 644

echo "installed$tools, their man pages, dumpshard(7) and bash/zsh/fish completions under $prefix"
