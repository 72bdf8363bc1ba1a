// The pieces every text format shares: words, numbers, seconds, RWBS.
#include <charconv>
#include <limits>
#include <stdexcept>
#include <string>

#include "trace/trace_parse.h"

namespace ds::trace {

std::string_view to_string(Format f) {
    switch (f) {
        case Format::fio_v2:
            return "fio iolog v2";
        case Format::fio_v3:
            return "fio iolog v3";
        case Format::blkparse:
            return "blkparse text";
        case Format::tracefs:
            return "tracefs block events";
        case Format::io_log:
            return "drivestress io-log";
    }
    return "?";
}

std::string_view to_string(Op op) {
    switch (op) {
        case Op::read:
            return "read";
        case Op::write:
            return "write";
        case Op::trim:
            return "trim";
        case Op::flush:
            return "flush";
        case Op::sync:
            return "sync";
    }
    return "?";
}

namespace detail {

namespace {
using std::string;

constexpr std::uint64_t kSector = 512;

bool is_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}
}  // namespace

std::uint32_t Devices::index(std::string_view name) {
    auto found = ids.find(string(name));
    if (found != ids.end()) return found->second;
    if (names.size() >= kMaxDevices)
        throw std::invalid_argument("more than " + std::to_string(kMaxDevices) + " devices");
    auto id = static_cast<std::uint32_t>(names.size());
    names.emplace_back(name);
    ids.emplace(string(name), id);
    return id;
}

std::string_view grammar(Format f) {
    switch (f) {
        case Format::fio_v2:
            return "\"FILE add|open|close\", \"FILE read|write|trim OFFSET LENGTH\", "
                   "\"FILE sync|datasync\" or \"FILE wait MILLISECONDS\"";
        case Format::fio_v3:
            return "\"MICROSECONDS FILE add|open|close\" or \"MICROSECONDS FILE "
                   "read|write|trim|sync|datasync OFFSET LENGTH\"";
        case Format::blkparse:
            return "\"MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + COUNT [PROCESS]\"";
        case Format::tracefs:
            return "\"TASK-PID [CPU] FLAGS SECONDS: block_bio_queue: MAJ,MIN RWBS SECTOR + COUNT "
                   "[COMM]\"";
        case Format::io_log:
            return "one JSON object: {\"target\":N,\"op\":\"read|write|trim|flush\","
                   "\"offset\":BYTES,\"length\":BYTES,\"due_ns\":NS|null,\"submit_ns\":NS}";
    }
    return "?";
}

std::string_view line_kind(Format f) {
    switch (f) {
        case Format::fio_v2:
            return "a fio iolog v2 line";
        case Format::fio_v3:
            return "a fio iolog v3 line";
        case Format::blkparse:
            return "a blkparse event";
        case Format::tracefs:
            return "a tracefs block event";
        case Format::io_log:
            return "a drivestress io-log record";
    }
    return "?";
}

std::vector<std::string_view> split(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

std::uint64_t parse_u64(std::string_view text, std::string_view what) {
    if (!text.empty() && text[0] == '-')
        throw std::invalid_argument("negative " + string(what) + " \"" + string(text) + "\"");
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(string(what) + " \"" + string(text) + "\" overflows 64 bits");
    if (ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument(string(what) + " \"" + string(text) + "\" is not a number");
    return value;
}

std::uint64_t multiply(std::uint64_t a, std::uint64_t b, std::string_view what) {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b)
        throw std::invalid_argument(string(what) + " " + std::to_string(a) + " overflows 64 bits");
    return a * b;
}

std::uint64_t parse_seconds(std::string_view text) {
    if (!text.empty() && text[0] == '-')
        throw std::invalid_argument("negative timestamp \"" + string(text) + "\"");
    auto dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (!is_digits(whole) || (dot != std::string_view::npos && !is_digits(fraction)) ||
        fraction.size() > 9)
        throw std::invalid_argument("timestamp \"" + string(text) + "\" is not SECONDS.FRACTION");
    std::uint64_t ns = 0;
    for (std::size_t i = 0; i < 9; ++i)
        ns = ns * 10 + (i < fraction.size() ? static_cast<std::uint64_t>(fraction[i] - '0') : 0);
    std::uint64_t seconds = multiply(parse_u64(whole, "timestamp"), 1'000'000'000, "timestamp");
    if (seconds > std::numeric_limits<std::uint64_t>::max() - ns)
        throw std::invalid_argument("timestamp \"" + string(text) + "\" overflows 64 bits");
    return seconds + ns;
}

void check_extent(Op op, std::uint64_t offset, std::uint64_t length) {
    if (op == Op::flush || op == Op::sync) return;
    if (length == 0) throw std::invalid_argument("a " + string(to_string(op)) + " of 0 bytes");
    if (offset > std::numeric_limits<std::uint64_t>::max() - length)
        throw std::invalid_argument("offset " + std::to_string(offset) + " + length " +
                                    std::to_string(length) + " overflows 64 bits");
}

bool is_major_minor(std::string_view text) {
    auto comma = text.find(',');
    return comma != std::string_view::npos && is_digits(text.substr(0, comma)) &&
           is_digits(text.substr(comma + 1));
}

namespace {
// RWBS: [F] OP [F][A][S][M] (the kernel's blk_fill_rwbs, blkparse's fill_rwbs).
struct Rwbs {
    char op = 'R';  // R W D F N Z
    bool preflush = false;
    bool fua = false;
};

[[noreturn]] void unknown_rwbs(std::string_view s) {
    throw std::invalid_argument("unknown RWBS \"" + string(s) + "\"");
}

Rwbs parse_rwbs(std::string_view s) {
    constexpr std::string_view kOps = "RWDFNZ";
    Rwbs r;
    std::size_t i = 0;
    if (s.size() > 1 && s[0] == 'F' && kOps.find(s[1]) != std::string_view::npos) {
        r.preflush = true;
        i = 1;
    }
    if (i >= s.size() || kOps.find(s[i]) == std::string_view::npos) unknown_rwbs(s);
    r.op = s[i++];
    if (r.op == 'D' && i < s.size() && s[i] == 'E') ++i;  // secure erase
    if (r.op == 'Z') {                                    // zone op: two or three letters
        if (i >= s.size()) unknown_rwbs(s);
        i += (s.substr(i, 2) == "RA") ? 2 : 1;
    }
    for (char flag : std::string_view("FASM")) {
        if (i < s.size() && s[i] == flag) {
            if (flag == 'F') r.fua = true;
            ++i;
        }
    }
    if (i != s.size()) unknown_rwbs(s);
    return r;
}
}  // namespace

void add_block_events(Parsed& out, std::string_view rwbs, RawEvent base, std::uint64_t sector,
                      std::uint64_t sectors) {
    Rwbs r = parse_rwbs(rwbs);
    RawEvent flush = base;
    flush.op = Op::flush;
    if (r.op == 'F' || ((r.op == 'N' || r.op == 'Z' || sectors == 0) && r.preflush)) {
        out.add(flush);  // a flush request, or a preflush carrying no data
        return;
    }
    if (r.op == 'N' || r.op == 'Z') {
        out.skipped = true;  // no data to replay, or a zone operation
        return;
    }
    base.op = r.op == 'R' ? Op::read : (r.op == 'W' ? Op::write : Op::trim);
    base.offset = multiply(sector, kSector, "sector");
    base.length = multiply(sectors, kSector, "sector count");
    base.fua = r.fua && base.op == Op::write;
    check_extent(base.op, base.offset, base.length);
    if (r.preflush) out.add(flush);
    out.add(base);
}

}  // namespace detail
}  // namespace ds::trace
