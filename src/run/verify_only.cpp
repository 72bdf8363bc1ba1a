#include "run/verify_only.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <thread>
#include <tuple>

#include "io/aligned_buffer.h"
#include "model/errors.h"
#include "output/output_file.h"
#include "run/test_hooks.h"
#include "sys/full_io.h"
#include "sys/signals.h"
#include "sys/unique_fd.h"
#include "targets/ownership.h"
#include "targets/target.h"
#include "targets/target_lock.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::targets;
using namespace ds::sys;

bool within_bound(pattern::Generation acked, pattern::Generation g, std::uint32_t bound) {
    if (acked == pattern::kUnknownGeneration || g == pattern::kUnknownGeneration) return false;
    // No wrap: an earlier generation is never newer, however far back (a
    // unit wraps only after 2^32 - 1 writes, a stated limit).
    return g > acked && g - acked <= bound;
}

// How far from the header's generation a torn unit's other sectors are
// looked for (each try generates one unit): one write is in flight per unit,
// so a torn unit mixes the generation being written with the one before it,
// and the header names one of the two.
constexpr std::uint64_t kTornSearch = 256;

namespace {

// Torn: every sector is the acknowledged or an allowed newer generation.
// The header sector names one of them (`named`); the others are tried in
// turn, nearest the header's first (only for units that already look like a
// torn write of this unit): every allowed one when the bound is small, else
// those within kTornSearch of the header's generation.
bool torn_within_bound(std::span<const std::byte> actual, const pattern::UnitIdentity& expected,
                       pattern::Generation named, std::uint32_t bound) {
    const std::size_t sectors = actual.size() / pattern::kSectorBytes;
    std::vector<bool> matched(sectors, false);
    std::size_t left = sectors;
    std::vector<std::byte> want(actual.size());
    pattern::UnitIdentity id = expected;
    auto try_generation = [&](pattern::Generation g) {
        id.generation = g;
        pattern::fill_unit(want, id);
        for (std::size_t s = 0; s < sectors; ++s) {
            if (matched[s]) continue;
            const std::size_t at = s * pattern::kSectorBytes;
            if (std::equal(actual.begin() + at, actual.begin() + at + pattern::kSectorBytes,
                           want.begin() + at)) {
                matched[s] = true;
                --left;
            }
        }
    };
    try_generation(named);
    if (!matched[0]) return false;
    if (named != expected.generation) try_generation(expected.generation);
    const std::uint64_t lo = std::uint64_t{expected.generation} + 1;
    const std::uint64_t hi = std::min<std::uint64_t>(std::uint64_t{expected.generation} + bound,
                                                     pattern::kLastGeneration);
    const std::uint64_t h = named;
    for (std::uint64_t d = 1; d <= kTornSearch && left; ++d) {
        if (h >= lo + d) try_generation(static_cast<pattern::Generation>(h - d));
        if (h + d <= hi && left) try_generation(static_cast<pattern::Generation>(h + d));
        if (h < lo + d && h + d > hi) break;  // every allowed generation tried
    }
    return left == 0;
}

}  // namespace

UnitVerdict classify_unit(std::span<const std::byte> actual, const pattern::UnitIdentity& acked,
                          std::uint32_t bound) {
    UnitVerdict v;
    // A recorded trim: a hole reads zeros; otherwise the unit is judged by
    // the generation it held before (its previous content, or newer writes).
    pattern::UnitIdentity expected = acked;
    expected.generation = acked_generation(acked.generation);
    if (acked_trimmed(acked.generation) &&
        std::all_of(actual.begin(), actual.end(), [](std::byte b) { return b == std::byte{0}; })) {
        v.cls = UnitClass::trimmed;
        return v;
    }
    if (expected.generation == pattern::kUnknownGeneration) {
        v.cls = UnitClass::never_acked;
        return v;
    }
    if (pattern::first_mismatch(actual, expected) == actual.size()) return v;  // intact

    // A whole newer generation of this very unit, named by its header.
    auto header = pattern::parse_header(actual);
    const bool ours =
        header && header->run_id == expected.run_id && header->file_index == expected.file_index &&
        header->offset == expected.offset && header->unit_bytes == expected.unit_bytes;
    const bool header_allowed =
        ours && (header->generation == expected.generation ||
                 within_bound(expected.generation, header->generation, bound));
    if (header_allowed) {
        pattern::UnitIdentity id = expected;
        id.generation = header->generation;
        if (header->generation != expected.generation &&
            pattern::first_mismatch(actual, id) == actual.size()) {
            v.cls = UnitClass::newer;
            v.found_generation = header->generation;
            return v;
        }
        if (torn_within_bound(actual, expected, header->generation, bound)) {
            v.cls = UnitClass::torn_newer;
            v.found_generation = header->generation;
            return v;
        }
    }
    v.cls = UnitClass::lost;
    // A damaged newer generation is explained against that generation, so
    // the first bad byte is where the damage is.
    pattern::UnitIdentity against = expected;
    if (header_allowed) against.generation = header->generation;
    v.diagnosis = pattern::diagnose(actual, against);
    v.compared_generation = against.generation;
    return v;
}

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;

struct FileWork {
    VerifyFileResult res;
    ClassCounts lost_by_class{};
    std::vector<MismatchRecord> records;
    std::uint64_t read_bytes = 0;
    bool direct_io = true;
};

// Reads one kept file and classifies each unit against the acknowledged
// generations in the state file.
class FileVerifier {
  public:
    FileVerifier(unsigned index, const LoadedState& state, FileWork& w)
        : geo_(state.geo), file_(state.files[index]), index_(index), u_(geo_.unit_bytes), w_(w) {
        w_.res.path = geo_.paths[index];
        w_.res.acknowledgements = file_.acknowledgements;
        w_.res.bound = file_.bound;
        w_.res.used_older_copy = file_.used_older_copy;
    }

    void run() {
        sys::UniqueFd fd = open_file();
        if (!fd.valid()) {
            const int err = errno;
            for (std::uint64_t off = 0; off < geo_.file_bytes; off += u_)
                lose(off, pattern::MismatchClass::io_error, 0, 0, err, std::nullopt);
            return;
        }
        const std::size_t chunk = std::max<std::size_t>(u_, kChunkBytes / u_ * u_);
        io::AlignedBuffer buf(chunk);
        for (std::uint64_t off = 0; off < geo_.file_bytes && !stop_signal(); off += chunk) {
            const std::size_t len =
                static_cast<std::size_t>(std::min<std::uint64_t>(chunk, geo_.file_bytes - off));
            if (sys::pread_full(fd.get(), buf.data(), len, off) == static_cast<std::int64_t>(len)) {
                w_.read_bytes += len;
                for (std::size_t at = 0; at < len; at += u_)
                    classify(buf.data() + at, off + at);
            } else {
                unit_by_unit(fd.get(), buf.data(), off, len);
            }
        }
    }

  private:
    // The run's own file, as a run would accept it: never through a link,
    // never a FIFO or device (opened without blocking, then refused), never
    // another user's file.  A missing file is returned invalid (every unit
    // lost); anything else at the name is refused with one line.
    sys::UniqueFd open_file() {
        const std::string& path = w_.res.path;
        const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
        sys::UniqueFd fd(::open(path.c_str(), flags | O_DIRECT));
        if (!fd.valid() && errno == EINVAL) {
            // No O_DIRECT here: read through the page cache after dropping it.
            w_.direct_io = false;
            fd.reset(::open(path.c_str(), flags));
        }
        if (!fd.valid()) {
            if (errno == ELOOP) throw SetupError(path + ": is a symbolic link; not following it");
            return fd;
        }
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0)
            throw SetupError(path + ": fstat: " + std::strerror(errno));
        if (!S_ISREG(st.st_mode))
            throw SetupError(path + ": not a regular file; refusing to read it as a kept file");
        if (st.st_uid != ::geteuid())
            throw SetupError(path + ": owned by uid " + std::to_string(st.st_uid) +
                             ", not by the caller; refusing to read it");
        ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
        if (!w_.direct_io) ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
        return fd;
    }

    // After an error or an early end of file: unit by unit, to name each one.
    void unit_by_unit(int fd, std::byte* buf, std::uint64_t off, std::size_t len) {
        for (std::size_t at = 0; at < len; at += u_) {
            const std::int64_t n = sys::pread_full(fd, buf, u_, off + at);
            if (n == u_) {
                w_.read_bytes += u_;
                classify(buf, off + at);
            } else if (n < 0) {
                lose(off + at, pattern::MismatchClass::io_error, 0, 0, static_cast<int>(-n),
                     std::nullopt);
            } else {
                lose(off + at, pattern::MismatchClass::short_read, static_cast<std::uint64_t>(n),
                     u_ - static_cast<std::uint64_t>(n), 0, std::nullopt);
            }
        }
    }

    void classify(const std::byte* p, std::uint64_t off) {
        const pattern::UnitIdentity id{geo_.run_id, index_,
                                       off,         file_.acked[off / u_],
                                       u_,          pattern::data_id_from_seed(geo_.seed),
                                       geo_.shape};
        const UnitVerdict v = classify_unit({p, u_}, id, file_.bound);
        switch (v.cls) {
            case UnitClass::intact:
                ++w_.res.intact;
                break;
            case UnitClass::newer:
                ++w_.res.newer;
                break;
            case UnitClass::never_acked:
                ++w_.res.never_acked;
                if (file_.acknowledgements == 0 && off > 0 && holds_our_data(p, off))
                    ++w_.res.unrecorded_data;
                break;
            case UnitClass::torn_newer:
                ++w_.res.torn_newer;
                break;
            case UnitClass::trimmed:
                ++w_.res.trimmed;
                break;
            case UnitClass::lost:
                lose(off, v.diagnosis->cls, v.diagnosis->first_bad_byte, v.diagnosis->bad_bytes, 0,
                     v.diagnosis->found);
                break;
        }
    }

    // Unit 0 is the mark a file gets when it is created; any other unit of
    // this run's was written by a phase, after a record of the file.
    bool holds_our_data(const std::byte* p, std::uint64_t off) const {
        auto h = pattern::parse_header({p, u_});
        return h && h->run_id == geo_.run_id && h->file_index == index_ && h->offset == off;
    }

    void lose(std::uint64_t unit_off, pattern::MismatchClass cls, std::uint64_t first_bad,
              std::uint64_t bad_bytes, int err, std::optional<pattern::ParsedHeader> found) {
        ++w_.res.lost;
        ++w_.lost_by_class[static_cast<std::size_t>(cls)];
        if (w_.records.size() >= RunResult::kMaxRecords) return;
        MismatchRecord rec;
        rec.iteration = 0;  // not a phase of a run: --verify-only
        rec.phase = Phase::reverify;
        rec.file_index = index_;
        rec.path = w_.res.path;
        rec.offset = unit_off + first_bad;
        rec.unit_offset = unit_off;
        rec.length = u_;
        rec.cls = cls;
        rec.bad_bytes = bad_bytes;
        rec.error = err;
        rec.expected_generation = acked_generation(file_.acked[unit_off / u_]);
        rec.found = found;
        w_.records.push_back(std::move(rec));
    }

    const StateGeometry& geo_;
    const LoadedState::File& file_;
    const unsigned index_;
    const std::uint32_t u_;
    FileWork& w_;
};

void verify_file(unsigned index, const LoadedState& state, FileWork& w) {
    FileVerifier(index, state, w).run();
}

}  // namespace

namespace {

std::string parent_of(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Where STATE goes while --cleanup removes the files: its claim on them is
// withdrawn first (no state vouches for files about to go), and the
// renamed state still names them, so an interrupted cleanup can be
// finished.
std::string cleanup_journal(const std::string& state_path) {
    return state_path + ".cleanup";
}

void sync_directory(const std::string& path) {
    sys::UniqueFd dir(::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.valid()) (void)::fsync(dir.get());
}

// Removes the kept files, then the state (as `claim`: STATE, or the journal
// of an interrupted cleanup being finished).  Every file is checked before
// any is removed: a file that is not this run's keeps them all.
void remove_kept_files(VerifyOnlyResult& r, const std::string& claim, const TestHooks& hooks) {
    const std::size_t n = r.geo.paths.size();
    std::vector<struct stat> checked(n);
    std::vector<bool> present(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& p = r.geo.paths[i];
        const CheckedFile c = check_data_file(AT_FDCWD, p, {i, r.geo.run_id});
        if (c.missing) continue;  // removed already (an interrupted cleanup)
        if (!c.ours())
            r.cleanup_refused.push_back(p + ": " + c.refusal + "; not removed");
        else
            present[i] = true;
        checked[i] = c.st;
    }
    if (!r.cleanup_refused.empty()) return;
    const std::string journal = cleanup_journal(r.state_path);
    if (claim != journal) {
        if (::renameat2(AT_FDCWD, claim.c_str(), AT_FDCWD, journal.c_str(), RENAME_NOREPLACE) !=
            0) {
            r.cleanup_refused.push_back(claim + ": cannot rename it to " + journal + ": " +
                                        std::strerror(errno) + "; nothing removed");
            return;
        }
        sync_directory(journal);
    }
    std::uint64_t removed = 0;
    hooks.pause_if(hooks.stop_in_cleanup == removed);
    for (std::size_t i = 0; i < n; ++i) {
        // Only while the name still is the file just checked.
        if (!present[i] || !remove_checked(AT_FDCWD, r.geo.paths[i], checked[i])) continue;
        hooks.pause_if(hooks.stop_in_cleanup == ++removed);
    }
    sync_directory(journal);
    ::unlink(journal.c_str());
    sync_directory(journal);
    r.cleaned_up = true;
}

// The lock a run holds on the state's directory: --verify-only neither
// reads files a running run is writing nor removes them from under it.
TargetLock lock_state_directory(const std::string& state_path) {
    const std::string dir = parent_of(state_path);
    sys::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) throw SetupError(state_path + ": " + std::strerror(errno));
    return TargetLock::acquire(fd.get(), dir, "; verify its files once it has ended");
}

bool missing(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
}

// Reads every kept file (in parallel, at most 16 at a time, each reader
// keeping one 1 MiB read outstanding) and sums what they hold.
void read_kept_files(const LoadedState& state, VerifyOnlyResult& r) {
    std::vector<FileWork> work(state.files.size());
    {
        std::atomic<std::size_t> next{0};
        const std::size_t n = std::min<std::size_t>(work.size(), 16);
        std::vector<std::exception_ptr> errors(n);
        {
            std::vector<std::jthread> readers;
            for (std::size_t t = 0; t < n; ++t)
                readers.emplace_back([&, t] {
                    try {
                        for (std::size_t i;
                             !stop_signal() && (i = next.fetch_add(1)) < work.size();)
                            verify_file(static_cast<unsigned>(i), state, work[i]);
                    } catch (...) {  // rethrown on this thread: an error, never an abort
                        errors[t] = std::current_exception();
                        next.store(work.size());
                    }
                });
        }
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
    }
    for (auto& w : work) {
        r.files.push_back(w.res);
        r.intact += w.res.intact;
        r.newer += w.res.newer;
        r.never_acked += w.res.never_acked;
        r.torn_newer += w.res.torn_newer;
        r.trimmed += w.res.trimmed;
        r.lost += w.res.lost;
        for (std::size_t c = 0; c < r.lost_by_class.size(); ++c)
            r.lost_by_class[c] += w.lost_by_class[c];
        r.read_bytes += w.read_bytes;
        r.direct_io = r.direct_io && w.direct_io;
        for (auto& rec : w.records)
            r.lost_records.push_back(std::move(rec));
    }
    std::sort(r.lost_records.begin(), r.lost_records.end(),
              [](const MismatchRecord& a, const MismatchRecord& b) {
                  return std::tie(a.file_index, a.offset) < std::tie(b.file_index, b.offset);
              });
    if (r.lost_records.size() > RunResult::kMaxRecords)
        r.lost_records.resize(RunResult::kMaxRecords);
}

}  // namespace

VerifyOnlyResult verify_only(const std::string& state_path, bool cleanup) {
    install_signal_handlers();  // a stop request ends it like a run: 128+n
    const TestHooks& hooks = test_hooks();
    VerifyOnlyResult r;
    r.started_at = utc_now_iso8601();
    r.document_id = output::unpredictable_suffix();
    r.state_path = state_path;
    const auto t0 = std::chrono::steady_clock::now();
    const TargetLock lock = lock_state_directory(state_path);
    hooks.pause_if(hooks.stop_before_verify);

    const std::string journal = cleanup_journal(state_path);
    if (missing(state_path) && has_state_magic(journal)) {
        if (!cleanup)
            throw SetupError(state_path + ": a --cleanup of it was interrupted (" + journal +
                             " remains); give --cleanup to finish it");
        r.geo = load_state_file(journal).geo;
        r.finished_cleanup = true;
        remove_kept_files(r, journal, hooks);
    } else {
        const LoadedState state = load_state_file(state_path);
        r.geo = state.geo;
        read_kept_files(state, r);
        r.stop_signal = stop_signal();
        const ExitStatus found = exit_status(r);
        r.evidence_kept = cleanup && found == ExitStatus::mismatch;
        if (cleanup && found == ExitStatus::success) {
            if (nothing_verified(verify_evidence(r)))
                r.cleanup_not_run = true;
            else
                remove_kept_files(r, state_path, hooks);
        }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.stop_signal) r.stop_signal = stop_signal();  // during the cleanup: it still counts
    return r;
}

}  // namespace ds::run
