#include "run/worker.h"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <utility>

#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "run/signals.h"

namespace ds::run {

std::uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace

WorkerGeometry make_geometry(const RunConfig& cfg, unsigned backend_depth) {
    WorkerGeometry g{};
    g.file_bytes = cfg.file_bytes;
    g.seq_block = cfg.seq_block;
    g.rand_block = cfg.rand_block;
    g.max_rand_block = cfg.max_rand_block();
    std::uint64_t units = cfg.file_bytes / cfg.rand_block;
    std::uint64_t seq_cap = std::max<std::uint64_t>(1, kSeqInflightBytes / cfg.seq_block);
    std::uint64_t blocks = (cfg.file_bytes + cfg.seq_block - 1) / cfg.seq_block;
    g.seq_depth = static_cast<unsigned>(std::min<std::uint64_t>(
        {cfg.qd, backend_depth, seq_cap, std::max<std::uint64_t>(1, blocks)}));
    // At most half the units in flight, so picking a free unit stays cheap.
    g.rand_depth = static_cast<unsigned>(
        std::min<std::uint64_t>({cfg.qd, backend_depth, std::max<std::uint64_t>(1, units / 2)}));
    g.read_pct = cfg.read_pct;
    g.verify = cfg.verify;
    return g;
}

Worker::Worker(const WorkerGeometry& geo, unsigned file_index, std::string path, int fd,
               std::uint64_t seed, std::uint64_t run_id, std::atomic<bool>& stop)
    : geo_(geo),
      file_index_(file_index),
      path_(std::move(path)),
      fd_(fd),
      seed_(seed),
      run_id_(run_id),
      stop_(stop),
      units_(geo.file_bytes / geo.rand_block),
      unit_shift_(static_cast<unsigned>(__builtin_ctz(geo.rand_block))),
      gens_(units_, pattern::kUnknownGeneration),
      unit_in_flight_(units_, 0),
      arena_(std::max<std::uint64_t>(std::uint64_t{geo.seq_depth} * geo.seq_block,
                                     std::uint64_t{geo.rand_depth} * geo.max_rand_block)),
      slots_(std::max(geo.seq_depth, geo.rand_depth)) {
    for (std::size_t i = 0; i < slots_.size(); ++i)
        slots_[i].req.slot = static_cast<std::uint32_t>(i);
}

void Worker::open_backend(io::BackendKind kind, int fd) {
    backend_.reset();
    fd_ = fd;
    unsigned depth = static_cast<unsigned>(slots_.size());
    if (kind == io::BackendKind::io_uring)
        backend_ = std::make_unique<io::UringBackend>(fd_, depth, arena_.span(), base_);
    else
        backend_ = std::make_unique<io::SyncBackend>(fd_, base_);
}

void Worker::reset_generations() {
    std::fill(gens_.begin(), gens_.end(), pattern::kUnknownGeneration);
}

std::uint64_t Worker::next_random() {
    // xorshift128+: cheap, and only picks offsets and read/write.
    std::uint64_t s1 = rng_state_[0];
    const std::uint64_t s0 = rng_state_[1];
    rng_state_[0] = s0;
    s1 ^= s1 << 23;
    rng_state_[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return rng_state_[1] + s0;
}

void Worker::fill_for_write(std::byte* buf, std::uint64_t offset, std::uint32_t length) {
    const std::uint32_t u = geo_.rand_block;
    pattern::UnitIdentity id{run_id_, file_index_, offset, 1, u};
    for (std::uint32_t done = 0; done < length; done += u) {
        std::uint64_t unit = (offset + done) >> unit_shift_;
        gens_[unit] = pattern::next_generation(gens_[unit]);
        id.offset = offset + done;
        id.generation = gens_[unit];
        pattern::fill_unit({buf + done, u}, id);
    }
}

void Worker::forget_range(std::uint64_t offset, std::uint32_t length) {
    const std::uint32_t u = geo_.rand_block;
    for (std::uint64_t o = offset / u * u; o < offset + length; o += u)
        gens_[o >> unit_shift_] = pattern::kUnknownGeneration;
}

void Worker::record(const PhasePlan& plan, PhaseCounters& c, MismatchRecord rec) {
    ++c.mismatches[static_cast<std::size_t>(rec.cls)];
    if (records_.size() >= RunResult::kMaxRecords) return;
    rec.iteration = plan.iteration;
    rec.phase = plan.phase;
    rec.file_index = file_index_;
    rec.path = path_;
    rec.offset += base_;  // absolute on a raw device
    rec.unit_offset += base_;
    records_.push_back(std::move(rec));
}

void Worker::verify_block(const PhasePlan& plan, const std::byte* buf, std::uint64_t offset,
                          std::uint32_t length, PhaseCounters& c) {
    const std::uint32_t u = geo_.rand_block;
    pattern::UnitIdentity id{run_id_, file_index_, offset, 1, u};
    for (std::uint32_t done = 0; done < length; done += u) {
        id.offset = offset + done;
        id.generation = gens_[id.offset >> unit_shift_];
        if (id.generation == pattern::kUnknownGeneration) {
            ++c.unverified_units;
            continue;
        }
        std::span<const std::byte> unit{buf + done, u};
        std::size_t bad = pattern::first_mismatch(unit, id);
        c.verified_bytes += u;
        if (bad == u) continue;
        pattern::Diagnosis d = pattern::diagnose(unit, id);
        MismatchRecord rec;
        rec.offset = id.offset + d.first_bad_byte;
        rec.unit_offset = id.offset;
        rec.length = u;
        rec.cls = d.cls;
        rec.bad_bytes = d.bad_bytes;
        rec.expected_generation = id.generation;
        rec.found = d.found;
        record(plan, c, std::move(rec));
    }
}

std::vector<IntervalStats> Worker::take_intervals() {
    std::lock_guard lk(intervals_mutex_);
    return std::exchange(intervals_, {});
}

Worker::Outcome Worker::run(const PhasePlan& plan) {
    Outcome out;
    PhaseCounters& c = out.counters;
    const bool random = plan.phase == Phase::random;
    const bool writes = plan.phase == Phase::seq_write;
    const std::uint32_t block =
        random ? (plan.rand_block ? plan.rand_block : geo_.rand_block) : geo_.seq_block;
    // Random blocks are aligned to their size, so two never partly overlap
    // and the unit at a block's start stands for the whole block in the
    // in-flight map.  At most half of them in flight keeps picking cheap.
    const std::uint64_t rand_blocks = geo_.file_bytes / block;
    const unsigned block_shift = static_cast<unsigned>(__builtin_ctz(block)) - unit_shift_;
    const unsigned rand_depth = static_cast<unsigned>(std::min<std::uint64_t>(
        plan.depth ? plan.depth : geo_.rand_depth, std::max<std::uint64_t>(1, rand_blocks / 2)));
    const unsigned depth = std::min({random ? rand_depth : geo_.seq_depth,
                                     static_cast<unsigned>(slots_.size()), backend_->depth()});
    const bool verify = geo_.verify;
    progress_bytes.store(0, std::memory_order_relaxed);
    progress_ops.store(0, std::memory_order_relaxed);

    std::uint64_t rs = seed_ ^ (std::uint64_t{file_index_} << 32) ^ (plan.iteration * 0x9E37ULL);
    rng_state_[0] = splitmix64(rs) | 1;
    rng_state_[1] = splitmix64(rs);

    std::vector<std::uint32_t> free_slots(depth);
    for (unsigned i = 0; i < depth; ++i)
        free_slots[i] = depth - 1 - i;
    std::vector<io::Request*> fresh(depth);
    std::vector<io::Completion> done(depth);

    std::uint64_t next_offset = 0;
    std::uint64_t issued = 0;
    std::uint64_t completed = 0;
    std::uint64_t now = monotonic_ns();
    unsigned in_flight = 0;
    bool exhausted = false;  // no more work in this phase (not a stop)

    // --timeseries: counters at the start of the current second, and that
    // second's latencies; published when a completion lands in a later second.
    const bool intervals = plan.intervals_from_ns != 0;
    IntervalStats interval;
    PhaseCounters at_interval_start;
    std::uint64_t next_boundary = plan.intervals_from_ns + 1'000'000'000ULL;
    auto publish_interval = [&] {
        interval.read_ops = c.read_ops - at_interval_start.read_ops;
        interval.write_ops = c.write_ops - at_interval_start.write_ops;
        interval.read_bytes = c.read_bytes - at_interval_start.read_bytes;
        interval.write_bytes = c.write_bytes - at_interval_start.write_bytes;
        interval.mismatches = c.mismatch_total() - at_interval_start.mismatch_total();
        at_interval_start.read_ops = c.read_ops;
        at_interval_start.write_ops = c.write_ops;
        at_interval_start.read_bytes = c.read_bytes;
        at_interval_start.write_bytes = c.write_bytes;
        at_interval_start.mismatches = c.mismatches;
        std::lock_guard lk(intervals_mutex_);
        intervals_.push_back(interval);
        interval.latency.reset();
    };

    auto more_work = [&]() -> bool {
        if (random) {
            if (plan.op_limit && issued >= plan.op_limit) return false;
            if (plan.deadline_ns && now >= plan.deadline_ns) return false;
            return true;
        }
        return next_offset < geo_.file_bytes;
    };

    while (true) {
        unsigned n_fresh = 0;
        while (in_flight < depth) {
            if (stop_.load(std::memory_order_relaxed) || stop_signal() != 0) {
                out.completed = false;
                break;
            }
            if (!more_work()) {
                exhausted = true;
                break;
            }
            std::uint32_t si = free_slots.back();
            free_slots.pop_back();
            Slot& s = slots_[si];
            io::Request& r = s.req;
            r.buf = arena_.data() + std::size_t{si} * block;
            if (random) {
                std::uint64_t first_unit;
                do {
                    first_unit = (next_random() % rand_blocks) << block_shift;
                } while (unit_in_flight_[first_unit]);
                unit_in_flight_[first_unit] = 1;
                r.offset = first_unit << unit_shift_;
                r.length = block;
                bool is_read = (next_random() % 100) < geo_.read_pct;
                r.kind = is_read ? io::OpKind::read : io::OpKind::write;
            } else {
                r.offset = next_offset;
                r.length = static_cast<std::uint32_t>(
                    std::min<std::uint64_t>(block, geo_.file_bytes - next_offset));
                next_offset += r.length;
                r.kind = writes ? io::OpKind::write : io::OpKind::read;
            }
            if (r.kind == io::OpKind::write) fill_for_write(r.buf, r.offset, r.length);
            s.first_offset = r.offset;
            s.first_length = r.length;
            s.first_buf = r.buf;
            backend_->prepare(r);
            fresh[n_fresh++] = &r;
            ++in_flight;
            ++issued;
        }
        if (in_flight == 0) break;

        // One clock reading stamps the whole batch; one more per reap.
        now = monotonic_ns();
        for (unsigned i = 0; i < n_fresh; ++i)
            fresh[i]->submit_ns = now;
        std::size_t n = backend_->reap(done, 1);
        now = monotonic_ns();
        if (intervals && now >= next_boundary) {
            publish_interval();
            interval.second = (now - plan.intervals_from_ns) / 1'000'000'000ULL;
            next_boundary = plan.intervals_from_ns + (interval.second + 1) * 1'000'000'000ULL;
        }

        for (std::size_t i = 0; i < n; ++i) {
            io::Request& r = *done[i].req;
            Slot& s = slots_[r.slot];
            const std::int32_t res = done[i].result;
            const bool is_read = r.kind == io::OpKind::read;
            if (res == -EAGAIN || res == -EINTR) {
                ++c.retries;
                backend_->prepare(r);
                continue;
            }
            if (res > 0 && static_cast<std::uint32_t>(res) < r.length) {
                // Short transfer: finish the rest, as one operation.
                ++c.retries;
                r.offset += static_cast<std::uint32_t>(res);
                r.buf += res;
                r.length -= static_cast<std::uint32_t>(res);
                backend_->prepare(r);
                continue;
            }
            if (!is_read && (res == -ENOSPC || res == -EDQUOT)) {
                // Not the drive's fault: the filesystem filled up under us.
                if (!out.no_space_at) out.no_space_at = r.offset;
                forget_range(s.first_offset, s.first_length);
                stop_.store(true, std::memory_order_relaxed);
            } else if (res <= 0) {
                MismatchRecord rec;
                rec.offset = r.offset;
                rec.unit_offset = s.first_offset;
                rec.length = s.first_length;
                rec.op = r.kind;
                if (res == 0 && is_read) {
                    rec.cls = pattern::MismatchClass::short_read;
                } else {
                    rec.cls = pattern::MismatchClass::io_error;
                    rec.error = -res;
                }
                if (!is_read) forget_range(s.first_offset, s.first_length);
                record(plan, c, std::move(rec));
            } else {
                std::uint64_t lat = now - r.submit_ns;
                if (intervals) interval.latency.record(lat);
                if (is_read) {
                    c.read_latency.record(lat);
                    ++c.read_ops;
                    c.read_bytes += s.first_length;
                    if (verify) verify_block(plan, s.first_buf, s.first_offset, s.first_length, c);
                } else {
                    c.write_latency.record(lat);
                    ++c.write_ops;
                    c.write_bytes += s.first_length;
                }
            }
            if (random) unit_in_flight_[s.first_offset >> unit_shift_] = 0;
            free_slots.push_back(r.slot);
            --in_flight;
            ++completed;
            if (plan.stop_after_ops && completed == plan.stop_after_ops) ::raise(SIGSTOP);
        }
        progress_bytes.store(c.read_bytes + c.write_bytes, std::memory_order_relaxed);
        progress_ops.store(completed, std::memory_order_relaxed);
    }
    if (intervals) publish_interval();
    if (!exhausted && (stop_.load(std::memory_order_relaxed) || stop_signal() != 0))
        out.completed = false;
    return out;
}

}  // namespace ds::run
