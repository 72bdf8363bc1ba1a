#include "report/verify_report.h"

#include <cinttypes>
#include <cstring>

#include "drivestress_version.h"
#include "report/json_report.h"
#include "units/units.h"

namespace ds::report {

using nlohmann::json;

namespace {

std::string bound_text(std::uint32_t bound) {
    return bound == run::kAnyNewerBound
               ? "any newer generation (no flush bound: only phase ends acknowledged)"
               : "up to " + std::to_string(bound) + " writes past the acknowledged one";
}

// A file's own bound, from its last record.
std::string file_bound_text(std::uint32_t bound) {
    if (bound == 0) return "recorded at a phase end: nothing newer allowed";
    if (bound == run::kAnyNewerBound) return "any newer generation allowed";
    return "up to " + std::to_string(bound) + " newer writes allowed";
}

const char* units_word(std::uint64_t n) {
    return n == 1 ? "unit" : "units";
}

}  // namespace

void print_verify_text(std::FILE* out, const run::VerifyOnlyResult& r, const HostInfo& host) {
    const auto& g = r.geo;
    std::fprintf(out, "drivestress %s  %s  kernel %s  --verify-only %s\n", DRIVESTRESS_VERSION,
                 host.hostname.c_str(), host.kernel.c_str(), r.state_path.c_str());
    std::fprintf(out,
                 "state    seed %" PRIu64 "  %zu x %s  unit %s  allowed while a phase writes: %s\n",
                 g.seed, g.paths.size(), units::format_bytes(g.file_bytes).c_str(),
                 units::format_bytes(g.unit_bytes).c_str(), bound_text(g.bound).c_str());
    for (std::size_t i = 0; i < r.files.size(); ++i) {
        const auto& f = r.files[i];
        std::fprintf(
            out,
            "file %-3zu %s  %" PRIu64 " record%s (%s)  intact %" PRIu64 "  written after %" PRIu64
            "  lost %" PRIu64 "%s\n",
            i, f.path.c_str(), f.acknowledgements, f.acknowledgements == 1 ? "" : "s",
            file_bound_text(f.bound).c_str(), f.intact, f.newer + f.never_acked + f.torn_newer,
            f.lost,
            f.used_older_copy ? "  (newest state record torn: the one before it used)" : "");
    }
    std::fprintf(out, "read     %s in %.2f s (%s)\n", units::format_bytes(r.read_bytes).c_str(),
                 r.seconds, r.direct_io ? "O_DIRECT" : "buffered, page cache dropped first");
    std::fprintf(out,
                 "\nintact                                     %12" PRIu64
                 " %s  (hold the generation acknowledged as durable)\n",
                 r.intact, units_word(r.intact));
    std::fprintf(out,
                 "written after the last acknowledged flush  %12" PRIu64
                 " %s  (allowed: newer %" PRIu64 ", never acknowledged %" PRIu64 ", torn %" PRIu64
                 ")\n",
                 r.allowed(), units_word(r.allowed()), r.newer, r.never_acked, r.torn_newer);
    std::fprintf(out, "lost after acknowledgement                 %12" PRIu64 " %s%s\n", r.lost,
                 units_word(r.lost), r.lost ? "  (DURABILITY VIOLATION)" : "");
    if (!r.lost_records.empty()) {
        std::fprintf(out, "\nlost after acknowledgement (first %zu of %" PRIu64 ")\n",
                     r.lost_records.size(), r.lost);
        for (const auto& m : r.lost_records) {
            std::string detail;
            if (m.cls == pattern::MismatchClass::io_error)
                detail = std::string("read failed: ") + std::strerror(m.error);
            else if (m.cls == pattern::MismatchClass::short_read)
                detail = "read returned end of file";
            else
                detail = std::to_string(m.bad_bytes) +
                         (m.bad_bytes == 1 ? " byte differs" : " bytes differ") +
                         (m.cls == pattern::MismatchClass::corrupt && m.found &&
                                  m.found->generation != m.expected_generation
                              ? " from the newer generation its header names"
                              : "");
            if (m.found && m.cls != pattern::MismatchClass::io_error)
                detail += "; header says file " + std::to_string(m.found->file_index) + " offset " +
                          std::to_string(m.found->offset) + " generation " +
                          std::to_string(m.found->generation) +
                          (m.found->run_id == g.run_id ? "" : " of another run");
            std::fprintf(out,
                         "  %s offset %" PRIu64 " (unit at %" PRIu64
                         "): %s, acknowledged generation %u: %s\n",
                         m.path.c_str(), m.offset, m.unit_offset,
                         std::string(pattern::to_string(m.cls)).c_str(), m.expected_generation,
                         detail.c_str());
        }
    }
    const int code = run::exit_status(r);
    if (r.cleaned_up)
        std::fprintf(out, "removed  %zu file%s and %s (--cleanup)\n", g.paths.size(),
                     g.paths.size() == 1 ? "" : "s", r.state_path.c_str());
    for (const auto& why : r.cleanup_refused)
        std::fprintf(out, "refused  %s (--cleanup removes only this run's own files)\n",
                     why.c_str());
    std::fprintf(out, "\nresult   %s (exit %d)\n",
                 code == 2   ? "FAIL: data acknowledged as durable was lost"
                 : code == 1 ? "ERROR: verified, but --cleanup refused files that are not this "
                               "run's (kept, with the state file)"
                             : "PASS: everything acknowledged as durable is there",
                 code);
    std::fflush(out);
}

json verify_json(const run::VerifyOnlyResult& r, const HostInfo& host) {
    const auto& g = r.geo;
    json doc = document_head(r.document_id, r.started_at, host);
    json files = json::array();
    for (const auto& f : r.files)
        files.push_back({{"path", f.path},
                         {"acknowledgements", f.acknowledgements},
                         {"bound_writes", f.bound},
                         {"used_older_record", f.used_older_copy},
                         {"intact_units", f.intact},
                         {"newer_units", f.newer},
                         {"never_acknowledged_units", f.never_acked},
                         {"torn_units", f.torn_newer},
                         {"lost_units", f.lost}});
    doc["verify_only"] = {{"state_file", r.state_path},
                          {"seed", g.seed},
                          {"file_size_bytes", g.file_bytes},
                          {"unit_bytes", g.unit_bytes},
                          {"bound_writes", g.bound},
                          {"direct_io", r.direct_io},
                          {"files", files},
                          {"intact_units", r.intact},
                          {"written_after_ack_units", r.allowed()},
                          {"newer_units", r.newer},
                          {"never_acknowledged_units", r.never_acked},
                          {"torn_units", r.torn_newer},
                          {"lost_units", r.lost},
                          {"cleaned_up", r.cleaned_up},
                          {"cleanup_refused", r.cleanup_refused}};
    json mm = json::array();
    for (const auto& m : r.lost_records) {
        json j = mismatch_json(m);
        j["iteration"] = 0;
        j["phase"] = "verify-only";
        mm.push_back(j);
    }
    doc["mismatches"] = mm;
    doc["mismatches_truncated"] = r.lost > r.lost_records.size();
    json classes = json::object();
    for (std::size_t i = 0; i < r.lost_by_class.size(); ++i)
        classes[std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i)))] =
            r.lost_by_class[i];
    const int code = run::exit_status(r);
    doc["summary"] = {{"written_bytes", 0},
                      {"read_bytes", r.read_bytes},
                      {"verified_bytes", r.read_bytes},
                      {"elapsed_s", r.seconds},
                      {"iterations_run", 0},
                      {"mismatch_total", r.lost},
                      {"mismatches", classes},
                      {"damaged_units", r.lost},  // each unit is read once
                      {"stop_reason", "completed"},
                      {"signal", nullptr},
                      {"status", code ? "failed" : "passed"},
                      {"error", nullptr},
                      {"exit_code", code}};
    return doc;
}

}  // namespace ds::report
