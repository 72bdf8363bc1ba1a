#include "jobfile/option_policy.h"

#include <map>

namespace ds::jobfile {

namespace {

constexpr Status T = Status::taken;
constexpr Status N = Status::noted;
constexpr Status R = Status::refused;

struct Row {
    const char* name;
    Status status;
    const char* reason;
};

// One row per option of fio's main table, its profiles, its deprecated
// ones and the engine options that have a reason of their own (any other
// engine option is refused as its engine's).  option_policy_test holds
// this list and fio_option_list.cpp to each other.
constexpr Row kRows[] = {
    // Jobs and groups
    {"description", N, "a text for people: drivestress shows it nowhere"},
    {"name", T, "the job's name (default: the section's)"},
    {"wait_for", T, "start after the named earlier job ends"},
    {"numjobs", T, "copies of the job, counted towards the 4096 jobs"},
    {"stonewall", T, "wait for the jobs before, and start a group"},
    {"new_group", T, "start a group for reporting"},
    {"group_reporting", T, "report the group's jobs together"},
    {"startdelay", T, "start this long after its group (a range: a random delay)"},
    {"exitall", T, "when this job ends, the others end"},
    {"exit_what", T, "which jobs exitall ends: group, stonewall or all"},
    {"exitall_on_error", R, "drivestress decides what an error ends"},
    {"thread", T, "drivestress's workers are always threads"},
    {"kb_base", T, "how size suffixes read: 1024 (fio's default) or 1000"},
    {"unit_base", N, "drivestress reports bytes"},
    // Files
    {"filename", T, "the job's files or devices, ':'-separated (a backslash keeps a colon)"},
    {"directory", T, "where the job's files go (a TARGET on the command line replaces it)"},
    {"nrfiles", T, "files per job"},
    {"filesize", T, "each file's size (a range: sizes between)"},
    {"size", T, "bytes of I/O per file set, or a % of the file or device"},
    {"offset", T, "where I/O starts, in bytes or % of the file"},
    {"offset_increment", T, "each numjobs copy starts this much further"},
    {"io_size", T, "bytes to transfer (or % of size), then stop"},
    {"number_ios", T, "operations to issue, then stop"},
    {"fill_device", T, "write until the device or file system is full"},
    {"create_on_open", T, "create each file when it is first opened"},
    {"fallocate", T, "how files are allocated when laid out"},
    {"unlink", T, "remove the job's files when it ends"},
    {"lockfile", R, "drivestress orders I/O to a shared file itself (no file locks)"},
    {"filename_format", R, "drivestress names the files it creates"},
    {"unique_filename", R, "fio's client/server mode: not a drivestress mode"},
    {"opendir", R, "drivestress tests files it creates, not a directory's"},
    {"file_append", R, "drivestress writes within its files"},
    {"file_service_type", R, "drivestress chooses the next file its own way"},
    {"openfiles", N, "drivestress keeps each job's files open"},
    {"create_serialize", N, "drivestress lays files out its own way, in one pass"},
    {"create_fsync", N, "drivestress lays files out its own way, in one pass"},
    {"create_only", R, "drivestress always runs the I/O after laying files out"},
    {"allow_file_create", R, "drivestress creates the files it tests"},
    {"allow_mounted_write", R, "writes to a device follow drivestress's --destroy-data rule"},
    {"pre_read", R, "no pre-read pass: drivestress lays files out and reverifies them"},
    {"unlink_each_loop", R, "files stay until the job ends"},
    {"overwrite", R, "drivestress lays files out as its verification needs"},
    {"invalidate", R, "drivestress does not drop the page cache before a job"},
    {"fadvise_hint", R, "drivestress gives no fadvise hints"},
    // The workload
    {"rw", T, "the I/O pattern, with fio's :N offset modifier"},
    {"rwmixread", T, "per cent of a mix that reads"},
    {"rwmixwrite", T, "per cent of a mix that writes"},
    {"bs", T, "block size, per direction (bs=READ,WRITE,TRIM)"},
    {"bsrange", T, "block sizes between two, per direction"},
    {"bssplit", T, "block sizes by weight (SIZE/PER CENT:...), per direction"},
    {"ba", T, "offset alignment, per direction"},
    {"random_distribution", T, "where random I/O lands: random, zipf, pareto, normal, zoned"},
    {"norandommap", T, "random offsets may repeat before all are visited"},
    {"randrepeat", T, "the same random sequence every run"},
    {"randseed", T, "the random seed"},
    {"bs_unaligned", R, "every operation is aligned to the verification unit"},
    {"rw_sequencer", R, "only fio's default offset modifier (sequential) is taken"},
    {"percentage_random", R, "a job is random or sequential, not a mix of both"},
    {"random_generator", R, "drivestress uses its own generator, seeded by randseed"},
    {"allrandrepeat", N, "all of drivestress's random choices follow its seed"},
    {"offset_align", R, "offsets align to blockalign"},
    // The queue
    {"ioengine", T,
     "io_uring, libaio, posixaio: io_uring; sync, psync, pvsync(2), vsync: sync; null"},
    {"iodepth", T, "operations in flight"},
    {"iodepth_batch", T, "operations submitted at once"},
    {"iodepth_batch_complete_min", T, "least completions reaped at once"},
    {"iodepth_batch_complete_max", T, "most completions reaped at once"},
    {"iodepth_low", T, "refill the queue when it drains to this"},
    {"io_submit_mode", T, "inline or offload submission"},
    {"serialize_overlap", N, "drivestress never has overlapping I/O in flight"},
    // Durability
    {"direct", T, "O_DIRECT"},
    {"buffered", T, "the opposite of direct"},
    {"fsync", T, "fsync every N writes"},
    {"fdatasync", T, "fdatasync every N writes"},
    {"end_fsync", T, "fsync the files when the job ends"},
    {"sync", T, "O_SYNC or O_DSYNC writes"},
    {"fsync_on_close", R, "drivestress syncs through fsync, fdatasync and end_fsync"},
    {"write_barrier", R, "no barrier writes"},
    {"sync_file_range", R, "no sync_file_range"},
    {"atomic", R, "O_ATOMIC is not Linux's; drivestress has --atomic (RWF_ATOMIC)"},
    // Time
    {"time_based", T, "run for runtime, going round the files"},
    {"runtime", T, "how long the job runs"},
    {"ramp_time", T, "a warm-up left out of the figures"},
    {"loops", T, "times the job repeats"},
    // Rate and think time
    {"rate", T, "bytes a second, per direction"},
    {"rate_min", T, "least bytes a second, per direction, or the job fails"},
    {"rate_iops", T, "operations a second, per direction"},
    {"rate_iops_min", T, "least operations a second, per direction, or the job fails"},
    {"rate_process", T, "linear or poisson arrivals"},
    {"thinktime", T, "a pause between operations"},
    {"thinktime_spin", T, "the part of thinktime spent spinning"},
    {"thinktime_blocks", T, "operations between pauses"},
    {"thinktime_blocks_type", R, "thinktime_blocks counts completions only"},
    {"thinktime_iotime", R, "no think time by I/O time"},
    {"rate_cycle", R, "drivestress's rate schedule keeps its own window"},
    {"rate_ignore_thinktime", R, "think time and rate are not combined that way"},
    {"max_latency", R, "no latency limit that ends a job"},
    {"latency_target", R, "fio's latency-target mode is not taken"},
    {"latency_window", R, "fio's latency-target mode is not taken"},
    {"latency_percentile", R, "fio's latency-target mode is not taken"},
    {"latency_run", R, "fio's latency-target mode is not taken"},
    // Data written
    {"buffer_compress_percentage", T, "how compressible the written data is"},
    {"refill_buffers", T, "new data for every write"},
    {"dedupe_percentage", T, "per cent of writes that repeat earlier data"},
    {"buffer_compress_chunk", N, "drivestress shapes compressible data its own way"},
    {"scramble_buffers", N, "drivestress's data differs in every unit anyway"},
    {"zero_buffers", R, "drivestress writes its own verified pattern"},
    {"buffer_pattern", R, "drivestress writes its own verified pattern"},
    {"dedupe_mode", R, "only fio's default dedupe mode (repeat)"},
    {"dedupe_working_set_percentage", R, "only fio's default dedupe mode (repeat)"},
    {"dedupe_global", R, "duplicates are per job"},
    {"mem", N, "drivestress allocates its own aligned buffers"},
    {"lockmem", R, "no memory locking"},
    {"hugepage-size", R, "buffers are not on huge pages"},
    // Verification: drivestress always verifies, its own way
    {"verify", N, "drivestress always verifies, its own way"},
    {"do_verify", N, "drivestress always verifies, its own way"},
    {"verify_interval", N, "drivestress always verifies, its own way"},
    {"verify_offset", N, "drivestress always verifies, its own way"},
    {"verify_pattern", N, "drivestress always verifies, its own way"},
    {"verify_fatal", N, "drivestress always verifies, its own way"},
    {"verify_dump", N, "drivestress always verifies, its own way"},
    {"verify_async", N, "drivestress always verifies, its own way"},
    {"verify_backlog", N, "drivestress always verifies, its own way"},
    {"verify_backlog_batch", N, "drivestress always verifies, its own way"},
    {"experimental_verify", N, "drivestress always verifies, its own way"},
    {"verify_state_load", N, "drivestress always verifies, its own way"},
    {"verify_state_save", N, "drivestress always verifies, its own way"},
    {"trim_verify_zero", N, "drivestress checks trimmed units its own way"},
    {"verify_only", R, "drivestress's --verify-only checks files kept with --keep"},
    {"trim_percentage", R, "fio's verify-trim: drivestress trims by rw= only"},
    {"trim_backlog", R, "fio's verify-trim: drivestress trims by rw= only"},
    {"trim_backlog_batch", R, "fio's verify-trim: drivestress trims by rw= only"},
    // Placement and the system
    {"cpus_allowed", T, "CPUs the job may run on"},
    {"cpus_allowed_policy", T, "shared, or split: one CPU per numjobs copy"},
    {"numa_cpu_nodes", T, "NUMA nodes the job may run on"},
    {"cpumask", R, "write the CPUs as cpus_allowed"},
    {"numa_mem_policy", R, "no NUMA memory policy"},
    {"nice", R, "no CPU priorities"},
    {"prio", R, "no I/O priorities"},
    {"prioclass", R, "no I/O priorities"},
    {"ioscheduler", R, "drivestress does not change the device's scheduler"},
    {"write_hint", R, "no write-life hints"},
    {"cgroup", R, "drivestress does not manage cgroups"},
    {"cgroup_nodelete", R, "drivestress does not manage cgroups"},
    {"cgroup_weight", R, "drivestress does not manage cgroups"},
    {"uid", R, "drivestress runs as its user"},
    {"gid", R, "drivestress runs as its group"},
    {"gtod_cpu", N, "drivestress keeps its own clock"},
    {"clocksource", N, "drivestress keeps its own clock"},
    {"flow_id", R, "fio's flow control between jobs is not taken"},
    {"flow", R, "fio's flow control between jobs is not taken"},
    {"flow_sleep", R, "fio's flow control between jobs is not taken"},
    // Traces, zones, commands
    {"write_iolog", R, "drivestress logs I/O with --io-log"},
    {"read_iolog", R, "drivestress replays traces with --replay"},
    {"read_iolog_chunked", R, "drivestress replays traces with --replay"},
    {"replay_no_stall", R, "drivestress replays traces with --replay"},
    {"replay_redirect", R, "drivestress replays traces with --replay"},
    {"replay_scale", R, "drivestress replays traces with --replay"},
    {"replay_align", R, "drivestress replays traces with --replay"},
    {"replay_time_scale", R, "drivestress replays traces with --replay"},
    {"replay_skip", R, "drivestress replays traces with --replay"},
    {"merge_blktrace_file", R, "drivestress replays traces with --replay"},
    {"merge_blktrace_scalars", R, "drivestress replays traces with --replay"},
    {"merge_blktrace_iters", R, "drivestress replays traces with --replay"},
    {"exec_prerun", R, "drivestress runs no commands from a job file"},
    {"exec_postrun", R, "drivestress runs no commands from a job file"},
    {"zonemode", R, "zones (strided or zoned devices) are not driven"},
    {"zonesize", R, "zones (strided or zoned devices) are not driven"},
    {"zonecapacity", R, "zones (strided or zoned devices) are not driven"},
    {"zonerange", R, "zones (strided or zoned devices) are not driven"},
    {"zoneskip", R, "zones (strided or zoned devices) are not driven"},
    {"read_beyond_wp", R, "zones (strided or zoned devices) are not driven"},
    {"max_open_zones", R, "zones (strided or zoned devices) are not driven"},
    {"job_max_open_zones", R, "zones (strided or zoned devices) are not driven"},
    {"ignore_zone_limits", R, "zones (strided or zoned devices) are not driven"},
    {"zone_reset_threshold", R, "zones (strided or zoned devices) are not driven"},
    {"zone_reset_frequency", R, "zones (strided or zoned devices) are not driven"},
    // Errors
    {"continue_on_error", T, "which errors a job goes on after"},
    {"ignore_error", R, "an I/O error is a finding, never ignored"},
    {"error_dump", N, "drivestress names every error it finds"},
    // Logs and reports
    {"write_bw_log", T, "fio's bandwidth log (NAME_bw.N.log)"},
    {"write_iops_log", T, "fio's IOPS log (NAME_iops.N.log)"},
    {"write_lat_log", T, "fio's latency logs (NAME_lat.N.log, clat, slat)"},
    {"log_avg_msec", T, "the logs' averaging window"},
    {"per_job_logs", T, "a log per job (else one per group)"},
    {"bwavgtime", N, "drivestress's logs average over log_avg_msec"},
    {"iopsavgtime", N, "drivestress's logs average over log_avg_msec"},
    {"log_entries", N, "drivestress sizes its logs itself"},
    {"log_hist_msec", R, "no histogram logs"},
    {"log_hist_coarseness", R, "no histogram logs"},
    {"write_hist_log", R, "no histogram logs"},
    {"log_max_value", R, "the logs hold averages"},
    {"log_offset", R, "the logs hold no offsets (drivestress has --io-log)"},
    {"log_prio", R, "no I/O priorities"},
    {"log_compression", R, "the logs are plain text"},
    {"log_compression_cpus", R, "the logs are plain text"},
    {"log_store_compressed", R, "the logs are plain text"},
    {"log_unix_epoch", R, "log times count from the job's start"},
    {"log_alternate_epoch", R, "log times count from the job's start"},
    {"log_alternate_epoch_clock_id", R, "log times count from the job's start"},
    {"block_error_percentiles", R, "no trim block-error histogram"},
    {"clat_percentiles", N, "drivestress reports its own percentiles"},
    {"lat_percentiles", N, "drivestress reports its own percentiles"},
    {"slat_percentiles", N, "drivestress reports its own percentiles"},
    {"percentile_list", N, "drivestress reports its own percentiles"},
    {"significant_figures", N, "drivestress formats its own report"},
    {"unified_rw_reporting", N, "drivestress formats its own report"},
    {"disk_util", N, "drivestress reports its own figures"},
    {"stats", N, "drivestress always measures"},
    {"gtod_reduce", N, "drivestress always measures latency"},
    {"disable_lat", N, "drivestress always measures latency"},
    {"disable_clat", N, "drivestress always measures latency"},
    {"disable_slat", N, "drivestress always measures latency"},
    {"disable_bw_measurement", N, "drivestress always measures"},
    // Steady state
    {"steadystate", T, "end the job at steady state (drivestress's own test)"},
    {"steadystate_duration", T, "the steady-state window"},
    {"steadystate_ramp_time", T, "time before steady state is looked for"},
    // fio's profiles, deprecated options
    {"profile", R, "fio's built-in profiles are not job files"},
    {"block", N, "fio's tiobench profile option: nothing without --profile"},
    {"numruns", N, "fio's tiobench profile option: nothing without --profile"},
    {"dir", N, "fio's tiobench profile option: nothing without --profile"},
    {"threads", N, "fio's tiobench profile option: nothing without --profile"},
    {"device-names", N, "fio's act profile option: nothing without --profile"},
    {"load", N, "fio's act profile option: nothing without --profile"},
    {"test-duration", N, "fio's act profile option: nothing without --profile"},
    {"threads-per-queue", N, "fio's act profile option: nothing without --profile"},
    {"read-req-num-512-blocks", N, "fio's act profile option: nothing without --profile"},
    {"large-block-op-kbytes", N, "fio's act profile option: nothing without --profile"},
    {"prep", N, "fio's act profile option: nothing without --profile"},
    {"percentage_sequential", R, "deprecated: fio 3.33 refuses it too"},
    {"rwmixcycle", R, "deprecated: fio 3.33 refuses it too"},
    {"verifysort", N, "deprecated: fio 3.33 ignores it"},
    {"verifysort_nr", N, "deprecated: fio 3.33 ignores it"},
    {"flow_watermark", N, "deprecated: fio 3.33 ignores it"},
    // Engine options of the engines drivestress maps
    {"hipri", R, "polled completions: drivestress's backends set their own flags"},
    {"hipri_percentage", R, "polled completions: drivestress's backends set their own flags"},
    {"uncached", R, "drivestress's backends set their own flags"},
    {"nowait", R, "drivestress's backends set their own flags"},
    {"force_async", R, "drivestress's backends set their own flags"},
    {"sqthread_poll", R, "submission polling: drivestress's io_uring backend sets its own"},
    {"sqthread_poll_cpu", R, "submission polling: drivestress's io_uring backend sets its own"},
    {"cmd_type", R, "io_uring_cmd's option: drivestress does not run io_uring_cmd"},
    {"cmdprio_percentage", R, "no I/O priorities"},
    {"cmdprio_class", R, "no I/O priorities"},
    {"cmdprio", R, "no I/O priorities"},
    {"cmdprio_bssplit", R, "no I/O priorities"},
    {"fixedbufs", N, "drivestress's io_uring backend decides what it registers"},
    {"registerfiles", N, "drivestress's io_uring backend decides what it registers"},
    {"nonvectored", N, "drivestress's io_uring backend picks its own opcodes"},
    {"userspace_reap", N, "libaio runs on drivestress's io_uring backend"},
};

const std::map<std::string_view, const Row*>& rows() {
    static const std::map<std::string_view, const Row*> by_name = [] {
        std::map<std::string_view, const Row*> m;
        for (const Row& r : kRows)
            m.emplace(r.name, &r);
        return m;
    }();
    return by_name;
}

}  // namespace

const char* status_name(Status s) {
    switch (s) {
        case Status::taken:
            return "taken";
        case Status::noted:
            return "noted";
        case Status::refused:
            break;
    }
    return "refused";
}

Policy policy_of(const FioOption& option) {
    auto it = rows().find(option.name);
    if (it != rows().end()) return Policy{it->second->status, it->second->reason};
    std::string_view origin(option.origin);
    if (origin.starts_with("engine:"))
        return Policy{Status::refused, "an option of the " + std::string(origin.substr(7)) +
                                           " engine(s), which drivestress does not run"};
    return Policy{Status::refused, "not taken by drivestress"};
}

std::vector<std::string> policy_names() {
    std::vector<std::string> names;
    for (const Row& r : kRows)
        names.emplace_back(r.name);
    return names;
}

std::string option_table_markdown() {
    // append, not operator+: GCC 12 warns (-Wrestrict) on "literal" + std::string.
    std::string out =
        "| option | alias | fio has it | drivestress | what it does, or why not |\n"
        "|---|---|---|---|---|\n";
    for (const FioOption& o : fio_options()) {
        Policy p = policy_of(o);
        out.append("| `").append(o.name).append("` | ");
        if (o.alias[0] != '\0') out.append("`").append(o.alias).append("`");
        out.append(" | ").append(o.origin[0] == '\0' ? "main" : o.origin);
        out.append(" | ").append(status_name(p.status)).append(" | ").append(p.reason);
        out.append(" |\n");
    }
    return out;
}

}  // namespace ds::jobfile
