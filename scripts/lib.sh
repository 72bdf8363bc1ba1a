# Shared set-up for scripts/run, scripts/test and scripts/bench: make sure the
# Debian packages the build needs are installed, then configure and build.
# Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${DRIVESTRESS_BUILD_DIR:-$ROOT/build}

# Debian packages: compiler and build tools, the libraries, and what the
# tests use (python3 + jsonschema for the end-to-end and schema tests).
DEPS_BUILD=(g++ meson ninja-build pkg-config liburing-dev libboost-program-options-dev
    nlohmann-json3-dev doctest-dev)
DEPS_TEST=(python3 python3-jsonschema)

missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
            printf '%s\n' "$p"
    done
}

# ensure_packages PKG...: installs what is missing when root, else prints the
# exact command and fails.
ensure_packages() {
    local missing
    mapfile -t missing < <(missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    if ! command -v dpkg-query >/dev/null; then
        echo "scripts: not a Debian system; install: ${missing[*]}" >&2
        return 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "scripts: missing packages; run as root:" >&2
        echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
        return 1
    fi
    echo "scripts: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine has no package lists yet: update before the first install.
    apt-get update -q >&2 || return 1
    apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# configure_and_build [MESON_OPTION...]
configure_and_build() {
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        meson setup "$BUILD_DIR" "$ROOT" --buildtype=release "$@" >&2 || return 1
    fi
    ninja -C "$BUILD_DIR" >&2
}
