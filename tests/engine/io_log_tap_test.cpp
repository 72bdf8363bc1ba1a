// The worker's --io-log tap: one line per completed operation of a phase,
// named by its phase, offsets moved into the target's space, each read's
// verification outcome.
// suite threads: the worker's pushes against IoLog's writer thread
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/worker.h"
#include "io/sync_backend.h"
#include "output/io_log.h"
#include "temp_file.h"
#include "worker_plan.h"

using namespace ds;
using model::Phase;

namespace {

constexpr std::uint64_t kFileBytes = 1ULL << 20;
constexpr std::uint32_t kUnit = 4096;
constexpr std::uint32_t kSeqBlock = 64 * 1024;

// One worker's plan: reads and writes of one unit, four in flight (its
// backend is the single-threaded sync one: one at a time).
model::WorkerPlan plan() {
    model::WorkerPlan w;
    w.file_bytes = kFileBytes;
    w.unit = w.rand_block = w.max_rand_block = kUnit;
    w.seq_block = kSeqBlock;
    w.seq_depth = w.rand_depth = 4;
    w.read_pct = 50;
    return w;
}

// A worker on a file of its own, logging to a file removed at the end.
struct Fixture {
    test::TempFile data{kFileBytes};
    std::string log_path = data.path + ".ndjson";
    std::atomic<bool> stop{false};
    model::WorkerPlan work = test::fitted(plan(), 1);
    engine::Worker worker{test::one_worker_plan(plan()), 0,   data.path, data.fd, 7,
                          pattern::data_id_from_seed(7), stop};
    Fixture() { worker.set_backend(std::make_unique<io::SyncBackend>(data.fd)); }
    ~Fixture() { ::unlink(log_path.c_str()); }
    engine::PhaseOutcome phase(Phase p) {
        engine::PhaseOrder order;
        order.phase = p;
        order.work = &work;
        return worker.run(order);
    }
};

std::vector<nlohmann::json> lines_of(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        out.push_back(nlohmann::json::parse(line));
    return out;
}

}  // namespace

TEST_CASE("every operation is a line, in the target's space, reads with their outcome") {
    Fixture f;
    constexpr std::uint64_t kBase = 3 * kFileBytes;  // the worker's file is the fourth
    {
        output::IoLog log(f.log_path, output::IoLogFormat::ndjson, 1, {"t0", "t1"},
                          engine::monotonic_ns());
        f.worker.set_io_log({&log, 0, 1, kBase});
        const auto w = f.phase(Phase::seq_write);
        // One unit damaged: the read that covers it is the one mismatch.
        const std::uint64_t bad = 5 * kUnit + 17;
        unsigned char byte = 0;
        REQUIRE(::pread(f.data.fd, &byte, 1, bad) == 1);
        byte ^= 0x40;
        REQUIRE(::pwrite(f.data.fd, &byte, 1, bad) == 1);
        const auto r = f.phase(Phase::seq_read);
        CHECK(log.finish() == "");
        CHECK(log.dropped() == 0);
        CHECK(log.written() == w.counters.write_ops + r.counters.read_ops);
        CHECK(r.counters.mismatch_total() == 1);
    }
    const auto lines = lines_of(f.log_path);
    REQUIRE(lines.size() == 2 * kFileBytes / kSeqBlock);
    std::uint64_t write_bytes = 0, mismatches = 0;
    for (const auto& x : lines) {
        CHECK(x["target"] == 1);
        const std::uint64_t offset = x["offset"];
        CHECK(offset >= kBase);
        CHECK(offset + x["length"].get<std::uint64_t>() <= kBase + kFileBytes);
        CHECK(x["result"] == x["length"]);
        CHECK(x["due_ns"].is_null());
        CHECK(x["submit_ns"].get<std::uint64_t>() <= x["complete_ns"].get<std::uint64_t>());
        // Each line names its phase: the replay of a log takes the random ones.
        CHECK(x["phase"] == (x["op"] == "write" ? "seq-write" : "seq-read"));
        if (x["op"] == "write") {
            write_bytes += x["length"].get<std::uint64_t>();
            CHECK(x["verify"].is_null());
        } else if (x["verify"] == "mismatch") {
            ++mismatches;
            CHECK(offset == kBase);  // the first 64 KiB block holds unit 5
        } else {
            CHECK(x["verify"] == "ok");
        }
    }
    CHECK(write_bytes == kFileBytes);
    CHECK(mismatches == 1);
}

TEST_CASE("a read of content the run does not know is unverified") {
    Fixture f;
    {
        output::IoLog log(f.log_path, output::IoLogFormat::ndjson, 1, {"t0"},
                          engine::monotonic_ns());
        f.worker.set_io_log({&log, 0, 0, 0});
        f.phase(Phase::seq_read);  // nothing written yet: no generation to check
        CHECK(log.finish() == "");
    }
    const auto lines = lines_of(f.log_path);
    REQUIRE(lines.size() == kFileBytes / kSeqBlock);
    for (const auto& x : lines)
        CHECK(x["verify"] == "unverified");
}
