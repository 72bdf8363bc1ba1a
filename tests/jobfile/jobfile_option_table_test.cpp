// The option table: every option fio 3.33 knows has a policy row and every
// row names one of fio's options; every taken option has a setter and every
// setter a taken option, under fio's name; and docs/jobs.md's table is the
// one the code makes, so the page cannot drift.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "jobfile/option_policy.h"
#include "jobfile/setters.h"
#include "tests/jobfile/doc_block.h"
#include "tests/jobfile/jobfile_paths.h"  // DS_JOBS_DOC, written by tests/jobfile/meson.build

using namespace ds::jobfile;

namespace {

std::set<std::string> setter_names() {
    std::set<std::string> names;
    for (auto list : {detail::job_setters(), detail::workload_setters(), detail::rate_setters()})
        for (const detail::Taken& t : list)
            CHECK_MESSAGE(names.insert(t.name).second, t.name, " has two setters");
    return names;
}

}  // namespace

TEST_CASE("every option fio knows has a policy, every policy row is one of fio's") {
    std::set<std::string> fio;
    for (const FioOption& o : fio_options()) {
        fio.insert(o.name);
        Policy p = policy_of(o);
        CHECK_MESSAGE(p.reason != "not taken by drivestress", o.name, " has no policy row");
        CHECK_MESSAGE(!p.reason.empty(), o.name, " has no reason");
        CHECK_MESSAGE(p.reason.find('|') == std::string::npos, o.name, ": '|' breaks the table");
    }
    for (const std::string& name : policy_names())
        CHECK_MESSAGE(fio.count(name) == 1, name, " is not one of fio 3.33's options");
    CHECK(fio.size() >= 280);
}

TEST_CASE("taken options and setters are the same set, under fio's names") {
    std::set<std::string> setters = setter_names();
    std::set<std::string> taken;
    for (const FioOption& o : fio_options())
        if (policy_of(o).status == Status::taken) taken.insert(o.name);
    CHECK(setters == taken);
    for (const std::string& name : setters) {
        const FioOption* o = find_main_option(name);
        REQUIRE_MESSAGE(o != nullptr, name, " is not a main option");
        CHECK(std::string(o->name) == name);
    }
    // issue #52 item 3's list, all taken (verify* noted)
    for (const char* name : {"name",
                             "numjobs",
                             "stonewall",
                             "new_group",
                             "wait_for",
                             "group_reporting",
                             "startdelay",
                             "filename",
                             "directory",
                             "nrfiles",
                             "filesize",
                             "size",
                             "offset",
                             "io_size",
                             "number_ios",
                             "rw",
                             "rwmixread",
                             "rwmixwrite",
                             "bs",
                             "bssplit",
                             "ba",
                             "random_distribution",
                             "norandommap",
                             "randrepeat",
                             "randseed",
                             "iodepth",
                             "iodepth_batch",
                             "iodepth_batch_complete_min",
                             "iodepth_batch_complete_max",
                             "iodepth_low",
                             "ioengine",
                             "direct",
                             "buffered",
                             "fsync",
                             "fdatasync",
                             "end_fsync",
                             "sync",
                             "time_based",
                             "runtime",
                             "ramp_time",
                             "loops",
                             "rate",
                             "rate_iops",
                             "rate_process",
                             "thinktime",
                             "buffer_compress_percentage",
                             "refill_buffers",
                             "dedupe_percentage",
                             "cpus_allowed",
                             "numa_cpu_nodes",
                             "write_bw_log",
                             "write_iops_log",
                             "write_lat_log",
                             "log_avg_msec",
                             "thread",
                             "bsrange",
                             "fill_device",
                             "create_on_open",
                             "fallocate",
                             "unlink",
                             "exitall",
                             "rate_min",
                             "io_submit_mode",
                             "offset_increment",
                             "steadystate",
                             "continue_on_error"})
        CHECK_MESSAGE(taken.count(name) == 1, name, " is not taken");
    for (const FioOption& o : fio_options())
        if (std::string_view(o.name).starts_with("verify") &&
            std::string_view(o.name) != "verify_only")
            CHECK_MESSAGE(policy_of(o).status == Status::noted, o.name, " is not noted");
}

TEST_CASE("aliases find fio's option") {
    CHECK(std::string(find_main_option("readwrite")->name) == "rw");
    CHECK(std::string(find_main_option("timeout")->name) == "runtime");
    CHECK(std::string(find_main_option("ratemin")->name) == "rate_min");
    CHECK(std::string(find_main_option("wait_for_previous")->name) == "stonewall");
    CHECK(std::string(find_main_option("blockalign")->name) == "ba");
    CHECK(find_main_option("hipri") == nullptr);
    CHECK(std::string(find_engine_option("proto")->name) == "protocol");
    CHECK(engine_has_option(*find_engine_option("hipri"), "io_uring"));
    CHECK_FALSE(engine_has_option(*find_engine_option("hipri"), "libaio"));
}

TEST_CASE("docs/jobs.md's option table is the code's") {
    std::string expected = option_table_markdown();
    std::string documented =
        jobfile_test::documented_block(DS_JOBS_DOC, "<!-- option table:", expected);
    CHECK_MESSAGE(documented == expected, "docs/jobs.md's option table differs; the table is:\n",
                  expected);
}
