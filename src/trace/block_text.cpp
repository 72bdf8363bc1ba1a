// The block layer's own words: blkparse's default text and the kernel's
// tracefs block events.  Both name the device "MAJ,MIN" and the operation by
// an RWBS string (trace_text.cpp).
//
// blkparse (blkparse_fmt.c, process_default): the header is
// "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " (device, CPU, sequence, seconds,
// PID, action, RWBS); a Q event goes on "SECTOR + COUNT [PROCESS]", or only
// "[PROCESS]" when it carries no sectors (a flush).
//
// tracefs on kernel 6.18 (events/block/*/format, a capture on a loop device):
//   "  mount-19785 [001] ..... 18988.727751: block_bio_queue: 7,0 RA 130944 + 8 [mount]"
//   "  kworker/1:2H-27062 [001] ..... 18988.737578: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0
//   [kworker/1:2H]"
// block_rq_issue: "MAJ,MIN RWBS BYTES (CMD) SECTOR + COUNT IOPRIO [COMM]"; the ioprio
// ("be,0,4") is newer than 6.x's first releases, so it is optional here.
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/trace_parse.h"

namespace ds::trace::detail {

namespace {
using std::string;

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// blkparse's actions (blkparse_fmt.c: process_default and the "UT", "m" notes).
bool known_blkparse_action(std::string_view a) {
    constexpr std::string_view kActions = "ABCDFGIMPQRSTUXm";
    return !a.empty() && a.size() <= 2 && kActions.find(a[0]) != std::string_view::npos;
}

// The summary blkparse prints after the events: "CPU0 (8,0):", "Total (8,0):".
bool starts_blkparse_trailer(const std::vector<std::string_view>& w) {
    return w.size() >= 2 && (starts_with(w[0], "CPU") || w[0] == "Total") && starts_with(w[1], "(");
}

// Where the " [CPU] " field of a tracefs line ends (just after ']'), or npos.
std::size_t after_cpu_field(std::string_view line) {
    for (std::size_t open = line.find(" ["); open != std::string_view::npos;
         open = line.find(" [", open + 1)) {
        std::size_t i = open + 2;
        std::size_t digits = i;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9')
            ++i;
        if (i > digits && i < line.size() && line[i] == ']') return i + 1;
    }
    return std::string_view::npos;
}

std::string_view without_colon(std::string_view word) {
    return word.empty() || word.back() != ':' ? std::string_view()
                                              : word.substr(0, word.size() - 1);
}

// "SECTOR + COUNT" at w[k]: the sector and the count.
std::pair<std::uint64_t, std::uint64_t> sectors_at(const std::vector<std::string_view>& w,
                                                   std::size_t k) {
    if (k + 2 >= w.size() || w[k + 1] != "+")
        throw std::invalid_argument("no \"SECTOR + COUNT\" after the RWBS");
    return {parse_u64(w[k], "sector"), parse_u64(w[k + 2], "sector count")};
}
}  // namespace

Parsed parse_blkparse(std::string_view line, Devices& devices, State& state) {
    Parsed out;
    auto w = split(line);
    if (w.empty() || !is_major_minor(w[0])) {
        if (starts_blkparse_trailer(w)) state.blkparse_trailer = true;
        if (state.blkparse_trailer) {
            out.skipped = true;
            return out;
        }
        throw std::invalid_argument("no MAJ,MIN device first");
    }
    if (w.size() < 7) throw std::invalid_argument("too few fields");
    parse_u64(w[1], "CPU");
    parse_u64(w[2], "sequence number");
    RawEvent base;
    base.time_ns = parse_seconds(w[3]);
    parse_u64(w[4], "PID");
    if (!known_blkparse_action(w[5]))
        throw std::invalid_argument("unknown action \"" + string(w[5]) + "\"");
    if (w[5] != "Q") {
        out.skipped = true;
        return out;
    }
    std::uint64_t sector = 0;
    std::uint64_t count = 0;
    if (w.size() > 7 && w[7][0] != '[' && w[7][0] != '(')
        std::tie(sector, count) = sectors_at(w, 7);
    base.device = devices.index(w[0]);
    add_block_events(out, w[6], base, sector, count);
    return out;
}

bool looks_like_tracefs(std::string_view line) {
    std::size_t end = after_cpu_field(line);
    if (end == std::string_view::npos) return false;
    auto w = split(line.substr(end));
    for (std::size_t k = 0; k < w.size() && k < 2; ++k)
        if (!without_colon(w[k]).empty()) return w[k].find('.') != std::string_view::npos;
    return false;
}

namespace {
// The payload of block_bio_queue or block_rq_issue, w[0] the device.
void tracefs_payload(Parsed& out, const std::vector<std::string_view>& w, bool rq_issue,
                     RawEvent base, Devices& devices) {
    if (w.size() < 2 || !is_major_minor(w[0]))
        throw std::invalid_argument("no \"MAJ,MIN RWBS\" after the event name");
    std::size_t k = 2;
    if (rq_issue) {  // BYTES (CMD): the command may hold spaces
        parse_u64(k < w.size() ? w[k] : "", "byte count");
        if (++k >= w.size() || w[k][0] != '(')
            throw std::invalid_argument("no (CMD) after the bytes");
        while (k < w.size() && w[k].back() != ')')
            ++k;
        ++k;
    }
    auto [sector, count] = sectors_at(w, k);
    base.device = devices.index(w[0]);
    base.rq_issue = rq_issue;
    add_block_events(out, w[1], base, sector, count);
}
}  // namespace

Parsed parse_tracefs(std::string_view line, Devices& devices) {
    Parsed out;
    std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '#') {
        out.skipped = true;  // the header, "##### CPU 1 buffer started ####"
        return out;
    }
    // "CPU:1 [LOST 184 EVENTS]": the per-CPU buffer overflowed; N events of
    // that CPU are missing here (kernel/trace/trace.c, print_trace_line).
    const std::size_t lost_at = line.find("[LOST ");
    const std::size_t lost_end = line.find(" EVENTS]");
    if (lost_at != std::string_view::npos && lost_end != std::string_view::npos &&
        lost_end > lost_at) {
        out.skipped = true;
        out.lost = parse_u64(line.substr(lost_at + 6, lost_end - lost_at - 6), "lost events");
        return out;
    }
    std::size_t end = after_cpu_field(line);
    if (end == std::string_view::npos) throw std::invalid_argument("no [CPU] field");
    auto w = split(line.substr(end));
    std::size_t k = 0;
    if (k < w.size() && without_colon(w[k]).empty()) ++k;  // the flags ("....."), if shown
    if (k + 1 >= w.size() || without_colon(w[k]).empty())
        throw std::invalid_argument("no \"SECONDS:\" after the CPU");
    RawEvent base;
    base.time_ns = parse_seconds(without_colon(w[k]));
    std::string_view event = without_colon(w[k + 1]);
    if (event.empty()) throw std::invalid_argument("no \"EVENT:\" after the timestamp");
    if (event != "block_bio_queue" && event != "block_rq_issue") {
        out.skipped = true;
        return out;
    }
    std::vector<std::string_view> payload(w.begin() + static_cast<std::ptrdiff_t>(k + 2), w.end());
    tracefs_payload(out, payload, event == "block_rq_issue", base, devices);
    return out;
}

}  // namespace ds::trace::detail
