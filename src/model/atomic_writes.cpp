#include "model/atomic_writes.h"

#include <algorithm>

#include "units/units.h"

namespace ds::model {

namespace {

bool power_of_two(std::uint64_t v) {
    return v && (v & (v - 1)) == 0;
}

bool random_writes(const RunConfig& cfg) {
    const bool random_on =
        cfg.has_phase(Phase::random) && (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0);
    return random_on && cfg.replay.empty() && cfg.read_pct + cfg.trim_pct < 100;
}

// "4 KiB", "4 KiB and 1 MiB", "4 KiB, 16 KiB and 1 MiB"
std::string sizes_text(const std::vector<WriteSize>& sizes) {
    std::string t;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (i) t += i + 1 == sizes.size() ? " and " : ", ";
        t += units::format_bytes(sizes[i].bytes);
    }
    return t;
}

}  // namespace

std::string AtomicPromise::why_unsupported() const {
    std::string t;
    if (!raw)
        t = !statx_error.empty() ? statx_error
            : !statx             ? std::string("statx not read")
            : !statx->reported   ? std::string("statx does not report them (before Linux 6.11?)")
                                 : std::string("statx: not supported on this file");
    std::string device = queue_note;
    if (queue)
        device = queue->device + "'s queue: " +
                 (queue->unit_max ? "from " + units::format_bytes(queue->unit_min) + " to " +
                                        units::format_bytes(queue->unit_max)
                                  : std::string("none"));
    if (!device.empty()) t += (t.empty() ? "" : "; ") + device;
    return t;
}

std::string_view to_string(AtomicSource s) {
    switch (s) {
        case AtomicSource::statx:
            return "statx";
        case AtomicSource::block_queue:
            return "block_queue";
        case AtomicSource::none:
            break;
    }
    return "none";
}

std::string_view to_string(AtomicPath p) {
    switch (p) {
        case AtomicPath::hardware:
            return "hardware";
        case AtomicPath::software:
            return "software";
        case AtomicPath::unknown:
            break;
    }
    return "unknown";
}

AtomicSource AtomicPromise::source() const {
    if (raw) return queue ? AtomicSource::block_queue : AtomicSource::none;
    return statx && statx->reported ? AtomicSource::statx : AtomicSource::none;
}

bool AtomicPromise::supported() const {
    if (raw) return queue && queue->unit_min && queue->unit_max;
    return statx && statx->supported && statx->unit_min && statx->unit_max;
}

std::uint32_t AtomicPromise::unit_min() const {
    if (!supported()) return 0;
    return raw ? queue->unit_min : statx->unit_min;
}

std::uint32_t AtomicPromise::unit_max() const {
    if (!supported()) return 0;
    return raw ? queue->unit_max : statx->unit_max;
}

// A file's writes up to statx's unit_max_opt are the device's; where the
// kernel fills none, up to what the device's queue does itself (0 there:
// every atomic write is the filesystem's, out of place).
std::uint32_t AtomicPromise::hardware_max() const {
    if (!supported()) return 0;
    if (raw) return queue->unit_max;
    if (statx->unit_max_opt) return std::min(statx->unit_max_opt, statx->unit_max);
    return queue ? std::min(queue->unit_max, statx->unit_max) : 0;
}

AtomicAnswer atomic_answer(const AtomicPromise& p, std::uint32_t bytes) {
    AtomicAnswer a;
    a.bytes = bytes;
    if (!p.supported())
        a.why_not = "no atomic writes here";
    else if (!power_of_two(bytes))
        a.why_not = "not a power of two";
    else if (bytes < p.unit_min())
        a.why_not = "below " + units::format_bytes(p.unit_min());
    else if (bytes > p.unit_max())
        a.why_not = "above " + units::format_bytes(p.unit_max());
    else if (p.raw && p.queue->boundary && bytes > p.queue->boundary)
        a.why_not = "larger than the " + units::format_bytes(p.queue->boundary) + " boundary";
    a.promised = a.why_not.empty();
    if (!a.promised) return a;
    // The path is known where the device's own limit is: a raw device's
    // queue, a file's statx unit_max_opt or its device's queue.
    const bool known = p.raw || p.statx->unit_max_opt || p.queue;
    a.path = !known                      ? AtomicPath::unknown
             : bytes <= p.hardware_max() ? AtomicPath::hardware
                                         : AtomicPath::software;
    return a;
}

std::vector<WriteSize> write_sizes(const RunConfig& cfg) {
    if (cfg.sync_compare)  // its own table's rows (run/sync_compare.h)
        return {{4096, "--sync-compare"}, {8192, "--sync-compare"}, {16384, "--sync-compare"}};
    std::vector<WriteSize> all;
    if (cfg.has_phase(Phase::seq_write)) {
        all.push_back({cfg.seq_block, "--seq-block"});
        if (cfg.file_bytes % cfg.seq_block)
            all.push_back({static_cast<std::uint32_t>(cfg.file_bytes % cfg.seq_block), "--size"});
    }
    if (random_writes(cfg)) {
        if (cfg.sweep && cfg.sweep->param == SweepParam::rand_block) {
            for (auto v : cfg.sweep->values)
                all.push_back({static_cast<std::uint32_t>(v), "--sweep rand-block"});
        } else if (cfg.rand_mix.empty()) {
            all.push_back({cfg.rand_block, "--rand-block"});
        } else {
            for (const auto& b : cfg.rand_mix)
                all.push_back({b.bytes, "--rand-block"});
        }
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const WriteSize& a, const WriteSize& b) { return a.bytes < b.bytes; });
    all.erase(
        std::unique(all.begin(), all.end(),
                    [](const WriteSize& a, const WriteSize& b) { return a.bytes == b.bytes; }),
        all.end());
    return all;
}

std::string atomic_refusal(const AtomicPromise& p, const std::vector<WriteSize>& sizes,
                           std::uint64_t file_bytes, std::uint64_t region_bytes) {
    if (!p.supported())
        return "no atomic writes here (" + p.why_unsupported() + "), so its " + sizes_text(sizes) +
               " writes cannot carry RWF_ATOMIC";
    const std::string limits =
        units::format_bytes(p.unit_min()) + " to " + units::format_bytes(p.unit_max()) + " (" +
        std::string(p.raw ? "the queue of " + p.queue->device : "statx") + ")";
    for (const WriteSize& s : sizes) {
        const AtomicAnswer a = atomic_answer(p, s.bytes);
        const std::string named = s.option + " " + units::format_size_option(s.bytes);
        if (s.option == "--size" && !a.promised)
            return "--size " + units::format_size_option(file_bytes) +
                   " leaves a last sequential write of " + units::format_bytes(s.bytes) + " (" +
                   a.why_not + "); atomic writes here are powers of two from " + limits;
        if (!a.promised)
            return named + ": " + units::format_bytes(s.bytes) + " writes cannot be atomic here (" +
                   a.why_not + "): atomic writes here are powers of two from " + limits;
        // Each write must start at a multiple of its size: a raw device's
        // regions start at multiples of the region size.
        if (region_bytes % s.bytes)
            return "--size " + units::format_size_option(region_bytes) +
                   ": the regions do not start at multiples of the " +
                   units::format_bytes(s.bytes) + " writes (" + named +
                   "), and an atomic write must start at a multiple of its size";
    }
    return "";
}

}  // namespace ds::model
