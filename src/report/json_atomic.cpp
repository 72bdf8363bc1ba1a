// A target's atomic-write promise in the result document (targets[].atomic_writes).
#include "report/atomic_words.h"
#include "report/json_parts.h"

namespace ds::report {

using nlohmann::json;

namespace {

json or_null(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

json statx_json(const sys::StatxAtomic& s) {
    return {{"supported", s.supported},
            {"unit_min_bytes", s.unit_min},
            {"unit_max_bytes", s.unit_max},
            {"segments_max", s.segments_max},
            {"unit_max_opt_bytes", s.unit_max_opt}};
}

json queue_json(const model::QueueAtomicLimits& q) {
    json other = json::object();
    for (const auto& [name, value] : q.other)
        other[name] = value;
    return {{"device", q.device},           {"unit_min_bytes", q.unit_min},
            {"unit_max_bytes", q.unit_max}, {"max_bytes", q.max_bytes},
            {"boundary_bytes", q.boundary}, {"other", other}};
}

json nvme_json(const model::NvmeAtomicFacts& n) {
    json id = nullptr;
    if (n.identify) {
        const nvme::AtomicIdentify& a = *n.identify;
        id = {{"lba_bytes", a.lba_bytes},
              {"awun", a.awun},
              {"awupf", a.awupf},
              {"nsabp", a.namespace_atomics},
              {"nawun", a.nawun},
              {"nawupf", a.nawupf},
              {"nabsn", a.nabsn},
              {"nabo", a.nabo},
              {"nabspf", a.nabspf},
              {"any_write_bytes", a.any_write_bytes()},
              {"power_fail_bytes", a.power_fail_bytes()},
              {"boundary_bytes", a.boundary_bytes()},
              {"power_fail_boundary_bytes", a.power_fail_boundary_bytes()},
              {"boundary_offset_bytes", a.boundary_offset_bytes()}};
    }
    return {{"device", n.device},
            {"identify", id},
            {"reason", or_null(n.reason)},
            {"text", nvme_atomic_text(n)}};
}

json writes_json(const model::AtomicPromise& p, const model::RunConfig& cfg) {
    json writes = json::array();
    for (const model::WriteSize& s : model::write_sizes(cfg)) {
        const model::AtomicAnswer a = model::atomic_answer(p, s.bytes);
        writes.push_back(
            {{"bytes", s.bytes},
             {"option", s.option},
             {"promised", a.promised},
             {"path", a.promised ? json(std::string(model::to_string(a.path))) : json(nullptr)},
             {"reason", or_null(a.why_not)}});
    }
    return writes;
}

}  // namespace

json atomic_json(const model::AtomicPromise& p, const model::RunConfig& cfg) {
    const bool known = p.supported() && (p.raw || p.statx->unit_max_opt || p.queue);
    return {{"requested", cfg.atomic},
            {"supported", p.supported()},
            {"source", std::string(model::to_string(p.source()))},
            {"unit_min_bytes", p.unit_min()},
            {"unit_max_bytes", p.unit_max()},
            {"hardware_max_bytes", known ? json(p.hardware_max()) : json(nullptr)},
            {"text", atomic_promise_text(p)},
            {"statx", p.statx ? statx_json(*p.statx) : json(nullptr)},
            {"statx_error", or_null(p.statx_error)},
            {"block_queue", p.queue ? queue_json(*p.queue) : json(nullptr)},
            {"block_queue_note", or_null(p.queue ? std::string() : p.queue_note)},
            {"nvme", p.nvme ? nvme_json(*p.nvme) : json(nullptr)},
            {"writes", writes_json(p, cfg)}};
}

}  // namespace ds::report
