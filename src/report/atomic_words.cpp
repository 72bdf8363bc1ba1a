#include "report/atomic_words.h"

#include "units/units.h"

namespace ds::report {

using units::format_bytes;

namespace {

std::string range_text(std::uint64_t lo, std::uint64_t hi) {
    return lo == hi ? format_bytes(lo) : format_bytes(lo) + " to " + format_bytes(hi);
}

// "untorn against other commands up to 16 KiB (NAWUN)"
std::string nvme_limit(std::uint64_t bytes, const char* field, bool ns) {
    return "up to " + format_bytes(bytes) + " (" + (ns ? "NA" : "A") + field + ")";
}

std::string boundaries_text(const nvme::AtomicIdentify& id) {
    const std::uint64_t n = id.boundary_bytes(), pf = id.power_fail_boundary_bytes();
    if (!n && !pf) return "no atomic boundaries";
    std::string t = "not across boundaries of ";
    if (n) t += format_bytes(n) + " (NABSN)";
    if (n && pf) t += " or ";
    if (pf) t += format_bytes(pf) + " (NABSPF)";
    return t + " from byte " + std::to_string(id.boundary_offset_bytes()) + " (NABO)";
}

}  // namespace

std::string atomic_promise_text(const model::AtomicPromise& p) {
    if (!p.supported()) return "not supported (" + p.why_unsupported() + ")";
    const std::string range = range_text(p.unit_min(), p.unit_max());
    if (p.raw) {
        std::string t = range + ", the device's own (" + p.queue->device + "'s queue";
        if (p.queue->boundary)
            t += ", not across " + format_bytes(p.queue->boundary) + " boundaries";
        return t + ")";
    }
    if (!p.statx->unit_max_opt && !p.queue)
        return range + " (hardware or software path unknown: no block queue read)";
    const std::uint32_t hw = p.hardware_max();
    if (hw == 0) return range + ", none hardware-optimised (software, out of place)";
    if (hw >= p.unit_max()) return range + ", all hardware-optimised (the device's own)";
    return range + ", up to " + format_bytes(hw) +
           " hardware-optimised (above: software, out of place)";
}

std::string atomic_sizes_text(const model::AtomicPromise& p,
                              const std::vector<model::WriteSize>& sizes) {
    std::string t;
    for (const model::WriteSize& s : sizes) {
        const model::AtomicAnswer a = model::atomic_answer(p, s.bytes);
        if (!t.empty()) t += "; ";
        t += format_bytes(s.bytes) + " writes: ";
        if (!a.promised)
            t += "not promised (" + a.why_not + ")";
        else if (a.path == model::AtomicPath::unknown)
            t += "promised, path unknown";
        else
            t += "promised, " + std::string(model::to_string(a.path)) + " path";
    }
    return t;
}

std::string nvme_atomic_text(const model::NvmeAtomicFacts& n) {
    std::string name = n.device.substr(n.device.rfind('/') + 1);
    if (!n.identify) return name + ": Identify unread (" + n.reason + ")";
    const nvme::AtomicIdentify& id = *n.identify;
    const bool ns = id.namespace_atomics;
    return name + ": any write untorn against other commands " +
           nvme_limit(id.any_write_bytes(), "WUN", ns) + ", across a power failure " +
           nvme_limit(id.power_fail_bytes(), "WUPF", ns) + "; " + boundaries_text(id);
}

std::string atomic_run_text(const model::RunConfig& cfg, bool registered_buffers) {
    std::string t = "--atomic: every write carries RWF_ATOMIC";
    if (registered_buffers) t += " (from unregistered buffers: the kernel's rule)";
    switch (cfg.sync) {
        case model::SyncMethod::none:
            return t +
                   "; nothing flushed: untorn, not durable (a cut may lose acknowledged "
                   "writes, never tear one)";
        case model::SyncMethod::osync:
            return t + "; each also durable on completion (RWF_SYNC)";
        case model::SyncMethod::dsync:
            return t + "; each also durable on completion (RWF_DSYNC)";
        case model::SyncMethod::fsync:
        case model::SyncMethod::fdatasync:
            break;
    }
    return t + "; an " + std::string(model::to_string(cfg.sync)) + " after every " +
           std::to_string(cfg.sync_every) + (cfg.sync_every == 1 ? " write" : " writes") +
           " per worker makes them durable";
}

std::string atomic_header_lines(const model::RunConfig& cfg, const model::RunResult& r) {
    const std::vector<model::WriteSize> sizes = model::write_sizes(cfg);
    std::string out;
    for (const model::TargetResult& t : r.targets) {
        const std::string who = r.targets.size() > 1 ? t.name + ": " : "";
        out += "atomic   " + who + atomic_promise_text(t.atomic);
        out += t.atomic.supported() ? "; " + atomic_sizes_text(t.atomic, sizes)
                                    : std::string("; no write of this run is promised");
        out += '\n';
        if (t.atomic.nvme) out += "atomic   " + who + nvme_atomic_text(*t.atomic.nvme) + '\n';
    }
    if (cfg.atomic) out += "atomic   " + atomic_run_text(cfg, r.backend.uring.fixed_buffers) + '\n';
    return out;
}

}  // namespace ds::report
