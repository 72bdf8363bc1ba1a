// The human report: a header with the effective settings, one block per
// iteration as it completes, then a summary; optionally a live status line
// on a terminal.
#pragma once

#include <cstdio>
#include <string>

#include "report/host_info.h"
#include "run/runner.h"

namespace ds::report {

class TextReport final : public run::RunObserver {
  public:
    // `out` gets the report; `live`, when not null, gets the status line
    // (a terminal), refreshed in place.
    TextReport(std::FILE* out, std::FILE* live, HostInfo host);

    void started(const run::RunConfig& cfg, const run::RunResult& r) override;
    void progress(const run::ProgressSnapshot& s) override;
    void phase_done(std::uint64_t iteration, const run::PhaseResult& p) override;
    void iteration_done(const run::IterationResult& it) override;
    // The summary and the verdict.
    void finish(const run::RunConfig& cfg, const run::RunResult& r);

  private:
    void clear_live();

    std::FILE* out_;
    std::FILE* live_;
    HostInfo host_;
    bool live_shown_ = false;
    std::uint64_t header_iteration_ = 0;
    std::uint64_t mismatches_seen_ = 0;
};

// One line per phase, e.g. "seq-write  1234.5 MiB/s  ..." (also used by tests).
std::string phase_line(const run::PhaseResult& p);

}  // namespace ds::report
