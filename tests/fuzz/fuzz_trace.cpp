// libFuzzer target for trace::Reader, what `--replay FILE` reads: the input
// is the trace.  Built once per format (tests/fuzz/meson.build): DS_FUZZ_PIN
// names a first line that fixes the format the rest is read as, so that each
// target spends its time in one grammar; `none` lets the reader tell the
// format itself.  The reader must give events or throw std::invalid_argument
// naming the input; any other exception, a crash, a sanitizer report or an
// event that breaks what trace_reader.h promises (checked below) is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "trace/trace_reader.h"

#ifndef DS_FUZZ_PIN
#define DS_FUZZ_PIN none
#endif

namespace {

using ds::trace::Event;
using ds::trace::Op;

enum class Pin { none, fio_v2, fio_v3, blkparse, tracefs, io_log };
constexpr Pin kPin = Pin::DS_FUZZ_PIN;

// A first line the reader takes for the format and that adds no event of
// its own where the format allows it (a skipped blkparse action, a tracefs
// comment).  The io-log has no line that is not a record: a flush at 0, the
// earliest time, so it never puts the input's events out of order.
std::string_view pin_line() {
    switch (kPin) {
        case Pin::none:
            return "";
        case Pin::fio_v2:
            return "fio version 2 iolog\n";
        case Pin::fio_v3:
            return "fio version 3 iolog\n";
        case Pin::blkparse:
            return "8,0 0 0 0.000000000 0 C R 0 + 8 [pin]\n";
        case Pin::tracefs:
            return "# tracer: nop\n";
        case Pin::io_log:
            return "{\"target\":0,\"op\":\"flush\",\"due_ns\":0}\n";
    }
    return "";
}

const std::string* g_trace;  // the trace being read, for the finding message

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_trace: %s; trace (%zu bytes): '%s'\n", what, g_trace->size(),
                 g_trace->c_str());
    std::abort();
}

bool is_data(Op op) {
    return op == Op::read || op == Op::write || op == Op::trim;
}

// What trace_reader.h and event.h promise about an event given out after
// `previous` (nullptr for the first).
void check_event(const Event& e, const Event* previous, const ds::trace::Reader& reader) {
    if (!previous && e.due_ns != 0) finding("the first event is not due at 0");
    if (previous && e.due_ns < previous->due_ns) finding("events out of time order");
    if (e.device >= reader.devices().size()) finding("device index past the names seen");
    if (e.line == 0) finding("line 0");
    if (is_data(e.op)) {
        if (e.length == 0) finding("a data event of 0 bytes");
        if (e.offset > std::numeric_limits<std::uint64_t>::max() - e.length)
            finding("offset + length overflows");
    } else if (e.op != Op::flush && e.op != Op::sync) {
        finding("an operation out of the enum");
    } else if (e.length != 0) {
        finding("a flush or sync with a length");
    }
    if (e.fua && e.op != Op::write) finding("fua on an operation other than a write");
}

void read_trace(const std::string& trace) {
    std::istringstream in(trace);
    ds::trace::Reader reader(in, "fuzz");
    if (kPin != Pin::none) {
        constexpr ds::trace::Format kFormats[] = {
            ds::trace::Format::io_log,   ds::trace::Format::fio_v2,  ds::trace::Format::fio_v3,
            ds::trace::Format::blkparse, ds::trace::Format::tracefs, ds::trace::Format::io_log};
        if (reader.format() != kFormats[static_cast<int>(kPin)])
            finding("the pin line did not fix the format");
    }
    const auto lines = static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n')) + 1;
    Event previous;
    std::uint64_t events = 0;
    while (auto e = reader.next()) {
        check_event(*e, events ? &previous : nullptr, reader);
        if (e->line > lines) finding("an event from past the last line");
        previous = *e;
        ++events;
    }
    // Each line is skipped at most once; each event put back in order is one given out.
    if (reader.skipped() > lines) finding("more lines skipped than the trace has");
    if (reader.reordered() > events) finding("more events reordered than given out");
    // An io-log record left out for its phase is a line neither given out nor skipped.
    if (reader.skipped() + reader.other_phase_records() > lines)
        finding("more lines left out than the trace has");
    if (reader.other_phase_records() && reader.format() != ds::trace::Format::io_log)
        finding("records of another phase outside an io-log");
    if (reader.lost_events() && reader.format() != ds::trace::Format::tracefs)
        finding("lost events outside a tracefs capture");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string trace(pin_line());
    trace.append(reinterpret_cast<const char*>(data), size);
    g_trace = &trace;
    try {
        read_trace(trace);
    } catch (const std::invalid_argument& e) {
        // The documented refusal, naming the input.
        if (!std::string_view(e.what()).starts_with("fuzz"))
            finding("a refusal that does not name the input");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_trace: unexpected exception: %s\n", e.what());
        finding("exception other than std::invalid_argument");
    } catch (...) {
        finding("non-standard exception");
    }
    return 0;
}
