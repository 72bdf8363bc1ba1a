// libFuzzer target for the --keep state file's readers (targets/state_file.h:
// load_state_file, state_file_names, damaged_state_reason, has_state_magic),
// what `--verify-only STATE`, `--cleanup` and every --keep run's look at the
// directory read.  The input is a flags byte, then the file's bytes; the
// file is written to a private directory and read back.  The flags let the
// fuzzer past the checks it cannot guess in one step:
//   bit 0  recompute the header's check over what the input holds
//   bit 1  recompute the check of each acknowledgement record the input holds
//          (all-zero records stay as they are: "never written")
//   bit 2  zero-fill the file to the size its header states (up to kPadLimit)
//   bit 3  ask damaged_state_reason about the run's own name
// A reader may return or throw SetupError naming the path; any other
// exception, a crash, a sanitizer report or a loaded state that breaks
// what state_file.h promises (checked below) is a finding.
//
// Run with DS_FUZZ_SEEDS=DIR, it writes its seed inputs into DIR instead
// (state files made by targets::StateFile, as a --keep run makes them) and
// checks that its fix-up of the checks (the offsets it assumes) leaves each
// one unchanged.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "model/errors.h"
#include "targets/state_file.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kPadLimit = 8ULL << 20;

std::string g_dir;  // the private directory the file is written to
std::string g_path;

void remove_dir() {
    std::error_code ec;
    fs::remove_all(g_dir, ec);
}

[[noreturn]] void finding(const char* what, const std::string& detail = "") {
    std::fprintf(stderr, "fuzz_state: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

template <typename T>
T get(const Bytes& b, std::size_t at) {
    T v{};
    if (at + sizeof v <= b.size()) std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}
template <typename T>
void put(Bytes& b, std::size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
}

// targets::state_check over bytes of a mutated file.
std::uint64_t check_of(std::uint64_t h, std::span<const std::uint8_t> data) {
    return ds::targets::state_check(h, std::as_bytes(data));
}

void fix_header(Bytes& f) {
    const std::uint64_t names = get<std::uint32_t>(f, 64);
    if (f.size() < 80 + names) return;
    std::uint64_t check = check_of(0, std::span(f).first(72));
    put(f, 72, check_of(check, std::span(f).subspan(80, names)));
}

// The offsets and length of the records the header places (empty when its
// numbers make no sense or the records lie past `limit`).
struct Records {
    std::uint64_t header = 0, copy = 0, used = 0, count = 0;
};
Records records(const Bytes& f) {
    Records r;
    const std::uint32_t unit = get<std::uint32_t>(f, 40);
    if (unit == 0) return r;
    const std::uint64_t units = get<std::uint64_t>(f, 32) / unit;
    if (units > (1ULL << 40)) return r;
    r.header = get<std::uint64_t>(f, 48);
    r.copy = get<std::uint64_t>(f, 56);
    r.used = 40 + 4 * units;
    if (r.copy < r.used || r.copy > (1ULL << 48) || r.header > (1ULL << 48)) return Records{};
    r.count = 2ULL * get<std::uint32_t>(f, 12);
    return r;
}

void fix_records(Bytes& f) {
    const Records r = records(f);
    const std::uint64_t run_id = get<std::uint64_t>(f, 24);
    for (std::uint64_t k = 0; k < r.count; ++k) {
        const std::uint64_t at = r.header + k * r.copy;
        if (at + r.used > f.size()) return;
        auto copy = std::span(f).subspan(at, r.used);
        if (std::all_of(copy.begin(), copy.end(), [](std::uint8_t b) { return b == 0; })) continue;
        put(f, at + 24, check_of(check_of(run_id, copy.first(24)), copy.subspan(32)));
    }
}

void pad(Bytes& f) {
    const Records r = records(f);
    const std::uint64_t total = r.header + r.count * r.copy;
    if (r.count && total > f.size() && total <= kPadLimit) f.resize(total, 0);
}

void write_file(const Bytes& f) {
    const int fd = ::open(g_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::write(fd, f.data(), f.size()) != static_cast<ssize_t>(f.size()))
        finding("cannot write the state file", g_path);
    ::close(fd);
}

bool names_the_path(const std::exception& e) {
    return std::string(e.what()).starts_with(g_path + ": ");
}

// What state_file.h promises of a state that loads.
void check_loaded(const ds::targets::LoadedState& s, bool own_name) {
    const auto& g = s.geo;
    if (g.unit_bytes < 512 || (g.unit_bytes & (g.unit_bytes - 1)) != 0)
        finding("unit size not a power of two from 512");
    if (g.file_bytes < g.unit_bytes || g.file_bytes % g.unit_bytes != 0)
        finding("file size not a whole number of units");
    if (s.files.empty() || s.files.size() != g.paths.size()) finding("files != paths");
    for (const auto& f : s.files)
        if (f.acked.size() != g.units()) finding("a record of other than one entry a unit");
    const auto names = ds::targets::state_file_names(g_path);
    if (names.size() != g.paths.size()) finding("state_file_names disagrees with the paths");
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto& n = names[i];
        if (n.empty() || n == "." || n == ".." || n.find('/') != std::string::npos)
            finding("a file name that is not a plain name", n);
        if (g.paths[i] != g_dir + "/" + n) finding("a path outside the state's directory");
    }
    if (!ds::targets::has_state_magic(g_path)) finding("loads without the state magic");
    const std::string why = ds::targets::damaged_state_reason(g_path, own_name);
    if (!why.empty()) finding("loads, yet damaged_state_reason says", why);
}

// Bytes of the first (up to 8) that differ from the state magic "DSSTATE1".
int magic_distance(const Bytes& f) {
    int d = 0;
    for (std::size_t i = 0; i < 8 && i < f.size(); ++i)
        d += f[i] != static_cast<std::uint8_t>("DSSTATE1"[i]);
    return d;
}

// A file whose header does not load: damaged_state_reason says why whenever
// state_file.h says it may be a damaged state file (a --force may remove the
// files it names), and has_state_magic reads the magic.
void check_refused(const Bytes& f, bool own_name) {
    bool header_loads = true;
    try {
        (void)ds::targets::state_file_names(g_path);
    } catch (const ds::model::SetupError& e) {
        if (!names_the_path(e)) finding("a refusal that does not name the path", e.what());
        header_loads = false;
    }
    const std::string why = ds::targets::damaged_state_reason(g_path, own_name);
    const bool magic = f.size() >= 8 && magic_distance(f) == 0;
    if (ds::targets::has_state_magic(g_path) != magic) finding("has_state_magic misreads");
    const bool near_magic =
        !f.empty() && magic_distance(f) <= std::min<int>(2, static_cast<int>(f.size()) - 1);
    const bool blocks = !f.empty() && f.size() % 4096 == 0;
    const bool zero = std::all_of(f.begin(), f.end(), [](std::uint8_t b) { return b == 0; });
    if (header_loads && !why.empty()) finding("the header loads, yet damaged", why);
    if (!header_loads && why.empty() && (near_magic || blocks || (own_name && zero)))
        finding("may be a damaged state file, yet damaged_state_reason is empty");
}

void read_state(const Bytes& f, bool own_name) {
    try {
        check_loaded(ds::targets::load_state_file(g_path), own_name);
    } catch (const ds::model::SetupError& e) {
        if (!names_the_path(e)) finding("a refusal that does not name the path", e.what());
        check_refused(f, own_name);
    }
}

}  // namespace

namespace {

// One seed: a state file made by targets::StateFile, then `damage` applied,
// given with `flags`.
struct Seed {
    const char* name;
    unsigned files;
    std::uint64_t file_bytes;
    std::uint32_t unit_bytes;
    ds::pattern::UnitShape shape;
    bool trims;
    int acks;  // acknowledgements of file 0 (file 1 gets one if it exists)
    std::uint8_t flags;
    void (*damage)(Bytes&);
};

void no_damage(Bytes&) {}
// The newer record of file 0 torn (the older one is used).
void tear(Bytes& f) {
    for (std::size_t i = 4096 + 40; i < 4096 + 100; ++i)
        f[i] ^= 0xA5;
}
// Only the header block: the flags' padding makes the records "never written".
void cut(Bytes& f) {
    f.resize(4096);
}

Bytes make_state(const Seed& s, const std::string& dir) {
    ds::model::StateGeometry g;
    g.seed = 1234;
    g.run_id = 0x0123456789abcdefULL;
    g.file_bytes = s.file_bytes;
    g.unit_bytes = s.unit_bytes;
    g.bound = 3;
    g.shape = s.shape;
    g.trims = s.trims;
    for (unsigned i = 0; i < s.files; ++i)
        g.paths.push_back(dir + "/drivestress-" + std::to_string(i) + ".dat");
    const std::string path = dir + "/" + s.name + ".state";
    {
        ds::targets::StateFile sf(path, g);
        std::vector<ds::pattern::Generation> gens(g.units());
        for (int a = 0; a < s.acks; ++a) {
            for (std::size_t u = 0; u < gens.size(); ++u)
                gens[u] = static_cast<ds::pattern::Generation>(1 + a * 100003ULL + u * 65537ULL) |
                          (s.trims && u % 3 == 0 ? ds::model::kTrimmedBit : 0);
            sf.acknowledged(0, gens);
        }
        if (s.files > 1) sf.acknowledged(1, gens);
    }
    std::ifstream in(path, std::ios::binary);
    Bytes f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(path);
    return f;
}

void write_seeds(const std::string& out) {
    const ds::pattern::UnitShape compress = ds::pattern::make_shape(256, 0);
    const ds::pattern::UnitShape dedupe = ds::pattern::make_shape(512, 300);
    const Seed seeds[] = {
        {"empty", 1, 64 * 4096, 4096, 512, false, 0, 0x03, no_damage},
        {"acked", 2, 64 * 4096, 4096, 512, false, 2, 0x03, no_damage},
        {"compress", 1, 64 * 4096, 4096, compress, false, 1, 0x03, no_damage},
        {"dedupe", 1, 64 * 4096, 4096, dedupe, false, 3, 0x0b, no_damage},
        {"trims", 1, 64 * 4096, 4096, 512, true, 2, 0x03, no_damage},
        {"small-units", 1, 8 * 512, 512, 512, false, 1, 0x03, no_damage},
        {"torn", 1, 64 * 4096, 4096, 512, false, 2, 0x01, tear},
        {"cut", 2, 64 * 4096, 4096, 512, false, 0, 0x05, cut},
    };
    for (const Seed& s : seeds) {
        Bytes f = make_state(s, g_dir);
        s.damage(f);
        Bytes fixed = f;
        if (s.flags & 1) fix_header(fixed);
        if (s.flags & 2) fix_records(fixed);
        if (fixed != f) finding("the fuzz target's fix-up of the state checks is stale", s.name);
        std::ofstream seed(out + "/state-" + s.name, std::ios::binary);
        seed.put(static_cast<char>(s.flags));
        seed.write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
        if (!seed) finding("cannot write a seed into", out);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz_state-XXXXXX";
    if (!::mkdtemp(pattern.data())) finding("cannot make a directory", pattern);
    g_dir = pattern;
    g_path = g_dir + "/drivestress.state";
    std::atexit(remove_dir);
    if (const char* out = std::getenv("DS_FUZZ_SEEDS")) {
        write_seeds(out);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t flags = data[0];
    Bytes f(data + 1, data + size);
    if (flags & 4) pad(f);
    if (flags & 2) fix_records(f);
    if (flags & 1) fix_header(f);
    write_file(f);
    try {
        read_state(f, (flags & 8) != 0);
    } catch (const std::exception& e) {
        finding("exception other than a SetupError naming the path", e.what());
    } catch (...) {
        finding("non-standard exception");
    }
    return 0;
}
