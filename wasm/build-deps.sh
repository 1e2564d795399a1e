#!/usr/bin/env bash
# Build the third-party C dependencies of rooflens for WebAssembly.
#
#   wasm/build-deps.sh [BUILD_DIR]      (default: <repo>/build/wasm-deps)
#
# Fetches the Debian sources of cJSON and protobuf-c (Debian patches
# applied) into BUILD_DIR/src and compiles them with Debian's emscripten
# (emcc -O2, no pthreads) into
#   BUILD_DIR/lib/libcjson.a           (cJSON.c only)
#   BUILD_DIR/lib/libprotobuf-c.a      (runtime protobuf-c/protobuf-c.c only)
#   BUILD_DIR/include/cjson/cJSON.h
#   BUILD_DIR/include/protobuf-c/protobuf-c.h
# i.e. the same include paths as Debian's native -dev packages.
#
# Idempotent: missing apt packages are installed, a deb-src entry is added
# only when no source index is configured, sources are fetched once, and the
# libraries are rebuilt only when older than their sources (or this script).
# Nothing fetched ever leaves BUILD_DIR (git-ignored /build/).
set -Eeuo pipefail

SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "$SCRIPT_PATH")/.." && pwd)"

BUILD_DIR="${1:-$REPO_ROOT/build/wasm-deps}"
mkdir -p "$BUILD_DIR"
BUILD_DIR="$(cd "$BUILD_DIR" && pwd)"
SRC_DIR="$BUILD_DIR/src"
OBJ_DIR="$BUILD_DIR/obj"
LIB_DIR="$BUILD_DIR/lib"
INC_DIR="$BUILD_DIR/include"

# Debian packages needed for the wasm build (and dpkg-dev for apt-get source).
PACKAGES=(emscripten node-acorn protobuf-c-compiler libprotobuf-c-dev
          libcjson-dev libonnx-dev dpkg-dev)
# Source packages fetched with apt-get source, and their native -dev package
# (only used to warn when the fetched version differs from the native one).
SOURCES=(cjson protobuf-c)
declare -A NATIVE_DEV=([cjson]=libcjson-dev [protobuf-c]=libprotobuf-c-dev)
DEB_SRC_FILE=/etc/apt/sources.list.d/rooflens-src.sources

# Debian's emscripten 3.1.6 runs its JS optimizer with node and needs acorn.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
EMCC_FLAGS=(-O2)

log() { printf '[build-deps] %s\n' "$*"; }
die() { printf '[build-deps] ERROR: %s\n' "$*" >&2; exit 1; }
on_err() {
    local rc=$? line=$1 cmd=$2
    printf '[build-deps] ERROR: command failed (exit %s) at line %s: %s\n' "$rc" "$line" "$cmd" >&2
    exit "$rc"
}
trap 'on_err "$LINENO" "$BASH_COMMAND"' ERR

# need_root <why>: fail early and clearly when root cannot be obtained.
need_root() {
    if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
        die "root privileges needed to $1, but this is not running as root and sudo is not available; re-run as root (or do it by hand)"
    fi
}

# Run a command as root: directly or through sudo (need_root checked first).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    else
        sudo "$@"
    fi
}

ensure_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
            missing+=("$p")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        log "packages: all present (${PACKAGES[*]})"
        return
    fi
    need_root "apt-get install ${missing[*]}"
    log "packages: installing ${missing[*]}"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# True when apt knows the source package (i.e. some deb-src index is present).
# (Output captured first: grep -q under pipefail could SIGPIPE apt-cache.)
have_src_index() {
    local out
    out="$(apt-cache showsrc "$1" 2>/dev/null || true)"
    [[ "$out" == *$'\nVersion:'* || "$out" == Version:* ]]
}

ensure_deb_src() {
    if have_src_index "${SOURCES[0]}"; then
        return
    fi
    local main=/etc/apt/sources.list.d/debian.sources tmp
    [ -r "$main" ] || die "no deb-src entry configured and $main not found; add a deb-src entry for the Debian archive by hand"
    need_root "add the deb-src entry $DEB_SRC_FILE (needed by apt-get source)"
    tmp="$(mktemp)"
    # Copy every 'Types: deb' stanza of debian.sources as 'Types: deb-src'.
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         { n = split($0, line, "\n"); keep = 0; out = ""
           for (i = 1; i <= n; i++) {
               if (line[i] ~ /^Types:[ \t]*deb[ \t]*$/) { line[i] = "Types: deb-src"; keep = 1 }
               out = out line[i] (i < n ? "\n" : "")
           }
           if (keep) print out }' "$main" > "$tmp"
    grep -q '^Types: deb-src' "$tmp" || { rm -f "$tmp"; die "could not derive a deb-src entry from $main"; }
    if [ -f "$DEB_SRC_FILE" ] && cmp -s "$tmp" "$DEB_SRC_FILE"; then
        log "deb-src: $DEB_SRC_FILE already present"
    else
        log "deb-src: writing $DEB_SRC_FILE"
        as_root install -m 0644 "$tmp" "$DEB_SRC_FILE"
    fi
    rm -f "$tmp"
    log "deb-src: apt-get update"
    as_root apt-get update
    have_src_index "${SOURCES[0]}" || die "apt still has no source index for ${SOURCES[0]} after adding $DEB_SRC_FILE"
}

# Fetch and unpack (patches applied) one source package into $SRC_DIR/<pkg>.
fetch_source() {
    local pkg="$1" dest="$SRC_DIR/$1" dl="$SRC_DIR/.download/$1" dsc version
    if [ -f "$dest/.rooflens-unpacked" ]; then
        log "source: $pkg $(cat "$dest/.rooflens-unpacked") already unpacked in $dest"
        return
    fi
    ensure_deb_src
    rm -rf "$dl" "$dest"
    mkdir -p "$dl"
    # As root, apt downloads as user _apt: let it write there (else warning).
    if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$dl"; fi
    log "source: apt-get source --download-only $pkg"
    # --only-source: never resolve a binary package name to another source.
    pushd "$dl" >/dev/null
    apt-get source --only-source --download-only "$pkg"
    popd >/dev/null
    local dscs=("$dl"/*.dsc)
    [ -f "${dscs[0]}" ] || die "apt-get source downloaded no .dsc for $pkg"
    [ "${#dscs[@]}" -eq 1 ] || die "apt-get source downloaded several .dsc for $pkg: ${dscs[*]}"
    dsc="${dscs[0]}"
    version="$(awk '/^Version:/ { print $2; exit }' "$dsc")"
    log "source: dpkg-source -x $(basename "$dsc") (applies Debian patches)"
    # --no-check as plain 'apt-get source' does: apt already verified the
    # files against the signed Sources index.
    # Unpack inside $dl (dpkg-source copies the orig tarball next to the
    # target), then move into place so $dest is never half-unpacked.
    dpkg-source --no-check -x "$dsc" "$dl/unpacked" >/dev/null
    mv "$dl/unpacked" "$dest"
    printf '%s\n' "$version" > "$dest/.rooflens-unpacked"
    rm -rf "$dl"
    rmdir "$SRC_DIR/.download" 2>/dev/null || true
    local native
    native="$(dpkg-query -W -f='${source:Version}' "${NATIVE_DEV[$pkg]}" 2>/dev/null || true)"
    if [ -n "$native" ] && [ "$native" != "$version" ]; then
        log "source: WARNING: $pkg $version fetched, native -dev package is $native"
    fi
    log "source: $pkg $version unpacked in $dest"
}

# build_lib <lib.a> <include-dir> <source.c>...: compile with emcc, archive.
build_lib() {
    local lib="$1" incdir="$2" src obj objs=() stale=0
    shift 2
    if [ ! -f "$lib" ] || [ "$SCRIPT_PATH" -nt "$lib" ]; then
        stale=1
    else
        for src in "$@" "$incdir"/*.h; do
            [ "$src" -nt "$lib" ] && stale=1
        done
    fi
    if [ "$stale" -eq 0 ]; then
        log "build: $(basename "$lib") up to date"
        return
    fi
    mkdir -p "$OBJ_DIR" "$LIB_DIR"
    for src in "$@"; do
        obj="$OBJ_DIR/$(basename "$lib" .a)-$(basename "$src" .c).o"
        log "build: emcc ${EMCC_FLAGS[*]} -c $src"
        emcc "${EMCC_FLAGS[@]}" -I"$incdir" -c "$src" -o "$obj"
        objs+=("$obj")
    done
    rm -f "$lib"
    emar rcs "$lib" "${objs[@]}"
    log "build: wrote $lib"
}

# install_header <src.h> <dest.h>: copy when missing or different.
install_header() {
    mkdir -p "$(dirname "$2")"
    if [ -f "$2" ] && cmp -s "$1" "$2"; then
        return
    fi
    install -m 0644 "$1" "$2"
    log "headers: installed $2"
}

main() {
    local start=$SECONDS
    log "build dir: $BUILD_DIR"
    ensure_packages
    command -v emcc >/dev/null 2>&1 || die "emcc not found in PATH (package emscripten)"
    command -v emar >/dev/null 2>&1 || die "emar not found in PATH (package emscripten)"
    log "emcc: $(emcc --version 2>/dev/null | sed -n 1p)"

    mkdir -p "$SRC_DIR"
    local pkg
    for pkg in "${SOURCES[@]}"; do
        fetch_source "$pkg"
    done

    local cjson="$SRC_DIR/cjson" pbc="$SRC_DIR/protobuf-c"
    [ -f "$cjson/cJSON.c" ] || die "$cjson/cJSON.c missing; delete $cjson and re-run"
    [ -f "$pbc/protobuf-c/protobuf-c.c" ] || die "$pbc/protobuf-c/protobuf-c.c missing; delete $pbc and re-run"

    build_lib "$LIB_DIR/libcjson.a" "$cjson" "$cjson/cJSON.c"
    build_lib "$LIB_DIR/libprotobuf-c.a" "$pbc/protobuf-c" "$pbc/protobuf-c/protobuf-c.c"

    install_header "$cjson/cJSON.h" "$INC_DIR/cjson/cJSON.h"
    install_header "$pbc/protobuf-c/protobuf-c.h" "$INC_DIR/protobuf-c/protobuf-c.h"

    log "done in $((SECONDS - start))s: -I$INC_DIR -L$LIB_DIR -lcjson -lprotobuf-c"
}

main
