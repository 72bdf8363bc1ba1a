#include "run/replay.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "model/errors.h"
#include "sys/full_io.h"
#include "sys/signals.h"
#include "sys/unique_fd.h"
#include "trace/trace_reader.h"
#include "units/diag.h"
#include "units/units.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

io::OpKind kind_of(trace::Op op) {
    switch (op) {
        case trace::Op::read:
            return io::OpKind::read;
        case trace::Op::write:
            return io::OpKind::write;
        case trace::Op::trim:
            return io::OpKind::trim;
        case trace::Op::flush:
        case trace::Op::sync:
            break;
    }
    return io::OpKind::fdatasync;
}

// Standard input, held in an anonymous memory file every feed can open:
// at most `limit` bytes (--replay-max-bytes), `held` of them.  A stop
// request while it waits for input ends the wait (no SA_RESTART).
int copy_of_stdin(std::uint64_t limit, std::uint64_t& held) {
    auto bad = [](const char* doing, int err) {
        return SetupError(std::string("--replay -: ") + doing + ": " +
                          (err == EINTR ? std::string("stopped by a signal")
                                        : std::generic_category().message(err)));
    };
    sys::UniqueFd fd(::memfd_create("drivestress-replay", MFD_CLOEXEC));
    if (!fd.valid()) throw bad("holding standard input in memory", errno);
    char buf[1 << 16];
    while (true) {
        const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR && !sys::stop_signal()) continue;
            throw bad("reading standard input", errno);
        }
        if (held + static_cast<std::uint64_t>(n) > limit)
            throw SetupError("--replay -: standard input holds more than " + std::to_string(limit) +
                             " bytes (" + units::format_bytes(limit) +
                             ", --replay-max-bytes), all held in memory to be read twice: give "
                             "a larger --replay-max-bytes, or the trace as a file (streamed)");
        if (!sys::write_full(fd.get(), std::string_view(buf, static_cast<std::size_t>(n))))
            throw bad("holding standard input in memory", errno);
        held += static_cast<std::uint64_t>(n);
    }
    return fd.release();
}

// The trace file, open: a regular file only.  Anything else (a FIFO, a
// pipe such as bash's <(...), a socket, a device) cannot be read twice, or
// not the same way: it is refused rather than waited on at the second
// open.  Opened without blocking, so a FIFO with no writer is refused at
// once too.
int open_trace_file(const std::string& path) {
    auto bad = [&](int err) {
        return SetupError("--replay " + path + ": " + std::generic_category().message(err));
    };
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) throw bad(errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw bad(errno);
    if (!S_ISREG(st.st_mode))
        throw SetupError("--replay " + path + ": " +
                         (S_ISFIFO(st.st_mode) ? "a FIFO or pipe" : "not a regular file") +
                         ", which cannot be read twice (once to check it, once to replay it); "
                         "give a file, or pipe it to standard input: --replay -");
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
    return fd.release();
}

void tally(ReplayInfo& info, const trace::Event& e, std::uint32_t unit) {
    ++info.events;
    if (e.length && (e.offset % unit || e.length % unit)) ++info.widened;
    const std::uint64_t end = e.offset + e.length;
    if (e.device >= info.extents.size()) info.extents.resize(e.device + 1, 0);
    switch (e.op) {
        case trace::Op::read:
        case trace::Op::write: {
            const bool read = e.op == trace::Op::read;
            ++(read ? info.reads : info.writes);
            (read ? info.read_bytes : info.write_bytes) += e.length;
            if (!read && e.fua) ++info.fua_writes;
            info.min_bytes = info.min_bytes ? std::min(info.min_bytes, e.length) : e.length;
            info.max_bytes = std::max(info.max_bytes, e.length);
            info.extents[e.device] = std::max(info.extents[e.device], end);
            break;
        }
        case trace::Op::trim:
            ++info.trims;
            info.trim_bytes += e.length;
            info.extents[e.device] = std::max(info.extents[e.device], end);
            break;
        case trace::Op::flush:
        case trace::Op::sync:
            ++info.flushes;
            break;
    }
    info.span_s = std::max(info.span_s, static_cast<double>(e.due_ns) / 1e9);
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) {
    return (v + to - 1) / to * to;
}

}  // namespace

ReplayLayout replay_layout(const ReplayInfo& info, std::size_t targets,
                           std::size_t files_per_target, std::uint64_t file_bytes,
                           std::uint32_t unit, bool wrap, const std::vector<std::string>& names) {
    ReplayLayout l{targets, files_per_target, file_bytes, unit, wrap, {}, {}};
    const std::size_t devices = std::max<std::size_t>(info.devices.size(), 1);
    if (devices > 1 && targets != 1 && targets != devices)
        throw SetupError("--replay " + info.source + ": the trace has " + std::to_string(devices) +
                         " devices and the run " + std::to_string(targets) + " targets: give " +
                         std::to_string(devices) +
                         " targets (one for each, in order), or one for them all");
    const std::uint64_t space = file_bytes * files_per_target;
    std::uint64_t next_base = 0;
    for (std::size_t d = 0; d < devices; ++d) {
        const std::uint64_t extent = d < info.extents.size() ? info.extents[d] : 0;
        const std::size_t t = targets == 1 ? 0 : d;
        const std::uint64_t base = targets == 1 ? next_base : 0;
        l.target_of.push_back(t);
        l.base.push_back(base);
        next_base = base + round_up(extent, unit);
        if (base + extent > space && !wrap) {
            const std::string device = d < info.devices.size() ? info.devices[d] : "0";
            throw SetupError("--replay " + info.source + ": device " + device + " reaches " +
                             units::format_bytes_against(extent, space) +
                             (targets == 1 && devices > 1
                                  ? " (after the devices before it, " +
                                        units::format_bytes_against(base + extent, space) + ")"
                                  : std::string()) +
                             ", beyond " + names.at(t) + "'s " +
                             units::format_bytes_against(space, base + extent) +
                             ": give a larger --size, or --replay-wrap to fold its offsets round");
        }
    }
    return l;
}

bool place_operation(const ReplayLayout& l, std::uint32_t device, io::OpKind kind,
                     std::uint64_t offset, std::uint64_t length, bool fua, std::uint64_t due_ns,
                     std::vector<ReplayPiece>& out) {
    const std::size_t t = device < l.target_of.size() ? l.target_of[device] : 0;
    const std::size_t first_file = t * l.files_per_target;
    if (io::is_flush(kind)) {  // every file of its target is flushed
        for (std::size_t f = 0; f < l.files_per_target; ++f)
            out.push_back({first_file + f, {due_ns, kind, 0, 0, false}});
        return false;
    }
    const std::uint64_t space = l.file_bytes * l.files_per_target;
    std::uint64_t begin = (device < l.base.size() ? l.base[device] : 0) + offset;
    std::uint64_t end = begin + length;
    const std::uint64_t b = begin / l.unit * l.unit, e = round_up(end, l.unit);
    const bool widened = b != begin || e != end;
    begin = b;
    end = std::min(e, begin + space);
    if (end > space) {  // --replay-wrap (replay_layout refused it otherwise)
        const std::uint64_t n = end - begin;
        begin %= space;
        if (begin + n > space) begin = space - n;
        end = begin + n;
    }
    const std::uint64_t most = kind == io::OpKind::trim ? kMaxTrimPiece : kMaxPiece;
    while (begin < end) {
        const std::uint64_t file = begin / l.file_bytes;
        const std::uint64_t in_file = begin % l.file_bytes;
        const std::uint64_t n = std::min({end - begin, l.file_bytes - in_file, most});
        out.push_back({first_file + file,
                       {due_ns, kind, in_file, static_cast<std::uint32_t>(n),
                        fua && kind == io::OpKind::write}});
        begin += n;
    }
    return widened;
}

namespace {

// One worker's operations: the trace streamed again, its pieces in this
// file kept, looped --replay-loops times (each loop one span and one mean
// gap after the last), due times scaled by --replay-speed.
class FileFeed final : public engine::ReplayFeed {
  public:
    FileFeed(std::string path, std::string source, const ReplayLayout& layout,
             const ReplayInfo& info, unsigned file)
        : path_(std::move(path)),
          source_(std::move(source)),
          layout_(layout),
          file_(file),
          loops_(info.loops),
          speed_(info.speed) {
        const double gap = info.events > 1 ? info.span_s / static_cast<double>(info.events - 1) : 0;
        loop_ns_ = static_cast<std::uint64_t>((info.span_s + gap) * 1e9);
        open_next();
    }

    std::optional<engine::ReplayOp> next() override {
        while (queue_.empty()) {
            if (!reader_) return std::nullopt;
            const std::optional<trace::Event> e = reader_->next();
            if (!e) {
                open_next();
                continue;
            }
            pieces_.clear();
            const std::uint64_t due = e->due_ns + loop_ * loop_ns_;
            place_operation(
                layout_, e->device, kind_of(e->op), e->offset, e->length, e->fua,
                speed_ > 0 ? static_cast<std::uint64_t>(static_cast<double>(due) / speed_) : 0,
                pieces_);
            for (const ReplayPiece& p : pieces_)
                if (p.file == file_) queue_.push_back(p.op);
        }
        const engine::ReplayOp op = queue_.front();
        queue_.pop_front();
        return op;
    }

  private:
    void open_next() {
        reader_.reset();
        if (opened_ && ++loop_ >= loops_) return;
        opened_ = true;
        in_ = std::make_unique<std::ifstream>(path_);
        if (!*in_) throw SetupError("--replay " + source_ + ": cannot open it again");
        reader_ = std::make_unique<trace::Reader>(*in_, source_);
    }

    std::string path_, source_;
    const ReplayLayout& layout_;
    std::size_t file_;
    std::uint64_t loops_;
    double speed_;
    std::uint64_t loop_ns_ = 0, loop_ = 0;
    bool opened_ = false;
    std::unique_ptr<std::ifstream> in_;
    std::unique_ptr<trace::Reader> reader_;
    std::vector<ReplayPiece> pieces_;
    std::deque<engine::ReplayOp> queue_;
};

}  // namespace

ReplayTrace::ReplayTrace(const RunConfig& cfg) : unit_(cfg.rand_block) {
    info_.source = cfg.replay == "-" ? "standard input" : cfg.replay;
    info_.speed = cfg.replay_speed;
    info_.loops = cfg.replay_loops;
    info_.wrap = cfg.replay_wrap;
    fd_.reset(cfg.replay == "-" ? copy_of_stdin(cfg.replay_max_bytes, held_bytes_)
                                : open_trace_file(cfg.replay));
    path_ = "/proc/self/fd/" + std::to_string(fd_.get());
    std::ifstream in(path_);
    if (!in) {
        throw SetupError("--replay " + info_.source + ": " +
                         std::generic_category().message(errno));
    }
    try {
        trace::Reader r(in, info_.source);
        info_.format = std::string(trace::to_string(r.format()));
        while (const std::optional<trace::Event> e = r.next())
            tally(info_, *e, unit_);
        info_.devices = r.devices();
        info_.reordered = r.reordered();
        info_.skipped = r.skipped();
        info_.lost_events = r.lost_events();
        info_.other_phases = r.other_phase_records();
    } catch (const std::invalid_argument& e) {
        throw SetupError(std::string("--replay: ") + e.what());
    }
    if (info_.reads + info_.writes + info_.trims == 0)
        throw SetupError("--replay " + info_.source +
                         ": the trace has no reads, writes or trims to replay");
    if (info_.lost_events)
        units::warning("--replay " + info_.source + ": the capture lost " +
                       std::to_string(info_.lost_events) + " events: the replay is incomplete");
}

ReplayTrace::~ReplayTrace() = default;

std::uint32_t ReplayTrace::largest_piece() const {
    const std::uint32_t unit = unit_;
    // Rounded out to units, an operation may cover one unit more at each end.
    const std::uint64_t b =
        std::min<std::uint64_t>(round_up(info_.max_bytes, unit) + unit, kMaxPiece);
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(b, unit));
}

void ReplayTrace::place(std::size_t targets, std::size_t files_per_target, std::uint64_t file_bytes,
                        const std::vector<std::string>& names, bool raw) {
    layout_ = replay_layout(info_, targets, files_per_target, file_bytes, unit_, info_.wrap, names);
    const std::size_t devices = std::max<std::size_t>(info_.devices.size(), 1);
    info_.placement = devices > 1 && targets == 1
                          ? "its " + std::to_string(devices) + " devices one after the other"
                          : "offsets as they are";
    if (!raw)
        info_.placement +=
            ", onto " + std::string(files_per_target > 1 ? "the " : "") +
            std::to_string(files_per_target) + " file" + (files_per_target > 1 ? "s" : "") +
            " of " + units::format_bytes(file_bytes) + (files_per_target > 1 ? " in order" : "");
    if (info_.wrap) info_.placement += ", wrapped round at the end";
}

std::unique_ptr<engine::ReplayFeed> ReplayTrace::open(unsigned file_index) const {
    return std::make_unique<FileFeed>(path_, info_.source, layout_, info_, file_index);
}

}  // namespace ds::run
