#include "output/io_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <string_view>
#include <system_error>

#include "output/output_file.h"
#include "sys/errno_text.h"
#include "sys/full_io.h"

namespace ds::output {

namespace {

// The writer's pause between passes.  A ring of 64Ki records fills in
// 65 ms at a million pushes a second; 5 ms leaves a wide margin, and a pass
// then takes thousands of records at once instead of spinning on a few,
// taking CPU from the workers.
// measured: docs/performance.md, What `--io-log` costs
constexpr auto kPassPeriod = std::chrono::milliseconds(5);
// A pass that took this many records runs the next at once: the rings fill
// faster than a pause allows.
constexpr std::size_t kBusyPass = 16384;
// Text is written when this much is pending, when a pass finds the rings
// empty, and at least every kFlushPeriod (so a killed run loses little).
constexpr std::size_t kTextBuffer = std::size_t{1} << 20;
constexpr auto kFlushPeriod = std::chrono::milliseconds(100);
// The longest line either format makes: numbers of at most 20 digits, the
// keys, and a fio file name of at most 256 bytes.
constexpr std::size_t kMaxLine = 512;
// Records a pass takes from a ring before the writer hands the space back.
constexpr std::uint64_t kReleaseEvery = 256;
constexpr std::size_t kFioNameMax = 256;  // fio reads names with %256s

template <std::size_t N>
char* put(char* p, const char (&s)[N]) {
    std::memcpy(p, s, N - 1);
    return p + N - 1;
}

char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
}

char* put(char* p, std::uint64_t v) {
    return std::to_chars(p, p + 20, v).ptr;
}
char* put_signed(char* p, std::int64_t v) {
    return std::to_chars(p, p + 21, v).ptr;
}

constexpr std::string_view kNdjsonOp[] = {"\"read\"", "\"write\"", "\"trim\"", "\"flush\"",
                                          "\"unknown\""};
constexpr std::string_view kNdjsonVerify[] = {"null", "\"ok\"", "\"mismatch\"", "\"unverified\"",
                                              "\"unknown\""};
constexpr std::string_view kNdjsonPhase[] = {"\"seq-write\"", "\"seq-read\"", "\"random\"",
                                             "\"reverify\"", "\"unknown\""};
// fio's action words (io_ddir_name in fio's io_ddir.h); a flush is fsync.
constexpr std::string_view kFioAction[] = {"read", "write", "trim", "sync"};

template <std::size_t N>
std::string_view word(const std::string_view (&table)[N], std::uint8_t v) {
    return table[std::min<std::size_t>(v, N - 1)];
}

// The time a line is sorted and (fio) stamped by: when it was due, else
// when it was submitted.
std::uint64_t line_time(const IoRecord& r) {
    return r.due_ns ? r.due_ns : r.submit_ns;
}

void check_fio_name(const std::string& path, const std::string& name) {
    const bool space = std::any_of(name.begin(), name.end(), [](char c) {
        return std::isspace(static_cast<unsigned char>(c));
    });
    if (name.empty() || space || name.size() > kFioNameMax)
        throw std::system_error(EINVAL, std::generic_category(),
                                path + ": target name '" + name +
                                    "' cannot be a file name of fio's iolog (empty, white "
                                    "space, or over 256 bytes)");
}

}  // namespace

IoLog::IoLog(const std::string& path, IoLogFormat format, std::size_t workers,
             std::vector<std::string> targets, std::uint64_t start_ns, std::size_t capacity)
    : path_(path),
      format_(format),
      targets_(std::move(targets)),
      start_ns_(start_ns),
      mask_(capacity - 1) {
    if (capacity < 2 || (capacity & (capacity - 1)) != 0)
        throw std::system_error(EINVAL, std::generic_category(),
                                path_ + ": io-log ring capacity " + std::to_string(capacity) +
                                    " is not a power of two");
    if (format_ == IoLogFormat::fio)
        for (const auto& name : targets_)
            check_fio_name(path_, name);
    for (std::size_t w = 0; w < workers; ++w) {
        rings_.push_back(std::make_unique<Ring>());
        rings_.back()->slots = std::make_unique<IoRecord[]>(capacity);
    }
    pos_.resize(workers);
    end_.resize(workers);
    fd_ = create_output_file(path_);
    struct stat st {};
    const bool stream = ::fstat(fd_.get(), &st) == 0 && !S_ISREG(st.st_mode);
    out_ = std::make_unique<BlockAppender>(fd_.get(), kTextBuffer + kMaxLine, stream);
    if (format_ == IoLogFormat::fio) {
        out_->advance(
            static_cast<std::size_t>(put(out_->end(), "fio version 3 iolog\n") - out_->end()));
        write_fio_files("add");
        write_fio_files("open");
        head_lines_ = 1 + 2 * targets_.size();
    }
    writer_ = std::thread([this] { run(); });
}

IoLog::~IoLog() {
    (void)finish();
}

std::string IoLog::finish() {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return error_;
        finished_ = true;
        quit_ = true;
    }
    closed_.store(true, std::memory_order_relaxed);
    wake_.notify_all();
    writer_.join();
    if (fd_.valid() && ::close(fd_.release()) != 0) fail("close", errno);
    return error_;
}

std::uint64_t IoLog::written() const {
    return written_.load(std::memory_order_relaxed);
}

std::uint64_t IoLog::dropped() const {
    std::uint64_t n = writer_dropped_.load(std::memory_order_relaxed);
    for (const auto& ring : rings_)
        n += ring->dropped.load(std::memory_order_relaxed);
    return n;
}

std::string IoLog::drop_summary() const {
    const std::uint64_t lost = dropped();
    if (lost == 0) return "";
    return "io-log: " + std::to_string(lost) + " of " + std::to_string(lost + written()) +
           " lines dropped: the log could not keep up";
}

// The writer thread: passes over the rings, a pause between them, until
// finish() asks it to stop and a pass after that finds them empty; then the
// fio close lines.
void IoLog::run() {
    auto flushed = std::chrono::steady_clock::now();
    for (;;) {
        bool quitting;
        {
            std::lock_guard lock(mutex_);
            quitting = quit_;
        }
        const std::size_t taken = drain_pass();
        const auto now = std::chrono::steady_clock::now();
        if (taken == 0 || now - flushed >= kFlushPeriod) {
            flush_text(taken == 0 ? BlockAppender::Flush::all : BlockAppender::Flush::timely);
            flushed = now;
        }
        if (taken == 0 && quitting) break;
        if (taken >= kBusyPass) continue;
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, kPassPeriod, [this] { return quit_; });
    }
    if (format_ == IoLogFormat::fio) {
        write_fio_files("close");
        flush_text(BlockAppender::Flush::all);
    }
}

// One pass: what each ring held when the pass began, merged by line time
// (a worker's own records keep their order: only ring heads compete).
// O(workers) per record, a few ns for the handful of workers a run has.
std::size_t IoLog::drain_pass() {
    std::size_t taken = 0;
    for (std::size_t i = 0; i < rings_.size(); ++i) {
        pos_[i] = rings_[i]->tail.load(std::memory_order_relaxed);
        end_[i] = rings_[i]->head.load(std::memory_order_acquire);
    }
    for (;;) {
        std::size_t best = rings_.size();
        std::uint64_t best_time = 0;
        for (std::size_t i = 0; i < rings_.size(); ++i) {
            if (pos_[i] == end_[i]) continue;
            const std::uint64_t t = line_time(rings_[i]->slots[pos_[i] & mask_]);
            if (best == rings_.size() || t < best_time) best = i, best_time = t;
        }
        if (best == rings_.size()) break;
        Ring& ring = *rings_[best];
        format(ring.slots[pos_[best] & mask_]);
        ++taken;
        // The slot is free once formatted: hand space back now and then,
        // not per record (tail's line would bounce to the producer).
        if (++pos_[best] % kReleaseEvery == 0)
            ring.tail.store(pos_[best], std::memory_order_release);
    }
    for (std::size_t i = 0; i < rings_.size(); ++i)
        rings_[i]->tail.store(pos_[i], std::memory_order_release);
    return taken;
}

void IoLog::format(const IoRecord& r) {
    if (!error_.empty() || (format_ == IoLogFormat::fio && r.target >= targets_.size())) {
        writer_dropped_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    if (out_->room() < kMaxLine) flush_text(BlockAppender::Flush::whole_blocks);
    if (format_ == IoLogFormat::ndjson)
        format_ndjson(r);
    else
        format_fio(r);
    ++formatted_;
}

void IoLog::format_ndjson(const IoRecord& r) {
    auto rel = [this](std::uint64_t t) { return t > start_ns_ ? t - start_ns_ : 0; };
    char* const start = out_->end();
    char* p = start;
    p = put(p, "{\"target\":");
    p = put(p, std::uint64_t{r.target});
    p = put(p, ",\"phase\":");
    p = put(p, word(kNdjsonPhase, r.phase));
    p = put(p, ",\"op\":");
    p = put(p, word(kNdjsonOp, r.op));
    p = put(p, ",\"offset\":");
    p = put(p, r.offset);
    p = put(p, ",\"length\":");
    p = put(p, std::uint64_t{r.length});
    p = put(p, ",\"due_ns\":");
    p = r.due_ns ? put(p, rel(r.due_ns)) : put(p, "null");
    p = put(p, ",\"submit_ns\":");
    p = put(p, rel(r.submit_ns));
    p = put(p, ",\"complete_ns\":");
    p = put(p, rel(r.complete_ns));
    p = put(p, ",\"result\":");
    p = put_signed(p, r.result);
    p = put(p, ",\"verify\":");
    p = put(p, word(kNdjsonVerify, r.verify));
    p = put(p, "}\n");
    out_->advance(static_cast<std::size_t>(p - start));
}

void IoLog::format_fio(const IoRecord& r) {
    const std::uint64_t t = line_time(r);
    last_fio_us_ = std::max(last_fio_us_, (t > start_ns_ ? t - start_ns_ : 0) / 1000);
    const bool flush = r.op == static_cast<std::uint8_t>(IoLogOp::flush);
    char* const start = out_->end();
    char* p = start;
    p = put(p, last_fio_us_);
    p = put(p, " ");
    p = put(p, targets_[r.target]);
    p = put(p, " ");
    p = put(p, word(kFioAction, r.op));
    p = put(p, " ");
    p = put(p, flush ? 0 : r.offset);
    p = put(p, " ");
    p = put(p, flush ? 0 : std::uint64_t{r.length});
    p = put(p, "\n");
    out_->advance(static_cast<std::size_t>(p - start));
}

// "TIME NAME ACTION" for every target (names checked in the constructor).
void IoLog::write_fio_files(const char* action) {
    for (const auto& name : targets_) {
        if (out_->room() < kMaxLine) flush_text(BlockAppender::Flush::whole_blocks);
        char* const start = out_->end();
        char* p = start;
        p = put(p, last_fio_us_);
        p = put(p, " ");
        p = put(p, name);
        p = put(p, " ");
        p = put(p, std::string_view(action));
        p = put(p, "\n");
        out_->advance(static_cast<std::size_t>(p - start));
    }
}

// Writes the pending text (output/block_appender.h: whole blocks with O_DIRECT
// where it can; a stream through write_stream, which gives up on a reader
// that stops reading once a stop was requested).  A record counts as
// written once its line is whole in the file.  After the first failure
// nothing more is written: a partial last line is cut off, and the records
// not whole in the file count as dropped.
void IoLog::flush_text(BlockAppender::Flush how) {
    if (out_->pending().empty()) return;
    if (error_.empty()) {
        const bool ok = out_->flush(how);
        const int err = errno;
        count_written();
        if (!ok) {
            fail("write", err);
            cut_partial_line();
        }
    }
    if (!error_.empty()) {
        out_->discard();
        writer_dropped_.fetch_add(formatted_ - written(), std::memory_order_relaxed);
        formatted_ = written();
    }
}

// The records whose line is whole in the file: the lines written after the
// header (fio's close lines come only after every record).
void IoLog::count_written() {
    const std::uint64_t lines = out_->newlines();
    written_.store(std::min(formatted_, lines > head_lines_ ? lines - head_lines_ : 0),
                   std::memory_order_relaxed);
}

// A failed write can leave part of a line at the file's end: a regular file
// is truncated back to its last whole line; a stream cannot be, so the
// failure says where its last line is cut short.
void IoLog::cut_partial_line() {
    const std::uint64_t whole = out_->lines_end();
    if (out_->file_end() == whole) return;
    struct stat st {};
    if (::fstat(fd_.get(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::ftruncate(fd_.get(), static_cast<off_t>(whole)) == 0)
        return;
    error_ += "; its last line is cut short after byte " + std::to_string(whole);
}

void IoLog::fail(const std::string& step, int err) {
    if (error_.empty()) error_ = "io-log " + path_ + ": " + step + ": " + sys::errno_text(err);
}

}  // namespace ds::output
