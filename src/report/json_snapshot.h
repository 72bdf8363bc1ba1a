// --json PATH while the run goes on: the document is rewritten (atomically,
// output::write_file_atomically) at every snapshot of the run (after the first
// iteration, then as iterations end at most every few seconds, and every
// minute during a long one), marked in_progress and numbered
// (checkpoints_written), so that a crash or power loss of the host leaves
// the run's results up to the last checkpoint on disk.  Its size is bounded
// (RunResult::kIterationWindow), so each rewrite costs the same however long
// the run.  The final document (main) replaces it when the run ends.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/observer.h"
#include "output/output_file.h"
#include "report/host_info.h"

namespace ds::report {

class JsonSnapshotWriter final : public model::RunObserver {
  public:
    // `path` is the --json destination; only a regular file is rewritten
    // during the run ("-", a FIFO or a terminal get the final document
    // only).  The first failed rewrite is one line on `err`.
    JsonSnapshotWriter(output::OutputPath path, HostInfo host, std::FILE* err);

    void started(const model::RunConfig& cfg, const model::RunResult& r) override;
    void run_so_far(const model::RunResult& so_far, const model::ProgressSnapshot* live) override;

    // Documents written so far (for tests).
    std::uint64_t writes() const { return writes_; }

  private:
    output::OutputPath path_;
    HostInfo host_;
    std::FILE* err_;
    model::RunConfig cfg_;
    bool failed_once_ = false;
    std::uint64_t writes_ = 0;
};

}  // namespace ds::report
