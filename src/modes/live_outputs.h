// The result files a run keeps up to date while it goes on, shared by the
// modes: the text report, the live --prom textfile.
#pragma once

#include <cstdio>
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

// A run's text report kept in memory (an open_memstream), shown only when
// the run did not pass: --interference's runs, a comparison's later repeats.
class HeldText {
  public:
    HeldText();
    ~HeldText();
    HeldText(const HeldText&) = delete;
    HeldText& operator=(const HeldText&) = delete;
    std::FILE* file() const { return file_; }
    // Its text so far, written to `out`.
    void show(std::FILE* out);

  private:
    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::FILE* file_;
};

// A run of a comparison or an interference that ended in an error (a
// full filesystem): the error said on standard error, as a single run says
// it; the words the result line gives it ("" when the run had none).
std::string say_run_error(const model::RunResult& r);

// The text report of one run held in `held` (out's settings, its text into
// held's file when it could be opened).
report::TextReport held_report(const Output& out, HeldText& held);

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
