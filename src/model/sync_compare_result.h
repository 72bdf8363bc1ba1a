// --sync-compare's table: one row per way of making writes durable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "stats/histogram.h"

namespace ds::model {

// One row of --sync-compare.
struct SyncCompareRow {
    SyncMethod method = SyncMethod::none;  // osync/dsync: the file opened O_SYNC/O_DSYNC
    std::uint32_t write_bytes = 4096;      // bytes per write
    unsigned writes_per_op = 1;            // >1: one durable operation is that many writes
    bool group = false;     // one of the O_SYNC rows writing 16K per operation (1x16K, 2x8K, 4x4K)
    bool available = true;  // false: the filesystem refused the method
    std::string reason;     // why not available (one line)
    std::uint64_t ops = 0;  // durable operations completed
    double seconds = 0;
    stats::LatencyHistogram latency;  // per durable operation: its writes and its flush
    std::uint64_t verified_bytes = 0;
    std::uint64_t mismatches = 0;  // read back wrong, or a write or flush failed

    double ops_per_sec() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0.0; }
};

struct SyncCompareResult {
    double row_s = 0;           // time per row (when row_ops is 0)
    std::uint64_t row_ops = 0;  // durable operations per row (0: by time)
    bool direct_io = true;
    std::vector<SyncCompareRow> rows;
    bool interrupted = false;
};

}  // namespace ds::model
