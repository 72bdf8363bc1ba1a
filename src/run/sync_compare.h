// --sync-compare: a pg_test_fsync-style table.  Every --sync method at 4K,
// 8K and 16K writes, and O_SYNC 16K per operation as 1x16K, 2x8K and 4x4K,
// one durable write (the write, then its flush) at a time, on one file of
// the target; the latency of a row is that of a whole durable write.  Every
// row's writes are read back and verified before the next row starts.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/backend.h"
#include "model/config.h"
#include "model/phase_result.h"
#include "model/sync_compare_result.h"

namespace ds::run {

// Makes the backend of one row, for the row's own descriptor (tests wrap
// it to inject faults).
using BackendFactory =
    std::function<std::unique_ptr<io::Backend>(int fd, std::span<std::byte> buffers)>;
BackendFactory default_backend_factory(io::BackendKind kind);

struct SyncCompareSetup {
    std::string path;          // the file (exists, file_bytes long)
    int check_fd = -1;         // descriptor used to fill and to read back
    bool direct = true;        // rows open the file O_DIRECT (as asked: no fallback)
    bool check_direct = true;  // check_fd is O_DIRECT (else the cache is dropped to read back)
    std::uint64_t file_bytes = 0;
    std::uint64_t run_id = 0;
    double row_s = 2;             // per row, unless row_ops
    std::uint64_t row_ops = 0;    // durable writes per row (0: by time)
    BackendFactory make_backend;  // per row
    std::uint64_t data_id = 0;    // the payload's key (pattern::UnitIdentity::data_id)
    // The units' shape word (pattern::UnitShape: --compress and --dedupe).
    pattern::UnitShape shape = pattern::kSectorBytes;
};

// The rows in the order they run.
std::vector<model::SyncCompareRow> sync_compare_rows();

// Runs every row; read-back mismatches and failed writes or flushes go to
// `records` (capped) and `totals`.  Stops early on a signal or `stop`.
model::SyncCompareResult run_sync_compare(const SyncCompareSetup& setup, std::atomic<bool>& stop,
                                          std::vector<model::MismatchRecord>& records,
                                          model::ClassCounts& totals);

}  // namespace ds::run
