// The words of a trace: its formats, its operations, one event.
#pragma once

#include <cstdint>
#include <string_view>

namespace ds::trace {

enum class Format { fio_v2, fio_v3, blkparse, tracefs, io_log };
// "fio iolog v2", "fio iolog v3", "blkparse text", "tracefs block events", "drivestress io-log"
std::string_view to_string(Format f);

// flush: a cache flush (REQ_PREFLUSH / 'F' with no data); sync: fio sync/datasync.
enum class Op { read, write, trim, flush, sync };
std::string_view to_string(Op op);  // "read", "write", "trim", "flush", "sync"

struct Event {
    std::uint64_t due_ns = 0;  // from the trace's first event (first event = 0)
    Op op = Op::read;
    std::uint64_t offset = 0;  // bytes
    std::uint64_t length = 0;  // bytes (0 for flush/sync)
    std::uint32_t device = 0;  // index of the traced device/file in order of first appearance
    bool fua = false;          // a write to reach stable media: replayed with RWF_DSYNC
    std::uint64_t line = 0;    // 1-based line number in the input
};

}  // namespace ds::trace
