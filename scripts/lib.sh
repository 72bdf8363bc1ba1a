# Shared set-up for scripts/run, scripts/test and scripts/bench: make sure the
# Debian packages the build needs are installed, then configure and build.
# Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${DRIVESTRESS_BUILD_DIR:-$ROOT/build}

# Debian packages: compiler and build tools, the libraries, help2man (the man
# page is made from --help at build time), and what the tests use (python3 +
# jsonschema for the end-to-end and schema tests; the real Prometheus,
# node_exporter and Ansible that --prom and deploy/ansible are tested against).
DEPS_BUILD=(g++ meson ninja-build pkg-config liburing-dev libboost-program-options-dev
    nlohmann-json3-dev doctest-dev help2man)
DEPS_TEST=(python3 python3-jsonschema python3-matplotlib
    prometheus prometheus-node-exporter ansible
    fdisk dmsetup e2fsprogs btrfs-progs mount  # loop-device e2e tests (root)
    python3-fusepy  # the single-server disk under --find-rate's tight bound
    fio  # scripts/bench's test runs it beside drivestress
    fio-examples  # tests/jobfile: fio's own example job files as a corpus
    xfsprogs  # test_atomic_writes: XFS is the filesystem here that does RWF_ATOMIC
    blktrace  # test_replay: a blktrace capture where the kernel lets it trace
    universal-ctags)  # tests/house_test.py: no function in src/ over 60 lines

missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
            printf '%s\n' "$p"
    done
}

# ensure_tracefs: mounts tracefs on /sys/kernel/tracing when root and it is
# not there (the tests that count kernel events, e.g. XFS's atomic writes,
# need it; they skip, saying why, without it).
ensure_tracefs() {
    local t=/sys/kernel/tracing
    [ -d "$t/instances" ] || [ ! -d "$t" ] || [ "$(id -u)" -ne 0 ] && return 0
    mount -t tracefs nodev "$t" 2>/dev/null &&
        echo "scripts: mounted tracefs on $t for the tests that count kernel events" >&2
    return 0
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

# configure [MESON_OPTION...]: sets up $BUILD_DIR (release) the first time;
# on an existing build the options given are set with `meson configure`
# (they stay set), the others are left as they are.
configure() {
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        meson setup "$BUILD_DIR" "$ROOT" --buildtype=release "$@" >&2 || return 1
    elif [ $# -gt 0 ]; then
        meson configure "$BUILD_DIR" "$@" >&2 || return 1
    fi
}

# configure_and_build [MESON_OPTION...]: configure, then build everything
# (the binary, its man page, the tests).
configure_and_build() {
    configure "$@" || return 1
    ninja -C "$BUILD_DIR" >&2
}

# configure_and_build_target TARGET...: configure, then build only these
# ninja targets (scripts/run: the binary, not the ~40 test programs).
configure_and_build_target() {
    configure || return 1
    ninja -C "$BUILD_DIR" "$@" >&2
}

# ---------------------------------------------------------------- sanitizers
# scripts/test --sanitize: the same suite built with a sanitizer, each in its
# own build directory so the plain build (and the other) stay untouched.

# Runtime options.  abort_on_error everywhere: a report ends the process with
# SIGABRT, which no test can mistake for drivestress's own exit 1 (a UBSan
# halt would otherwise exit 1, the usage-error code the bad-input tests expect).
# TSan needs no suppression for io_uring: it only sees accesses made by
# instrumented code, so the kernel's writes to the rings and buffers cannot
# race in its model, and each ring is created and used by one worker thread.
SANITIZER_ENV=(
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
    TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:second_deadlock_stack=1
)

# sanitizer_meson_options NAME: the meson options of sanitizer build NAME
# (asan = ASan+UBSan, tsan = TSan).  b_lundef=false: the sanitizer runtimes
# resolve some symbols at load time, which -Wl,--no-undefined rejects.  The
# TSan build defines only the tests in suite "threads" (tests/meson.build).
# -O1, as the sanitizers' authors advise: the report is as good, and the
# instrumented build compiles in two thirds of -O2's time (json_report_test:
# 92-113 s against 135-141 s).  The ASan build links position-dependent
# programs (-no-pie): ASan and UBSan turn every string literal and type into
# a global of their own, about 65 MB of pointers that a PIE binary relocates,
# page by page, each time it starts (half of its 0.5 s start here, and the
# end-to-end cases start it thousands of times).  Debug information is line
# tables only (-g1): a report's stack still names file and line, and the
# instrumented build compiles in half the time of -g's full information
# (run/compare_backends.cpp: 47 s against 96 s).
sanitizer_meson_options() {
    case "$1" in
        asan) echo "-Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1" \
            "-Dcpp_args=-g1 -Dcpp_link_args=-no-pie" ;;
        tsan) echo "-Db_sanitize=thread -Db_lundef=false -Doptimization=1 -Dtests=threads" \
            "-Dcpp_args=-g1" ;;
        *) echo "scripts: unknown sanitizer build '$1' (asan, tsan)" >&2; return 1 ;;
    esac
}

# configure_and_build_in DIR BUILDTYPE [MESON_OPTION...]: configure_and_build
# for a build directory of its own; an existing DIR is reconfigured, so it
# always has exactly these options.
configure_and_build_in() {
    local dir=$1 buildtype=$2
    shift 2
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$ROOT" --buildtype="$buildtype" "$@" >&2 || return 1
    else
        meson setup "$dir" "$ROOT" --buildtype="$buildtype" "$@" >&2 || return 1
    fi
    ninja -C "$dir" >&2
}
