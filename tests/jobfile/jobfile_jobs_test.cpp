// Sections into typed jobs: [global] inheritance as fio has it, fio's
// option order (kb_base first, filename last), aliases, every taken
// option's value and origin, notes, refusals in one exact line, engine
// options, wait_for, groups, the 4096-job bound and --job-set.
#include "jobfile/job_file.h"

#include <doctest/doctest.h>

#include <string>

using namespace ds::jobfile;

namespace {

Environment no_env() {
    Environment env;
    env.variable = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    return env;
}

std::vector<Job> jobs(const std::string& text) {
    return parse_job_text(text, "t.fio", no_env());
}

Job job(const std::string& options) {
    auto j = jobs("[j]\n" + options);
    REQUIRE(j.size() == 1);
    return j[0];
}

std::string refusal(const std::string& text) {
    try {
        jobs(text);
    } catch (const JobFileError& e) {
        return e.what();
    }
    return "";
}

std::string set_refusal(std::vector<Job> js, std::vector<std::string> overrides) {
    try {
        apply_job_set(js, overrides);
    } catch (const JobFileError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("fio's defaults for a job that sets nothing") {
    Job d = job("");
    CHECK(d.name == "j");
    CHECK(d.numjobs == 1);
    CHECK(d.rw == Rw::read);
    CHECK(d.bs == PerDirection<std::uint64_t>{4096, 4096, 4096});
    CHECK(d.iodepth == 1);
    CHECK(d.ioengine == Engine{"psync", Backend::sync});
    CHECK(d.rwmixread == 50);
    CHECK(d.randrepeat);
    CHECK(d.randseed == 0x89);
    CHECK(d.kb_base == 1024);
    CHECK(d.nrfiles == 1);
    CHECK(d.loops == 1);
    CHECK_FALSE(d.direct);
    CHECK(d.set.empty());
    CHECK(d.origin_of("bs") == nullptr);
}

TEST_CASE("a [global] changes the defaults of the sections after it") {
    auto js = jobs("[global]\nbs=8k\niodepth=4\n[a]\n[global]\nbs=16k\n[b]\niodepth=2\n[c]\n");
    REQUIRE(js.size() == 3);
    CHECK(js[0].bs[0] == 8192);
    CHECK(js[0].iodepth == 4);
    CHECK(js[1].bs[0] == 16384);
    CHECK(js[1].iodepth == 2);
    CHECK(js[2].bs[0] == 16384);
    CHECK(js[2].iodepth == 4);
    CHECK(*js[2].origin_of("bs") == Origin{"t.fio", 6});
    CHECK(*js[1].origin_of("iodepth") == Origin{"t.fio", 8});
    CHECK(js[2].name == "c");
}

TEST_CASE("kb_base applies before the section's sizes, wherever it is written") {
    Job k = job("bs=4k\nsize=1m\nkb_base=1000\n");
    CHECK(k.bs[0] == 4000);
    CHECK(k.size.bytes == 1000000);
    // a [global] size was read with the [global]'s kb_base
    auto js = jobs("[global]\nsize=1m\n[a]\nkb_base=1000\nbs=4kib\n");
    CHECK(js[0].size.bytes == 1048576);
    CHECK(js[0].bs[0] == 4096);
}

TEST_CASE("the options of #52 land in the job, aliases too") {
    Job j =
        job("readwrite=randrw\nrwmixwrite=30\nblocksize=4k,8k\nblockalign=4k\nnumjobs=4\n"
            "iodepth=32\niodepth_batch_submit=8\niodepth_batch_complete=4\n"
            "iodepth_batch_complete_max=16\niodepth_low=2\nioengine=libaio\ndirect=1\nfsync=8\n"
            "fdatasync=2\nend_fsync=1\nsync=dsync\ntime_based\ntimeout=2m\nramp_time=5s\nloops=3\n"
            "ratemin=1m\nrate=10m,5m\nrate_iops=500,100\nrate_process=poisson\nthinktime=10ms\n"
            "buffer_compress_percentage=50\nrefill_buffers\ndedupe_percentage=20\n"
            "cpus_allowed=0-3\nnuma_cpu_nodes=0\nwrite_bw_log=mylog\nwrite_iops_log\n"
            "write_lat_log=lat\nlog_avg_msec=1000\nnorandommap\nrandrepeat=0\nrandseed=1234\n"
            "random_distribution=zipf:1.2\nio_submit_mode=offload\nnr_files=2\nfilesize=1m-2m\n"
            "fileoffset=10%\noffset_increment=1g\nio_limit=50%\nnumber_ios=1k\nfill_fs=1\n"
            "create_on_open=1\nfallocate=none\nunlink=1\nexitall\nthread\nstartdelay=2-10\n"
            "ss=iops:10%\nss_dur=30s\nss_ramp=10s\ncontinue_on_error=all\ngroup_reporting\n");
    CHECK(j.rw == Rw::randrw);
    CHECK(j.rwmixread == 70);
    CHECK(j.bs == PerDirection<std::uint64_t>{4096, 8192, 8192});
    CHECK(j.blockalign == PerDirection<std::uint64_t>{4096, 4096, 4096});
    CHECK(j.numjobs == 4);
    CHECK(j.iodepth == 32);
    CHECK(j.iodepth_batch == 8);
    CHECK(j.iodepth_batch_complete_min == 4);
    CHECK(j.iodepth_batch_complete_max == 16);
    CHECK(j.iodepth_low == 2);
    CHECK(j.ioengine == Engine{"libaio", Backend::io_uring});
    CHECK(j.direct);
    CHECK(j.fsync == 8);
    CHECK(j.fdatasync == 2);
    CHECK(j.end_fsync);
    CHECK(j.sync == SyncMode::dsync);
    CHECK(j.time_based);
    CHECK(j.runtime_us == 120000000);
    CHECK(j.ramp_time_us == 5000000);
    CHECK(j.loops == 3);
    CHECK(j.rate_min == PerDirection<std::uint64_t>{1048576, 1048576, 1048576});
    CHECK(j.rate == PerDirection<std::uint64_t>{10485760, 5242880, 5242880});
    CHECK(j.rate_iops == PerDirection<std::uint64_t>{500, 100, 100});
    CHECK(j.rate_process == RateProcess::poisson);
    CHECK(j.thinktime_us == 10000);
    CHECK(j.buffer_compress_percentage == 50u);
    CHECK(j.refill_buffers);
    CHECK(j.dedupe_percentage == 20);
    CHECK(j.cpus_allowed == std::vector<unsigned>{0, 1, 2, 3});
    CHECK(j.numa_cpu_nodes == std::vector<unsigned>{0});
    CHECK(j.bw_log == Log{true, "mylog"});
    CHECK(j.iops_log == Log{true, ""});
    CHECK(j.lat_log == Log{true, "lat"});
    CHECK(j.log_avg_msec == 1000);
    CHECK(j.norandommap);
    CHECK_FALSE(j.randrepeat);
    CHECK(j.randseed == 1234);
    CHECK(j.random_distribution.kind == DistributionKind::zipf);
    CHECK(j.io_submit_mode == SubmitMode::offload);
    CHECK(j.nrfiles == 2);
    CHECK(j.filesize == SizeRange{1048576, 2097152});
    CHECK(j.offset == Amount{0, 10});
    CHECK(j.offset_increment == Amount{1073741824, std::nullopt});
    CHECK(j.io_size == Amount{0, 50});
    CHECK(j.number_ios == 1024);
    CHECK(j.fill_device);
    CHECK(j.create_on_open);
    CHECK(j.fallocate == Fallocate::none);
    CHECK(j.unlink);
    CHECK(j.exitall);
    CHECK(j.thread);
    CHECK(j.startdelay == TimeRange{2000000, 10000000});
    CHECK(j.steadystate == SteadyKind::iops);
    CHECK(j.steadystate_limit == 10);
    CHECK(j.steadystate_duration_us == 30000000);
    CHECK(j.steadystate_ramp_us == 10000000);
    CHECK(j.continue_on_error == ContinueOnError::all);
    CHECK(j.group_reporting);
    CHECK(*j.origin_of("rw") == Origin{"t.fio", 2});  // by fio's name, written as readwrite
    CHECK(*j.origin_of("group_reporting") == Origin{"t.fio", 58});
}

TEST_CASE("per direction: bs, bsrange, bssplit, rate as fio's examples spell them") {
    CHECK(job("bs=,8k\n").bs == PerDirection<std::uint64_t>{4096, 8192, 8192});
    CHECK(job("bs=8k,32k,\n").bs == PerDirection<std::uint64_t>{8192, 32768, 4096});
    CHECK(job("rate=500k,\n").rate == PerDirection<std::uint64_t>{512000, 0, 0});
    CHECK(job("rate=,500k\n").rate == PerDirection<std::uint64_t>{0, 512000, 512000});
    Job r = job("bsrange=1k-4k,2k-8k\n");
    CHECK(r.bsrange[0] == SizeRange{1024, 4096});
    CHECK(r.bsrange[2] == SizeRange{2048, 8192});
    Job s = job("bssplit=2k/50:4k/50,4k/90:8k/10\n");
    CHECK(s.bssplit[0] == std::vector<BlockShare>{{2048, 50}, {4096, 50}});
    CHECK(s.bssplit[1] == std::vector<BlockShare>{{8192, 10}, {4096, 90}});
    CHECK(s.bssplit[2] == s.bssplit[1]);
    CHECK(refusal("[j]\nbs=4k:8k\n") ==
          "t.fio:2: bs: '4k:8k': ':' splits values for fio; write READ,WRITE,TRIM");
    CHECK(refusal("[j]\nbs=4k-8k\n") ==
          "t.fio:2: bs: '4k-8k': '-' splits values for fio; write READ,WRITE,TRIM");
    CHECK(refusal("[j]\nbs=0\n") == "t.fio:2: bs: '0': a block size is at least 1");
}

TEST_CASE("rw's modifiers, filename's list and its escape, files accumulating from [global]") {
    Job back = job("rw=read:-8k\n");
    CHECK(back.rw_offset_step == -8192);
    Job run = job("rw=randread:8\n");
    CHECK(run.rw_random_run == 8);
    auto js = jobs(
        "[global]\nfilename=/tmp/ga\n[j]\nfilename=/tmp/ja:/tmp/j\\:b\nfilename=/tmp/jc\n"
        "nrfiles=9\n");
    CHECK(js[0].filenames == std::vector<std::string>{"/tmp/ga", "/tmp/ja", "/tmp/j:b", "/tmp/jc"});
    CHECK(js[0].nrfiles == 4);
    CHECK(job("directory=/a:/b\n").directories == std::vector<std::string>{"/a", "/b"});
}

TEST_CASE("direct and buffered are one switch; the last written wins, as rwmix does") {
    CHECK_FALSE(job("direct=1\nbuffered=1\n").direct);
    CHECK(job("buffered=1\ndirect=1\n").direct);
    CHECK(job("rwmixread=30\nrwmixwrite=40\n").rwmixread == 60);
    CHECK(*job("buffered=0\n").origin_of("direct") == Origin{"t.fio", 2});
    CHECK(*job("rwmixwrite=40\n").origin_of("rwmixread") == Origin{"t.fio", 2});
}

TEST_CASE("engines: io_uring's family, sync's family, null; others refused by name") {
    CHECK(job("ioengine=io_uring\n").ioengine.backend == Backend::io_uring);
    CHECK(job("ioengine=posixaio\n").ioengine.backend == Backend::io_uring);
    CHECK(job("ioengine=pvsync2\n").ioengine.backend == Backend::sync);
    CHECK(job("ioengine=vsync\n").ioengine.backend == Backend::sync);
    CHECK(job("ioengine=null\n").ioengine.backend == Backend::nop);
    CHECK(refusal("[j]\nioengine=sg\n") ==
          "t.fio:2: ioengine: 'sg' is not an engine drivestress runs (io_uring, libaio, posixaio, "
          "sync, psync, pvsync, pvsync2, vsync, null)");
}

TEST_CASE("engine options: after the engine is known, checked against it") {
    Job j = job("registerfiles\nioengine=io_uring\nfixedbufs\n");
    REQUIRE(j.notes.size() == 2);
    CHECK(j.notes[0].option == "registerfiles");
    CHECK(j.notes[0].origin == Origin{"t.fio", 2});
    CHECK(refusal("[j]\nioengine=io_uring\nhipri\n") ==
          "t.fio:3: hipri: an option of ioengine=io_uring drivestress does not take: polled "
          "completions: drivestress's backends set their own flags");
    CHECK(refusal("[j]\nfixedbufs\n") ==
          "t.fio:2: fixedbufs: an option of fio's io_uring io_uring_cmd engine(s), not of "
          "ioengine=psync");
    CHECK(refusal("[j]\nioengine=libaio\nport=8000\n") ==
          "t.fio:3: port: an option of fio's net netsplice rdma engine(s), not of ioengine=libaio");
}

TEST_CASE("noted options are accepted and said; refused ones name fio's reason") {
    Job v = job("verify=crc32c\nverify_fatal=1\ndo_verify=0\n");
    REQUIRE(v.notes.size() == 3);
    CHECK(v.notes[0].text == "drivestress always verifies, its own way");
    CHECK(v.set.empty());
    CHECK(refusal("[j]\nzonemode=zbd\n") ==
          "t.fio:2: zonemode: a fio option drivestress does not take: zones (strided or zoned "
          "devices) are not driven");
    CHECK(refusal("[j]\nrwmixcycle=5\n") ==
          "t.fio:2: rwmixcycle: a fio option drivestress does not take: deprecated: fio 3.33 "
          "refuses it too");
    // fio's own suggestion, by its own distance
    CHECK(refusal("[j]\nblocksize_foo=4k\n") ==
          "t.fio:2: blocksize_foo: not a fio option (did you mean lockfile?)");
    CHECK(refusal("[j]\nxyzzy_plugh_quux=1\n") == "t.fio:2: xyzzy_plugh_quux: not a fio option");
    std::string long_key(65, 'b');  // no suggestion past 64 characters, and 64 of them shown
    CHECK(refusal("[j]\n" + long_key + "=1\n") ==
          "t.fio:2: " + long_key.substr(1) + "...: not a fio option");
    CHECK(refusal("[j]\niodpth=4\n") ==
          "t.fio:2: iodpth: not a fio option (did you mean iodepth?)");
    CHECK(refusal("[j]\nthreads=1\n").empty());  // tiobench's, as steadystate.fio has it
}

TEST_CASE("values refused with the option and its line") {
    CHECK(refusal("[j]\nbs = 4k\n") ==
          "t.fio:2: bs: ' 4k' is not a size (fio keeps a space "
          "after '='): fio 3.33 would read 4 bytes");
    CHECK(refusal("[j]\nruntime=10sec\n") ==
          "t.fio:2: runtime: '10sec' is not a time (us, ms, "
          "s, m, h or d): fio 3.33 would read 10 us");
    CHECK(refusal("[j]\ndirect\n") == "t.fio:2: direct: needs a value (KEY=VALUE)");
    CHECK(refusal("[j]\niodepth=4,8\n") ==
          "t.fio:2: iodepth: '4,8': one value (fio would split it at ',')");
    CHECK(refusal("[j]\nnumjobs=0\n") == "t.fio:2: numjobs: '0' is less than 1");
    CHECK(refusal("[j]\nrw=READ\n").starts_with("t.fio:2: rw: 'READ' is not one of read,"));
    CHECK(refusal("[j]\nsize=150%\n") == "t.fio:2: size: '150%': a percentage is from 1% to 100%");
    CHECK(refusal("[j]\nname=\n") == "t.fio:2: name: an empty value");
    CHECK(job("iodepth=4,\n").iodepth == 4);  // fio drops a trailing comma
}

TEST_CASE("wait_for names an earlier job, not itself, not two") {
    auto js = jobs("[a]\n[b]\nwait_for=a\n");
    CHECK(js[1].wait_for == "a");
    CHECK(refusal("[a]\nwait_for=b\n[b]\n") == "t.fio:2: wait_for: 'b' is no job before this one");
    CHECK(refusal("[a]\nwait_for=a\n") == "t.fio:2: wait_for: a job cannot wait for itself");
    CHECK(refusal("[a]\n[x]\nname=a\n[c]\nwait_for=a\n") ==
          "t.fio:5: wait_for: 'a' names several jobs");
}

TEST_CASE("groups: stonewall and new_group start the next one, as fio numbers them") {
    auto js = jobs("[a]\n[b]\n[c]\nstonewall\n[d]\nnew_group\n[e]\nwait_for_previous\n");
    REQUIRE(js.size() == 5);
    CHECK(js[0].group == 0);
    CHECK(js[1].group == 0);
    CHECK(js[2].group == 1);
    CHECK(js[3].group == 2);
    CHECK(js[4].group == 3);
    CHECK(jobs("[a]\nstonewall\n")[0].group == 0);
    auto every = jobs("[global]\nstonewall\n[a]\n[b]\n");
    CHECK(every[1].group == 1);
}

TEST_CASE("at most 4096 jobs, counting numjobs copies; a file with jobs in it") {
    CHECK(refusal("[a]\nnumjobs=4000\n[b]\nnumjobs=97\n") ==
          "t.fio:4: numjobs: more than 4096 jobs (counting numjobs copies)");
    CHECK(refusal("[a]\nnumjobs=4096\n[b]\n") ==
          "t.fio:3: more than 4096 jobs (counting numjobs copies)");
    std::string many;
    for (int i = 0; i < 10000; ++i)
        many += "[j" + std::to_string(i) + "]\n";
    CHECK(refusal(many) == "t.fio:4097: more than 4096 jobs");
    CHECK(refusal("[global]\nbs=4k\n") == "t.fio: no jobs (only [global] sections, or none)");
    CHECK(refusal("; nothing\n") == "t.fio: no jobs (only [global] sections, or none)");
}

TEST_CASE("bounds on what jobs hold: names per job, and memory across jobs") {
    std::string names = "a";
    for (int i = 1; i < 4097; ++i)
        names.append(":a").append(std::to_string(i));
    CHECK(refusal("[j]\nfilename=" + names + "\n") ==
          "t.fio:2: filename: more than 4096 names in one job");
    auto sections =
        parse_sections("[global]\nfilename=/tmp/" + std::string(1000, 'x') + "\n[a]\n[b]\n[c]\n",
                       "t.fio", no_env());
    std::size_t one = job_bytes(build_jobs(sections, "t.fio")[0]);
    CHECK(one > 1000 + sizeof(Job));
    try {
        build_jobs(sections, "t.fio", 2 * one + one / 2);
        FAIL("not refused");
    } catch (const JobFileError& e) {
        CHECK(e.where() == Origin{"t.fio", 5});
        CHECK(e.message().starts_with("the jobs so far hold over "));
    }
}

TEST_CASE("a noted option written twice is one note, where it was last written") {
    Job j = job("verify=md5\nverify=crc32c\n");
    REQUIRE(j.notes.size() == 1);
    CHECK(j.notes[0].origin == Origin{"t.fio", 3});
}

TEST_CASE("--job-set overrides every job through the same parsers") {
    auto js = jobs("[global]\nfilename=/dev/a\nkb_base=1000\n[a]\nruntime=1h\n[b]\nsize=10g\n");
    apply_job_set(js, std::vector<std::string>{"runtime=2", "size=64M", "filename=/dev/b:/dev/c",
                                               "time_based"});
    for (const Job& j : js) {
        CHECK(j.runtime_us == 2000000);
        CHECK(j.size.bytes == 64000000);  // the job's kb_base
        CHECK(j.filenames == std::vector<std::string>{"/dev/b", "/dev/c"});
        CHECK(j.time_based);
        CHECK(*j.origin_of("runtime") == Origin{"--job-set", 0});
    }
    CHECK(set_refusal(js, {"runtime=abc"}) == "--job-set: runtime: 'abc' is not a time");
    CHECK(set_refusal(js, {"zonemode=zbd"}).starts_with("--job-set: zonemode: a fio option"));
    CHECK(set_refusal(js, {"bogus=1"}) == "--job-set: bogus: not a fio option (did you mean bs?)");
    CHECK(set_refusal(js, {"=1"}) == "--job-set: '=1': KEY=VALUE");
    CHECK(set_refusal(js, {"numjobs=4000"}) ==
          "--job-set: numjobs: more than 4096 jobs (counting numjobs copies)");
}
