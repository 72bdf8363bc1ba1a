// drivestress with the test hooks (src/run/test_hooks.h) filled from the
// environment: the program the end-to-end tests run when they need a pause
// point or a fake; the product binary reads none of these variables.
//   DRIVESTRESS_TEST_STOP=PHASE[:N]  SIGSTOP the whole process before PHASE
//       starts, or once worker 0 has completed N operations in it.
//   DRIVESTRESS_TEST_STOP=create  after the target was checked, before the
//       files are created.
//   DRIVESTRESS_TEST_STOP=verify  (--verify-only) once it holds the lock.
//   DRIVESTRESS_TEST_STOP=cleanup:N  (--verify-only --cleanup) once the
//       state's claim is withdrawn and N files are removed.
//   DRIVESTRESS_TEST_STOP_ON_SIGNAL=1  when it notices the first stop signal.
//   DRIVESTRESS_TEST_SNAPSHOT_S=SECONDS, DRIVESTRESS_TEST_CHECKPOINT_S=SECONDS
//       the periods of the snapshots while an iteration runs / as it ends.
//   DRIVESTRESS_TEST_SYSFS_ROOT=DIR  sysfs is this directory (sys/system_tree.h):
//       the NVMe controller in a fake tree.
//   DRIVESTRESS_TEST_HEALTH_LOGS[_<controller>]=PAGE[,PAGE...]  health-log
//       readings from these 512-byte fixture files (the last repeats).
//   DRIVESTRESS_TEST_JOBS=FILE  the run's jobs instead of the options' one
//       (TestHooks::jobs; internal, for tests: no job file needed): a JSON
//       array of objects with model::JobSpec's fields, each optional: name,
//       group, copies, files (numbers N of the run's drivestress-N.dat),
//       access ("random" or "sequential"), read_pct, trim_pct, block,
//       depth, ops, io_bytes, loops, runtime_s, startdelay_s, ramp_s,
//       offset, offset_increment, range_bytes.
#include <unistd.h>  // environ

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "modes/program.h"
#include "run/test_hooks.h"
#include "sys/system_tree.h"

namespace {

// A period in seconds from variable `name` (up to an hour; zero when
// `zero_ok`) into `out`; left alone when unset or unreadable.
void seconds_from(const char* name, bool zero_ok, double& out) {
    const char* p = std::getenv(name);
    if (!p) return;
    char* end = nullptr;
    const double s = std::strtod(p, &end);
    if (end != p && *end == '\0' && (s > 0 || (zero_ok && s == 0)) && s <= 3600) out = s;
}

// "A,B,,C" -> {A, B, C}.
std::vector<std::string> comma_list(const std::string& list) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) out.push_back(list.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

void stop_the_process() {
    ::raise(SIGSTOP);
}

void read_fixtures(ds::run::TestHooks& h) {
    if (const char* p = std::getenv("DRIVESTRESS_TEST_HEALTH_LOGS"); p && *p)
        h.health_log_fixtures = comma_list(p);
    static const std::string per_controller = "DRIVESTRESS_TEST_HEALTH_LOGS_";
    for (char** e = environ; e && *e; ++e) {
        const std::string var(*e);
        const std::size_t eq = var.find('=');
        if (var.compare(0, per_controller.size(), per_controller) == 0 && eq != std::string::npos &&
            eq > per_controller.size())
            h.controller_health_log_fixtures[var.substr(per_controller.size(),
                                                        eq - per_controller.size())] =
                comma_list(var.substr(eq + 1));
    }
}

// DRIVESTRESS_TEST_JOBS's file (a test's own: bad JSON throws).
std::vector<ds::model::JobSpec> read_jobs(const char* path) {
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<ds::model::JobSpec> jobs;
    for (const nlohmann::json& o : doc) {
        ds::model::JobSpec j;
        j.name = o.value("name", j.name);
        j.group = o.value("group", j.group);
        j.copies = o.value("copies", j.copies);
        for (unsigned n : o.value("files", std::vector<unsigned>{0}))
            j.files.push_back({"drivestress-" + std::to_string(n) + ".dat", 0, 0});
        if (o.value("access", std::string("random")) == "sequential")
            j.access = ds::model::Access::sequential;
        j.read_pct = o.value("read_pct", j.read_pct);
        j.trim_pct = o.value("trim_pct", j.trim_pct);
        j.block = o.value("block", j.block);
        j.depth = o.value("depth", j.depth);
        j.ops = o.value("ops", j.ops);
        j.io_bytes = o.value("io_bytes", j.io_bytes);
        j.loops = o.value("loops", j.loops);
        j.runtime_s = o.value("runtime_s", j.runtime_s);
        j.startdelay_s = o.value("startdelay_s", j.startdelay_s);
        j.ramp_s = o.value("ramp_s", j.ramp_s);
        j.offset = o.value("offset", j.offset);
        j.offset_increment = o.value("offset_increment", j.offset_increment);
        j.range_bytes = o.value("range_bytes", j.range_bytes);
        jobs.push_back(std::move(j));
    }
    return jobs;
}

void read_stop(ds::run::TestHooks& h) {
    const char* v = std::getenv("DRIVESTRESS_TEST_STOP");
    if (!v || !*v) return;
    const std::string s(v);
    h.stop_before_create = s == "create";
    h.stop_before_verify = s == "verify";
    const auto colon = s.find(':');
    if (s.substr(0, colon) == "cleanup")
        h.stop_in_cleanup =
            colon == std::string::npos ? 0 : std::strtoull(s.c_str() + colon + 1, nullptr, 10);
    h.stop_phase = ds::model::phase_from_string(s.substr(0, colon));
    if (colon != std::string::npos)
        h.stop_after_ops = std::strtoull(s.c_str() + colon + 1, nullptr, 10);
}

}  // namespace

int main(int argc, char** argv) {
    ds::run::TestHooks h;
    h.pause = stop_the_process;
    const char* on_signal = std::getenv("DRIVESTRESS_TEST_STOP_ON_SIGNAL");
    h.stop_on_signal = on_signal && *on_signal == '1';
    seconds_from("DRIVESTRESS_TEST_SNAPSHOT_S", false, h.snapshot_period_s);
    seconds_from("DRIVESTRESS_TEST_CHECKPOINT_S", true, h.checkpoint_period_s);
    read_fixtures(h);
    read_stop(h);
    if (const char* p = std::getenv("DRIVESTRESS_TEST_JOBS"); p && *p) h.jobs = read_jobs(p);
    ds::run::install_test_hooks(h);
    if (const char* p = std::getenv("DRIVESTRESS_TEST_SYSFS_ROOT"); p && *p) {
        ds::sys::SystemTree tree;
        tree.sys = p;
        ds::sys::install_system_tree(tree);
    }
    return ds::modes::run_program(argc, argv);
}
