#include "report/json_snapshot.h"

#include <exception>
#include <utility>

#include "output/output_file.h"
#include "report/json_report.h"
#include "units/diag.h"

namespace ds::report {

JsonSnapshotWriter::JsonSnapshotWriter(output::OutputPath path, HostInfo host, std::FILE* err)
    : path_(std::move(path)), host_(std::move(host)), err_(err) {}

void JsonSnapshotWriter::started(const model::RunConfig& cfg, const model::RunResult&) {
    cfg_ = cfg;
}

void JsonSnapshotWriter::run_so_far(const model::RunResult& so_far,
                                    const model::ProgressSnapshot* live) {
    if (!path_.is_path()) return;
    try {
        // Checked every time: a reader may have put a FIFO there meanwhile,
        // which must not get one document per iteration.
        if (output::check_output_destination(path_.text()) != output::OutputKind::regular) return;
        nlohmann::json doc = result_json(cfg_, so_far, host_);
        mark_in_progress(doc, live);
        doc["checkpoints_written"] = writes_ + 1;
        output::write_file_atomically(path_.text(), document_text(doc, &so_far));
        ++writes_;
    } catch (const std::exception& e) {
        // Tried again at the next snapshot and at the end, which reports
        // its own failure; said once, so a full disk does not flood stderr.
        if (!failed_once_ && err_)
            units::warning(
                std::string("--json ") + e.what() + " (tried again at the next checkpoint)", err_);
        failed_once_ = true;
    }
}

}  // namespace ds::report
