// Prometheus text exposition (format 0.0.4) of a run's headline figures, for
// node_exporter's textfile collector: the collector reads every *.prom file of
// its directory at each scrape, so the file is replaced atomically
// (io::write_file_atomically).
#pragma once

#include <string>
#include <string_view>

#include "run/config.h"
#include "run/results.h"

namespace ds::report {

// Gauges: bandwidth, IOPS and latency (p50, p99, max) of each phase of the
// latest iteration, mismatches per class, the exit status and the time the
// run ended; one # HELP and one # TYPE line per metric.
std::string prometheus_text(const run::RunConfig& cfg, const run::RunResult& r);

// A label value escaped per the exposition format: \ → \\, " → \", newline → \n.
std::string prometheus_escape_label(std::string_view value);

}  // namespace ds::report
