// fio's iolog, versions 2 and 3 (fio iolog.c read_iolog(), log_io_u()).
//
// v3 leads every line with the microseconds since the log started
// (log_io_u() prints utime_since_now(&td->io_log_start_time); fio 3.33 here
// wrote "619 /dev/shm/h36fio.dat read 61440 4096").  fio replays the
// difference between two timestamps as a delay in microseconds
// (delay_since_ttime(), iolog_delay()).
//
// v2 has no timestamps; "FILE wait N" is fio's only clock.  read_iolog_get()
// sleeps while mtime_since_genesis() < N: N is milliseconds since fio
// started, an absolute mark, not the HOWTO's "microseconds relative to the
// previous wait".  The events after it are due no earlier than N ms.  fio
// reads a wait with sscanf "%s %s %llu %u" and needs the fourth field; we
// take it or leave it.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "trace/trace_parse.h"

namespace ds::trace::detail {

namespace {
using std::string;

bool is_file_action(std::string_view a) {
    return a == "add" || a == "open" || a == "close";
}

// fio's io_ddir_name() words; sync_file_range and syncfs are written by fio
// but not read back by it: a sync here.
bool to_op(std::string_view a, Op& op) {
    if (a == "read")
        op = Op::read;
    else if (a == "write")
        op = Op::write;
    else if (a == "trim")
        op = Op::trim;
    else if (a == "sync" || a == "datasync" || a == "sync_file_range" || a == "syncfs")
        op = Op::sync;
    else
        return false;
    return true;
}

// "FILE ACTION [OFFSET LENGTH]" (w without the v3 timestamp) into out.
void fio_action(Parsed& out, std::span<const std::string_view> w, RawEvent base, Devices& devices) {
    std::string_view action = w[1];
    Op op = Op::read;
    if (is_file_action(action)) {
        if (w.size() != 2)
            throw std::invalid_argument("\"" + string(action) + "\" takes no OFFSET LENGTH");
        devices.index(w[0]);
        out.skipped = true;
        return;
    }
    if (!to_op(action, op))
        throw std::invalid_argument("unknown action \"" + string(action) + "\"");
    bool sync = op == Op::sync;
    if (w.size() != 4 && !(sync && w.size() == 2))
        throw std::invalid_argument("\"" + string(action) + "\" needs OFFSET LENGTH");
    base.op = op;
    if (!sync) {
        base.offset = parse_u64(w[2], "offset");
        base.length = parse_u64(w[3], "length");
        check_extent(op, base.offset, base.length);
    }
    base.device = devices.index(w[0]);
    out.add(base);
}
}  // namespace

Parsed parse_fio(std::string_view line, int version, Devices& devices, State& state) {
    Parsed out;
    auto words = split(line);
    std::span<const std::string_view> w(words);
    if (line.starts_with("fio version ")) {  // a second job's header, appended
        out.skipped = true;
        return out;
    }
    RawEvent base;
    if (version == 3) {
        if (w.empty()) throw std::invalid_argument("no timestamp");
        base.time_ns = multiply(parse_u64(w[0], "timestamp"), 1000, "timestamp");
        w = w.subspan(1);
    }
    if (w.size() < 2) throw std::invalid_argument("too few fields");
    if (w[1] == "wait") {
        out.skipped = version == 3;  // fio ignores a wait in v3; in v2 it is the clock
        if (version == 3) return out;
        if (w.size() != 3 && w.size() != 4)
            throw std::invalid_argument("\"wait\" needs MILLISECONDS");
        std::uint64_t mark = multiply(parse_u64(w[2], "wait"), 1'000'000, "wait");
        state.fio_wait_ns = std::max(state.fio_wait_ns, mark);
        devices.index(w[0]);
        return out;
    }
    if (version == 2) base.time_ns = state.fio_wait_ns;
    fio_action(out, w, base, devices);
    return out;
}

}  // namespace ds::trace::detail
