#include "targets/state_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "model/errors.h"
#include "sys/errno_text.h"
#include "sys/full_io.h"
#include "sys/memory.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::sys;

std::uint64_t state_check(std::uint64_t h, std::span<const std::byte> data) {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
    std::size_t i = 0;
    for (; i + 8 <= data.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, data.data() + i, 8);
        h = (h ^ w) * kMul;
        h ^= h >> 32;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, data.data() + i, data.size() - i);
    h = (h ^ tail ^ (std::uint64_t{data.size()} << 56)) * kMul;
    return h ^ (h >> 29);
}

namespace {

constexpr std::uint64_t kStateMagic = 0x3145544154535344ULL;  // "DSSTATE1"
constexpr std::uint32_t kCopyMagic = 0x4b415344U;             // "DSAK"
constexpr std::uint64_t kBlock = 4096;
constexpr std::size_t kHeaderFixed = 80;                        // fields before the paths
constexpr std::size_t kCopyFixed = 40;                          // fields before the generations
constexpr std::size_t kGenBytes = sizeof(pattern::Generation);  // per unit in a record
constexpr std::uint32_t kMaxStateFiles = 1U << 16;

std::uint64_t round_up(std::uint64_t v) {
    return (v + kBlock - 1) / kBlock * kBlock;
}

template <typename T>
void put(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
}
template <typename T>
T get(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::string parent_of(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

using sys::errno_text;

// Exactly `len` bytes: a short read (end of file) is a failure here.
bool read_all(int fd, std::byte* p, std::size_t len, std::uint64_t off) {
    return sys::pread_full(fd, p, len, off) == static_cast<std::int64_t>(len);
}
bool write_all(int fd, const std::byte* p, std::size_t len, std::uint64_t off) {
    return sys::pwrite_full(fd, p, len, off);
}

// The record check covers the run id too, so a record copied from another
// run's state file does not pass.
std::uint64_t copy_check(std::uint64_t run_id, std::span<const std::byte> copy) {
    std::uint64_t h = state_check(run_id, copy.first(24));
    return state_check(h, copy.subspan(32));  // the bound and the generations
}

}  // namespace

std::uint64_t state_file_bytes(std::size_t files, std::uint64_t units, std::size_t name_bytes) {
    return round_up(kHeaderFixed + name_bytes) +
           2ULL * files * round_up(kCopyFixed + kGenBytes * units);
}

std::uint32_t unacked_write_bound(const RunConfig& cfg, std::uint64_t sync_every) {
    const bool random_writes = cfg.has_phase(Phase::random) &&
                               (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0) &&
                               cfg.read_pct < 100;
    // Sequential writes touch each unit once per pass (one pass a phase
    // without --seq-time), and every phase that wrote ends with an
    // acknowledgement.
    if (!random_writes) return cfg.seq_time_s > 0 || cfg.seq_until_measured ? kAnyNewerBound : 1;
    if (sync_every == 0) return kAnyNewerBound;
    // Assumes at most one flush in flight per worker (the flush before last
    // completed before the last one was issued).
    // Past 2^32 - 1 writes the bound says nothing (generations are 32 bits).
    if (sync_every >= kAnyNewerBound) return kAnyNewerBound;
    std::uint64_t b = 2 * sync_every + cfg.qd;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(kAnyNewerBound, b));
}

StateFile::StateFile(std::string path, StateGeometry geo)
    : path_(std::move(path)), geo_(std::move(geo)) {
    const std::uint32_t n = static_cast<std::uint32_t>(geo_.paths.size());
    std::string names;
    for (const auto& p : geo_.paths) {
        names += base_of(p);  // the files sit next to the state file
        names += '\0';
    }
    header_bytes_ = round_up(kHeaderFixed + names.size());
    copy_bytes_ = round_up(kCopyFixed + kGenBytes * geo_.units());
    seq_.assign(n, 0);
    poisoned_.assign(n, 0);
    scratch_.assign(n, std::vector<std::byte>(copy_bytes_));

    std::vector<std::byte> header(header_bytes_);
    std::byte* h = header.data();
    put(h + 0, kStateMagic);
    const bool shaped = geo_.shape != pattern::kSectorBytes || geo_.trims;  // a word at 68
    const bool dedupe = pattern::dedupe_share_of(geo_.shape) != 0;
    put(h + 8, geo_.trims ? kStateFormatTrims
               : dedupe   ? kStateFormatDedupe
               : shaped   ? kStateFormatCompressible
                          : kStateFormatVersion);
    put(h + 12, n);
    put(h + 16, geo_.seed);
    put(h + 24, geo_.run_id);
    put(h + 32, geo_.file_bytes);
    put(h + 40, geo_.unit_bytes);
    put(h + 44, geo_.bound);
    put(h + 48, header_bytes_);
    put(h + 56, copy_bytes_);
    put(h + 64, static_cast<std::uint32_t>(names.size()));
    if (shaped) put(h + 68, geo_.shape);
    std::memcpy(h + kHeaderFixed, names.data(), names.size());
    std::uint64_t check = state_check(0, std::span(header).first(72));
    check = state_check(check, std::span(header).subspan(kHeaderFixed, names.size()));
    put(h + 72, check);

    // Preallocated (a full filesystem must refuse the run, not every
    // acknowledgement after it), header on disk before the file has a name.
    const std::uint64_t total = header_bytes_ + 2ULL * n * copy_bytes_;
    dir_.reset(::open(parent_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_.valid()) throw SetupError(path_ + ": directory: " + errno_text());
    auto prepare = [&](int fd) {
        // Regions start zeroed ("never written": nothing acknowledged).
        int ret = ::fallocate(fd, 0, 0, static_cast<off_t>(total));
        if (ret != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
            ret = ::ftruncate(fd, static_cast<off_t>(total));
        if (ret != 0 || !write_all(fd, header.data(), header.size(), 0) || ::fdatasync(fd) != 0)
            throw SetupError(path_ + ": cannot write the state file: " + errno_text());
    };
    auto never = [](int) { return std::string("exists"); };
    file_ = OwnedFile::create(dir_.get(), base_of(path_), path_, 0, prepare, never);
    // The state file's name must survive a power cut too.
    if (::fsync(dir_.get()) != 0) {
        const std::string why = errno_text();
        file_.remove();
        throw SetupError(path_ + ": cannot make the state file's name durable: " + why);
    }
}

void StateFile::acknowledged(unsigned file_index, std::span<const pattern::Generation> acked) {
    if (file_index >= seq_.size() || acked.size() != geo_.units()) {
        ++write_errors_;
        return;
    }
    if (poisoned_[file_index]) return;  // a flush of it failed: nothing more is durable
    const std::uint64_t seq = seq_[file_index] + 1;
    std::vector<std::byte>& copy = scratch_[file_index];
    std::byte* c = copy.data();
    put(c + 0, kCopyMagic);
    put(c + 4, static_cast<std::uint32_t>(file_index));
    put(c + 8, seq);
    put(c + 16, static_cast<std::uint64_t>(acked.size()));
    put(c + 32, bound_.load(std::memory_order_relaxed));
    std::memcpy(c + kCopyFixed, acked.data(), kGenBytes * acked.size());
    put(c + 24,
        copy_check(geo_.run_id, std::span(copy).first(kCopyFixed + kGenBytes * acked.size())));
    const std::uint64_t off = header_bytes_ + (2ULL * file_index + seq % 2) * copy_bytes_;
    if (!write_all(file_.fd(), c, copy.size(), off) || ::fdatasync(file_.fd()) != 0) {
        // Not counted as done: the next acknowledgement goes to the same
        // copy, so the other one (the last good record) is never at risk.
        ++write_errors_;
        return;
    }
    seq_[file_index] = seq;
}

void StateFile::set_bound(std::uint32_t bound, bool rewrite) {
    bound_.store(bound, std::memory_order_relaxed);
    if (!rewrite) return;
    // The last record of each file again, under the new bound: the
    // scratch copy holds exactly what was last acknowledged (or nothing).
    const std::uint64_t units = geo_.units();
    std::vector<pattern::Generation> last(units);
    for (unsigned i = 0; i < seq_.size(); ++i) {
        if (poisoned_[i]) continue;
        std::memcpy(last.data(), scratch_[i].data() + kCopyFixed, kGenBytes * units);
        acknowledged(i, last);
    }
}

void StateFile::poison(unsigned file_index) {
    if (file_index >= poisoned_.size() || poisoned_[file_index]) return;
    // Nothing of this file can be vouched for any more: its record says
    // "never acknowledged", so --verify-only neither trusts nor blames it.
    const std::vector<pattern::Generation> none(geo_.units(), pattern::kUnknownGeneration);
    acknowledged(file_index, none);
    poisoned_[file_index] = 1;
}

void StateFile::reset() {
    const std::vector<pattern::Generation> none(geo_.units(), pattern::kUnknownGeneration);
    for (unsigned i = 0; i < seq_.size(); ++i)
        acknowledged(i, none);
}

namespace {

// A state file opened and its header checked.
struct OpenState {
    sys::UniqueFd fd;
    struct stat st {};
    StateGeometry geo;
    std::uint64_t header_bytes = 0, copy_bytes = 0;
};

// The units' shape (pattern::UnitShape) a header of any format it reads
// records, and whether its generations may carry kTrimmedBit (format 7),
// refusing any other format; a shape word that its format could not hold
// (a dedupe share in format 5, none in 6) reads as 0, which the geometry
// check refuses.
pattern::UnitShape units_shape(const std::byte* h, const std::string& path, bool& trims) {
    const std::uint32_t format = get<std::uint32_t>(h + 8);
    trims = format == kStateFormatTrims;
    if (format == kStateFormatVersion) return pattern::kSectorBytes;
    if (trims) return get<pattern::UnitShape>(h + 68);
    if (format == kStateFormatCompressible || format == kStateFormatDedupe) {
        const auto shape = get<pattern::UnitShape>(h + 68);
        const bool dedupe = pattern::dedupe_share_of(shape) != 0;
        return dedupe == (format == kStateFormatDedupe) ? shape : 0;
    }
    throw SetupError(path + ": state file format " + std::to_string(format) +
                     " is not supported (this drivestress reads " + readable_formats() +
                     "; verify it with the drivestress version that wrote it)");
}

// A shape this drivestress can reproduce: 56 to 512 stream bytes a sector in
// steps of 8, a dedupe share of at most 100 %.
bool sane_shape(pattern::UnitShape shape) {
    const std::uint32_t kept = pattern::sector_random_of(shape);
    return kept >= pattern::sector_random_bytes(model::kMaxCompress) &&
           kept <= pattern::kSectorBytes && kept % 8 == 0 &&
           pattern::dedupe_share_of(shape) <= pattern::kDedupeScale;
}

// Opens `path` without following links and reads its header, checking
// every size against the file before anything is allocated from it.
OpenState open_state(const std::string& path) {
    auto bad = [&](const std::string& what) { return SetupError(path + ": " + what); };
    OpenState o;
    o.fd.reset(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!o.fd.valid())
        throw bad(errno == ELOOP ? "is a symbolic link; give the state file itself" : errno_text());
    if (::fstat(o.fd.get(), &o.st) != 0) throw bad(errno_text());
    if (!S_ISREG(o.st.st_mode))
        throw bad("not a regular file (give the .state file of a --keep run)");
    std::byte h[kHeaderFixed]{};
    if (!read_all(o.fd.get(), h, sizeof h, 0) || get<std::uint64_t>(h) != kStateMagic)
        throw bad("not a drivestress state file");
    const std::uint32_t n = get<std::uint32_t>(h + 12);
    o.geo.seed = get<std::uint64_t>(h + 16);
    o.geo.run_id = get<std::uint64_t>(h + 24);
    o.geo.file_bytes = get<std::uint64_t>(h + 32);
    o.geo.unit_bytes = get<std::uint32_t>(h + 40);
    o.geo.bound = get<std::uint32_t>(h + 44);
    o.geo.shape = units_shape(h, path, o.geo.trims);
    o.header_bytes = get<std::uint64_t>(h + 48);
    o.copy_bytes = get<std::uint64_t>(h + 56);
    const std::uint32_t names_bytes = get<std::uint32_t>(h + 64);
    const std::uint32_t u = o.geo.unit_bytes;
    std::uint64_t total = 0;
    const bool sane = n >= 1 && n <= kMaxStateFiles && u >= pattern::kMinUnitBytes &&
                      (u & (u - 1)) == 0 && o.geo.file_bytes >= u && o.geo.file_bytes % u == 0 &&
                      o.geo.bound >= 1 && sane_shape(o.geo.shape) &&
                      o.header_bytes == round_up(kHeaderFixed + names_bytes) &&
                      o.copy_bytes == round_up(kCopyFixed + kGenBytes * o.geo.units()) &&
                      !__builtin_mul_overflow(2ULL * n, o.copy_bytes, &total) &&
                      !__builtin_add_overflow(total, o.header_bytes, &total) &&
                      total <= static_cast<std::uint64_t>(o.st.st_size);
    if (!sane) throw bad("damaged state file header (impossible geometry or truncated file)");
    std::vector<std::byte> header(o.header_bytes);
    if (!read_all(o.fd.get(), header.data(), header.size(), 0))
        throw bad("cannot read the header: " + errno_text());
    std::uint64_t check = state_check(0, std::span(header).first(72));
    check = state_check(check, std::span(header).subspan(kHeaderFixed, names_bytes));
    if (check != get<std::uint64_t>(header.data() + 72))
        throw bad("damaged state file header (check mismatch)");
    const std::string dir = parent_of(path);
    const char* names = reinterpret_cast<const char*>(header.data() + kHeaderFixed);
    for (std::size_t pos = 0; pos < names_bytes && o.geo.paths.size() < n;) {
        std::string name(names + pos, strnlen(names + pos, names_bytes - pos));
        pos += name.size() + 1;
        // Plain names only: the files sit next to their state file.
        if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
            throw bad("damaged state file header (bad file name)");
        o.geo.paths.push_back(dir + "/" + name);
    }
    if (o.geo.paths.size() != n) throw bad("damaged state file header (file names missing)");
    return o;
}

}  // namespace

namespace {

// Bytes of the first n (up to 8) that differ from the state magic.
int magic_distance(const std::byte* h, std::size_t n) {
    int d = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i)
        d += (static_cast<std::uint8_t>(h[i]) != ((kStateMagic >> (8 * i)) & 0xff)) ? 1 : 0;
    return d;
}

// Whether the file open at `fd` (`size` bytes) looks like a state file
// whose header does not load (see damaged_state_reason).
bool looks_like_state(int fd, std::uint64_t size, bool own_name) {
    std::byte head[kBlock]{};
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size, kBlock));
    if (n && !read_all(fd, head, n, 0)) return true;  // unreadable: cannot tell, so protect
    if (n > 0 && magic_distance(head, n) <= std::min<int>(2, static_cast<int>(n) - 1))
        return true;  // the magic, or a cut or damaged copy of it
    if (size > 0 && size % kBlock == 0) return true;
    if (own_name && std::all_of(head, head + n, [](std::byte b) { return b == std::byte{0}; }))
        return true;
    // An acknowledgement record at a block boundary (the regions).
    for (std::uint64_t at = kBlock; at + 4 <= size && at <= (std::uint64_t{64} << 20);
         at += kBlock) {
        std::byte m[4];
        if (read_all(fd, m, sizeof m, at) && get<std::uint32_t>(m) == kCopyMagic) return true;
    }
    return false;
}

}  // namespace

std::string damaged_state_reason(const std::string& path, bool own_name) {
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid())
        return "";
    std::string why;
    try {
        (void)open_state(path);
        return "";  // its header loads: not damaged there
    } catch (const SetupError& e) {
        why = e.what();
        if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);
    }
    return looks_like_state(fd.get(), static_cast<std::uint64_t>(st.st_size), own_name) ? why : "";
}

namespace {

// The format word of a regular file (not followed through a link) that
// begins with the state magic, else nullopt.
std::optional<std::uint32_t> format_word(const std::string& path) {
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    std::byte h[12]{};
    const std::int64_t n = fd.valid() && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)
                               ? sys::pread_full(fd.get(), h, sizeof h, 0)
                               : -1;
    if (n < 8 || get<std::uint64_t>(h) != kStateMagic) return std::nullopt;
    return n == sizeof h ? get<std::uint32_t>(h + 8) : 0;  // cut inside the word: 0
}

// A format word some version of drivestress may have written: a small
// number (one more with each change of the layout); 0 and anything past
// kMaxFormat are damage.
constexpr std::uint32_t kMaxFormat = 0xffff;

}  // namespace

bool has_state_magic(const std::string& path) {
    return format_word(path).has_value();
}

std::optional<std::uint32_t> other_version_format(const std::string& path) {
    const std::optional<std::uint32_t> f = format_word(path);
    if (!f || *f == 0 || *f > kMaxFormat || (*f >= kStateFormatVersion && *f <= kStateFormatTrims))
        return std::nullopt;
    return f;
}

std::string readable_formats() {
    return "formats " + std::to_string(kStateFormatVersion) + " to " +
           std::to_string(kStateFormatTrims);
}

std::vector<std::string> state_file_names(const std::string& path) {
    std::vector<std::string> names;
    for (const auto& p : open_state(path).geo.paths)
        names.push_back(base_of(p));
    return names;
}

namespace {

enum class CopyState { empty, valid, damaged };

// One of the two copies of file i's acknowledgement record.
struct RecordCopy {
    CopyState state = CopyState::empty;
    std::uint64_t seq = 0;
    std::uint32_t bound = 0;
    std::vector<pattern::Generation> gens;
};

// Copy c of file i's record as read into `copy`: all zeros (never written),
// valid (magic, file, units, parity of its sequence and checksum agree), or
// damaged.
RecordCopy parse_copy(std::span<const std::byte> copy, std::uint32_t i, std::uint32_t c,
                      std::uint64_t units, std::uint64_t run_id) {
    RecordCopy r;
    const std::byte* p = copy.data();
    const auto used = copy.first(kCopyFixed + kGenBytes * units);
    if (std::all_of(used.begin(), used.end(), [](std::byte b) { return b == std::byte{0}; })) {
        r.state = CopyState::empty;
    } else if (get<std::uint32_t>(p) == kCopyMagic && get<std::uint32_t>(p + 4) == i &&
               get<std::uint64_t>(p + 16) == units &&
               get<std::uint64_t>(p + 8) % 2 == static_cast<std::uint64_t>(c) &&
               get<std::uint64_t>(p + 24) == copy_check(run_id, used)) {
        r.state = CopyState::valid;
        r.seq = get<std::uint64_t>(p + 8);
        r.bound = get<std::uint32_t>(p + 32);
        r.gens.resize(units);
        std::memcpy(r.gens.data(), p + kCopyFixed, kGenBytes * units);
    } else {
        r.state = CopyState::damaged;
    }
    return r;
}

// A file's record from its two copies (not both damaged): the valid one of
// the higher sequence, else nothing acknowledged yet.
LoadedState::File file_record(RecordCopy (&copies)[2], std::uint32_t geo_bound,
                              std::uint64_t units) {
    LoadedState::File f;
    f.bound = geo_bound;
    int use = -1;
    for (int c = 0; c < 2; ++c)
        if (copies[c].state == CopyState::valid && (use < 0 || copies[c].seq > copies[use].seq))
            use = c;
    if (use >= 0) {
        f.acknowledgements = copies[use].seq;
        f.acked = std::move(copies[use].gens);
        f.bound = copies[use].bound;
    } else {
        f.acked.assign(units, pattern::kUnknownGeneration);  // nothing acknowledged yet
    }
    // A damaged copy is a torn write of the newest record: the one used is
    // older by one, so units may be one more bound ahead (a record with
    // bound 0 was a phase end: the torn one after it was written before the
    // next phase wrote anything).
    if (copies[0].state == CopyState::damaged || copies[1].state == CopyState::damaged) {
        f.used_older_copy = true;
        f.bound = f.bound > kAnyNewerBound / 2 ? kAnyNewerBound : 2 * f.bound;
    }
    return f;
}

}  // namespace

LoadedState load_state_file(const std::string& path) {
    auto bad = [&](const std::string& what) { return SetupError(path + ": " + what); };
    OpenState o = open_state(path);
    // Acting on another user's state file (its --cleanup removes files)
    // would let that user choose what the caller reads and removes.
    if (o.st.st_uid != ::geteuid())
        throw bad("owned by uid " + std::to_string(o.st.st_uid) +
                  ", not by the caller; refusing another user's state file");
    LoadedState s;
    s.geo = std::move(o.geo);
    const std::uint32_t n = static_cast<std::uint32_t>(s.geo.paths.size());
    const std::uint64_t copy_bytes = o.copy_bytes, header_bytes = o.header_bytes;
    // Verification holds one generation (4 bytes) per unit of every file,
    // plus two copies being read: refuse what this machine cannot hold.
    const std::uint64_t need = (n + 3ULL) * kGenBytes * s.geo.units();
    const std::uint64_t avail = available_memory_bytes();
    if (avail && need > avail)
        throw bad("verifying needs " + std::to_string(need >> 20) + " MiB of memory for " +
                  std::to_string(n) + " x " + std::to_string(s.geo.units()) +
                  " units, more than this machine has available");
    const std::uint64_t units = s.geo.units();
    std::vector<std::byte> buffer(copy_bytes);
    for (std::uint32_t i = 0; i < n; ++i) {
        RecordCopy copies[2];
        for (std::uint32_t c = 0; c < 2; ++c) {
            if (!read_all(o.fd.get(), buffer.data(), buffer.size(),
                          header_bytes + (2ULL * i + c) * copy_bytes))
                throw bad("cannot read the record of file " + std::to_string(i) + ": " +
                          errno_text());
            copies[c] = parse_copy(buffer, i, c, units, s.geo.run_id);
        }
        if (copies[0].state == CopyState::damaged && copies[1].state == CopyState::damaged)
            throw bad("both copies of file " + std::to_string(i) +
                      "'s acknowledgement record are damaged; cannot tell what was durable");
        s.files.push_back(file_record(copies, s.geo.bound, units));
    }
    return s;
}

}  // namespace ds::targets
