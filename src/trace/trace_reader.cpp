// The reader around the format parsers: bounded lines, the format told by
// the first non-blank line, and the reorder window.
//
// The window is a min-heap on (trace time, arrival).  An event leaves it once
// more than kWindowEvents are held or the newest time read is more than
// kWindowNs past it, so a trace from several CPUs (tracefs merges per-CPU
// buffers, an io-log is written in completion order) comes out sorted while
// the memory stays bounded; an event older than one already given out cannot
// be put back, and is an error naming both times; so is one more than
// kWindowNs before the newest read, however few events apart.
#include "trace/trace_reader.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace ds::trace {

namespace {
using std::string;

constexpr std::size_t kShownChars = 80;

// A line as a message shows it: one line, at most kShownChars characters.
string shown(std::string_view line) {
    string out;
    for (char c : line.substr(0, kShownChars))
        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (line.size() > kShownChars) out += "...";
    return out;
}

string seconds_text(std::uint64_t ns) {
    char text[48];
    std::snprintf(text, sizeof text, "%llu.%09llu s",
                  static_cast<unsigned long long>(ns / 1'000'000'000),
                  static_cast<unsigned long long>(ns % 1'000'000'000));
    return text;
}

bool blank(std::string_view line) {
    return line.find_first_not_of(" \t") == line.npos;
}
}  // namespace

Reader::Reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
    window_.reserve(kWindowEvents + 2);
    detect();
}

// The next line into line_ (without its "\n" or "\r\n"); false at the end.
bool Reader::read_line() {
    if (eof_) return false;
    buffer_.resize(kMaxLineBytes + 1);
    in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    auto got = static_cast<std::size_t>(in_.gcount());
    if (in_.bad())
        throw std::invalid_argument(name_ + ": read error after line " + std::to_string(line_no_));
    bool at_end = in_.eof();
    if (in_.fail() && !at_end) {
        eof_ = true;
        throw std::invalid_argument(name_ + " line " + std::to_string(line_no_ + 1) +
                                    ": longer than " + std::to_string(kMaxLineBytes) + " bytes");
    }
    if (at_end) eof_ = true;
    if (got == 0 && at_end) return false;
    ++line_no_;
    line_ = std::string_view(buffer_.data(), at_end ? got : got - 1);
    if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    return true;
}

void Reader::detect() {
    while (read_line()) {
        std::size_t first = line_.find_first_not_of(" \t");
        if (first == line_.npos) continue;
        std::string_view text = line_.substr(first);
        auto words = detail::split(text);
        pending_line_ = true;
        if (text.starts_with("fio version 2 iolog")) {
            format_ = Format::fio_v2;
            pending_line_ = false;
        } else if (text.starts_with("fio version 3 iolog")) {
            format_ = Format::fio_v3;
            pending_line_ = false;
        } else if (text[0] == '{') {
            format_ = Format::io_log;
        } else if (text[0] == '#' || detail::looks_like_tracefs(text)) {
            format_ = Format::tracefs;
        } else if (detail::is_major_minor(words[0])) {
            format_ = Format::blkparse;
        } else {
            throw std::invalid_argument(
                name_ + " line " + std::to_string(line_no_) + ": \"" + shown(line_) +
                "\" is not a known trace format (expected \"fio version 2 iolog\", \"fio version "
                "3 iolog\", blkparse text, tracefs block events or a drivestress io-log)");
        }
        return;
    }
    throw std::invalid_argument(name_ + ": an empty trace: no I/O events");
}

detail::Parsed Reader::parse(std::string_view line) {
    switch (format_) {
        case Format::fio_v2:
            return detail::parse_fio(line, 2, devices_, state_);
        case Format::fio_v3:
            return detail::parse_fio(line, 3, devices_, state_);
        case Format::blkparse:
            return detail::parse_blkparse(line, devices_, state_);
        case Format::tracefs:
            return detail::parse_tracefs(line, devices_);
        case Format::io_log:
            return detail::parse_io_log(line, devices_);
    }
    return {};
}

void Reader::fail_line(std::string_view reason) const {
    throw std::invalid_argument(name_ + " line " + std::to_string(line_no_) + ": \"" +
                                shown(line_) + "\" is not " + string(detail::line_kind(format_)) +
                                " (expected " + string(detail::grammar(format_)) + ": " +
                                string(reason) + ")");
}

// One more line into the window; false at the end of the input.
bool Reader::read_more() {
    if (pending_line_) {
        pending_line_ = false;
    } else if (!read_line()) {
        return false;
    }
    if (blank(line_)) return true;
    detail::Parsed parsed;
    try {
        parsed = parse(line_);
    } catch (const std::invalid_argument& e) {
        fail_line(e.what());
    }
    if (parsed.skipped) ++skipped_;
    lost_events_ += parsed.lost;
    if (parsed.other_phase) ++other_phase_;
    if (parsed.count > 0 && format_ == Format::tracefs &&
        !keep_tracefs(parsed.events[0].rq_issue)) {
        ++skipped_;
        return true;
    }
    for (int i = 0; i < parsed.count; ++i)
        admit(parsed.events[i]);
    return true;
}

// block_bio_queue wins over block_rq_issue once seen, until the first event
// is given out; rq_issue alone up to then decides for rq_issue.
bool Reader::keep_tracefs(bool rq_issue) {
    if (rq_issue) return tracefs_kind_ != TracefsKind::bio_queue;
    if (tracefs_kind_ == TracefsKind::undecided) {
        tracefs_kind_ = TracefsKind::bio_queue;
        purge_rq_issue();
    }
    return tracefs_kind_ == TracefsKind::bio_queue;
}

void Reader::purge_rq_issue() {
    std::unordered_set<std::uint64_t> lines;
    auto dropped = std::remove_if(window_.begin(), window_.end(), [&](const Pending& p) {
        if (!p.raw.rq_issue) return false;
        lines.insert(p.line);
        if (p.late) --reordered_;
        return true;
    });
    window_.erase(dropped, window_.end());
    std::make_heap(window_.begin(), window_.end(), later);
    newest_ns_ = 0;  // nothing was given out yet: the newest is in the window
    for (const Pending& p : window_)
        if (p.raw.time_ns >= newest_ns_) newest_ns_ = p.raw.time_ns, newest_line_ = p.line;
    skipped_ += lines.size();
}

bool Reader::later(const Pending& a, const Pending& b) {
    return a.raw.time_ns != b.raw.time_ns ? a.raw.time_ns > b.raw.time_ns : a.seq > b.seq;
}

// Two rules, each refusing on its own: an event more than kWindowNs
// before the latest one read (however few events apart), and one before an
// event already given out (more than kWindowEvents back).
void Reader::admit(const detail::RawEvent& raw) {
    if (newest_ns_ > kWindowNs && raw.time_ns < newest_ns_ - kWindowNs)
        fail_line("at " + seconds_text(raw.time_ns) + " it comes " +
                  seconds_text(newest_ns_ - raw.time_ns) + " before the event of line " +
                  std::to_string(newest_line_) + " at " + seconds_text(newest_ns_) +
                  ": time steps back by more than " + seconds_text(kWindowNs));
    if (emitted_any_ && raw.time_ns < last_emitted_ns_)
        fail_line("at " + seconds_text(raw.time_ns) + " it comes before the event of line " +
                  std::to_string(last_emitted_line_) + " at " + seconds_text(last_emitted_ns_) +
                  ", already given out: out of time order by more than " +
                  std::to_string(kWindowEvents) + " events");
    Pending pending{raw, seq_++, line_no_, raw.time_ns < newest_ns_};
    if (pending.late) ++reordered_;
    if (raw.time_ns >= newest_ns_) newest_ns_ = raw.time_ns, newest_line_ = line_no_;
    window_.push_back(pending);
    std::push_heap(window_.begin(), window_.end(), later);
}

bool Reader::window_full() const {
    return window_.size() > kWindowEvents ||
           (!window_.empty() && newest_ns_ - window_.front().raw.time_ns > kWindowNs);
}

Event Reader::pop() {
    if (tracefs_kind_ == TracefsKind::undecided) tracefs_kind_ = TracefsKind::rq_issue;
    std::pop_heap(window_.begin(), window_.end(), later);
    Pending p = window_.back();
    window_.pop_back();
    if (!emitted_any_) first_ns_ = p.raw.time_ns;
    emitted_any_ = true;
    last_emitted_ns_ = p.raw.time_ns;
    last_emitted_line_ = p.line;
    Event e;
    e.due_ns = p.raw.time_ns - first_ns_;
    e.op = p.raw.op;
    e.offset = p.raw.offset;
    e.length = p.raw.length;
    e.device = p.raw.device;
    e.fua = p.raw.fua;
    e.line = p.line;
    return e;
}

std::optional<Event> Reader::next() {
    while (!window_full() && read_more()) {
    }
    if (window_.empty()) {
        if (!emitted_any_ && other_phase_)
            throw std::invalid_argument(
                name_ + ": no I/O events of the random phase (" + std::to_string(other_phase_) +
                (other_phase_ == 1 ? " record" : " records") + " of other phases left out)");
        if (!emitted_any_) throw std::invalid_argument(name_ + ": an empty trace: no I/O events");
        return std::nullopt;
    }
    return pop();
}

}  // namespace ds::trace
