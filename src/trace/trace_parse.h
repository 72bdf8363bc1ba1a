// One line of a trace into at most two raw events: the format parsers behind
// trace::Reader.  A parser throws std::invalid_argument carrying only the
// reason ("unknown RWBS \"XW\""); the Reader adds the input's name, the line
// and the grammar expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/event.h"

namespace ds::trace::detail {

// Device names in order of first appearance.
struct Devices {
    std::vector<std::string> names;
    std::unordered_map<std::string, std::uint32_t> ids;
    std::uint32_t index(std::string_view name);  // throws past kMaxDevices
};
inline constexpr std::size_t kMaxDevices = 65536;

struct RawEvent {
    std::uint64_t time_ns = 0;  // the trace's own clock
    Op op = Op::read;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::uint32_t device = 0;
    bool fua = false;
    bool rq_issue = false;  // tracefs block_rq_issue
};

struct Parsed {
    RawEvent events[2];
    int count = 0;
    bool skipped = false;      // a line skipped on purpose (counted)
    std::uint64_t lost = 0;    // tracefs "[LOST N EVENTS]": N events the capture lost
    bool other_phase = false;  // an io-log record of a phase other than random
    void add(const RawEvent& e) { events[count++] = e; }
};

// What a format remembers from line to line.
struct State {
    std::uint64_t fio_wait_ns = 0;  // fio v2: the latest wait mark
    bool blkparse_trailer = false;  // blkparse: inside the summary after the events
};

// The grammar named in a message, quoted: "\"MAJ,MIN CPU SEQ SECONDS ...\"".
std::string_view grammar(Format f);
// "a blkparse event", "a fio iolog v3 line", ...
std::string_view line_kind(Format f);

Parsed parse_fio(std::string_view line, int version, Devices& devices, State& state);
Parsed parse_blkparse(std::string_view line, Devices& devices, State& state);
Parsed parse_tracefs(std::string_view line, Devices& devices);
Parsed parse_io_log(std::string_view line, Devices& devices);
// A tracefs line without the "#" header (trace_pipe): " [CPU] ... SECONDS:".
bool looks_like_tracefs(std::string_view line);

// Shared pieces (trace_text.cpp).
std::vector<std::string_view> split(std::string_view line);
std::uint64_t parse_u64(std::string_view text, std::string_view what);
// "SECONDS[.FRACTION]" (at most 9 fraction digits) to ns; rejects negatives.
std::uint64_t parse_seconds(std::string_view text);
std::uint64_t multiply(std::uint64_t a, std::uint64_t b, std::string_view what);
// A data event's offset + length must fit in 64 bits and length be > 0.
void check_extent(Op op, std::uint64_t offset, std::uint64_t length);
// The operation of an RWBS string into events (512-byte sectors).
void add_block_events(Parsed& out, std::string_view rwbs, RawEvent base, std::uint64_t sector,
                      std::uint64_t sectors);
// "7,0": MAJ,MIN checked.
bool is_major_minor(std::string_view text);

}  // namespace ds::trace::detail
