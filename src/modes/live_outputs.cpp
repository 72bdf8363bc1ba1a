#include "modes/live_outputs.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "modes/printable_stream.h"
#include "report/fio_json.h"
#include "report/host_info.h"
#include "report/text_width.h"
#include "run/runner.h"
#include "units/diag.h"

namespace ds::modes {

Output output_for(const cli::Outputs& outputs) {
    Output o;
    // Never text into the JSON document; names in it escaped for the terminal.
    static std::FILE* const to_stdout = printable_stream(stdout);
    static std::FILE* const to_stderr = printable_stream(stderr);
    o.text = outputs.json.is_stdout() || outputs.fio_json.is_stdout() ? to_stderr : to_stdout;
    const bool live = outputs.progress == cli::ProgressMode::always ||
                      (outputs.progress == cli::ProgressMode::automatic && ::isatty(STDERR_FILENO));
    o.live = live ? stderr : nullptr;
    o.brief = outputs.brief;
    o.units = outputs.units;
    report::set_text_width(outputs.wide ? 0 : report::kTextWidth);
    return o;
}

report::TextReport text_report(const Output& out) {
    report::TextReport text(out.text, out.live, report::HostInfo::current());
    if (out.brief) text.set_layout(report::TextReport::Layout::brief);
    text.set_units(out.units);
    return text;
}

HeldText::HeldText() : file_(open_memstream(&data_, &size_)) {}

HeldText::~HeldText() {
    if (file_) std::fclose(file_);
    std::free(data_);
}

void HeldText::show(std::FILE* out) {
    if (!file_ || std::fflush(file_) != 0) return;
    std::fwrite(data_, 1, size_, out);
}

std::string say_run_error(const model::RunResult& r) {
    if (r.fatal_error.empty()) return {};
    units::error(r.fatal_error);
    return one_line(r.fatal_error);
}

report::TextReport held_report(const Output& out, HeldText& held) {
    Output quiet = out;
    if (held.file()) quiet.text = held.file();
    return text_report(quiet);
}

std::unique_ptr<metrics::PromTextfile> prom_textfile(const cli::ParsedCommandLine& cmd) {
    const cli::Outputs& o = cmd.outputs;
    if (o.prom.none()) return nullptr;
    return std::make_unique<metrics::PromTextfile>(
        metrics::PromTextfile::Settings{o.prom.text(), o.prom_labels, o.prom_interval_s,
                                        cmd.preset},
        report::HostInfo::current());
}

model::RunResult run_watched(const model::RunConfig& cfg, model::RunObserver* observer,
                             metrics::PromTextfile* prom) {
    try {
        return run::Runner(cfg, observer).run();
    } catch (...) {
        if (prom) (void)prom->finish(kExitUsage);
        throw;
    }
}

void finish_prom(metrics::PromTextfile* prom, Delivery& d, bool nothing_verified) {
    if (!prom) return;
    if (std::string e = prom->finish(model::code_of(d.code()), nothing_verified); !e.empty()) {
        d.failed(e);
    } else if (prom->live_failures() > 0) {
        units::warning(units::printf_string(
            "%u live rewrite(s) of --prom failed, the last one landed (first failure: %s)",
            prom->live_failures(), prom->live_error().c_str()));
    }
}

void deliver_fio_json(const cli::Outputs& o, Delivery& d,
                      const std::vector<report::FioRunRef>& runs) {
    if (o.fio_json.none()) return;
    const report::FioDocument doc = report::fio_document(runs, std::chrono::system_clock::now());
    d.document("--fio-json", o.fio_json, report::fio_jsonplus_text(doc));
}

}  // namespace ds::modes
