#include "run/worker.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <system_error>
#include <utility>

#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "run/errors.h"
#include "run/signals.h"

namespace ds::run {

std::uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {

// Marks the flush request in Request::slot (it owns no slot or buffer).
constexpr std::uint32_t kFlushSlot = UINT32_MAX;

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// How many completions a reap waits for: a quarter of what is in flight
// (as fio's iodepth_batch_complete_min in scripts/bench), at least one.  One
// system call and one wake-up then serve several operations, while three
// quarters stay queued at the device.  Measured on a loop device over tmpfs
// at QD 32: 95k IOPS against 48-66k waiting for one.
unsigned reap_batch(unsigned in_flight) {
    return std::max(1u, in_flight / 4);
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
    g.sync = cfg.sync;
    g.sync_every = cfg.sync_every;
    g.batch = cfg.batch;
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
      acked_(units_, pattern::kUnknownGeneration),
      snapshot_(units_, pattern::kUnknownGeneration),
      arena_(std::max<std::uint64_t>(std::uint64_t{geo.seq_depth} * geo.seq_block,
                                     std::uint64_t{geo.rand_depth} * geo.max_rand_block)),
      slots_(std::max(geo.seq_depth, geo.rand_depth)) {
    for (std::size_t i = 0; i < slots_.size(); ++i)
        slots_[i].req.slot = static_cast<std::uint32_t>(i);
}

void Worker::open_backend(io::BackendKind kind, int fd, io::UringOptions uring) {
    backend_.reset();
    fd_ = fd;
    unsigned depth = static_cast<unsigned>(slots_.size());
    if (kind != io::BackendKind::io_uring) {
        backend_ = std::make_unique<io::SyncBackend>(fd_, base_);
        return;
    }
    try {
        backend_ = std::make_unique<io::UringBackend>(fd_, depth, arena_.span(), uring, base_);
    } catch (const std::system_error& e) {
        if (!uring.sqpoll && !uring.iopoll) throw;
        throw SetupError(std::string(uring.sqpoll ? "--sqpoll" : "--iopoll") +
                         ": the kernel refused the ring: " + e.what());
    }
    // Before any phase: the first write of the run is the probe (the file's
    // content is not known yet; the sequential write overwrites it).
    if (uring.iopoll) {
        std::string why = io::probe_polled_io(*backend_, arena_.data(), geo_.rand_block);
        if (!why.empty()) throw SetupError("--iopoll: " + path_ + ": " + why);
    }
}

void Worker::reset_generations() {
    std::fill(gens_.begin(), gens_.end(), pattern::kUnknownGeneration);
    std::fill(acked_.begin(), acked_.end(), pattern::kUnknownGeneration);
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

void Worker::acknowledge_range(std::uint64_t offset, std::uint32_t length) {
    const std::uint32_t u = geo_.rand_block;
    for (std::uint64_t o = offset / u * u; o < offset + length; o += u)
        acked_[o >> unit_shift_] = gens_[o >> unit_shift_];
}

void Worker::forget_acked(std::uint64_t offset, std::uint32_t length) {
    const std::uint32_t u = geo_.rand_block;
    for (std::uint64_t o = offset / u * u; o < offset + length; o += u)
        acked_[o >> unit_shift_] = pattern::kUnknownGeneration;
}

bool Worker::flush_done(const PhasePlan& plan, const io::Request& r, std::int32_t res,
                        std::uint64_t now, PhaseCounters& c) {
    if (res >= 0) {
        c.flush_latency.record(now - r.submit_ns);
        ++c.flush_ops;
        if (listener_) {
            // The snapshot becomes what is acknowledged; its buffer is
            // overwritten by the next flush's snapshot.
            std::swap(acked_, snapshot_);
            listener_->acknowledged(file_index_, acked_);
        }
        return true;
    }
    // ENOSPC/EDQUOT from a flush: buffered writes whose blocks were only
    // allocated at write-back found the filesystem full.
    const bool full = res == -ENOSPC || res == -EDQUOT;
    if (!full) {
        MismatchRecord rec;
        rec.op = r.kind;
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = -res;
        record(plan, c, std::move(rec));
    }
    if (listener_) {
        // The writes this flush covered may be lost, and a later flush can
        // succeed without them (the error is reported once): their units
        // stay unknown until written again, so no later flush acknowledges
        // them.
        for (std::size_t u = 0; u < gens_.size(); ++u)
            if (snapshot_[u] != acked_[u] && gens_[u] == snapshot_[u])
                gens_[u] = pattern::kUnknownGeneration;
    }
    return !full;
}

void Worker::record(const PhasePlan& plan, PhaseCounters& c, MismatchRecord rec) {
    ++c.mismatches[static_cast<std::size_t>(rec.cls)];
    // A verification mismatch damages its unit; a failed or short transfer
    // the bytes from where it failed to the end of the operation.
    const bool transfer = rec.cls == pattern::MismatchClass::io_error ||
                          rec.cls == pattern::MismatchClass::short_read;
    const std::uint64_t from = transfer ? rec.offset : rec.unit_offset;
    if (rec.length)
        damage_.add(from + base_, rec.unit_offset + rec.length - from, rec.cls, geo_.rand_block);
    // Past the end of a file that was truncated under us every read fails
    // the same way: the extent and the truncation say it once.
    if (truncated_to_ && rec.cls == pattern::MismatchClass::short_read &&
        rec.unit_offset + base_ >= *truncated_to_)
        return;
    if (records_.size() >= RunResult::kMaxRecords) return;
    rec.iteration = plan.iteration;
    rec.phase = plan.phase;
    rec.file_index = file_index_;
    rec.path = path_;
    rec.offset += base_;  // absolute on a raw device
    rec.unit_offset += base_;
    records_.push_back(std::move(rec));
}

void Worker::note_truncation() {
    if (truncated_to_) return;  // once
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) < geo_.file_bytes)
        truncated_to_ = static_cast<std::uint64_t>(st.st_size);
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

    // --sync.  Flushes (fsync/fdatasync) cover the writes of one group:
    // after sync_every writes were issued, no operation is issued until
    // those writes completed; then the flush goes out (and new operations
    // with it) and covers exactly the writes completed before it.  One flush
    // is in flight at a time; it takes one place of the depth.
    const SyncMethod sync = geo_.sync;
    const bool flushes = sync == SyncMethod::fsync || sync == SyncMethod::fdatasync;
    const bool per_write_sync = sync == SyncMethod::osync || sync == SyncMethod::dsync;
    const int rw_flags =
        sync == SyncMethod::osync ? RWF_SYNC : (sync == SyncMethod::dsync ? RWF_DSYNC : 0);
    const std::uint64_t every = std::max<std::uint64_t>(1, geo_.sync_every);
    std::uint64_t group_writes = 0;         // writes issued since the last flush was issued
    std::uint64_t synced_since_notice = 0;  // osync/dsync: completed since the listener's last call
    unsigned writes_in_flight = 0;
    bool flush_due = false, flush_in_flight = false;
    // --batch: SQEs prepared per submission (at most the depth).
    const unsigned batch = std::clamp(geo_.batch, 1U, depth);

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
        for (std::size_t m = 0; m < c.mismatches.size(); ++m)
            interval.mismatches_by_class[m] = c.mismatches[m] - at_interval_start.mismatches[m];
        at_interval_start.read_ops = c.read_ops;
        at_interval_start.write_ops = c.write_ops;
        at_interval_start.read_bytes = c.read_bytes;
        at_interval_start.write_bytes = c.write_bytes;
        at_interval_start.mismatches = c.mismatches;
        std::lock_guard lk(intervals_mutex_);
        intervals_.push_back(interval);
        interval.read_latency.reset();
        interval.write_latency.reset();
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
        unsigned n_fresh = 0, n_stamped = 0, unsubmitted = 0;
        // One clock reading stamps what is about to be submitted.
        auto stamp_fresh = [&] {
            now = monotonic_ns();
            for (; n_stamped < n_fresh; ++n_stamped)
                fresh[n_stamped]->submit_ns = now;
        };
        auto prepared = [&](io::Request& r) {
            backend_->prepare(r);
            fresh[n_fresh++] = &r;
            ++in_flight;
            if (batch > 1 && ++unsubmitted == batch) {
                stamp_fresh();
                backend_->submit();
                unsubmitted = 0;
            }
        };
        const bool stopping = stop_.load(std::memory_order_relaxed) || stop_signal() != 0;
        // --batch: with fewer than `batch` places free, wait for completions
        // instead of submitting a smaller batch (unless no more can come).
        unsigned min_complete = 1;
        if (batch > 1 && in_flight > 0 && depth - in_flight < batch && !flush_due && !stopping &&
            more_work())
            min_complete = batch - (depth - in_flight);
        while (min_complete == 1 && in_flight < depth) {
            if (stop_.load(std::memory_order_relaxed) || stop_signal() != 0) {
                out.completed = false;
                break;
            }
            if (flush_due) {
                if (writes_in_flight != 0 || flush_in_flight) break;  // wait for them
                if (listener_) std::copy(gens_.begin(), gens_.end(), snapshot_.begin());
                flush_req_ = io::Request{};
                flush_req_.kind =
                    sync == SyncMethod::fsync ? io::OpKind::fsync : io::OpKind::fdatasync;
                flush_req_.slot = kFlushSlot;
                flush_due = false;
                flush_in_flight = true;
                group_writes = 0;
                prepared(flush_req_);
                continue;
            }
            if (!more_work()) {
                if (flushes && group_writes > 0) {  // the last writes get their flush too
                    flush_due = true;
                    continue;
                }
                exhausted = true;
                break;
            }
            // --batch: a new batch starts only when all of it fits.
            if (batch > 1 && unsubmitted == 0 && depth - in_flight < batch) break;
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
            r.rw_flags = 0;
            if (r.kind == io::OpKind::write) {
                fill_for_write(r.buf, r.offset, r.length);
                r.rw_flags = rw_flags;
                ++writes_in_flight;
                if (flushes && ++group_writes >= every) flush_due = true;
            }
            s.first_offset = r.offset;
            s.first_length = r.length;
            s.first_buf = r.buf;
            ++issued;
            prepared(r);
        }
        if (in_flight == 0) break;

        // One clock reading stamps the rest of the batch; one more per reap.
        stamp_fresh();
        // Wait for a share of what is in flight, not for one: fewer system
        // calls and wake-ups per operation (the backend bounds the wait).
        std::size_t n = backend_->reap(done, std::max(min_complete, reap_batch(in_flight)));
        now = monotonic_ns();
        if (intervals && now >= next_boundary) {
            publish_interval();
            interval.second = (now - plan.intervals_from_ns) / 1'000'000'000ULL;
            next_boundary = plan.intervals_from_ns + (interval.second + 1) * 1'000'000'000ULL;
        }

        for (std::size_t i = 0; i < n; ++i) {
            io::Request& r = *done[i].req;
            const std::int32_t res = done[i].result;
            if (res == -EAGAIN || res == -EINTR) {
                ++c.retries;
                backend_->prepare(r);
                continue;
            }
            if (r.slot == kFlushSlot) {
                if (!flush_done(plan, r, res, now, c) && !out.no_space_at) {
                    out.no_space_at = 0;
                    out.no_space_in_flush = true;
                }
                flush_in_flight = false;
                --in_flight;
                continue;
            }
            Slot& s = slots_[r.slot];
            const bool is_read = r.kind == io::OpKind::read;
            if (res > 0 && static_cast<std::uint32_t>(res) < r.length) {
                // Short transfer: finish the rest, as one operation.
                ++c.retries;
                r.offset += static_cast<std::uint32_t>(res);
                r.buf += res;
                r.length -= static_cast<std::uint32_t>(res);
                backend_->prepare(r);
                continue;
            }
            if (res == -EINVAL) {
                // Not the drive's fault: stop everything, report it once.
                if (!out.invalid) out.invalid = r;
                stop_.store(true, std::memory_order_relaxed);
                if (!is_read) {
                    forget_range(s.first_offset, s.first_length);
                    if (per_write_sync) forget_acked(s.first_offset, s.first_length);
                }
            } else if (!is_read && (res == -ENOSPC || res == -EDQUOT)) {
                // Not the drive's fault: the filesystem filled up under us.
                if (!out.no_space_at) out.no_space_at = r.offset;
                forget_range(s.first_offset, s.first_length);
                ++c.write_errors;
                if (per_write_sync) forget_acked(s.first_offset, s.first_length);
            } else if (res <= 0) {
                MismatchRecord rec;
                rec.offset = r.offset;
                rec.unit_offset = s.first_offset;
                rec.length = s.first_length;
                rec.op = r.kind;
                if (res == 0 && is_read) {
                    rec.cls = pattern::MismatchClass::short_read;
                    note_truncation();
                } else {
                    rec.cls = pattern::MismatchClass::io_error;
                    rec.error = -res;
                }
                if (!is_read) {
                    forget_range(s.first_offset, s.first_length);
                    ++c.write_errors;
                    if (per_write_sync) forget_acked(s.first_offset, s.first_length);
                }
                record(plan, c, std::move(rec));
            } else {
                std::uint64_t lat = now - r.submit_ns;
                if (is_read) {
                    if (intervals) interval.read_latency.record(lat);
                    c.read_latency.record(lat);
                    ++c.read_ops;
                    c.read_bytes += s.first_length;
                    if (verify) verify_block(plan, s.first_buf, s.first_offset, s.first_length, c);
                } else {
                    if (intervals) interval.write_latency.record(lat);
                    c.write_latency.record(lat);
                    ++c.write_ops;
                    c.write_bytes += s.first_length;
                    if (per_write_sync) acknowledge_range(s.first_offset, s.first_length);
                }
            }
            if (!is_read) {
                --writes_in_flight;
                // osync/dsync: every completed write is durable already.
                if (per_write_sync && listener_ && ++synced_since_notice >= every) {
                    listener_->acknowledged(file_index_, acked_);
                    synced_since_notice = 0;
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
    if (per_write_sync && listener_ && synced_since_notice > 0)
        listener_->acknowledged(file_index_, acked_);
    if (!exhausted && (stop_.load(std::memory_order_relaxed) || stop_signal() != 0))
        out.completed = false;
    return out;
}

}  // namespace ds::run
