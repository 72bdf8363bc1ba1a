#include "report/verify_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <string>
#include <vector>

#include "drivestress_version.h"
#include "report/json_report.h"
#include "report/text_width.h"
#include "units/units.h"

namespace ds::report {

using nlohmann::json;

namespace {

std::string bound_text(std::uint32_t bound) {
    return bound == model::kAnyNewerBound
               ? "any newer generation (no flush bound: only phase ends acknowledged)"
               : "up to " + std::to_string(bound) + " writes past the acknowledged one";
}

// A file's own bound, from its last record.
std::string file_bound_text(std::uint32_t bound) {
    if (bound == 0) return "recorded at a phase end: nothing newer allowed";
    if (bound == model::kAnyNewerBound) return "any newer generation allowed";
    return "up to " + std::to_string(bound) + " newer writes allowed";
}

const char* units_word(std::uint64_t n) {
    return n == 1 ? "unit" : "units";
}

// After an interrupted --cleanup was finished: what was removed, the verdict.
void print_finished_cleanup(std::FILE* out, const model::VerifyOnlyResult& r) {
    if (r.cleaned_up)
        printf_fit(out, 9, "removed  what was left of %zu file%s and %s (--cleanup finished)\n",
                   r.geo.paths.size(), r.geo.paths.size() == 1 ? "" : "s", r.state_path.c_str());
    for (const auto& why : r.cleanup_refused)
        printf_fit(out, 9, "refused  %s (--cleanup removes only this run's own files)\n",
                   why.c_str());
    printf_fit(out, 9, "\nresult   %s (exit %d)\n",
               model::verdict_words(model::verify_evidence(r)).c_str(),
               model::code_of(model::exit_status(r)));
    std::fflush(out);
}

// A word the shell reads back as `s`: as it is when every character is
// safe, else in single quotes.
std::string shell_word(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789/._-+:,=@%") == std::string::npos)
        return s;
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The data files as shell words: PREFIX0.dat ... PREFIX(N-1).dat (the names
// a run gives them) as one glob per ten that matches exactly them
// ("PREFIX[0-9].dat", "PREFIX1[0-5].dat"); other names each as it is.
std::vector<std::string> file_words(const std::vector<std::string>& paths) {
    std::vector<std::string> words;
    const std::string first = paths.empty() ? "" : paths.front();
    const std::string prefix =
        first.ends_with("0.dat") ? first.substr(0, first.size() - 5) : std::string();
    bool numbered = !prefix.empty();
    for (std::size_t i = 0; i < paths.size() && numbered; ++i)
        numbered = paths[i] == prefix + std::to_string(i) + ".dat";
    if (!numbered || paths.size() == 1) {
        for (const auto& p : paths)
            words.push_back(shell_word(p));
        return words;
    }
    for (std::size_t ten = 0; ten * 10 < paths.size(); ++ten) {
        const std::size_t last = std::min<std::size_t>(9, paths.size() - 1 - ten * 10);
        const std::string digits = last == 0 ? "0" : "[0-" + std::to_string(last) + "]";
        words.push_back(shell_word(prefix) + (ten ? std::to_string(ten) : "") + digits + ".dat");
    }
    return words;
}

// `rm -- WORD...` for the files and the state file: a command to copy, so
// each line of it stands alone, indented 9 and never folded; a line takes
// words while they fit the width.
std::string rm_commands(const model::VerifyOnlyResult& r) {
    std::vector<std::string> words = file_words(r.geo.paths);
    words.push_back(shell_word(r.state_path));
    const std::string head = std::string(9, ' ') + "rm --";
    std::string out, line = head;
    for (const auto& w : words) {
        if (line != head && text_width() && columns_of(line) + 1 + columns_of(w) > text_width()) {
            out += line + "\n";
            line = head;
        }
        line += " " + w;
    }
    return out + line + "\n";
}

// What the state file cannot vouch for, and why no verdict, in words.
void print_findings(std::FILE* out, const model::VerifyOnlyResult& r) {
    for (std::size_t i = 0; i < r.files.size(); ++i)
        if (r.files[i].unrecorded_data)
            printf_fit(out, 9,
                       "state    file %zu: no acknowledgement record, yet %" PRIu64
                       " %s hold this run's data: the state file lost its records and "
                       "cannot prove what was acknowledged\n",
                       i, r.files[i].unrecorded_data, units_word(r.files[i].unrecorded_data));
    if (r.stop_signal)
        printf_fit(out, 9, "stopped  by signal %d before every unit was read%s\n", r.stop_signal,
                   r.cleaned_up ? "" : " (--cleanup not run)");
    else if (model::nothing_verified(model::verify_evidence(r)))
        printf_fit(out, 9,
                   "nothing  verified: the state file records no acknowledged unit (a run "
                   "killed before its first phase, or a state file whose records were lost)\n");
    if (r.cleanup_not_run)
        printf_fit(out, 9, "kept     the files and %s: --cleanup runs only after a verified PASS\n",
                   r.state_path.c_str());
    if (r.evidence_kept) {
        // --cleanup never removes the evidence of a loss; say how it goes
        // once inspected, so the next run's refusal is not a dead end.
        printf_fit(out, 9,
                   "kept     the files and %s: they are the evidence of the loss above "
                   "(--cleanup removes only after a PASS); inspect them, then remove them "
                   "with:\n",
                   r.state_path.c_str());
        std::fputs(rm_commands(r).c_str(), out);
    }
}

}  // namespace

namespace {

// One line per file of the state: its records and what its units held.
void print_state_files(std::FILE* out, const model::VerifyOnlyResult& r) {
    for (std::size_t i = 0; i < r.files.size(); ++i) {
        const auto& f = r.files[i];
        printf_fit(out, 9,
                   "file %-3zu %s  %" PRIu64 " record%s (%s)  intact %" PRIu64
                   "  written after %" PRIu64 "  lost %" PRIu64 "%s\n",
                   i, f.path.c_str(), f.acknowledgements, f.acknowledgements == 1 ? "" : "s",
                   file_bound_text(f.bound).c_str(), f.intact,
                   f.newer + f.never_acked + f.torn_newer + f.trimmed, f.lost,
                   f.used_older_copy ? "  (newest state record torn: the one before it used)" : "");
    }
}

// A lost unit's diagnosis: what differs, and what its header says.
std::string lost_detail(const model::MismatchRecord& m, std::uint64_t run_id) {
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
                  (m.found->run_id == run_id ? "" : " of another run");
    return detail;
}

void print_lost_records(std::FILE* out, const model::VerifyOnlyResult& r) {
    if (r.lost_records.empty()) return;
    std::fprintf(out, "\nlost after acknowledgement (first %zu of %" PRIu64 ")\n",
                 r.lost_records.size(), r.lost);
    for (const auto& m : r.lost_records)
        printf_fit(
            out, 9,
            "  %s offset %" PRIu64 " (unit at %" PRIu64 "): %s, acknowledged generation %u: %s\n",
            m.path.c_str(), m.offset, m.unit_offset, std::string(pattern::to_string(m.cls)).c_str(),
            m.expected_generation, lost_detail(m, r.geo.run_id).c_str());
}

}  // namespace

void print_verify_text(std::FILE* out, const model::VerifyOnlyResult& r, const HostInfo& host) {
    const auto& g = r.geo;
    // Prose folds at 100 columns under its key (text_width.h); the one
    // command to copy stands on lines of its own (rm_commands).
    printf_fit(out, 9, "drivestress %s  %s  kernel %s  --verify-only %s\n", DRIVESTRESS_VERSION,
               host.hostname.c_str(), host.kernel.c_str(), r.state_path.c_str());
    if (r.finished_cleanup) return print_finished_cleanup(out, r);
    // The bound on a line of its own: folded inside the state line, its
    // words would run on from the unit's.
    printf_fit(out, 9, "state    seed %" PRIu64 "  %zu x %s  unit %s\n", g.seed, g.paths.size(),
               units::format_bytes(g.file_bytes).c_str(),
               units::format_bytes(g.unit_bytes).c_str());
    printf_fit(out, 9, "         allowed while a phase writes: %s\n", bound_text(g.bound).c_str());
    if (const std::uint32_t share = pattern::dedupe_share_of(g.shape))
        printf_fit(out, 9,
                   "         dedupe %g %%: a lost or torn write to a unit that copies a source "
                   "cannot be seen (a copy's bytes never change)\n",
                   share / 10.0);
    print_state_files(out, r);
    printf_fit(out, 9, "read     %s in %.2f s (%s)\n", units::format_bytes(r.read_bytes).c_str(),
               r.seconds, r.direct_io ? "O_DIRECT" : "buffered, page cache dropped first");
    printf_fit(out, 9,
               "\nintact                                     %12" PRIu64
               " %s  (hold the generation acknowledged as durable)\n",
               r.intact, units_word(r.intact));
    printf_fit(out, 9,
               "written after the last acknowledged flush  %12" PRIu64
               " %s  (allowed: newer %" PRIu64 ", never acknowledged %" PRIu64 ", torn %" PRIu64
               "%s)\n",
               r.allowed(), units_word(r.allowed()), r.newer, r.never_acked, r.torn_newer,
               r.geo.trims ? (", trimmed " + std::to_string(r.trimmed)).c_str() : "");
    printf_fit(out, 9, "lost after acknowledgement                 %12" PRIu64 " %s%s\n", r.lost,
               units_word(r.lost), r.lost ? "  (DURABILITY VIOLATION)" : "");
    print_lost_records(out, r);
    print_findings(out, r);
    const int code = model::code_of(model::exit_status(r));
    if (r.cleaned_up)
        printf_fit(out, 9, "removed  %zu file%s and %s (--cleanup)\n", g.paths.size(),
                   g.paths.size() == 1 ? "" : "s", r.state_path.c_str());
    for (const auto& why : r.cleanup_refused)
        printf_fit(out, 9, "refused  %s (--cleanup removes only this run's own files)\n",
                   why.c_str());
    printf_fit(out, 9, "\nresult   %s (exit %d)\n",
               model::verdict_words(model::verify_evidence(r)).c_str(), code);
    std::fflush(out);
}

namespace {

json verify_files_json(const model::VerifyOnlyResult& r) {
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
                         {"trimmed_units", f.trimmed},
                         {"lost_units", f.lost},
                         {"unrecorded_data_units", f.unrecorded_data}});
    return files;
}

json verify_summary_json(const model::VerifyOnlyResult& r) {
    json classes = json::object();
    for (std::size_t i = 0; i < r.lost_by_class.size(); ++i)
        classes[std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i)))] =
            r.lost_by_class[i];
    const model::ExitStatus code = model::exit_status(r);
    const std::string words = model::verdict_words(model::verify_evidence(r));
    return {
        {"written_bytes", 0},
        {"read_bytes", r.read_bytes},
        {"verified_bytes", r.read_bytes},
        {"elapsed_s", r.seconds},
        {"iterations_run", 0},
        {"mismatch_total", r.lost},
        {"mismatches", classes},
        {"damaged_units", r.lost},  // each unit is read once
        {"stop_reason", r.stop_signal ? "signal" : "completed"},
        {"signal", r.stop_signal ? json(r.stop_signal) : json(nullptr)},
        {"status", model::status_word(code, model::nothing_verified(model::verify_evidence(r)))},
        {"error", code == model::ExitStatus::error ? json(words.substr(7)) : json(nullptr)},
        {"exit_code", model::code_of(code)}};
}

}  // namespace

json verify_json(const model::VerifyOnlyResult& r, const HostInfo& host) {
    const auto& g = r.geo;
    json doc = document_head(r.document_id, r.started_at, host);
    const json files = verify_files_json(r);
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
                          {"trimmed_units", r.trimmed},
                          {"lost_units", r.lost},
                          {"cleaned_up", r.cleaned_up},
                          {"cleanup_refused", r.cleanup_refused},
                          {"cleanup_not_run", r.cleanup_not_run},
                          {"finished_interrupted_cleanup", r.finished_cleanup},
                          {"checked_units", r.checked()},
                          {"state_lost_records", r.unrecorded_data() > 0},
                          {"verdict", model::verdict_words(model::verify_evidence(r))}};
    json mm = json::array();
    for (const auto& m : r.lost_records) {
        json j = mismatch_json(m);
        j["iteration"] = 0;
        j["phase"] = "verify-only";
        mm.push_back(j);
    }
    doc["mismatches"] = mm;
    doc["mismatches_truncated"] = r.lost > r.lost_records.size();
    doc["summary"] = verify_summary_json(r);
    return doc;
}

}  // namespace ds::report
