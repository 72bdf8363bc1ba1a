// What a line of --io-log holds, as a worker hands it to the log, and the
// log's two formats (output/io_log.h writes them).  Apart from IoLog so that the
// run's configuration (model/config.h, included nearly everywhere) names the
// format without the sink's threads and rings; the engine, which pushes to
// the sink, includes output/io_log.h itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ds::output {

enum class IoLogFormat { ndjson, fio };  // --io-log-format ndjson|fio

inline std::string_view to_string(IoLogFormat f) {
    return f == IoLogFormat::fio ? "fio" : "ndjson";
}

// One I/O as a worker hands it over; trivially copyable, 48 bytes.
struct IoRecord {
    std::uint64_t due_ns;                  // 0: none (closed loop)
    std::uint64_t submit_ns, complete_ns;  // monotonic ns
    std::uint64_t offset;                  // bytes, in the target's space
    std::uint32_t length;                  // bytes
    std::int32_t result;                   // bytes transferred, or -errno
    std::uint16_t target;                  // index into the log's targets
    std::uint8_t op;                       // IoLogOp
    std::uint8_t verify;                   // IoLogVerify
    std::uint8_t phase;                    // IoLogPhase
};

// Records each worker's ring of the log holds (IoLog): 3 MiB a worker.
inline constexpr std::size_t kIoLogRingRecords = std::size_t{1} << 16;

enum class IoLogOp : std::uint8_t { read, write, trim, flush };
// none: a write, trim or flush; unverified: a read of data the run did not write.
enum class IoLogVerify : std::uint8_t { none, ok, mismatch, unverified };
// The phase an I/O belongs to, numbered as model::Phase (model/config.h
// holds them equal); its words are the phases' own ("seq-write", ...).
enum class IoLogPhase : std::uint8_t { seq_write, seq_read, random, reverify };

}  // namespace ds::output
