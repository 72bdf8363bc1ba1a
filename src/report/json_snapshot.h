// --json PATH while the run goes on: the document is rewritten (atomically,
// io::write_file_atomically) after every iteration and at every periodic
// snapshot of the run, marked in_progress, so that a crash or power loss of
// the host leaves every finished iteration's result on disk.  The final
// document (main) replaces it when the run ends.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/observer.h"
#include "report/host_info.h"

namespace ds::report {

class JsonSnapshotWriter final : public run::RunObserver {
  public:
    // `path` is the --json destination; only a regular file is rewritten
    // during the run ("-", a FIFO or a terminal get the final document
    // only).  The first failed rewrite is one line on `err`.
    JsonSnapshotWriter(std::string path, HostInfo host, std::FILE* err);

    void started(const run::RunConfig& cfg, const run::RunResult& r) override;
    void run_so_far(const run::RunResult& so_far, const run::ProgressSnapshot* live) override;

    // Documents written so far (for tests).
    std::uint64_t writes() const { return writes_; }

  private:
    std::string path_;
    HostInfo host_;
    std::FILE* err_;
    run::RunConfig cfg_;
    bool failed_once_ = false;
    std::uint64_t writes_ = 0;
};

}  // namespace ds::report
