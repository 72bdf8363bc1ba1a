// fio 3.33's JSON+ layout (stat.c: show_thread_status_json,
// add_ddir_status_json, add_ddir_lat_json; json.c for the printing) filled
// from a job's PhaseResult.  Where drivestress measures what fio does, the
// figure is the same one; what it does not measure is said in
// docs/fio-json.md and written as fio writes a figure it did not collect.
#include "report/fio_json.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace ds::report {

using Json = nlohmann::ordered_json;

unsigned FioBins::index_of(std::uint64_t ns) {
    if (ns < 2 * kPerGroup) return static_cast<unsigned>(ns);  // 0..127: a bin each
    const unsigned msb = 63U - static_cast<unsigned>(__builtin_clzll(ns));
    const unsigned error_bits = msb - kBits;
    const unsigned base = (error_bits + 1) << kBits;
    const auto offset = static_cast<unsigned>((kPerGroup - 1) & (ns >> error_bits));
    return std::min(base + offset, kCount - 1);
}

std::uint64_t FioBins::value_of(unsigned index) {
    if (index < 2 * kPerGroup) return index;
    const unsigned error_bits = (index >> kBits) - 1;
    const std::uint64_t base = std::uint64_t{1} << (error_bits + kBits);
    const std::uint64_t k = index % kPerGroup;
    // fio: base + (k + 0.5) * (1 << error_bits), truncated to an integer.
    return base + ((2 * k + 1) << error_bits) / 2;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> fio_bins(const stats::LatencyHistogram& h) {
    using H = stats::LatencyHistogram;
    std::vector<std::uint64_t> counts(FioBins::kCount, 0);
    for (std::size_t i = 0; i < H::kBucketCount; ++i)
        if (const std::uint64_t n = h.bucket_count(i))
            counts[FioBins::index_of(H::bucket_lower(i))] += n;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (unsigned b = 0; b < FioBins::kCount; ++b)
        if (counts[b]) out.emplace_back(FioBins::value_of(b), counts[b]);
    return out;
}

namespace {

// A bucket's value where one value stands for it: its middle, within the
// latencies seen (as LatencyHistogram::value_at_percentile reports it).
std::uint64_t bucket_value(const stats::LatencyHistogram& h, std::size_t i) {
    using H = stats::LatencyHistogram;
    return std::clamp(H::bucket_lower(i) + H::bucket_width(i) / 2, h.min(), h.max());
}

// The histogram does not keep the sum of squares: the standard deviation
// (fio's: of the sample, n - 1) is taken from the buckets' values, each
// within kRelativeError of the latencies it stands for.
double stddev(const stats::LatencyHistogram& h) {
    if (h.count() < 2) return 0;
    const double mean = h.mean();
    double squares = 0;
    for (std::size_t i = 0; i < stats::LatencyHistogram::kBucketCount; ++i)
        if (const std::uint64_t n = h.bucket_count(i)) {
            const double d = static_cast<double>(bucket_value(h, i)) - mean;
            squares += static_cast<double>(n) * d * d;
        }
    return std::sqrt(squares / static_cast<double>(h.count() - 1));
}

std::string percent_key(double p) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", p);  // fio: "99.900000"
    return key;
}

// fio's add_ddir_lat_json: min, max, mean, stddev and N always; with
// `detail` and samples, the percentiles and (JSON+) the bins.
Json latency_json(const stats::LatencyHistogram& h, bool detail) {
    Json j;
    j["min"] = h.min();
    j["max"] = h.max();
    j["mean"] = h.mean();
    j["stddev"] = stddev(h);
    j["N"] = h.count();
    if (!detail || h.count() == 0) return j;
    Json pct = Json::object();
    for (double p : kFioPercentiles)
        pct[percent_key(p)] = h.value_at_percentile(p);
    j["percentile"] = pct;
    Json bins = Json::object();
    for (const auto& [value, count] : fio_bins(h))
        bins[std::to_string(value)] = count;
    j["bins"] = bins;
    return j;
}

// fio samples bandwidth and IOPS over 500 ms (bwavgtime, iopsavgtime).
// drivestress keeps a phase's completions in slices (ThroughputSeries), of
// reads and writes together: a sample is the slices of 500 ms (or one
// slice, when they are longer), this direction's share of them its share
// of the phase's total (`share`).
std::vector<double> rate_samples(const model::ThroughputSeries& s, bool bytes, double share) {
    constexpr std::uint64_t kSampleNs = 500'000'000;
    const std::uint64_t per = std::max<std::uint64_t>(1, kSampleNs / s.slice_ns);
    const std::vector<std::uint64_t>& counts = bytes ? s.bytes : s.ops;
    const double seconds = s.slice_seconds() * static_cast<double>(per);
    std::vector<double> out;
    for (std::size_t i = 0; i + per <= counts.size(); i += per) {
        std::uint64_t sum = 0;
        for (std::size_t k = i; k < i + per; ++k)
            sum += counts[k];
        out.push_back(static_cast<double>(sum) * share / seconds);
    }
    return out;
}

struct SampleFigures {
    double min = 0, max = 0, mean = 0, dev = 0;
    std::size_t n = 0;
};

SampleFigures sample_figures(const std::vector<double>& v) {
    SampleFigures f;
    f.n = v.size();
    if (v.empty()) return f;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    f.min = *lo;
    f.max = *hi;
    double sum = 0;
    for (double x : v)
        sum += x;
    f.mean = sum / static_cast<double>(v.size());
    double squares = 0;
    for (double x : v)
        squares += (x - f.mean) * (x - f.mean);
    if (v.size() > 1) f.dev = std::sqrt(squares / static_cast<double>(v.size() - 1));
    return f;
}

// One direction of a job: what it moved and how long each took.
struct Direction {
    const char* name;
    std::uint64_t ops = 0, bytes = 0;
    const stats::LatencyHistogram* clat;  // service time: submission to completion
    const stats::LatencyHistogram* lat;   // response time (= clat in a closed loop)
};

// bw_* (KiB/s) and iops_* from the phase's samples; bw_agg as fio's
// convert_agg_kbytes_percent against the group (this job alone).
void add_samples(Json& j, const model::PhaseResult& p, const Direction& d) {
    const auto& c = p.counters;
    const std::uint64_t all_ops = c.read_ops + c.write_ops,
                        all_bytes = c.read_bytes + c.write_bytes;
    const double op_share = all_ops ? static_cast<double>(d.ops) / all_ops : 0;
    const double byte_share = all_bytes ? static_cast<double>(d.bytes) / all_bytes : 0;
    // A direction that moved nothing has no samples, as in fio.
    std::vector<double> bw, iops;
    if (d.ops) {
        bw = rate_samples(p.series, true, byte_share);
        iops = rate_samples(p.series, false, op_share);
    }
    for (double& x : bw)
        x /= 1024;
    const SampleFigures b = sample_figures(bw);
    const SampleFigures i = sample_figures(iops);
    const double agg_kib = p.seconds > 0 ? static_cast<double>(d.bytes) / p.seconds / 1024 : 0;
    double agg = b.n ? 100.0 : 0.0;
    if (b.n && agg_kib > 1) agg = std::min(100.0, b.mean * 100 / agg_kib);
    j["bw_min"] = static_cast<std::uint64_t>(std::llround(b.min));
    j["bw_max"] = static_cast<std::uint64_t>(std::llround(b.max));
    j["bw_agg"] = agg;
    j["bw_mean"] = b.mean;
    j["bw_dev"] = b.dev;
    j["bw_samples"] = b.n;
    j["iops_min"] = static_cast<std::uint64_t>(std::llround(i.min));
    j["iops_max"] = static_cast<std::uint64_t>(std::llround(i.max));
    j["iops_mean"] = i.mean;
    j["iops_stddev"] = i.dev;
    j["iops_samples"] = i.n;
}

// fio's add_ddir_status_json for read, write or trim.
Json direction_json(const model::PhaseResult& p, const Direction& d) {
    const double s = p.seconds;
    const bool moved = d.ops > 0 && s > 0;
    const std::uint64_t bw_bytes =
        moved ? static_cast<std::uint64_t>(static_cast<double>(d.bytes) / s) : 0;
    Json j;
    j["io_bytes"] = d.bytes;
    j["io_kbytes"] = d.bytes >> 10;
    j["bw_bytes"] = bw_bytes;
    j["bw"] = bw_bytes / 1024;
    j["iops"] = moved ? static_cast<double>(d.ops) / s : 0.0;
    j["runtime"] = moved ? static_cast<std::uint64_t>(std::llround(s * 1000)) : 0;
    j["total_ios"] = d.ops;
    j["short_ios"] = 0;  // a short transfer is resumed; the rest completes it
    j["drop_ios"] = 0;
    j["slat_ns"] = latency_json(stats::LatencyHistogram{}, false);  // not measured apart
    j["clat_ns"] = latency_json(*d.clat, true);
    j["lat_ns"] = latency_json(*d.lat, true);
    add_samples(j, p, d);
    return j;
}

// fio's io_u_mark_latency: the share of operations (reads, writes and
// trims; service time) in each range, percent, each range named by its
// upper end; a range with any operation shows at least 0.01.
constexpr const char* kRangeKeys[] = {"2",   "4",   "10",  "20",   "50",   "100",
                                      "250", "500", "750", "1000", "2000", ">=2000"};
constexpr std::uint64_t kRangeEnds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};

// Which range of which scale (0 ns, 1 us, 2 ms) a latency falls in.
std::pair<int, int> range_of(std::uint64_t ns) {
    const int scale = ns < 1000 ? 0 : ns < 1'000'000 ? 1 : 2;
    const std::uint64_t v = scale == 0 ? ns : scale == 1 ? ns / 1000 : ns / 1'000'000;
    const int last = scale == 2 ? 11 : 9;
    for (int i = 0; i < last; ++i)
        if (v < kRangeEnds[i]) return {scale, i};
    return {scale, last};
}

void add_latency_ranges(Json& job, const stats::LatencyHistogram& all) {
    std::uint64_t counts[3][12] = {};
    // A bucket that spans a range's end counts where its value lies.
    for (std::size_t i = 0; i < stats::LatencyHistogram::kBucketCount; ++i)
        if (const std::uint64_t n = all.bucket_count(i)) {
            const auto [scale, range] = range_of(bucket_value(all, i));
            counts[scale][range] += n;
        }
    const char* names[] = {"latency_ns", "latency_us", "latency_ms"};
    for (int scale = 0; scale < 3; ++scale) {
        Json j;
        for (int r = 0; r < (scale == 2 ? 12 : 10); ++r) {
            double pct = all.count() ? 100.0 * counts[scale][r] / all.count() : 0.0;
            if (counts[scale][r] && pct < 0.01) pct = 0.01;
            j[kRangeKeys[r]] = pct;
        }
        job[names[scale]] = j;
    }
}

// fio's io_u_map levels: all of a closed loop's operations at its depth.
Json depth_levels(unsigned depth, bool any_ops) {
    const char* keys[] = {"1", "2", "4", "8", "16", "32", ">=64"};
    const unsigned level =
        depth == 0 ? 7 : std::min(6U, 31U - static_cast<unsigned>(__builtin_clz(depth)));
    Json j;
    for (unsigned i = 0; i < 7; ++i)
        j[keys[i]] = any_ops && i == level ? 100.0 : 0.0;
    return j;
}

Json options_json(const std::vector<std::pair<std::string, std::string>>& options) {
    Json j = Json::object();
    for (const auto& [key, value] : options)
        j[key] = value;
    return j;
}

// A phase issued on a schedule has response times (--rate, --replay at a
// pace); any other's response time is its service time.
const stats::LatencyHistogram& response_or(const model::PhaseCounters& c, std::size_t direction,
                                           const stats::LatencyHistogram& service) {
    const bool scheduled = !c.response_by_direction.empty() && c.response_latency.count() > 0;
    return scheduled ? c.response_by_direction[direction] : service;
}

// The job's CPU (the process's during the phase) as fio's per-thread
// shares summed over the copies: usr_cpu = user time / (copies x runtime).
void add_cpu(Json& j, const FioJob& job) {
    const model::PhaseResult& p = *job.phase;
    const double runtime_s = p.seconds * std::max(1U, job.copies);
    j["job_runtime"] = static_cast<std::uint64_t>(std::llround(runtime_s * 1000));
    j["usr_cpu"] = runtime_s > 0 ? 100 * p.cpu.user_s / runtime_s : 0.0;
    j["sys_cpu"] = runtime_s > 0 ? 100 * p.cpu.system_s / runtime_s : 0.0;
    j["ctx"] = p.cpu.context_switches;
    j["majf"] = 0;  // page faults are not counted
    j["minf"] = 0;
}

Json job_json(const FioJob& job) {
    using C = model::PhaseCounters;
    const model::PhaseResult& p = *job.phase;
    const C& c = p.counters;
    Json j;
    j["jobname"] = job.name;
    j["groupid"] = job.group;
    j["error"] = job.error;
    j["eta"] = 0;
    j["elapsed"] = static_cast<std::uint64_t>(std::llround(job.elapsed_s));
    if (!job.options.empty()) j["job options"] = options_json(job.options);
    const Direction dirs[] = {{"read", c.read_ops, c.read_bytes, &c.read_latency,
                               &response_or(c, C::kResponseRead, c.read_latency)},
                              {"write", c.write_ops, c.write_bytes, &c.write_latency,
                               &response_or(c, C::kResponseWrite, c.write_latency)},
                              {"trim", c.trim_ops, c.trim_bytes, &c.trim_latency,
                               &response_or(c, C::kResponseTrim, c.trim_latency)}};
    for (const Direction& d : dirs)
        j[d.name] = direction_json(p, d);
    j["sync"] = {{"total_ios", c.flush_ops}, {"lat_ns", latency_json(c.flush_latency, true)}};
    add_cpu(j, job);
    stats::LatencyHistogram all = c.read_latency;
    all.merge(c.write_latency);
    all.merge(c.trim_latency);
    j["iodepth_level"] = depth_levels(job.depth, all.count() > 0);
    add_latency_ranges(j, all);
    if (!job.desc.empty()) j["desc"] = job.desc;
    return j;
}

// fio's json.c: `"key" : value`, two spaces a level, floats "%f".
void print(const Json& v, int level, std::string& out) {
    const std::string indent(2 * static_cast<std::size_t>(level + 1), ' ');
    const std::string closing(2 * static_cast<std::size_t>(level), ' ');
    char num[64];
    switch (v.type()) {
        case Json::value_t::object:
        case Json::value_t::array: {
            const bool object = v.is_object();
            out += object ? "{\n" : "[\n";
            bool first = true;
            for (auto it = v.begin(); it != v.end(); ++it) {
                out += first ? indent : ",\n" + indent;
                first = false;
                if (object)
                    out +=
                        Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + " : ";
                print(*it, level + 1, out);
            }
            out += "\n" + closing + (object ? "}" : "]");
            return;
        }
        case Json::value_t::number_float: {
            const double d = v.get<double>();
            std::snprintf(num, sizeof num, "%f", std::isfinite(d) ? d : 0.0);
            out += num;
            return;
        }
        default:
            out += v.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
}

}  // namespace

Json fio_jsonplus(const FioDocument& d) {
    Json doc;
    doc["fio version"] = d.version;
    doc["timestamp"] = d.end_ms / 1000;
    doc["timestamp_ms"] = d.end_ms;
    doc["time"] = d.time;
    if (!d.global_options.empty()) doc["global options"] = options_json(d.global_options);
    Json jobs = Json::array();
    for (const FioJob& job : d.jobs)
        jobs.push_back(job_json(job));
    doc["jobs"] = jobs;
    doc["disk_util"] = Json::array();  // no disk statistics are read
    return doc;
}

std::string fio_jsonplus_text(const FioDocument& d) {
    std::string out;
    print(fio_jsonplus(d), 0, out);
    out += '\n';
    return out;
}

}  // namespace ds::report
