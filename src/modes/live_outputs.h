// The result files a run keeps up to date while it goes on, shared by the
// modes: the text report, the live --prom textfile.
#pragma once

#include <memory>
#include <vector>

#include "cli/command_line.h"
#include "metrics/prom_textfile.h"
#include "model/config.h"
#include "model/observer.h"
#include "modes/delivery.h"
#include "modes/modes.h"
#include "report/fio_jobs.h"
#include "report/text_report.h"

namespace ds::modes {

report::TextReport text_report(const Output& out);

// --prom: the live textfile, or none.
std::unique_ptr<metrics::PromTextfile> prom_textfile(const cli::ParsedCommandLine& cmd);

// Runs one Runner; a run that ends in an exception leaves a textfile that
// says so (verdict error) rather than one that says it is still running.
model::RunResult run_watched(const model::RunConfig& cfg, model::RunObserver* observer,
                             metrics::PromTextfile* prom);

// The last textfile write; a live rewrite that failed is said, not fatal.
void finish_prom(metrics::PromTextfile* prom, Delivery& d, bool nothing_verified = false);

// --fio-json: the random phases of `runs` as fio's JSON+ (report/fio_jobs.h),
// written once the runs are over; nothing without --fio-json.
void deliver_fio_json(const cli::Outputs& o, Delivery& d,
                      const std::vector<report::FioRunRef>& runs);

}  // namespace ds::modes
