// fio's jobs onto the engine's: each mapped option's value in, the JobSpec
// field out; the run's backend and O_DIRECT decided over the jobs; every
// refusal's exact line; the notes.
#include "cli/job_file_jobs.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cli/job_file_map.h"
#include "jobfile/job_file.h"

using namespace ds;
using namespace ds::cli;

namespace {

jobfile::Environment no_env() {
    jobfile::Environment env;
    env.variable = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    return env;
}

// A 64 GiB device at /dev/sdx and a 1 GiB file at /data/old; nothing else.
JobFileContext context(std::string target = "") {
    JobFileContext ctx;
    ctx.target = std::move(target);
    ctx.look = [](const std::string& path) -> std::optional<PathFacts> {
        if (path == "/dev/sdx") return PathFacts{64ULL << 30, true};
        if (path == "/data/old") return PathFacts{1ULL << 30, false};
        return std::nullopt;
    };
    return ctx;
}

JobFileJobs mapped(const std::string& text, const JobFileContext& ctx = context()) {
    return jobs_from_job_file(jobfile::parse_job_text(text, "t.fio", no_env()), ctx);
}

// The one job of "[j]\nsize=1m\n" plus `options`.
model::JobSpec one(const std::string& options) {
    JobFileJobs m = mapped("[j]\nsize=1m\n" + options);
    REQUIRE(m.jobs.size() == 1);
    return m.jobs.front();
}

std::string refusal(const std::string& text, const JobFileContext& ctx = context()) {
    try {
        mapped(text, ctx);
    } catch (const jobfile::JobFileError& e) {
        return e.what();
    }
    return "";
}

// The workload part alone, before refuse_engine_limits: what the JobSpec says.
model::JobSpec workload(const std::string& options) {
    std::vector<jobfile::Job> js =
        jobfile::parse_job_text("[j]\nsize=1m\n" + options, "t.fio", no_env());
    REQUIRE(js.size() == 1);
    model::JobSpec spec;
    std::vector<std::string> notes;
    jobmap::map_workload(js.front(), false, spec, notes);
    return spec;
}

bool has_note(const JobFileJobs& m, const std::string& line) {
    return std::find(m.notes.begin(), m.notes.end(), line) != m.notes.end();
}

}  // namespace

TEST_CASE("a job that sets only its size: fio's defaults as a JobSpec") {
    JobFileJobs m = mapped("[j]\nsize=1m\n");
    REQUIRE(m.jobs.size() == 1);
    const model::JobSpec& j = m.jobs[0];
    CHECK(j.name == "j");
    CHECK(j.group == 0);
    CHECK(j.copies == 1);
    CHECK(j.access == model::Access::sequential);
    CHECK(j.read_pct == 100);
    CHECK(j.trim_pct == 0);
    CHECK(j.block == 4096);
    CHECK(j.mix.empty());
    CHECK(j.depth == 1);
    CHECK(j.batch == 1);
    CHECK(j.rate == 0);
    CHECK(j.verify);
    CHECK(j.loops == 1);
    CHECK(j.runtime_s == 0);
    REQUIRE(j.files.size() == 1);
    CHECK(j.files[0] == model::FileSpec{"j.0.0", 1 << 20, 0});
    CHECK(j.range_bytes == 1 << 20);
    CHECK(m.targets == std::vector<JobFileTarget>{{".", false}});
    CHECK(m.backend == model::BackendChoice::sync);  // psync, fio's default
    CHECK_FALSE(m.nop);
    CHECK(m.buffered);
    CHECK(has_note(m,
                   "t.fio:1: unlink: fio keeps its files; drivestress removes its own at the end"));
}

TEST_CASE("name and numjobs: the job's name and copies, each copy its own file") {
    model::JobSpec j = one("name=writer\nnumjobs=3\n");
    CHECK(j.name == "writer");
    CHECK(j.copies == 3);
    REQUIRE(j.files.size() == 3);
    CHECK(j.files[2].name == "writer.2.0");
}

TEST_CASE("stonewall starts the group that runs next; new_group only reports apart") {
    JobFileJobs m =
        mapped("[global]\nsize=1m\n[a]\n[b]\nnew_group\n[c]\nstonewall\n[d]\nwait_for_previous\n");
    REQUIRE(m.jobs.size() == 4);
    CHECK(m.jobs[0].group == 0);
    CHECK(m.jobs[1].group == 0);
    CHECK(m.jobs[2].group == 1);
    CHECK(m.jobs[3].group == 2);
    CHECK(has_note(m,
                   "t.fio:5: new_group: reporting only: the job runs, and is reported, with the "
                   "jobs before it"));
}

TEST_CASE("wait_for: a group where the jobs before are the one waited for") {
    // fio's examples/waitfor.fio: each job waits for the one before.
    JobFileJobs m = mapped(
        "[global]\nsize=1m\n[w]\nnumjobs=4\n[r]\nnew_group\nwait_for=w\n[w2]\nwait_for=r\n"
        "[x]\nstonewall\n[y]\nwait_for=x\n[z]\nwait_for=x\n");
    REQUIRE(m.jobs.size() == 6);
    const unsigned want[] = {0, 1, 2, 3, 4, 4};  // y and z both start when x ends
    for (std::size_t i = 0; i < 6; ++i) {
        CAPTURE(i);
        CHECK(m.jobs[i].group == want[i]);
    }
    CHECK(std::none_of(m.notes.begin(), m.notes.end(), [](const std::string& n) {
        return n.find("new_group") != std::string::npos;  // r's group is wait_for's
    }));
}

TEST_CASE("filename: one file every copy shares; directory and the TARGET given") {
    model::JobSpec j = one("filename=data\nnumjobs=4\n");
    REQUIRE(j.files.size() == 1);
    CHECK(j.files[0] == model::FileSpec{"data", 1 << 20, 0});
    JobFileJobs m = mapped("[j]\nsize=1m\ndirectory=/mnt/a\n");
    CHECK(m.targets == std::vector<JobFileTarget>{{"/mnt/a", false}});
    m = mapped("[j]\nsize=1m\ndirectory=/mnt/a\nfilename=f\n", context("/scratch"));
    CHECK(m.targets == std::vector<JobFileTarget>{{"/scratch", false}});
    CHECK(m.jobs[0].files[0].name == "f");
    CHECK(has_note(m, "t.fio:3: directory: the TARGET given replaces it"));
    m = mapped("[j]\nsize=1m\nfilename=/var/x/f\n", context("/scratch"));
    CHECK(m.targets == std::vector<JobFileTarget>{{"/var/x", false}});
    CHECK(m.jobs[0].files[0].name == "f");
}

TEST_CASE("a block device: a target of its own, sized by the device; size is the range") {
    JobFileJobs m = mapped("[j]\nfilename=/dev/sdx\nsize=10%\noffset=1g\n");
    CHECK(m.targets == std::vector<JobFileTarget>{{"/dev/sdx", true}});
    const model::JobSpec& j = m.jobs[0];
    CHECK(j.files[0] == model::FileSpec{"/dev/sdx", 64ULL << 30, 0});
    CHECK(j.offset == 1ULL << 30);
    CHECK(j.range_bytes == (64ULL << 30) / 10);
    m = mapped("[j]\nfilename=/dev/sdx\n");
    CHECK(m.jobs[0].range_bytes == 0);  // the whole device
}

TEST_CASE("filesize, size, offset and offset_increment: files and ranges") {
    model::JobSpec j = one("filesize=8m\n");  // the region is the file, size its I/O
    CHECK(j.files[0].bytes == 8 << 20);
    CHECK(j.range_bytes == 0);
    CHECK(j.io_bytes == 1 << 20);
    CHECK(j.loops == 0);
    j = one("offset=2m\n");  // fio extends the file to what the job reaches
    CHECK(j.files[0].bytes == 3 << 20);
    CHECK(j.offset == 2 << 20);
    j = one("filename=f\nnumjobs=4\noffset_increment=1m\n");
    CHECK(j.files[0].bytes == 4 << 20);
    CHECK(j.offset_increment == 1 << 20);
    j = one("numjobs=2\noffset_increment=1m\n");  // a file per copy, each as far as it reaches
    CHECK(j.files[0].bytes == 1 << 20);
    CHECK(j.files[1].bytes == 2 << 20);
    JobFileJobs m = mapped("[j]\nfilename=/data/old\n");  // an existing file's size
    CHECK(m.jobs[0].files[0].bytes == 1ULL << 30);
    m = mapped("[j]\nfilename=/data/old\nsize=50%\noffset=25%\n");
    CHECK(m.jobs[0].offset == 256ULL << 20);
    CHECK(m.jobs[0].range_bytes == 512ULL << 20);
    m = mapped("[a]\nfilename=f\nsize=1m\n[b]\nfilename=f\nsize=4m\n");  // the largest
    CHECK(m.jobs[0].files[0].bytes == 4 << 20);
    CHECK(m.jobs[1].files[0].bytes == 4 << 20);
    CHECK(m.jobs[0].range_bytes == 1 << 20);
}

TEST_CASE("io_size, number_ios, loops, runtime, time_based, ramp_time, startdelay: the ends") {
    model::JobSpec j = one("io_size=4m\nloops=2\n");
    CHECK(j.io_bytes == 8 << 20);
    CHECK(j.loops == 0);
    j = one("io_size=50%\n");
    CHECK(j.io_bytes == 512 << 10);
    j = one("loops=3\n");
    CHECK(j.loops == 3);
    j = one("number_ios=1000\nnumjobs=2\n");
    CHECK(j.ops == 2000);
    CHECK(one("number_ios=10\nloops=3\n").ops == 30);  // over every loop, as fio counts
    CHECK(one("number_ios=10\ntime_based\nruntime=5\n").ops == 0);  // fio ignores it then
    j = one("runtime=10\nramp_time=2\n");
    CHECK(j.runtime_s == 12);  // runtime counts after ramp_time
    CHECK(j.ramp_s == 2);
    CHECK(j.loops == 1);  // not time_based: whichever ends first
    j = one("runtime=10\ntime_based\nloops=5\nio_size=1m\n");
    CHECK(j.runtime_s == 10);
    CHECK(j.loops == 0);
    CHECK(j.io_bytes == 0);
    CHECK(one("timeout=5\n").runtime_s == 5);  // fio's alias
    j = one("startdelay=4\n");
    CHECK(j.startdelay_s == 4);
    JobFileJobs m = mapped("[j]\nsize=1m\ntime_based\n");
    CHECK(has_note(m, "t.fio:3: time_based: no runtime: the run's time ends the job"));
}

TEST_CASE("rw and rwmixread/rwmixwrite: access and shares") {
    CHECK(one("rw=read:-8k\n").offset_step == -8192);  // fio's backwards-read.fio
    CHECK(one("rw=read\n").offset_step == 0);
    struct Case {
        const char* rw;
        model::Access access;
        unsigned read, trim;
    };
    for (const Case& c : {Case{"read", model::Access::sequential, 100, 0},
                          Case{"write", model::Access::sequential, 0, 0},
                          Case{"trim", model::Access::sequential, 0, 100},
                          Case{"randread", model::Access::random, 100, 0},
                          Case{"randwrite", model::Access::random, 0, 0},
                          Case{"randtrim", model::Access::random, 0, 100},
                          Case{"randrw", model::Access::random, 50, 0}}) {
        CAPTURE(c.rw);
        model::JobSpec j = one(std::string("rw=") + c.rw + "\n");
        CHECK(j.access == c.access);
        CHECK(j.read_pct == c.read);
        CHECK(j.trim_pct == c.trim);
    }
    CHECK(one("rw=randrw\nrwmixread=70\n").read_pct == 70);
    CHECK(one("rw=randrw\nrwmixwrite=30\n").read_pct == 70);
    for (const char* rw : {"rw", "readwrite"})
        CHECK(refusal(std::string("[j]\nsize=1m\nrw=") + rw + "\n") ==
              "t.fio:3: rw: reads and writes in order: drivestress's stream has one position, "
              "fio keeps one per direction (fio runs it)");
}

TEST_CASE("bs, bssplit, bsrange, blockalign: the sizes and where random operations land") {
    model::JobSpec j = one("bs=64k\n");
    CHECK(j.block == 65536);
    CHECK(j.mix.empty());
    CHECK(j.blockalign == 0);  // a stream: block after block
    j = one("rw=randrw\nbs=16k,16k\n");
    CHECK(j.block == 16384);
    CHECK(j.blockalign == 16384);
    j = one("rw=randwrite\nbs=4k,8k\n");  // writes only: the write size
    CHECK(j.block == 8192);
    j = one("bsrange=8k-8k\n");
    CHECK(j.block == 8192);
    j = one("bssplit=8k/100\n");
    CHECK(j.block == 8192);
    CHECK(j.mix.empty());
    j = one("rw=randread\nbs=8k\nblockalign=8k\n");
    CHECK(j.blockalign == 8192);
    j = one("rw=read\nbs=8k\nblockalign=4k\n");  // fio ignores it for a stream
    CHECK(j.blockalign == 0);
    // A mix, as the JobSpec says it (fio's alignment: the smallest size, or
    // ba); the engine places each operation there.
    j = workload("rw=randread\nbssplit=4k/60:64k/10:16k/30\n");
    CHECK(j.block == 4096);
    CHECK(j.mix == std::vector<units::BlockShare>{{4096, 60}, {16384, 30}, {65536, 10}});
    CHECK(j.blockalign == 4096);
    j = one("rw=randread\nbssplit=4k/50:8k/50\nba=512\n");
    CHECK(j.blockalign == 512);
    j = one("rw=randread\nbs=8k\nba=4k\n");
    CHECK(j.blockalign == 4096);
    // Sizes that are multiples of 512, no powers of two; JESD219's twelve.
    j = one("rw=randread\nbs=1536\n");
    CHECK(j.block == 1536);
    CHECK(j.blockalign == 1536);
    j =
        one("rw=randrw\nblockalign=4k\nbssplit=512/4:1024/1:1536/1:2048/1:2560/1:3072/1:"
            "3584/1:4k/67:8k/10:16k/7:32k/3:64k/3\n");
    CHECK(j.mix.size() == 12);
    CHECK(j.mix[2] == units::BlockShare{1536, 1});
    CHECK(j.block == 512);
    CHECK(j.blockalign == 4096);
}

TEST_CASE("random_distribution: drivestress's distribution, random access only") {
    model::JobSpec j = one("rw=randread\nrandom_distribution=zipf:1.2\n");
    CHECK(j.distribution.text() == "zipf:1.2");
    j = one("rw=randread\nrandom_distribution=zipf:1.23456789\n");  // passed on exactly
    CHECK(j.distribution.parameter == 1.23456789);
    j = one("rw=randread\nrandom_distribution=pareto:0.3\n");
    CHECK(j.distribution.text() == "pareto:0.3");
    j = one("rw=randread\nrandom_distribution=normal:5\n");
    CHECK(j.distribution.text() == "normal:5%");
    JobFileJobs m = mapped("[j]\nsize=1m\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\n");
    CHECK(m.jobs[0].distribution.text() == "zoned:50/5,30/15,20/80");
    CHECK(has_note(m,
                   "t.fio:4: random_distribution: each zone's blocks are scattered over the "
                   "file, not one stretch as in fio"));
    j = one("rw=read\nrandom_distribution=zipf:1.2\n");  // fio ignores it for sequential I/O
    CHECK(j.distribution.kind == stats::DistributionKind::uniform);
}

TEST_CASE("iodepth and iodepth_batch: depth and batch; a sync engine runs at depth 1") {
    JobFileJobs m = mapped("[j]\nsize=1m\nioengine=libaio\niodepth=32\niodepth_batch=8\n");
    CHECK(m.jobs[0].depth == 32);
    CHECK(m.jobs[0].batch == 8);
    m = mapped("[j]\nsize=1m\nioengine=io_uring\niodepth=4\niodepth_batch=0\n");
    CHECK(m.jobs[0].batch == 4);  // fio: 0 is the depth
    m = mapped("[j]\nsize=1m\nioengine=io_uring\niodepth=4\niodepth_batch=16\n");
    CHECK(m.jobs[0].batch == 4);  // fio: at most the depth
    m = mapped("[j]\nsize=1m\nioengine=psync\niodepth=16\n");
    CHECK(m.jobs[0].depth == 1);
    CHECK(has_note(m, "t.fio:4: iodepth: 'psync' does one I/O at a time, as in fio: depth 1"));
}

TEST_CASE("ioengine: the run's backend") {
    struct Case {
        const char* engine;
        model::BackendChoice backend;
        bool nop;
    };
    CHECK(
        has_note(mapped("[j]\nsize=1m\nioengine=null\n"),
                 "t.fio:3: ioengine: null: the nop backend, no I/O reaches the device and nothing "
                 "is verified"));
    for (const Case& c : {Case{"io_uring", model::BackendChoice::io_uring, false},
                          Case{"libaio", model::BackendChoice::io_uring, false},
                          Case{"posixaio", model::BackendChoice::io_uring, false},
                          Case{"sync", model::BackendChoice::sync, false},
                          Case{"psync", model::BackendChoice::sync, false},
                          Case{"pvsync", model::BackendChoice::sync, false},
                          Case{"pvsync2", model::BackendChoice::sync, false},
                          Case{"vsync", model::BackendChoice::sync, false},
                          Case{"null", model::BackendChoice::io_uring, true}}) {
        CAPTURE(c.engine);
        JobFileJobs m = mapped(std::string("[j]\nsize=1m\nioengine=") + c.engine + "\n");
        CHECK(m.backend == c.backend);
        CHECK(m.nop == c.nop);
        CHECK(m.jobs[0].verify == !c.nop);
    }
}

TEST_CASE("direct and buffered: the run's O_DIRECT") {
    CHECK_FALSE(mapped("[j]\nsize=1m\ndirect=1\n").buffered);
    CHECK_FALSE(mapped("[j]\nsize=1m\nbuffered=0\n").buffered);
    CHECK(mapped("[j]\nsize=1m\nbuffered=1\n").buffered);
    CHECK_FALSE(mapped("[global]\ndirect=1\nsize=1m\n[a]\n[b]\n").buffered);
}

TEST_CASE("fsync, fdatasync, sync, end_fsync: the sync method") {
    model::JobSpec j = one("rw=write\nfsync=8\n");
    CHECK(j.sync == model::SyncMethod::fsync);
    CHECK(j.sync_every == 8);
    j = one("rw=write\nfdatasync=2\n");
    CHECK(j.sync == model::SyncMethod::fdatasync);
    CHECK(j.sync_every == 2);
    CHECK(one("rw=write\nsync=1\n").sync == model::SyncMethod::osync);
    CHECK(one("rw=write\nsync=dsync\n").sync == model::SyncMethod::dsync);
    CHECK(one("rw=write\nend_fsync=1\n").end_fsync);
}

TEST_CASE("rate, rate_iops, rate_process: the job's rate over its copies, and arrivals") {
    model::JobSpec j = one("rw=randread\nrate_iops=500\nnumjobs=2\n");
    CHECK(j.rate == 1000);
    CHECK(j.arrivals == model::Arrivals::fixed);
    j = one("rw=randread\nrate=1m\nbs=4k\n");
    CHECK(j.rate == 256);
    j = one("rw=randrw\nrate_iops=300\n");  // 300 reads and 300 writes of a 50/50 mix
    CHECK(j.rate == 600);
    j = one("rw=randrw\nrwmixread=75\nrate_iops=300,100\n");
    CHECK(j.rate == 400);
    j = one("rw=randread\nrate_iops=50\nrate_process=poisson\n");
    CHECK(j.arrivals == model::Arrivals::poisson);
}

TEST_CASE("buffer_compress_percentage and dedupe_percentage: the data's shape") {
    model::JobSpec j = one("rw=write\nbuffer_compress_percentage=50\ndedupe_percentage=30\n");
    CHECK(j.shape == pattern::make_shape(pattern::sector_random_bytes(2), 300));
    CHECK(one("rw=write\n").shape == pattern::make_shape(pattern::kSectorBytes, 0));
}

TEST_CASE("cpus_allowed: the job's CPUs, which the host must have") {
    CHECK(one("cpus_allowed=0,2-3\n").cpus == std::vector<unsigned>{0, 2, 3});
    JobFileContext ctx = context();
    ctx.cpus = 4;
    CHECK(mapped("[j]\nsize=1m\ncpus_allowed=3\n", ctx).jobs[0].cpus == std::vector<unsigned>{3});
    CHECK(refusal("[j]\nsize=1m\ncpus_allowed=1,7\n", ctx) ==
          "t.fio:3: cpus_allowed: CPU 7: the host has 4 (0 to 3) (fio refuses it too)");
}

TEST_CASE("notes: what changes nothing drivestress does, once however many jobs inherit it") {
    JobFileJobs m = mapped("[global]\nsize=1m\nrw=randread\nrandseed=7\n[a]\n[b]\n");
    const std::string drawn =
        "t.fio:3: rw: offsets are drawn independently, as fio's norandommap draws them";
    CHECK(std::count(m.notes.begin(), m.notes.end(), drawn) == 1);
    CHECK(has_note(m,
                   "t.fio:4: randseed: every job's random choices follow the run's seed "
                   "(--seed)"));
    m = mapped("[j]\nsize=1m\nrw=randread\nnorandommap\nrefill_buffers\ngroup_reporting\n");
    CHECK(std::none_of(m.notes.begin(), m.notes.end(), [](const std::string& n) {
        return n.find("drawn independently") != std::string::npos;
    }));
    CHECK(has_note(m, "t.fio:5: refill_buffers: every write of drivestress carries new data"));
    CHECK(has_note(m,
                   "t.fio:6: group_reporting: drivestress reports each job, its copies "
                   "together"));
    m = mapped("[j]\nsize=1m\nrate_iops=1000\nio_submit_mode=offload\n");
    CHECK(has_note(m,
                   "t.fio:4: io_submit_mode: offload: drivestress's workers submit their own I/O, "
                   "a rate's latency timed from each due time"));
}

TEST_CASE("verify* is accepted with the reader's note") {
    JobFileJobs m = mapped("[j]\nsize=1m\nverify=crc32c\n");
    CHECK(m.notes.front() == "t.fio:3: verify: drivestress always verifies, its own way");
}

TEST_CASE("refusals: one line, the file, the line, the option and why") {
    struct Case {
        const char* text;
        const char* line;
    };
    const Case cases[] = {
        {"[j]\nsize=1m\nbssplit=4k/50:8k/50\n",
         "t.fio:3: bssplit: a sequential stream of several sizes: the engine's streams take one "
         "(fio runs it)"},
        {"[j]\nsize=1m\nbsrange=4k-16k\n",
         "t.fio:3: bsrange: sizes drawn from 4096 to 16384: give them with weights as bssplit "
         "(fio runs it)"},
        {"[j]\nsize=1m\nrw=randrw\nbs=4k,8k\n",
         "t.fio:4: bs: reads, writes and trims of one job share their sizes (fio runs it)"},
        {"[a]\nsize=1m\nioengine=libaio\n[b]\nsize=1m\n",
         "t.fio:4: ioengine: 'psync' runs on the sync backend, job 'a' (t.fio:3) on io_uring: one "
         "backend per run (fio runs it)"},
        {"[a]\nsize=1m\ndirect=1\n[b]\nsize=1m\ndirect=0\n",
         "t.fio:6: direct: buffered I/O beside job 'a' (t.fio:3) with O_DIRECT: one for the whole "
         "run (fio runs it)"},
        {"[j]\nsize=1m\nthinktime=10\n",
         "t.fio:3: thinktime: drivestress has no think time (fio runs it)"},
        {"[j]\nsize=1m\nratemin=1m\n",
         "t.fio:3: rate_min: no least rate that fails a job yet (fio runs it)"},
        {"[j]\nsize=1m\nrw=write:8k\n",
         "t.fio:3: rw: an offset step of 8192 bytes in a stream that writes or trims: steps are "
         "taken for rw=read (fio runs it)"},
        {"[j]\nsize=1m\nrw=read:-4k\n",
         "t.fio:3: rw: an offset step of minus the block reads one block over and over, several "
         "reads of it in flight at once (fio runs it)"},
        {"[j]\nsize=1m\nrw=read:6k\n",
         "t.fio:3: rw: an offset step of 6144 bytes: not a multiple of the block (4096) (fio runs "
         "it)"},
        {"[j]\nsize=1m\nrw=trimwrite\n",
         "t.fio:3: rw: a trim then a write of each block: drivestress has no such pairs (fio runs "
         "it)"},
        {"[j]\nfilename=a:b\nsize=1m\n",
         "t.fio:2: filename: 2 files in one job: a copy works on one file (give each file a job) "
         "(fio runs it)"},
        {"[j]\nnrfiles=4\nsize=1m\n",
         "t.fio:2: nrfiles: 4 files in one job: a copy works on one file (fio runs it)"},
        {"[j]\nrw=read\n",
         "t.fio:1: size: ./j.0.0 has no size: give size= or filesize= (fio refuses it too)"},
        {"[j]\nsize=50%\n",
         "t.fio:2: size: 50% of ./j.0.0, which has no size yet (fio refuses it too)"},
        {"[j]\nsize=1m\nrw=randrw\nrwmixread=70\nrate_iops=100\n",
         "t.fio:5: rate_iops: per-direction rates that do not split as the mix (70/30/0) does "
         "(fio runs it)"},
        {"[j]\nsize=1m\nrw=randread\nrandom_distribution=zipf:1.2:0.5\n",
         "t.fio:4: random_distribution: a centre: the hot blocks are scattered over the file "
         "(fio runs it)"},
        {"[j]\nsize=1m\niodepth=8\niodepth_low=2\nioengine=libaio\n",
         "t.fio:4: iodepth_low: a queue left to drain to 2: drivestress refills at once "
         "(fio runs it)"},
        {"[j]\nsize=1m\nioengine=io_uring\niodepth=8\niodepth_batch_complete_min=4\n",
         "t.fio:5: iodepth_batch_complete_min: waiting for 4 completions: drivestress reaps what "
         "has completed (fio runs it)"},
        {"[global]\nsize=1m\n[a]\n[b]\n[c]\nwait_for=a\n",
         "t.fio:6: wait_for: 'b' runs before it too: fio starts it when 'a' ends, drivestress "
         "when every job of its group before it has (fio runs it)"},
        {"[global]\nsize=1m\n[a]\n[b]\nwait_for=a\n[c]\n",
         "t.fio:5: wait_for: 'c' after it waits for nothing: fio starts it beside 'a', drivestress "
         "would start it after (fio runs it)"},
        {"[j]\nsize=1m\nwrite_bw_log=x\n",
         "t.fio:3: write_bw_log: fio's logs are not written yet (fio runs it)"},
        {"[j]\nsize=1m\nrw=write\nfsync=4\nsync=1\n",
         "t.fio:5: sync: one sync method per job: give one (fio runs it)"},
        {"[j]\nsize=1m\nbuffer_compress_percentage=90\n",
         "t.fio:3: buffer_compress_percentage: 90%: data compresses 8-fold at most (fio runs it)"},
        {"[j]\nsize=1m\nnumjobs=4\nnumber_ios=4611686018427387904\n",
         "t.fio:4: number_ios: more than 2^64 - 1 bytes or operations (fio runs it)"},
        {"[j]\nsize=1m\nstartdelay=1-5\n",
         "t.fio:3: startdelay: a random delay: give one (fio runs it)"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.text);
        CHECK(refusal(c.text) == c.line);
    }
}
