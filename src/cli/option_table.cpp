#include "cli/option_table.h"

#include <boost/make_shared.hpp>
#include <boost/program_options.hpp>
#include <sstream>
#include <string_view>

#include "cli/presets.h"

namespace po = boost::program_options;

namespace ds::cli {

namespace {

using Kind = OptionSpec::Kind;

// Sections of --help, in order.
constexpr const char* kWorkload = "Workload";
constexpr const char* kDurable = "Durable writes";
constexpr const char* kResults = "Results";
constexpr const char* kSweeps = "Sweeps, comparisons and presets";
constexpr const char* kPowerCut = "Power-cut testing";
constexpr const char* kRawDevice = "Raw devices (everything on the device is overwritten)";
constexpr const char* kInfo = "Information";
constexpr const char* kAliases = "Aliases kept from the seed tool";

// clang-format off
const OptionSpec kSpecs[] = {
    {kWorkload, "size", 's', "SIZE", "256M", nullptr, "size of each file"},
    {kWorkload, "files", 'j', "N", "4", nullptr, "workers, one file each, 1 to 4096"},
    {kWorkload, "qd", 'q', "N", "32", nullptr,
     "operations in flight per worker, 1 to 4096 (sync: that many threads per worker, each "
     "in a blocking pread/pwrite; 1 = no extra thread)"},
    {kWorkload, "backend", 0, "auto|io_uring|sync|nop", "auto", nullptr,
     "I/O backend; auto probes io_uring and falls back to sync with a one-line reason, "
     "io_uring exits 1 with that reason instead; nop issues io_uring NOPs: the engine's own "
     "cost, no device I/O, nothing verified"},
    {kWorkload, "seq-block", 0, "SIZE", "1M", nullptr, "sequential block"},
    {kWorkload, "rand-block", 0, "SIZE|MIX", "4K", nullptr,
     "random block, also the verification unit: a power of two, 512 to 64M; or a mix of "
     "sizes with weights summing to 100, as fio's bssplit (4K:60,16K:20,128K:20), whose "
     "smallest size is the unit"},
    {kWorkload, "unit", 0, "SIZE", nullptr, "the smallest random block",
     "verification unit: a power of two dividing every random block size"},
    {kWorkload, "read-pct", 0, "PCT", "70", nullptr,
     "share of random operations that are reads, 0 to 100"},
    {kWorkload, "trim-pct", 0, "PCT", "0", nullptr,
     "share of random operations that are trims, sized like writes (reads + trims <= 100, "
     "the rest writes): a hole punched in a file (reads back zeros), a discard on a raw "
     "device (reads back what its queue promises); each trimmed unit read back is checked "
     "against that promise"},
    {kWorkload, "distribution", 0, "DIST",
     "uniform", nullptr,
     "where random blocks land, in fio's vocabulary: uniform, zipf:THETA (zipf:1.2), "
     "pareto:H (pareto:0.3), normal:SIGMA% (normal:5%: of the "
     "file, from its middle), zoned:60/10,30/20,10/70 (60 % of operations on 10 % of the "
     "blocks, ...); hot blocks are scattered over the file by a fixed permutation, and the "
     "report states the skew achieved"},
    {kWorkload, "compress", 0, "RATIO", "1", nullptr,
     "make the written data compress about RATIO:1 (lz4, zstd, zram), 1 to 8: every 512-byte "
     "sector keeps 512/RATIO bytes of the unit's data and the rest is zeros, still verified "
     "byte for byte; the report states the ratio measured"},
    {kWorkload, "dedupe", 0, "PCT", "0", nullptr,
     "make PCT percent of the units (0 to 100, one decimal at most) copies of one of 16 "
     "sources, the same units in every phase, for a deduplicating device; still verified byte "
     "for byte, but a lost, torn or misdirected write between two units of one source is "
     "undetectable, and the report says how many units that covers"},
    {kWorkload, "rand-time", 0, "DURATION", "10s", nullptr,
     "random phase length per iteration (0 disables it)"},
    {kWorkload, "rand-ops", 0, "N", nullptr, "off",
     "random phase ends after N operations in total (across workers) instead of a time"},
    {kWorkload, "rate", 0, "IOPS", nullptr, "off (closed loop)",
     "random phase open-loop at IOPS operations a second over all workers (e.g. 50k): each "
     "is issued when due, up to --qd in flight, and its response time counts from then"},
    {kWorkload, "arrivals", 0, "fixed|poisson", "fixed", nullptr,
     "--rate's spacing (and a rate sweep's, --find-rate's): evenly, or exponential gaps (a "
     "Poisson process) of the same mean"},
    {kWorkload, "job-file", 0, "FILE", nullptr, "off",
     "runs the jobs of a fio job file (- reads standard input) instead of the options' "
     "workload, every byte verified; their files are made in TARGET (docs/jobs.md)"},
    {kWorkload, "job-set", 0, "KEY=VALUE", nullptr, "none",
     "sets a fio option in every job of --job-file after reading it, e.g. runtime=2 "
     "(repeatable)",
     Kind::repeated},
    {kWorkload, "replay", 0, "FILE", nullptr, "off",
     "the random phase replays a trace instead of drawing (- reads standard input): fio "
     "iolog v2/v3, blkparse text, tracefs block_bio_queue/block_rq_issue text or a "
     "drivestress --io-log, found from its content; each read, write, trim and flush at its "
     "time (open loop, up to --qd in flight), writes carrying the units' data, every read "
     "verified"},
    {kWorkload, "replay-speed", 0, "X", "1", nullptr,
     "the pace of --replay: 2 = twice as fast as traced, 0.5 = half, 0 = as fast as the "
     "queue allows (closed loop)"},
    {kWorkload, "replay-loops", 0, "N", "1", nullptr, "how many times --replay plays the trace"},
    {kWorkload, "replay-max-bytes", 0, "SIZE", "1G", nullptr,
     "with --replay -, the most of standard input held in memory (it is read twice); past it "
     "the run is refused: give a larger SIZE, or the trace as a file (streamed)"},
    {kWorkload, "replay-wrap", 0, nullptr, nullptr, nullptr,
     "with --replay, fold offsets beyond the target round to its start instead of refusing the "
     "run",
     Kind::flag},
    {kWorkload, "seq-time", 0, "DURATION", nullptr, "until measured",
     "sequential phases run at least this long: after one whole pass over the files they "
     "start again, every byte written anew or verified, until DURATION has passed; by default "
     "until the figure can be quoted (1 s and 200 operations; one pass with --keep); 0: one "
     "pass"},
    {kWorkload, "iterations", 0, "N", "1", nullptr,
     "iterations; 0 = until interrupted or --duration"},
    {kWorkload, "duration", 0, "DURATION", nullptr, "off",
     "stop after this long (the phase in progress drains and is reported)"},
    {kWorkload, "phases", 0, "LIST", "seq-write,seq-read,random,reverify", nullptr,
     "subset of the phases, always run in this order; must include seq-write", Kind::value,
     "seq-write,seq-read,random,reverify"},
    {kWorkload, "seed", 0, "N", nullptr, "random, printed", "base seed, for reproducible data"},
    {kWorkload, "recreate", 0, nullptr, nullptr, nullptr,
     "delete and recreate the files every iteration", Kind::flag},
    {kWorkload, "buffered", 0, nullptr, nullptr, nullptr, "buffered I/O instead of O_DIRECT",
     Kind::flag},
    {kWorkload, "no-verify", 0, nullptr, nullptr, nullptr,
     "skip verification (pure throughput); drops reverify", Kind::flag},
    {kWorkload, "sqpoll", 0, nullptr, nullptr, nullptr,
     "io_uring: a kernel thread per worker polls for submissions (one busy core each)",
     Kind::flag},
    {kWorkload, "iopoll", 0, nullptr, nullptr, nullptr,
     "io_uring: poll the device for completions (needs O_DIRECT and a device with poll "
     "queues)", Kind::flag},
    {kWorkload, "wait", 0, "auto|sleep|spin[:US]", "auto", nullptr,
     "io_uring: how a worker waits for a completion: asleep in the kernel, or spinning on the "
     "completion ring up to US microseconds (default 50; its CPU busy meanwhile) first; auto "
     "spins at depth 4 or less where each worker has a CPU and one is left over (the header "
     "says which and why)"},
    {kWorkload, "cpus", 0, "LIST", nullptr, "any",
     "run worker i of the run (target by target) on CPU LIST[i % count] only, e.g. 0-3 or 2,4,6 (as "
     "fio's cpus_allowed split); default: any, or the target's NUMA node"},
    {kWorkload, "batch", 0, "N", "1", nullptr,
     "submit in batches of N SQEs: a batch goes to the kernel when N are prepared or "
     "nothing more can be (at most --qd); 1: what a refill prepares goes with its wait, "
     "a quarter of --qd at a time in phases that write"},

    {kDurable, "sync", 0, "none|osync|dsync|fsync|fdatasync", "none", nullptr,
     "durable writes in every write phase: osync/dsync put RWF_SYNC/RWF_DSYNC on every "
     "write; fsync/fdatasync flush after every --sync-every writes per worker"},
    {kDurable, "sync-every", 0, "N", "1", nullptr, "writes per flush, per worker (with --sync)"},
    {kDurable, "atomic", 0, nullptr, nullptr, nullptr,
     "every write of every phase carries RWF_ATOMIC (untorn: all old or all new after a crash; "
     "not durable by itself, see --sync), O_DIRECT; refused before any I/O where the target "
     "does not promise it for every write size (the header says what each target promises)",
     Kind::flag},
    {kDurable, "sync-compare", 0, nullptr, nullptr, nullptr,
     "instead of the phases, a table of every --sync method at 4K, 8K and 16K writes "
     "(2 s a row, or --rand-time / --rand-ops a row)", Kind::flag},

    {kResults, "json", 0, "PATH", nullptr, nullptr,
     "write the result document to PATH (- = stdout; the text report then goes to stderr)"},
    {kResults, "fio-json", 0, "PATH", nullptr, nullptr,
     "write the random phase as fio 3.33's --output-format=json+ document to PATH, for the "
     "tools that read fio's JSON (- = stdout; the text report then goes to stderr)"},
    {kResults, "timeseries", 0, "PATH", nullptr, nullptr,
     "write one JSON line per --interval per phase to PATH"},
    {kResults, "interval", 0, "DURATION", "1s", nullptr,
     "length of each --timeseries line, 100ms to 60s"},
    {kResults, "io-log", 0, "PATH", nullptr, nullptr,
     "write one line per operation of every phase to PATH: target, offset, length, when it "
     "was due, submitted and completed, its result and its verification (--replay reads it "
     "back)"},
    {kResults, "io-log-format", 0, "ndjson|fio", "ndjson", nullptr,
     "the format of --io-log: ndjson (one JSON object a line), or fio's iolog version 3 "
     "(fio --read_iolog replays it)"},
    {kResults, "prom", 0, "PATH", nullptr, nullptr,
     "write Prometheus metrics to PATH for node_exporter's textfile collector, rewritten "
     "atomically while the run goes on"},
    {kResults, "prom-interval", 0, "DURATION", "5s", nullptr,
     "how often --prom is rewritten while the run goes on (at least 100ms)"},
    {kResults, "prom-label", 0, "KEY=VALUE", nullptr, "none",
     "a label on every --prom metric, e.g. rack=r12 (repeatable)", Kind::repeated},
    {kResults, "iteration-detail", 0, "N", "0", nullptr,
     "--json: also keep the last N iterations' phases in full, histograms included (about "
     "450 KiB each); every iteration keeps its figures"},
    {kResults, "brief", 0, nullptr, nullptr, nullptr,
     "print only the result block: the figures people quote (sequential MiB/s, random IOPS "
     "and p99) on one line, and the verdict", Kind::flag},
    {kResults, "wide", 0, nullptr, nullptr, nullptr,
     "one line per phase and per figure, however long (by default a line longer than 100 "
     "columns continues on indented lines)", Kind::flag},
    {kResults, "units", 0, "iec|si", "iec", nullptr,
     "throughput in the text report: iec = MiB/s (2^20 bytes, as -s takes sizes), si = MB/s "
     "(10^6 bytes, as drive spec sheets state it); sizes stay binary, JSON is in bytes"},
    {kResults, "progress", 0, "auto|always|never", "auto", nullptr,
     "live status line on stderr (auto = when stderr is a terminal)"},
    {kResults, "latency-thresholds", 0, "LIST", "1ms,10ms,100ms", nullptr,
     "report the share of requests slower than each DURATION of LIST; the default separates "
     "SSDs (an SSD is never slower than 2 s), 'seed' is the seed tool's 2s,10s"},

    {kSweeps, "sweep", 0, "NAME=VALUES", nullptr, nullptr,
     "run the random phase once per value of qd, files or rand-block: a list (qd=1,4,16) "
     "or a range of powers of two (qd=1..256); or of rate (open loop): IOPS (rate=10k,20k) "
     "or % of the closed-loop IOPS measured first (rate=10%..100%, in steps of the first)"},
    {kSweeps, "find-rate", 0, "pNN<=DURATION", nullptr, "off",
     "find the highest rate (open loop) whose response-time percentile meets the bound "
     "(e.g. p99<=2ms): the closed-loop IOPS first, then up to 8 rates bisected below it, "
     "each a random phase of --rand-time (with --repeat: judged on the median)"},
    {kSweeps, "repeat", 0, "N", "1", nullptr,
     "run the measured work N times: the random phase (of a run, of each sweep point, of each "
     "preset test) and each --compare-backends row, interleaved; every figure is then a "
     "median with its spread and interval, and verdicts are named only outside the noise"},
    {kSweeps, "knee-gain", 0, "PCT", "5", nullptr,
     "sweep saturation point: the first point after which no later point adds PCT % more "
     "IOPS (MiB/s in a rand-block sweep) while p99 rises at the next"},
    {kSweeps, "steady-state", 0, "ROUND", nullptr, "off",
     "run the random phase in rounds of ROUND (SNIA PTS: 60s) until steady state: over the "
     "last --steady-window rounds, IOPS range <= 20 % and least-squares excursion <= 10 % "
     "of their mean; or until --steady-max-rounds"},
    {kSweeps, "steady-window", 0, "N", "5", nullptr,
     "--steady-state: rounds in the measurement window, 2 or more"},
    {kSweeps, "steady-max-rounds", 0, "N", "25", nullptr,
     "--steady-state: give up after N rounds (at least the window)"},
    {kSweeps, "sustained-write", 0, "N", nullptr, "off",
     "the seq-write phase writes the files N times over (1 to 1000), its throughput taken "
     "every --cliff-interval, and names the write cliff (where a cache fills and "
     "throughput drops)"},
    {kSweeps, "cliff-interval", 0, "DURATION", "1s", nullptr,
     "--sustained-write: length of a throughput interval (at least 200ms); a cliff must "
     "last 5 of them, a drop of 25 % or more"},
    {kSweeps, "cliff-recovery", 0, "IDLE", nullptr, "off",
     "--sustained-write: after a cliff, idle for IDLE, then write one more pass and say how "
     "much speed came back"},
    {kSweeps, "compare-backends", 0, nullptr, nullptr, nullptr,
     "run the workload on io_uring, then on sync with as many operations in flight (--qd "
     "threads per worker), same seed, and compare IOPS, latency, CPU, context switches and "
     "system calls per operation",
     Kind::flag},
    {kSweeps, "compare-atomic", 0, nullptr, nullptr, nullptr,
     "run the workload (random writes unless --read-pct says otherwise) with every write "
     "RWF_ATOMIC, then the same without, same seed, depth and sizes, and compare IOPS, p99 "
     "and CPU per operation: what atomic writes cost here",
     Kind::flag},
    {kSweeps, "compare-extra", 0, "LIST", nullptr, "off",
     "more --compare-backends rows: sync-qd1 (sync, one operation per worker, no thread pool), "
     "sqpoll (io_uring with --sqpoll)", Kind::value, "sync-qd1,sqpoll"},
    {kSweeps, "interference", 0, nullptr, nullptr, nullptr,
     "with --job-file: each job alone, then each group's jobs together (--repeat N: that "
     "sequence N times, alternated); each job's IOPS and p99 alone and together, the ratio, "
     "and the job that suffered most",
     Kind::flag},
    {kSweeps, "preset", 0, "NAME", nullptr, nullptr,
     "a named set of tests: quick, desktop, nvme, burn-in, database, nvme-endurance (listed "
     "below)"},

    {kPowerCut, "keep", 0, nullptr, nullptr, nullptr,
     "leave the files and a state file (TARGET/drivestress.state) on every exit, for "
     "--verify-only after a power cut", Kind::flag},
    {kPowerCut, "verify-only", 0, "STATE", nullptr, nullptr,
     "re-read the files of a --keep run and check that everything acknowledged as durable "
     "is there; only --json, --wide, --progress, --cleanup and --force combine with it"},
    {kPowerCut, "cleanup", 0, nullptr, nullptr, nullptr,
     "with --verify-only: remove the files and STATE when nothing was lost", Kind::flag},
    {kPowerCut, "force", 0, nullptr, nullptr, nullptr,
     "with --verify-only STATE --cleanup, for a STATE that cannot be read (a damaged state "
     "file): say what it will remove, then remove it and the files beside it that are this "
     "tool's and no other state file keeps, unverified (refused for another version's state "
     "file)",
     Kind::flag},

    {kRawDevice, "raw-device", 0, "DEV", nullptr, nullptr,
     "test a whole block device instead of files, split into --files regions (--size = "
     "region size); DESTROYS EVERYTHING ON IT (repeatable: one target each)",
     Kind::repeated},
    {kRawDevice, "destroy-data", 0, "DEV", nullptr, nullptr,
     "required with --raw-device: the same device again (one per --raw-device, in order)",
     Kind::repeated},

    {kInfo, "help", 'h', nullptr, nullptr, nullptr, "print this help and exit", Kind::action},
    {kInfo, "version", 'V', nullptr, nullptr, nullptr, "print the version and exit",
     Kind::action},

    {kAliases, "path", 0, "PATH", nullptr, nullptr,
     "TARGET, or a file-name prefix (files PATH<n>.dat)"},
    {kAliases, "size-mb", 0, "N", nullptr, nullptr, "size of each file in MiB"},
    {kAliases, "mixed-sec", 0, "N", nullptr, nullptr, "same as --rand-time, in whole seconds"},
    {kAliases, "no-direct", 0, nullptr, nullptr, nullptr, "same as --buffered", Kind::flag},
};
// clang-format on

const char kIntro[] =
    "Usage: drivestress [OPTIONS] [TARGET...]\n"
    "Write deterministic data to files on a drive, read it back, verify every byte,\n"
    "and report throughput, IOPS, latency percentiles and CPU cost.\n"
    "\n"
    "TARGET is an existing directory; files drivestress-<n>.dat are created in it\n"
    "(default: the current directory); several TARGETs are one run over all of them.\n"
    "--path PREFIX names a file-name prefix.\n"
    "SIZE takes K/M/G/T (binary: 1K = 1024) or plain bytes: 4K, 256M, 1G.\n"
    "DURATION takes us/ms/s/m/h; a plain number is seconds: 500ms, 10, 2m, 1h.\n"
    "N is a whole number, PCT a percentage, LIST values separated by commas.\n";

const char kExitStatus[] =
    "Exit status:\n"
    "  0       clean run: no mismatch, no I/O error, every result written\n"
    "  1       usage or setup error; nothing is left behind\n"
    "  2       data mismatch or I/O error (wins over every other code)\n"
    "  128+N   interrupted by signal N (130 SIGINT, 143 SIGTERM): files removed\n"
    "  With --verify-only: 0 everything acknowledged as durable is there, 2 a unit\n"
    "  was lost after acknowledgement, 1 a bad STATE.\n";

// "  -s, --size SIZE" or "      --backend auto|io_uring|sync"
std::string option_name(const OptionSpec& o) {
    std::string s = o.short_name ? std::string("  -") + o.short_name + ", " : std::string(6, ' ');
    s.append("--").append(o.name);
    if (o.metavar) s.append(" ").append(o.metavar);
    return s;
}

std::vector<std::string> words_of(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        words.push_back(w);
    return words;
}

std::string option_help(const OptionSpec& o) {
    std::vector<std::string> words = words_of(o.help);
    if (o.words) words.push_back(std::string("(words: ") + o.words + ")");  // one word too
    // "(default: 256M)" is one word: a default is never split across lines.
    if (const char* def = o.default_value ? o.default_value : o.shown_default)
        words.push_back(std::string("(default: ") + def + ")");
    std::string name = option_name(o);
    if (name.size() + 2 > kHelpColumn)  // the help starts on the next line
        return name.append("\n").append(
            wrap(std::string(kHelpColumn, ' '), words, kHelpWidth, kHelpColumn));
    name.resize(kHelpColumn, ' ');
    return wrap(name, words, kHelpWidth, kHelpColumn);
}

}  // namespace

std::span<const OptionSpec> option_specs() {
    return kSpecs;
}

po::options_description boost_options() {
    po::options_description all;
    for (const auto& o : kSpecs) {
        std::string names = o.name;
        if (o.short_name) names.append(",").push_back(o.short_name);
        po::value_semantic* semantic = nullptr;
        if (o.kind == Kind::value) {
            auto* v = po::value<std::string>();
            if (o.default_value) v->default_value(o.default_value);
            semantic = v;
        } else if (o.kind == Kind::repeated) {
            semantic = po::value<std::vector<std::string>>();
        } else if (o.kind == Kind::flag) {
            semantic = po::bool_switch();
        } else {
            semantic = new po::untyped_value(true);  // present or not, no value
        }
        all.add(boost::make_shared<po::option_description>(names.c_str(), semantic, o.help));
    }
    return all;
}

std::string wrap(const std::string& first, const std::vector<std::string>& words, std::size_t width,
                 std::size_t indent) {
    std::string out, line = first;
    bool line_has_words = false;
    for (const auto& w : words) {
        std::size_t sep = line.empty() || line.back() == ' ' ? 0 : 1;
        if (line_has_words && line.size() + sep + w.size() > width) {
            out.append(line).append("\n");
            line.assign(indent, ' ');
            sep = 0;
        }
        line.append(sep, ' ').append(w);
        line_has_words = true;
    }
    return out.append(line).append("\n");
}

std::string wrap(const std::string& first, const std::string& text, std::size_t width,
                 std::size_t indent) {
    return wrap(first, words_of(text), width, indent);
}

std::string help_text() {
    std::string out = kIntro;
    const char* section = nullptr;
    for (const auto& o : kSpecs) {
        if (!section || std::string_view(section) != o.section) {
            section = o.section;
            out.append("\n").append(section).append(":\n");
        }
        out += option_help(o);
    }
    out.append("\n").append(presets_help());
    out.append("\n").append(kExitStatus);
    return out;
}

}  // namespace ds::cli
